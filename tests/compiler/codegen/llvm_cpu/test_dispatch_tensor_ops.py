"""Dispatch lowering of tensor.pad / concat / insert_slice, constants, scratch, multi-result ops
and dynamic scalars: hand-written hal-level dispatches -> Kernel -> llvm-cpu -> numpy."""
import numpy as np
import pytest

from kernel_helpers import grid_of, run
from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.lowering import lower_dispatch_function
from rt.compiler.frontend import parse_module
from rt.compiler.targets import get_backend
from rt.devices.llvm_cpu import LOADER

BACKEND = get_backend("llvm-cpu")
CONFIG = BACKEND.target_config("")
RNG = np.random.default_rng(11)


def lower(body, constants=0, bindings=4):
    layout = ("#l = #hal.pipeline.layout<constants = {c}, bindings = ["
              + ", ".join(["#hal.pipeline.binding<storage_buffer>"] * bindings) + "]>\n")
    module = parse_module(layout.format(c=constants) + body, "dispatch.mlir")
    func = next(op for op in module.walk() if op.name == "func.func")
    return lower_dispatch_function(func, BACKEND, CONFIG)


def execute(kernel, arrays, constants=(), threads=2):
    fmt, data, meta = BACKEND.serialize("exe", [kernel], CONFIG)
    lib = LOADER.load(fmt, data, meta)
    arrays = list(arrays) + [arrays[0]] * (kernel.binding_count - len(arrays))
    run(lib, 0, arrays, constants, grid_of(kernel, constants), threads=threads)


def sub(i, access, ty, dims=""):
    return (f"hal.interface.binding.subspan layout(#l) binding({i}) alignment(64) offset(%c0) "
            f": !flow.dispatch.tensor<{access}:{ty}>{dims}")


def load(name, i, ty, shape, dims=""):
    zeros = ", ".join("0" for _ in shape)
    ones = ", ".join("1" for _ in shape)
    sizes = ", ".join(str(s) for s in shape)
    return (f"%{name} = flow.dispatch.tensor.load %b{i}, offsets = [{zeros}], sizes = [{sizes}], "
            f"strides = [{ones}] : !flow.dispatch.tensor<readonly:{ty}>{dims} -> {ty}")


def store(value, i, ty, shape, dims=""):
    zeros = ", ".join("0" for _ in shape)
    ones = ", ".join("1" for _ in shape)
    sizes = ", ".join(str(s) for s in shape)
    return (f"flow.dispatch.tensor.store %{value}, %b{i}, offsets = [{zeros}], sizes = [{sizes}], "
            f"strides = [{ones}] : {ty} -> !flow.dispatch.tensor<writeonly:{ty}>{dims}")


PAD = """
func.func @pad() {
  %c0 = arith.constant 0 : index
  %cst = arith.constant -1.5 : f32
  %0 = hal.interface.constant.load layout(#l) ordinal(0) : i32
  %lo = arith.index_castui %0 : i32 to index
  %b0 = """ + sub(0, "readonly", "tensor<37x29xf32>") + """
  %b1 = """ + sub(1, "writeonly", "tensor<?x33xf32>", "{%n}") + """
  """ + load("x", 0, "tensor<37x29xf32>", (37, 29)) + """
  %p = tensor.pad %x low[%lo, 1] high[2, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<37x29xf32> to tensor<?x33xf32>
  """ + store("p", 1, "tensor<?x33xf32>", ("%n", 33), "{%n}") + """
  return
}
"""


def test_pad_is_a_fill_and_a_shifted_copy_distributed_over_rows():
    body = PAD.replace("%b1 =", "%n = arith.addi %lo, %c39 : index\n  %b1 =").replace(
        "%c0 = arith.constant 0 : index", "%c0 = arith.constant 0 : index\n  %c39 = arith.constant 39 : index")
    k = lower(body, constants=1)
    fill, copy = k.ops
    assert fill.kind == "fill" and copy.kind == "copy"
    assert copy.outputs[0].shape == (37, 29) and copy.inputs[0].binding == 0
    assert k.distribution.dims == (1, 0)
    assert k.distribution.op_offsets[1] == (1, kir.Constant(0))
    lo = 5
    x = RNG.standard_normal((37, 29)).astype(np.float32)
    out = np.full((lo + 39, 33), 7, np.float32)
    execute(k, [x, out], [lo])
    expect = np.pad(x, ((lo, 2), (1, 3)), constant_values=-1.5)
    np.testing.assert_array_equal(out, expect)


