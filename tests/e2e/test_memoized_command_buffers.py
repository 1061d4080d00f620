"""Memoized command buffers (issue 9): static work is recorded once, in the initializer, and
replayed per call with the call's buffers as the binding table; dynamic work records per call."""
import threading

import numpy as np
import pytest

import rt
from rt.runtime.hal import CommandBuffer

DEVICES = {"llvm-cpu": "local-sync://llvm-cpu", "vmvx": "local-task://vmvx"}

STATIC = """
func.func @mlp(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %v: tensor<16x3xf32>) -> tensor<4x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %h = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<4x3xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %y = linalg.matmul ins(%r, %v : tensor<4x16xf32>, tensor<16x3xf32>) outs(%f2 : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = arith.addf %a, %b : tensor<?xf32>
  return %r : tensor<?xf32>
}
"""


def _expected(x, w, v):
    return np.maximum(x @ w, 0) @ v


def _memoized(module):
    """The module's memoized command buffers (ref globals named __command_buffer_*)."""
    refs = module.context.module_state(module.module.name).ref_globals()
    names = [name for name, _ in module.module.globals["ref"]]
    return [refs[k] for k, name in enumerate(names) if name.startswith("__command_buffer_")]


@pytest.fixture(scope="module", params=sorted(DEVICES))
def module(request):
    with rt.load(rt.compile(STATIC, devices=[request.param]), devices=[DEVICES[request.param]]) as m:
        yield m


def test_static_work_is_recorded_once_and_replayed_with_each_calls_buffers(module):
    rng = np.random.default_rng(0)
    (cb,) = _memoized(module)
    assert isinstance(cb, CommandBuffer) and cb.binding_capacity >= 3
    before = cb.submitted
    for call in range(5):
        x, w, v = (rng.standard_normal(s).astype(np.float32) for s in ((4, 8), (8, 16), (16, 3)))
        np.testing.assert_allclose(module.mlp(x, w, v), _expected(x, w, v), rtol=1e-5, atol=1e-5)
    assert _memoized(module) == [cb] and cb.submitted == before + 5


def test_dynamic_shapes_record_per_call(module):
    for n in (3, 17, 1):
        a, b = np.arange(n, dtype=np.float32), np.full(n, 2.0, np.float32)
        np.testing.assert_array_equal(module.add(a, b), a + b)
    assert len(_memoized(module)) == 1  # only @mlp's


def test_device_arrays_and_threads_share_the_memoized_command_buffer(module):
    rng = np.random.default_rng(1)
    w, v = rng.standard_normal((8, 16)).astype(np.float32), rng.standard_normal((16, 3)).astype(np.float32)
    on_device = module.to_device(w)
    errors = []

    def work(k):
        try:
            x = np.full((4, 8), k + 1, np.float32)
            for _ in range(20):
                np.testing.assert_allclose(module.mlp(x, on_device, v), _expected(x, w, v), rtol=1e-5, atol=1e-4)
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


DIVIDE = """func.func @divide(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %q = arith.divsi %a, %b : tensor<4xi32>
  return %q : tensor<4xi32>
}
"""


def test_a_failing_replayed_dispatch_names_its_op_in_the_called_function(tmp_path):
    # Recorded in the initializer, the dispatch fails when @divide replays it: the error names
    # the op's location and @divide (not the initializer), as a per-call recording would.
    src = tmp_path / "div.mlir"
    src.write_text(DIVIDE)
    with rt.load(rt.compile(src, devices=["vmvx"]), devices=["local-sync://vmvx"]) as m:
        assert len(_memoized(m)) == 1
        a = np.array([4, 6, 8, 9], np.int32)
        np.testing.assert_array_equal(m.divide(a, np.array([2, 3, 4, 3], np.int32)), [2, 2, 2, 3])
        with pytest.raises(rt.RtError, match=r"recorded at \S*div\.mlir:2:8 in @divide\).*division by zero"):
            m.divide(a, np.array([1, 0, 1, 1], np.int32))
