"""Hand-written hal-level dispatch functions -> kernel_ir.Kernel (fields) -> llvm-cpu -> numpy."""
import numpy as np
import pytest

from kernel_helpers import grid, run
from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.lowering import lower_dispatch_function
from rt.compiler.frontend import parse_module
from rt.compiler.targets import get_backend
from rt.devices.llvm_cpu import LOADER
from rt.runtime.errors import CompileError

BACKEND = get_backend("llvm-cpu")
CONFIG = BACKEND.target_config("")
LAYOUT = ("#l = #hal.pipeline.layout<constants = {c}, bindings = ["
          + ", ".join(["#hal.pipeline.binding<storage_buffer>"] * 4) + "]>\n")


def lower(body, constants=0):
    module = parse_module(LAYOUT.format(c=constants) + body, "dispatch.mlir")
    func = next(op for op in module.walk() if op.name == "func.func")
    return lower_dispatch_function(func, BACKEND, CONFIG)


def load(kernel):
    fmt, data, meta = BACKEND.serialize("exe", [kernel], CONFIG)
    return LOADER.load(fmt, data, meta)


def _sub(i, access, ty, dims=""):
    return (f"hal.interface.binding.subspan layout(#l) binding({i}) alignment(64) offset(%c0) "
            f": !flow.dispatch.tensor<{access}:{ty}>{dims}")


MATMUL = """
func.func @matmul_DxDx16() {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %0 = hal.interface.constant.load layout(#l) ordinal(0) : i32
  %1 = hal.interface.constant.load layout(#l) ordinal(1) : i32
  %m = arith.index_cast %0 : i32 to index
  %n = arith.index_cast %1 : i32 to index
  %a = """ + _sub(0, "readonly", "tensor<?x16xf32>", "{%m}") + """
  %b = """ + _sub(1, "readonly", "tensor<16x?xf32>", "{%n}") + """
  %c = """ + _sub(2, "writeonly", "tensor<?x?xf32>", "{%m, %n}") + """
  %la = flow.dispatch.tensor.load %a, offsets = [0, 0], sizes = [%m, 16], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<?x16xf32>>{%m} -> tensor<?x16xf32>
  %lb = flow.dispatch.tensor.load %b, offsets = [0, 0], sizes = [16, %n], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<16x?xf32>>{%n} -> tensor<16x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%la, %lb : tensor<?x16xf32>, tensor<16x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  flow.dispatch.tensor.store %r, %c, offsets = [0, 0], sizes = [%m, %n], strides = [1, 1] : tensor<?x?xf32> -> !flow.dispatch.tensor<writeonly:tensor<?x?xf32>>{%m, %n}
  return
}
"""


def test_dynamic_matmul_lowers_to_fill_then_matmul_in_place():
    k = lower(MATMUL, constants=2)
    assert (k.name, k.binding_count, k.constant_count) == ("matmul_DxDx16", 4, 2)
    assert k.binding_access[:3] == ("ro", "ro", "wo")
    fill, mm = k.ops
    assert (fill.kind, mm.kind) == ("fill", "matmul")
    out = kir.View(2, "f32", (kir.Constant(0), kir.Constant(1)))
    assert fill.outputs == mm.outputs == (out,)
    assert mm.inputs == (kir.View(0, "f32", (kir.Constant(0), 16)),
                         kir.View(1, "f32", (16, kir.Constant(1))))
    assert mm.domain == (kir.Constant(0), kir.Constant(1), 16)
    assert mm.iterator_types == ("parallel", "parallel", "reduction")
    assert [s.opcode for s in mm.body] == ["arith.mulf", "arith.addf"]
    assert k.distribution == kir.Distribution((1, 0), (128, 32), ((1, 0), (1, 0)),
                                              extents=(kir.Constant(1), kir.Constant(0)))
    lib = load(k)
    a = np.random.rand(37, 16).astype(np.float32)
    b = np.random.rand(16, 29).astype(np.float32)
    c = np.full((37, 29), 3, np.float32)
    run(lib, 0, [a, b, c, c], [37, 29], grid(k, {0: 37, 1: 29}), threads=2)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


MLP_LAYER = """
func.func @layer() {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %x = """ + _sub(0, "readonly", "tensor<5x7xf32>") + """
  %w = """ + _sub(1, "readonly", "tensor<7x3xf32>") + """
  %bias = """ + _sub(2, "readonly", "tensor<3xf32>") + """
  %o = """ + _sub(3, "writeonly", "tensor<5x3xf32>") + """
  %lx = flow.dispatch.tensor.load %x, offsets = [0, 0], sizes = [5, 7], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<5x7xf32>> -> tensor<5x7xf32>
  %lw = flow.dispatch.tensor.load %w, offsets = [0, 0], sizes = [7, 3], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<7x3xf32>> -> tensor<7x3xf32>
  %lb = flow.dispatch.tensor.load %bias, offsets = [0], sizes = [3], strides = [1] : !flow.dispatch.tensor<readonly:tensor<3xf32>> -> tensor<3xf32>
  %e = tensor.empty() : tensor<5x3xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<5x3xf32>) -> tensor<5x3xf32>
  %m = linalg.matmul ins(%lx, %lw : tensor<5x7xf32>, tensor<7x3xf32>) outs(%f : tensor<5x3xf32>) -> tensor<5x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %lb : tensor<5x3xf32>, tensor<3xf32>) outs(%e : tensor<5x3xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    %y = arith.maximumf %s, %cst : f32
    linalg.yield %y : f32
  } -> tensor<5x3xf32>
  flow.dispatch.tensor.store %r, %o, offsets = [0, 0], sizes = [5, 3], strides = [1, 1] : tensor<5x3xf32> -> !flow.dispatch.tensor<writeonly:tensor<5x3xf32>>
  return
}
"""


