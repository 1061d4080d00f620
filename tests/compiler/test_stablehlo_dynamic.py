"""StableHLO with symbolic dimensions, as ``jax.export`` writes it
(passes/input/stablehlo_legalize_shape_computations.py): one module runs every batch size on
both devices and matches numpy; JAX's shape assertions fail a call with JAX's message; what rt
does not convert is a located CompileError."""
import numpy as np
import pytest

import rt
from rt.runtime.errors import CompileError, RtError

DEVICES = ["local-task://llvm-cpu", "local-sync://vmvx"]

#: ``jax.export.export(jax.jit(lambda x, w: jnp.tanh(x @ w + 1.0).reshape(-1)))`` for x of shape
#: (b, 8): JAX's wrapper asserts b >= 1 and passes b to the body, which rebuilds shapes from it
EXPORTED_DENSE = """
#loc = loc(unknown)
#loc1 = loc("model.py":4:8 to :29)
module @jit_f attributes {jax.uses_shape_polymorphism = true} {
  func.func public @main(%arg0: tensor<?x8xf32> loc(unknown), %arg1: tensor<8x4xf32>) -> (tensor<?xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x8xf32>) -> tensor<i32> loc(#loc2)
    %1 = stablehlo.compare GE, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%1, %0) {api_version = 2 : i32, error_message = "Expected value >= 1 for dimension variable 'b' (= {0})", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
    %2 = call @_wrapped_jax_export_main(%0, %arg0, %arg1) : (tensor<i32>, tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?xf32>
    return %2 : tensor<?xf32> loc(#loc)
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i32> {jax.global_constant = "b"}, %arg1: tensor<?x8xf32>, %arg2: tensor<8x4xf32>) -> tensor<?xf32> {
    %c_4 = stablehlo.constant dense<4> : tensor<1xi32>
    %c_i4 = stablehlo.constant dense<4> : tensor<i32>
    %one = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.dot_general %arg1, %arg2, contracting_dims = [1] x [0] : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32> loc(#loc1)
    %1 = stablehlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
    %2 = stablehlo.concatenate %1, %c_4, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %3 = stablehlo.dynamic_broadcast_in_dim %one, %2, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x4xf32>
    %4 = stablehlo.add %0, %3 : tensor<?x4xf32>
    %5 = stablehlo.tanh %4 : tensor<?x4xf32>
    %6 = stablehlo.multiply %arg0, %c_i4 : tensor<i32>
    %7 = stablehlo.reshape %6 : (tensor<i32>) -> tensor<1xi32>
    %8 = stablehlo.dynamic_reshape %5, %7 : (tensor<?x4xf32>, tensor<1xi32>) -> tensor<?xf32>
    return %8 : tensor<?xf32>
  }
}
#loc2 = loc("dimension_size")
"""


@pytest.mark.parametrize("device", DEVICES)
def test_one_exported_module_runs_every_batch_size(device):
    module = rt.load(rt.compile(EXPORTED_DENSE, devices=[device.split("://")[1]]), devices=[device])
    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 4)).astype(np.float32)
    for batch in (5, 1, 16):
        x = rng.standard_normal((batch, 8)).astype(np.float32)
        np.testing.assert_allclose(np.asarray(module.main(x, w)), np.tanh(x @ w + 1.0).reshape(-1), rtol=1e-5,
                                   atol=1e-6)


def test_a_broken_shape_assertion_fails_the_call_with_jax_message():
    module = rt.load(rt.compile(EXPORTED_DENSE, devices=["llvm-cpu"]), devices=["local-task://llvm-cpu"])
    with pytest.raises(RtError, match=r"Expected value >= 1 for dimension variable 'b' \(= \?\)"):
        module.main(np.zeros((0, 8), np.float32), np.zeros((8, 4), np.float32))