CONCAT = """
func.func @concat() {
  %c0 = arith.constant 0 : index
  %b0 = """ + sub(0, "readonly", "tensor<5x7xi8>") + """
  %b1 = """ + sub(1, "readonly", "tensor<5x4xi8>") + """
  %b2 = """ + sub(2, "writeonly", "tensor<5x18xi8>") + """
  """ + load("x", 0, "tensor<5x7xi8>", (5, 7)) + """
  """ + load("y", 1, "tensor<5x4xi8>", (5, 4)) + """
  %e = tensor.empty() : tensor<5x7xi8>
  %neg = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<5x7xi8>) outs(%e : tensor<5x7xi8>) {
  ^bb0(%a: i8, %o: i8):
    %z = arith.subi %o, %a : i8
    linalg.yield %z : i8
  } -> tensor<5x7xi8>
  %r = tensor.concat dim(1) %x, %y, %neg : (tensor<5x7xi8>, tensor<5x4xi8>, tensor<5x7xi8>) -> tensor<5x18xi8>
  """ + store("r", 2, "tensor<5x18xi8>", (5, 18)) + """
  return
}
"""


def test_concat_places_each_input_in_its_slice_and_computes_in_place():
    k = lower(CONCAT.replace("%z = arith.subi %o, %a : i8", "%zero = arith.constant 0 : i8\n"
                                                           "    %z = arith.subi %zero, %a : i8"))
    assert [op.kind for op in k.ops] == ["copy", "copy", "elementwise"]
    assert [op.outputs[0].offset for op in k.ops] == [0, 7, 11]
    assert k.distribution.op_offsets == ((0, 0), (7, 0), (11, 0))
    x = RNG.integers(-100, 100, (5, 7), dtype=np.int8)
    y = RNG.integers(-100, 100, (5, 4), dtype=np.int8)
    out = np.zeros((5, 18), np.int8)
    execute(k, [x, y, out])
    np.testing.assert_array_equal(out, np.concatenate([x, y, -x], axis=1))


INSERT = """
func.func @insert() {
  %c0 = arith.constant 0 : index
  %b0 = """ + sub(0, "readonly", "tensor<3x4xf32>") + """
  %b1 = """ + sub(1, "readonly", "tensor<9x13xf32>") + """
  %b2 = """ + sub(2, "writeonly", "tensor<9x13xf32>") + """
  """ + load("x", 0, "tensor<3x4xf32>", (3, 4)) + """
  """ + load("d", 1, "tensor<9x13xf32>", (9, 13)) + """
  %s = tensor.insert_slice %x into %d[1, 2] [3, 4] [3, 2] : tensor<3x4xf32> into tensor<9x13xf32>
  %row = tensor.extract_slice %x[2, 0] [1, 4] [1, 1] : tensor<3x4xf32> to tensor<4xf32>
  %t = tensor.insert_slice %row into %s[8, 9] [1, 4] [1, 1] : tensor<4xf32> into tensor<9x13xf32>
  """ + store("t", 2, "tensor<9x13xf32>", (9, 13)) + """
  return
}
"""


def test_insert_slice_chain_strided_and_rank_reducing():
    k = lower(INSERT)
    assert [op.kind for op in k.ops] == ["copy", "copy", "copy"]
    strided = k.ops[1].outputs[0]
    assert strided.offset == 1 * 13 + 2 and strided.strides == (39, 2)
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    d = RNG.standard_normal((9, 13)).astype(np.float32)
    out = np.zeros((9, 13), np.float32)
    execute(k, [x, d, out])
    expect = d.copy()
    expect[1:9:3, 2:10:2] = x
    expect[8, 9:13] = x[2]
    np.testing.assert_array_equal(out, expect)


CONSTANTS = """
func.func @constants() {
  %c0 = arith.constant 0 : index
  %w = arith.constant dense<[[1.0, -2.0, 3.5], [0.25, 5.0, -6.0]]> : tensor<2x3xf32>
  %s = arith.constant dense<2.0> : tensor<2x3xf32>
  %b0 = """ + sub(0, "readonly", "tensor<2x3xf32>") + """
  %b1 = """ + sub(1, "writeonly", "tensor<2x3xf32>") + """
  %b2 = """ + sub(2, "writeonly", "tensor<2x3xf32>") + """
  """ + load("x", 0, "tensor<2x3xf32>", (2, 3)) + """
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %w, %s : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %y = arith.addf %m, %c : f32
    linalg.yield %y : f32
  } -> tensor<2x3xf32>
  """ + store("r", 1, "tensor<2x3xf32>", (2, 3)) + """
  """ + store("w", 2, "tensor<2x3xf32>", (2, 3)) + """
  return
}
"""