def test_matmul_bias_relu_epilogue_runs_in_place_on_the_output():
    k = lower(MLP_LAYER)
    assert [op.kind for op in k.ops] == ["fill", "matmul", "elementwise"]
    out = kir.View(3, "f32", (5, 3))
    epilogue = k.ops[2]
    assert epilogue.inputs == (out, kir.View(2, "f32", (3,)))
    assert epilogue.outputs == (out,)
    assert [s.opcode for s in epilogue.body] == ["arith.addf", "arith.constant", "arith.maximumf"]
    assert k.distribution.op_dims == ((1, 0),) * 3
    x, w = np.random.randn(5, 7).astype(np.float32), np.random.randn(7, 3).astype(np.float32)
    bias, o = np.random.randn(3).astype(np.float32), np.zeros((5, 3), np.float32)
    run(load(k), 0, [x, w, bias, o], (), grid(k, {0: 5, 1: 3}))
    np.testing.assert_allclose(o, np.maximum(x @ w + bias, 0), rtol=1e-5, atol=1e-6)


FUSED_SOFTMAX_PARTS = """
func.func @sub_exp_max() {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %x = """ + _sub(0, "readonly", "tensor<2x10xf32>") + """
  %o = """ + _sub(1, "writeonly", "tensor<2xf32>") + """
  %lx = flow.dispatch.tensor.load %x, offsets = [0, 0], sizes = [2, 10], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<2x10xf32>> -> tensor<2x10xf32>
  %e2 = tensor.empty() : tensor<2x10xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%lx : tensor<2x10xf32>) outs(%e2 : tensor<2x10xf32>) {
  ^bb0(%a: f32, %out: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<2x10xf32>
  %e = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<2x10xf32>) outs(%f : tensor<2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  flow.dispatch.tensor.store %r, %o, offsets = [0], sizes = [2], strides = [1] : tensor<2xf32> -> !flow.dispatch.tensor<writeonly:tensor<2xf32>>
  return
}
"""


def test_elementwise_producer_is_inlined_into_a_reduction():
    k = lower(FUSED_SOFTMAX_PARTS)
    fill, red = k.ops
    assert fill.kind == "fill" and fill.body[0].attr("value") == float("-inf")
    assert red.kind == "reduction" and red.inputs == (kir.View(0, "f32", (2, 10)),)
    assert [s.opcode for s in red.body] == ["math.exp", "arith.maximumf"]
    assert red.body[1].operands == (2, 1)
    x, o = np.random.randn(2, 10).astype(np.float32), np.zeros(2, np.float32)
    run(load(k), 0, [x, o, o, o], (), grid(k, {0: 2}))
    np.testing.assert_allclose(o, np.exp(x).max(1), rtol=1e-6)


PACK = """
func.func @pack() {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %x = """ + _sub(0, "readonly", "tensor<5x7xf32>") + """
  %o = """ + _sub(1, "writeonly", "tensor<2x4x4x2xf32>") + """
  %lx = flow.dispatch.tensor.load %x, offsets = [0, 0], sizes = [5, 7], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<5x7xf32>> -> tensor<5x7xf32>
  %e = tensor.empty() : tensor<2x4x4x2xf32>
  %p = linalg.pack %lx padding_value(%pad : f32) inner_dims_pos = [0, 1] inner_tiles = [4, 2] into %e : tensor<5x7xf32> -> tensor<2x4x4x2xf32>
  flow.dispatch.tensor.store %p, %o, offsets = [0, 0, 0, 0], sizes = [2, 4, 4, 2], strides = [1, 1, 1, 1] : tensor<2x4x4x2xf32> -> !flow.dispatch.tensor<writeonly:tensor<2x4x4x2xf32>>
  return
}
"""


def test_pack_lowers_to_a_pack_op():
    k = lower(PACK)
    (pack,) = k.ops
    assert isinstance(pack, kir.Pack)
    assert (pack.inner_dims_pos, pack.inner_tiles, pack.padding_value) == ((0, 1), (4, 2), 0.0)
    x, o = np.random.randn(5, 7).astype(np.float32), np.full((2, 4, 4, 2), 9, np.float32)
    run(load(k), 0, [x, o, o, o], (), grid(k, {0: 2, 1: 4}))
    padded = np.zeros((8, 8), np.float32)
    padded[:5, :7] = x
    np.testing.assert_array_equal(o, padded.reshape(2, 4, 4, 2).transpose(0, 2, 1, 3))


def test_unsupported_op_is_a_located_compile_error():
    body = MATMUL.replace("%e = tensor.empty(%m, %n) : tensor<?x?xf32>",
                          "%e = tensor.empty(%m, %n) : tensor<?x?xf32>\n"
                          "  %z = tensor.extract %la[%c0, %c0] : tensor<?x16xf32>")
    with pytest.raises(CompileError, match=r"dispatch.mlir:\d+:\d+.*tensor.extract"):
        lower(body, constants=2)