#: iota over a symbolic dim, x[1:] - x[:-1] as JAX slices a symbolic dim (dynamic_gather with
#: run-time slice sizes), a pad of a dynamic tensor, an embedding take with a dynamic count, a
#: 0-d predicate select and a sort whose comparator uses its function's constants
EXPORTED_OPS = """
func.func @main(%x: tensor<?xf32>, %table: tensor<10x4xf32>, %ids: tensor<?x1xi32>, %p: tensor<i1>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x4xf32>, tensor<?xf32>, tensor<?xf32>) {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %iota = stablehlo.dynamic_iota %n1, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>
  %with_iota = stablehlo.add %x, %iota : tensor<?xf32>
  %minus1 = stablehlo.constant dense<-1> : tensor<i32>
  %zero_i = stablehlo.constant dense<0> : tensor<1xi32>
  %one_i = stablehlo.constant dense<1> : tensor<1xi32>
  %m = stablehlo.add %n, %minus1 : tensor<i32>
  %m1 = stablehlo.reshape %m : (tensor<i32>) -> tensor<1xi32>
  %tail = "stablehlo.dynamic_gather"(%x, %one_i, %m1) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], start_index_map = [0]>, indices_are_sorted = true}> : (tensor<?xf32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  %head = "stablehlo.dynamic_gather"(%x, %zero_i, %m1) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], start_index_map = [0]>, indices_are_sorted = true}> : (tensor<?xf32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  %diff = stablehlo.subtract %tail, %head : tensor<?xf32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %padded = stablehlo.pad %x, %zero, low = [1], high = [2], interior = [0] : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %rows = "stablehlo.gather"(%table, %ids) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>}> : (tensor<10x4xf32>, tensor<?x1xi32>) -> tensor<?x4xf32>
  %chosen = stablehlo.select %p, %x, %iota : tensor<i1>, tensor<?xf32>
  %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  %sorted = "stablehlo.sort"(%x) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %a_nan = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %a2 = stablehlo.select %a_nan, %nan, %a : tensor<i1>, tensor<f32>
    %lt = stablehlo.compare LT, %a2, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<?xf32>) -> tensor<?xf32>
  return %with_iota, %diff, %padded, %rows, %chosen, %sorted : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x4xf32>, tensor<?xf32>, tensor<?xf32>
}
"""


@pytest.mark.parametrize("device", DEVICES)
def test_dynamic_iota_slice_pad_gather_select_and_sort(device):
    module = rt.load(rt.compile(EXPORTED_OPS, devices=[device.split("://")[1]]), devices=[device])
    rng = np.random.default_rng(1)
    table = rng.standard_normal((10, 4)).astype(np.float32)
    for n, k in ((6, 3), (2, 5)):
        x = rng.standard_normal(n).astype(np.float32)
        ids = rng.integers(0, 10, (k, 1)).astype(np.int32)
        results = [np.asarray(r) for r in module.main(x, table, ids, np.array(False))]
        expected = [x + np.arange(n), x[1:] - x[:-1], np.pad(x, (1, 2)), table[ids[:, 0]], np.arange(n, dtype=np.float32),
                    np.sort(x)]
        for got, want in zip(results, expected):
            np.testing.assert_allclose(got, want, rtol=1e-6)


#: ``x[:, ::2]`` for x of shape (b, 6): a gather of columns 0, 2, 4 whose slice keeps the whole
#: symbolic dim (``slice_sizes = [b, 1]``)
EXPORTED_STRIDED = """
func.func @main(%x: tensor<?x6xf32>) -> tensor<?x3xf32> {
  %cols = stablehlo.constant dense<[[0], [2], [4]]> : tensor<3x1xi32>
  %one = stablehlo.constant dense<1> : tensor<1xi32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x6xf32>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %sizes = stablehlo.concatenate %n1, %one, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %0 = "stablehlo.dynamic_gather"(%x, %cols, %sizes) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = true}> : (tensor<?x6xf32>, tensor<3x1xi32>, tensor<2xi32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
"""


@pytest.mark.parametrize("device", DEVICES)
def test_a_strided_slice_of_a_symbolic_dim(device):
    module = rt.load(rt.compile(EXPORTED_STRIDED, devices=[device.split("://")[1]]), devices=[device])
    for n in (4, 1):
        x = np.arange(n * 6, dtype=np.float32).reshape(n, 6)
        np.testing.assert_array_equal(np.asarray(module.main(x)), x[:, ::2])


