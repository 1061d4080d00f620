"""The C call path of rt.load functions (rt._call): what it imports without a copy, what it
leaves to the checked Python path, result wrapping, and concurrent callers (issue 9)."""
import re
import threading

import numpy as np
import pytest

import rt
from rt.runtime.errors import InvalidArgumentError

SOURCE = """
func.func @axpy(%a: f32, %x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %a, %p : f32
    %s = arith.addf %m, %q : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @scale(%x: tensor<4x3xi32>, %k: i32) -> (tensor<4x3xi32>, i1) {
  %b = tensor.empty() : tensor<4x3xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x3xi32>) outs(%b : tensor<4x3xi32>) {
  ^bb0(%p: i32, %o: i32):
    %m = arith.muli %p, %k : i32
    linalg.yield %m : i32
  } -> tensor<4x3xi32>
  %c0 = arith.constant 0 : i32
  %pos = arith.cmpi sgt, %k, %c0 : i32
  return %r, %pos : tensor<4x3xi32>, i1
}
"""

DEVICES = {"llvm-cpu": "local-sync://llvm-cpu", "vmvx": "local-task://vmvx"}


@pytest.fixture(scope="module", params=sorted(DEVICES))
def module(request):
    vmfb = rt.compile(SOURCE, devices=[request.param])
    with rt.load(vmfb, devices=[DEVICES[request.param]]) as m:
        yield m


def test_plain_arrays_scalars_and_dynamic_shapes(module):
    for n in (1, 7, 64):
        x, y = np.arange(n, dtype=np.float32), np.full(n, 0.5, np.float32)
        out = module.axpy(2.0, x, y)
        np.testing.assert_array_equal(out, 2.0 * x + y)
        assert out.dtype == np.float32 and out.shape == (n,)
    x = np.arange(12, dtype=np.int32).reshape(4, 3)
    r, positive = module.scale(x, -3)
    np.testing.assert_array_equal(r, x * -3)
    assert positive is False and module.scale(x, 2)[1] is True


def test_arguments_the_c_path_leaves_to_the_checked_path(module):
    base = np.arange(16, dtype=np.float32)
    strided, y = base[::2], np.ones(8, np.float32)
    np.testing.assert_array_equal(module.axpy(1.0, strided, y), strided + 1.0)  # not contiguous
    readonly = np.arange(8, dtype=np.float32)
    readonly.flags.writeable = False
    np.testing.assert_array_equal(module.axpy(1.0, readonly, y), readonly + 1.0)  # read-only: copied
    np.testing.assert_array_equal(module.axpy(3, [1, 2], [0, 0]), [3.0, 6.0])  # int scalar, lists
    np.testing.assert_array_equal(module.axpy(np.float32(1), y, y), 2 * y)  # numpy scalar
    swapped = np.arange(12, dtype=">i4").reshape(4, 3)
    np.testing.assert_array_equal(module.scale(swapped, 2)[0], np.arange(12).reshape(4, 3) * 2)
    np.testing.assert_array_equal(module.scale(np.ones((4, 3), np.uint32), 5)[0], np.full((4, 3), 5))


@pytest.mark.parametrize("call, message", [
    (lambda m: m.axpy(1.0, np.ones(4, np.float64), np.ones(4, np.float32)),
     "input 1 of @axpy: expected tensor<?xf32>, got 4xf64"),
    (lambda m: m.scale(np.ones((3, 4), np.int32), 1), "input 0 of @scale: expected tensor<4x3xi32>, got"),
    (lambda m: m.scale(np.ones((4, 3), np.int32), 1 << 40), "does not fit i32"),
    (lambda m: m.scale(np.ones((4, 3), np.int32), 1.5), "input 1 of @scale: expected i32, got float"),
    (lambda m: m.axpy(np.ones(2, np.float32), np.ones(2, np.float32), np.ones(2, np.float32)),
     "input 0 of @axpy: expected f32"),
    (lambda m: m.axpy(1.0, np.ones(2, np.float32)), "@axpy takes 3 input(s)"),
])
def test_bad_arguments_keep_their_messages(module, call, message):
    with pytest.raises(InvalidArgumentError, match=re.escape(message)):
        call(module)


def test_results_are_fresh_arrays_or_device_arrays(module):
    x = np.arange(5, dtype=np.float32)
    out = module.axpy(1.0, x, x)
    assert not np.shares_memory(out, x) and out.flags.writeable
    out[0] = 99.0  # the caller owns it: the next call does not see it
    np.testing.assert_array_equal(module.axpy(1.0, x, x), 2 * x)
    on_device = module.axpy(1.0, x, x, to_host=False)
    assert isinstance(on_device, rt.DeviceArray)
    np.testing.assert_array_equal(module.axpy(1.0, on_device, x), 3 * x)  # chained on device
    prepared = module.axpy.prepare(2.0, x, x)
    for _ in range(3):
        np.testing.assert_array_equal(module.axpy.convert_results(module.axpy.invoke(prepared), prepared),
                                      3 * x)


@pytest.mark.parametrize("driver", ["local-sync", "local-task"])
def test_threads_calling_one_module_and_two_modules_on_one_device(driver):
    device = rt.runtime.hal.create_device(f"{driver}://llvm-cpu")
    vmfb = rt.compile(SOURCE, devices=["llvm-cpu"])
    errors, results = [], {}
    with rt.load(vmfb, devices=[device]) as one, rt.load(vmfb, devices=[device]) as two:
        def work(module, k):
            try:
                x = np.full(33 + k, k, np.float32)
                for i in range(40):
                    out = module.axpy(float(i), x, x)
                    if not np.array_equal(out, (i + 1.0) * x):
                        raise AssertionError(f"thread {k} call {i}: {out[:3]}")
                results[k] = True
            except BaseException as e:  # reported below, with the thread's index
                errors.append(e)

        threads = [threading.Thread(target=work, args=(one if k % 2 else two, k)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors
    assert sorted(results) == [0, 1, 2, 3]