def test_dense_constants_become_rodata_and_splats_become_scalars():
    k = lower(CONSTANTS)
    (rodata,) = k.rodata
    w = np.array([[1.0, -2.0, 3.5], [0.25, 5.0, -6.0]], np.float32)
    assert rodata.element_type == "f32" and rodata.data == w.tobytes()
    compute, copy = k.ops
    assert compute.inputs[1].binding == k.rodata_binding(0) == 4
    assert len(compute.inputs) == 2 and copy.inputs[0].binding == 4
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    r, wc = np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32)
    execute(k, [x, r, wc, wc])
    np.testing.assert_allclose(r, x * w + 2.0, rtol=1e-6)
    np.testing.assert_array_equal(wc, w)


SOFTMAX = """
func.func @softmax() {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %0 = hal.interface.constant.load layout(#l) ordinal(0) : i32
  %1 = hal.interface.constant.load layout(#l) ordinal(1) : i32
  %m = arith.index_castui %0 : i32 to index
  %n = arith.index_castui %1 : i32 to index
  %b0 = """ + sub(0, "readonly", "tensor<?x?xf32>", "{%m, %n}") + """
  %b1 = """ + sub(1, "writeonly", "tensor<?x?xf32>", "{%m, %n}") + """
  %x = flow.dispatch.tensor.load %b0, offsets = [0, 0], sizes = [%m, %n], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<?x?xf32>>{%m, %n} -> tensor<?x?xf32>
  %er = tensor.empty(%m) : tensor<?xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xf32>) outs(%fm : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %mx : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    %y = math.exp %s : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<?x?xf32>) outs(%fs : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %res = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  flow.dispatch.tensor.store %res, %b1, offsets = [0, 0], sizes = [%m, %n], strides = [1, 1] : tensor<?x?xf32> -> !flow.dispatch.tensor<writeonly:tensor<?x?xf32>>{%m, %n}
  return
}
"""


@pytest.mark.parametrize("m,n", [(37, 1000), (3, 5), (20, 17)])
def test_softmax_in_one_dispatch_keeps_row_stats_in_tiled_scratch(m, n):
    k = lower(SOFTMAX, constants=2)
    assert len(k.scratch) == 2 and all(s.tiled == (0,) for s in k.scratch)
    assert k.distribution.dims == (0,) and k.distribution.op_dims == ((0,),) * len(k.ops)
    reductions = [op for op in k.ops if op.kind == "reduction"]
    assert {op.outputs[0].binding for op in reductions} == {k.scratch_binding(0),
                                                            k.scratch_binding(1)}
    x = (RNG.standard_normal((m, n)) * 4).astype(np.float32)
    out = np.zeros((m, n), np.float32)
    execute(k, [x, out], [m, n])
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(1, keepdims=True), rtol=2e-5, atol=1e-7)


MULTI = """
func.func @multi() {
  %c0 = arith.constant 0 : index
  %b0 = """ + sub(0, "readonly", "tensor<7x9xf32>") + """
  %b1 = """ + sub(1, "readonly", "tensor<7x9xf32>") + """
  %b2 = """ + sub(2, "writeonly", "tensor<7x9xf32>") + """
  %b3 = """ + sub(3, "writeonly", "tensor<7x9xi32>") + """
  """ + load("x", 0, "tensor<7x9xf32>", (7, 9)) + """
  """ + load("y", 1, "tensor<7x9xf32>", (7, 9)) + """
  %e = tensor.empty() : tensor<7x9xf32>
  %ei = tensor.empty() : tensor<7x9xi32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<7x9xf32>, tensor<7x9xf32>) outs(%e, %ei : tensor<7x9xf32>, tensor<7x9xi32>) {
  ^bb0(%a: f32, %b: f32, %o: f32, %p: i32):
    %s = arith.addf %a, %b : f32
    %t = arith.fptosi %s : f32 to i32
    linalg.yield %s, %t : f32, i32
  } -> (tensor<7x9xf32>, tensor<7x9xi32>)
  """ + store("r#1", 3, "tensor<7x9xi32>", (7, 9)) + """
  """ + store("r#0", 2, "tensor<7x9xf32>", (7, 9)) + """
  return
}
"""