def test_a_dynamic_gather_rt_does_not_convert_is_located():
    text = """
func.func @main(%x: tensor<?x6xf32>, %i: tensor<3x1xi32>, %s: tensor<2xi32>) -> tensor<?x3xf32> {
  %0 = "stablehlo.dynamic_gather"(%x, %i, %s) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>}> : (tensor<?x6xf32>, tensor<3x1xi32>, tensor<2xi32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
"""
    with pytest.raises(CompileError, match="slice size 1 is known only at run time but dim 1 is indexed") as info:
        rt.compile(text, devices=["vmvx"])
    assert info.value.line == 3


#: a conv + max pool over a symbolic batch, in a private function taking the dynamic tensor
#: (as jax.export wraps its model): rt inlines the call and sizes the windows' batch at run time
EXPORTED_CONV = """
func.func @main(%x: tensor<?x6x6x2xf32>, %k: tensor<3x3x2x4xf32>) -> tensor<?x3x3x4xf32> {
  %0 = call @_wrapped(%x, %k) : (tensor<?x6x6x2xf32>, tensor<3x3x2x4xf32>) -> tensor<?x3x3x4xf32>
  return %0 : tensor<?x3x3x4xf32>
}
func.func private @_wrapped(%x: tensor<?x6x6x2xf32>, %k: tensor<3x3x2x4xf32>) -> tensor<?x3x3x4xf32> {
  %y = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x6x6x2xf32>, tensor<3x3x2x4xf32>) -> tensor<?x6x6x4xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %p = "stablehlo.reduce_window"(%y, %ninf) <{window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<?x6x6x4xf32>, tensor<f32>) -> tensor<?x3x3x4xf32>
  return %p : tensor<?x3x3x4xf32>
}
"""


def _conv_pool(x, k):
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    y = np.zeros(x.shape[:3] + (k.shape[3],), np.float32)
    for i in range(3):
        for j in range(3):
            y += padded[:, i:i + 6, j:j + 6, :] @ k[i, j]
    return y.reshape(x.shape[0], 3, 2, 3, 2, -1).max(axis=(2, 4))


@pytest.mark.parametrize("device", DEVICES)
def test_convolution_and_pooling_over_a_symbolic_batch(device):
    module = rt.load(rt.compile(EXPORTED_CONV, devices=[device.split("://")[1]]), devices=[device])
    rng = np.random.default_rng(2)
    k = rng.standard_normal((3, 3, 2, 4)).astype(np.float32)
    for batch in (3, 1):
        x = rng.standard_normal((batch, 6, 6, 2)).astype(np.float32)
        np.testing.assert_allclose(np.asarray(module.main(x, k)), _conv_pool(x, k), rtol=1e-5, atol=1e-5)


#: a scan over a dynamic length (what ``lax.scan`` over a symbolic dim becomes): each step's
#: row, computed by a dispatch, is inserted into the loop-carried tensor<?x4xf32> at offsets the
#: compiler cannot prove zero; the dispatch's result size is the carried tensor's, not its own
SCAN_INSERT = """
func.func @main(%d: tensor<?x2x4xf32>, %u: tensor<1x2x4xf32>) -> tensor<?x2x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %d, %c0 : tensor<?x2x4xf32>
  %r:2 = scf.while (%i = %c0, %acc = %d) : (index, tensor<?x2x4xf32>) -> (index, tensor<?x2x4xf32>) {
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %i, %acc : index, tensor<?x2x4xf32>
  } do {
  ^bb0(%j: index, %a: tensor<?x2x4xf32>):
    %e = tensor.empty() : tensor<1x2x4xf32>
    %scaled = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%u : tensor<1x2x4xf32>) outs(%e : tensor<1x2x4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %jf = arith.index_cast %j : index to i32
      %f = arith.sitofp %jf : i32 to f32
      %y = arith.mulf %x, %f : f32
      linalg.yield %y : f32
    } -> tensor<1x2x4xf32>
    %zero = arith.minsi %j, %c0 : index
    %0 = tensor.insert_slice %scaled into %a[%j, %zero, %zero] [1, 2, 4] [1, 1, 1] : tensor<1x2x4xf32> into tensor<?x2x4xf32>
    %k = arith.addi %j, %c1 : index
    scf.yield %k, %0 : index, tensor<?x2x4xf32>
  }
  return %r#1 : tensor<?x2x4xf32>
}
"""