def test_multi_result_generic_writes_both_stores_in_one_op():
    k = lower(MULTI)
    (g,) = k.ops
    assert [v.binding for v in g.outputs] == [2, 3]
    x = RNG.standard_normal((7, 9)).astype(np.float32) * 5
    y = RNG.standard_normal((7, 9)).astype(np.float32) * 5
    s, t = np.zeros((7, 9), np.float32), np.zeros((7, 9), np.int32)
    execute(k, [x, y, s, t])
    np.testing.assert_array_equal(s, x + y)
    np.testing.assert_array_equal(t, (x + y).astype(np.int32))


FILL = """
func.func @fill() {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : i64
  %0 = hal.interface.constant.load layout(#l) ordinal(0) : i32
  %1 = hal.interface.constant.load layout(#l) ordinal(1) : i32
  %2 = hal.interface.constant.load layout(#l) ordinal(2) : i32
  %f = arith.bitcast %0 : i32 to f32
  %lo = arith.extui %1 : i32 to i64
  %hi = arith.extui %2 : i32 to i64
  %sh = arith.shli %hi, %c32 : i64
  %v = arith.ori %lo, %sh : i64
  %w = flow.dispatch.workload.ordinal %v, 0 : i64
  %b0 = """ + sub(0, "writeonly", "tensor<11xf32>") + """
  %b1 = """ + sub(1, "writeonly", "tensor<11xi64>") + """
  %e = tensor.empty() : tensor<11xf32>
  %ei = tensor.empty() : tensor<11xi64>
  %tf = linalg.fill ins(%f : f32) outs(%e : tensor<11xf32>) -> tensor<11xf32>
  %ti = linalg.fill ins(%w : i64) outs(%ei : tensor<11xi64>) -> tensor<11xi64>
  """ + store("tf", 0, "tensor<11xf32>", (11,)) + """
  """ + store("ti", 1, "tensor<11xi64>", (11,)) + """
  return
}
"""


def test_fill_values_computed_from_push_constants():
    k = lower(FILL.replace("%w = flow.dispatch.workload.ordinal %v, 0 : i64", "%w = arith.addi %v, %v : i64"),
              constants=3)
    assert k.ops[0].body[0].opcode == "hal.interface.constant.load"
    value = np.int64(-123456789012)
    words = np.array([value]).view(np.uint32)
    f = np.array([-2.75], np.float32).view(np.uint32)[0]
    a, b = np.zeros(11, np.float32), np.zeros(11, np.int64)
    execute(k, [a, b], [int(f), int(words[0]), int(words[1])])
    np.testing.assert_array_equal(a, np.full(11, -2.75, np.float32))
    np.testing.assert_array_equal(b, np.full(11, 2 * value, np.int64))


POOL = """
func.func @pool() {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %b0 = """ + sub(0, "readonly", "tensor<1x9x9x3xf32>") + """
  %b1 = """ + sub(1, "writeonly", "tensor<1x4x4x3xf32>") + """
  """ + load("x", 0, "tensor<1x9x9x3xf32>", (1, 9, 9, 3)) + """
  %w = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x4x4x3xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x9x9x3xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  """ + store("p", 1, "tensor<1x4x4x3xf32>", (1, 4, 4, 3)) + """
  return
}
"""


def test_pooling_window_operand_is_shape_only():
    k = lower(POOL)
    fill, pool = k.ops
    assert len(pool.inputs) == 1 and pool.kind == "pooling"
    x = RNG.standard_normal((1, 9, 9, 3)).astype(np.float32)
    out = np.zeros((1, 4, 4, 3), np.float32)
    execute(k, [x, out])
    expect = x[:, :8, :8, :].reshape(1, 4, 2, 4, 2, 3).max(axis=(2, 4))
    np.testing.assert_array_equal(out, expect)


PAD_CONV = """
func.func @pad_conv() {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %b0 = """ + sub(0, "readonly", "tensor<1x7x6x2xf32>") + """
  %b1 = """ + sub(1, "readonly", "tensor<3x3x2x5xf32>") + """
  %b2 = """ + sub(2, "writeonly", "tensor<1x7x6x5xf32>") + """
  """ + load("x", 0, "tensor<1x7x6x2xf32>", (1, 7, 6, 2)) + """
  """ + load("w", 1, "tensor<3x3x2x5xf32>", (3, 3, 2, 5)) + """
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x7x6x2xf32> to tensor<1x9x8x2xf32>
  %e = tensor.empty() : tensor<1x7x6x5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x6x5xf32>) -> tensor<1x7x6x5xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x9x8x2xf32>, tensor<3x3x2x5xf32>) outs(%f : tensor<1x7x6x5xf32>) -> tensor<1x7x6x5xf32>
  """ + store("c", 2, "tensor<1x7x6x5xf32>", (1, 7, 6, 5)) + """
  return
}
"""


def test_padded_conv_input_goes_through_untiled_scratch():
    k = lower(PAD_CONV)
    (scratch,) = k.scratch
    assert scratch.shape == (1, 9, 8, 2) and scratch.tiled == ()
    dist = k.distribution
    assert [op.kind for op in k.ops] == ["fill", "fill", "copy", "conv"]
    assert dist.dims == (3, 2, 1) and dist.op_dims[1] == dist.op_dims[2] == (None, None, None)
    x = RNG.standard_normal((1, 7, 6, 2)).astype(np.float32)
    w = RNG.standard_normal((3, 3, 2, 5)).astype(np.float32)
    out = np.zeros((1, 7, 6, 5), np.float32)
    execute(k, [x, w, out])
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    expect = np.zeros_like(out)
    for kh in range(3):
        for kw in range(3):
            expect += np.einsum("nhwc,cf->nhwf", xp[:, kh:kh + 7, kw:kw + 6, :], w[kh, kw])
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-5)


RESHAPE = """
func.func @reshape() {
  %c0 = arith.constant 0 : index
  %b0 = """ + sub(0, "readonly", "tensor<4x6xf32>") + """
  %b1 = """ + sub(1, "writeonly", "tensor<24xf32>") + """
  %b2 = """ + sub(2, "writeonly", "tensor<2x12xf32>") + """
  """ + load("x", 0, "tensor<4x6xf32>", (4, 6)) + """
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<4x6xf32> into tensor<24xf32>
  %e = tensor.expand_shape %c [[0, 1]] output_shape [2, 12] : tensor<24xf32> into tensor<2x12xf32>
  """ + store("c", 1, "tensor<24xf32>", (24,)) + """
  """ + store("e", 2, "tensor<2x12xf32>", (2, 12)) + """
  return
}
"""


def test_reshapes_of_loaded_tensors_are_views():
    k = lower(RESHAPE)
    assert [op.inputs[0].shape for op in k.ops] == [(24,), (2, 12)]
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    c, e = np.zeros(24, np.float32), np.zeros((2, 12), np.float32)
    execute(k, [x, c, e])
    np.testing.assert_array_equal(c, x.reshape(24))
    np.testing.assert_array_equal(e, x.reshape(2, 12))


SLICE_OF_COMPUTED = """
func.func @slice() {
  %c0 = arith.constant 0 : index
  %0 = hal.interface.constant.load layout(#l) ordinal(0) : i32
  %v = arith.sitofp %0 : i32 to f32
  %b0 = """ + sub(0, "readonly", "tensor<6x7xf32>") + """
  %b1 = """ + sub(1, "writeonly", "tensor<3x4xf32>") + """
  %b2 = """ + sub(2, "writeonly", "tensor<5xf32>") + """
  """ + load("x", 0, "tensor<6x7xf32>", (6, 7)) + """
  %e = tensor.empty() : tensor<6x7xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<6x7xf32>) outs(%e : tensor<6x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.mulf %a, %v : f32
    linalg.yield %z : f32
  } -> tensor<6x7xf32>
  %s = tensor.extract_slice %y[1, 2] [3, 4] [2, 1] : tensor<6x7xf32> to tensor<3x4xf32>
  %sp = tensor.splat %v : tensor<5xf32>
  """ + store("s", 1, "tensor<3x4xf32>", (3, 4)) + """
  """ + store("sp", 2, "tensor<5xf32>", (5,)) + """
  return
}
"""


def test_slice_of_a_computed_tensor_and_a_dynamic_splat():
    k = lower(SLICE_OF_COMPUTED, constants=1)
    assert k.scratch == ()  # the producer runs at the 3x4 sliced positions only, into binding 1
    assert k.ops[0].domain == (3, 4) and k.ops[0].outputs[0].binding == 1
    x = RNG.standard_normal((6, 7)).astype(np.float32)
    s, sp = np.zeros((3, 4), np.float32), np.zeros(5, np.float32)
    execute(k, [x, s, sp], [np.uint32(np.int32(-3).view(np.uint32))])
    np.testing.assert_array_equal(s, (x * -3.0)[1:6:2, 2:6])
    np.testing.assert_array_equal(sp, np.full(5, -3.0, np.float32))