@pytest.mark.parametrize("device", DEVICES)
def test_a_dispatch_inserting_into_a_loop_carried_dynamic_tensor(device):
    module = rt.load(rt.compile(SCAN_INSERT, devices=[device.split("://")[1]]), devices=[device])
    u = np.arange(1, 9, dtype=np.float32).reshape(1, 2, 4)
    got = np.asarray(module.main(np.zeros((3, 2, 4), np.float32), u))
    np.testing.assert_array_equal(got, np.arange(3, dtype=np.float32)[:, None, None] * u)


#: ``jnp.cumsum(x, axis=0)`` for x of shape (b, 2): JAX's custom call with a window as long as b
EXPORTED_CUMSUM = """
func.func @reducer(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %c1 = stablehlo.constant dense<1> : tensor<1xi32>
  %c0 = stablehlo.constant dense<0> : tensor<1xi32>
  %minus1 = stablehlo.constant dense<-1> : tensor<i32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x2xf32>) -> tensor<i32>
  %m = stablehlo.add %n, %minus1 : tensor<i32>
  %m1 = stablehlo.reshape %m : (tensor<i32>) -> tensor<1xi32>
  %row0 = stablehlo.concatenate %m1, %c0, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %row0_2d = stablehlo.reshape %row0 : (tensor<2xi32>) -> tensor<1x2xi32>
  %row1 = stablehlo.concatenate %c0, %c0, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %row1_2d = stablehlo.reshape %row1 : (tensor<2xi32>) -> tensor<1x2xi32>
  %padding = stablehlo.concatenate %row0_2d, %row1_2d, dim = 0 : (tensor<1x2xi32>, tensor<1x2xi32>) -> tensor<2x2xi32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %window = stablehlo.concatenate %n1, %c1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %ones = stablehlo.concatenate %c1, %c1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %0 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %zero, %window, %ones, %ones, %ones, %padding) {api_version = 2 : i32, called_computations = [@reducer]} : (tensor<?x2xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}
"""


@pytest.mark.parametrize("device", DEVICES)
def test_a_cumulative_sum_over_a_symbolic_dim(device):
    module = rt.load(rt.compile(EXPORTED_CUMSUM, devices=[device.split("://")[1]]), devices=[device])
    rng = np.random.default_rng(3)
    for n in (5, 1):
        x = rng.standard_normal((n, 2)).astype(np.float32)
        np.testing.assert_allclose(np.asarray(module.main(x)), np.cumsum(x, axis=0), rtol=1e-5, atol=1e-6)


#: malformed dynamic-shape ops: each is a CompileError at the op's line, never an internal error
BAD_DYNAMIC_OPS = {
    "operand count": ('%0 = stablehlo.real_dynamic_slice %x, %s : (tensor<?xf32>, tensor<1xi32>) -> tensor<?xf32>',
                      "takes 4 operands"),
    "shape length": ('%0 = stablehlo.real_dynamic_slice %x, %s2, %s2, %s2 : (tensor<?xf32>, tensor<2xi32>, '
                     'tensor<2xi32>, tensor<2xi32>) -> tensor<?xf32>', "start_indices has 2 elements"),
    "float shape": ('%0 = stablehlo.dynamic_reshape %x, %f : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>',
                    "must be a static integer tensor"),
    "no operands": ('%0 = "stablehlo.get_dimension_size"() {dimension = 0 : i64} : () -> tensor<i32>',
                    "takes 1 operands"),
    "iota dim": ('%0 = stablehlo.dynamic_iota %s, dim = 3 : (tensor<1xi32>) -> tensor<?xf32>', "out of range"),
}


@pytest.mark.parametrize("case", sorted(BAD_DYNAMIC_OPS))
def test_malformed_dynamic_ops_are_located_errors(case):
    line, message = BAD_DYNAMIC_OPS[case]
    result = line.split(" : ")[-1].split("-> ")[-1]
    text = (f"func.func @f(%x: tensor<?xf32>, %s: tensor<1xi32>, %s2: tensor<2xi32>, %f: tensor<1xf32>) -> {result} {{\n"
            f"  {line}\n  return %0 : {result}\n}}\n")
    with pytest.raises(CompileError, match=message) as info:
        rt.compile(text, devices=["vmvx"])
    assert info.value.line == 2
