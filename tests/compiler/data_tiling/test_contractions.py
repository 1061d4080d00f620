"""Data tiling beyond matmul: batch_matmul, matvec, vecmat, f16, and epilogue fusion."""
import pathlib
import re

import numpy as np
import pytest

import rt
from rt.compiler.dialects import make_context
from rt.compiler.frontend import parse_module
from rt.compiler.passes import PassPipeline, pipeline
from rt.compiler.passes.global_optimization.set_encoding import matmul_encoding
from rt.compiler.helpers.hal.target_devices import executable_target
from rt.compiler.targets.encoding import EncodingInfo, mmt4d_packed_shape, resolve, resolved_info

EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples"

SOURCE = """
func.func @mv(%a: tensor<?x?xf32>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.matvec ins(%a, %x : tensor<?x?xf32>, tensor<?xf32>) outs(%f : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
func.func @vm(%x: tensor<530xf32>, %a: tensor<530x37xf32>) -> tensor<37xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<37xf32>) -> tensor<37xf32>
  %r = linalg.vecmat ins(%x, %a : tensor<530xf32>, tensor<530x37xf32>) outs(%f : tensor<37xf32>) -> tensor<37xf32>
  return %r : tensor<37xf32>
}
func.func @bmm(%a: tensor<?x17x29xf32>, %b: tensor<?x29x21xf32>, %c: tensor<?x17x21xf32>) -> tensor<?x17x21xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x17x29xf32>, tensor<?x29x21xf32>) outs(%c : tensor<?x17x21xf32>) -> tensor<?x17x21xf32>
  return %r : tensor<?x17x21xf32>
}
func.func @bmv(%a: tensor<2x90x110xi8>, %x: tensor<2x110xi8>) -> tensor<2x90xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2x90xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<2x90xi32>) -> tensor<2x90xi32>
  %r = linalg.batch_matvec ins(%a, %x : tensor<2x90x110xi8>, tensor<2x110xi8>) outs(%f : tensor<2x90xi32>) -> tensor<2x90xi32>
  return %r : tensor<2x90xi32>
}
func.func @mm16(%a: tensor<19x33xf16>, %b: tensor<33x7xf16>) -> tensor<19x7xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<19x7xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<19x7xf32>) -> tensor<19x7xf32>
  %r = linalg.matmul ins(%a, %b : tensor<19x33xf16>, tensor<33x7xf16>) outs(%f : tensor<19x7xf32>) -> tensor<19x7xf32>
  return %r : tensor<19x7xf32>
}
"""

# Matrix-vector products small enough to stay plain (set_encoding's NARROW_PLAIN_ELEMENTS): a
# classifier head with its bias.
SMALL_NARROW = """
func.func @head(%x: tensor<128xf32>, %w: tensor<128x10xf32>, %a: tensor<10x128xf32>, %b: tensor<10xf32>) -> (tensor<10xf32>, tensor<10xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<10xf32>) -> tensor<10xf32>
  %r = linalg.vecmat ins(%x, %w : tensor<128xf32>, tensor<128x10xf32>) outs(%f : tensor<10xf32>) -> tensor<10xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]} ins(%r, %b : tensor<10xf32>, tensor<10xf32>) outs(%e : tensor<10xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<10xf32>
  %m = linalg.matvec ins(%a, %x : tensor<10x128xf32>, tensor<128xf32>) outs(%f : tensor<10xf32>) -> tensor<10xf32>
  return %y, %m : tensor<10xf32>, tensor<10xf32>
}
"""


def _flow_text(source, backend="llvm-cpu"):
    ctx = make_context()
    module = parse_module(source, "c.mlir", ctx)
    PassPipeline(pipeline.build_passes({"devices": [backend]}, until="iree-flow-outline-dispatch-regions")).run(module, ctx)
    return str(module)


def _op(text, name):
    return next(op for op in parse_module(text, "c.mlir").walk() if op.name == name)


def test_every_contraction_forms_pack_pack_compute_unpack():
    # (the f32 batch_matmul reads its LHS and RHS in place: form-dispatch-regions rule 5; it
    # accumulates into a packed init, so its unpack stays)
    names = re.findall(r"flow\.dispatch @\w+::@(\w+)", _flow_text(SOURCE))
    assert [n.split("_dispatch_")[1].split("_", 1)[1] for n in names] == [
        "set_encoding_DxD_f32", "set_encoding_D_f32", "matvec_DxD_f32", "unset_encoding_D_f32",
        "set_encoding_530_f32", "set_encoding_530x37_f32", "vecmat_37x530_f32", "unset_encoding_37_f32",
        "set_encoding_Dx17x21_f32", "batch_matmul_Dx17x21x29_f32",
        "unset_encoding_Dx17x21_f32",
        "set_encoding_2x90x110_i8", "set_encoding_2x110_i8", "batch_matvec_2x90x110_i8xi32", "unset_encoding_2x90_i32",
        "set_encoding_19x33_f16", "set_encoding_33x7_f16", "matmul_19x7x33_f16xf32", "unset_encoding_19x7_f32"]


@pytest.mark.parametrize("target,tile", [("llvm-cpu:znver4", (16, 1, 1)), ("vmvx", (8, 1, 1))])
def test_matvec_resolves_narrow_n_tiles(target, tile):
    op = _op(SOURCE, "linalg.matvec")
    rhs = resolved_info(resolve(executable_target(target), matmul_encoding(op, 1)))
    out = resolved_info(resolve(executable_target(target), matmul_encoding(op, 2)))
    assert rhs == EncodingInfo((0,), (tile[2],), (0,))
    assert out == EncodingInfo((0,), (tile[0],), (0,))
    assert mmt4d_packed_shape(matmul_encoding(op, 1), rhs, [53], lambda d, t: -(-d // t)) == \
        [1, -(-53 // tile[2]), 1, tile[2]]


def test_vecmat_and_batch_matmul_layouts():
    avx512 = executable_target("llvm-cpu:znver4")
    vecmat = _op(SOURCE, "linalg.vecmat")
    assert resolved_info(resolve(avx512, matmul_encoding(vecmat, 0))) == EncodingInfo((0,), (1,), (0,))
    assert resolved_info(resolve(avx512, matmul_encoding(vecmat, 1))) == EncodingInfo((1, 0), (16, 1), (1, 0))
    bmm = _op(SOURCE, "linalg.batch_matmul")
    infos = [resolved_info(resolve(avx512, matmul_encoding(bmm, i))) for i in range(3)]
    assert infos == [EncodingInfo((1, 2), (16, 1), (0, 1, 2)), EncodingInfo((2, 1), (16, 1), (0, 2, 1)),
                     EncodingInfo((1, 2), (16, 16), (0, 1, 2))]


@pytest.fixture(scope="module")
def modules():
    return {b: rt.compile(SOURCE, devices=[b]) for b in ("llvm-cpu", "vmvx")}


@pytest.mark.parametrize("backend", ["llvm-cpu", "vmvx"])
def test_narrow_batched_and_f16_contractions_match_numpy(modules, backend):
    rng = np.random.default_rng(11)
    a, x = rng.standard_normal((37, 53)).astype(np.float32), rng.standard_normal(53).astype(np.float32)
    va, vx = rng.standard_normal((530, 37)).astype(np.float32), rng.standard_normal(530).astype(np.float32)
    ba, bb = rng.standard_normal((3, 17, 29)).astype(np.float32), rng.standard_normal((3, 29, 21)).astype(np.float32)
    bc = rng.standard_normal((3, 17, 21)).astype(np.float32)
    ia, ix = rng.integers(-128, 128, (2, 90, 110), dtype=np.int8), rng.integers(-128, 128, (2, 110), dtype=np.int8)
    ha, hb = rng.standard_normal((19, 33)).astype(np.float16), rng.standard_normal((33, 7)).astype(np.float16)
    with rt.load(modules[backend], devices=[f"local-sync://{backend}"]) as mod:
        np.testing.assert_allclose(mod.mv(a, x), a @ x, rtol=1e-5, atol=1e-4)
        np.testing.assert_allclose(mod.mv(a[:1], x), a[:1] @ x, rtol=1e-5, atol=1e-4)
        np.testing.assert_allclose(mod.vm(vx, va), vx @ va, rtol=1e-5, atol=1e-3)
        np.testing.assert_allclose(mod.bmm(ba, bb, bc), bc + ba @ bb, rtol=1e-5, atol=1e-4)
        np.testing.assert_allclose(mod.bmm(ba[:1], bb[:1], bc[:1]), bc[:1] + ba[:1] @ bb[:1], rtol=1e-5, atol=1e-4)
        want = np.einsum("bmk,bk->bm", ia.astype(np.int32), ix.astype(np.int32))
        np.testing.assert_array_equal(mod.bmv(ia, ix), want)
        np.testing.assert_allclose(mod.mm16(ha, hb), ha.astype(np.float32) @ hb.astype(np.float32),
                                   rtol=1e-5, atol=1e-4)


def test_small_matrix_vector_products_stay_plain_with_their_bias_fused():
    # IREE 3.13 leaves this head plain too: packing the vector and unpacking the 10 results
    # would be two more dispatches than the product itself.
    names = re.findall(r"flow\.dispatch @\w+::@(\w+)", _flow_text(SMALL_NARROW))
    assert [n.split("_dispatch_")[1].split("_", 1)[1] for n in names] == ["vecmat_10x128_f32", "matvec_10x128_f32"]
    rng = np.random.default_rng(5)
    x, w, a, b = (rng.standard_normal(s).astype(np.float32) for s in ((128,), (128, 10), (10, 128), (10,)))
    for backend in ("llvm-cpu", "vmvx"):
        with rt.load(rt.compile(SMALL_NARROW, devices=[backend]), devices=[f"local-sync://{backend}"]) as mod:
            y, m = mod.head(x, w, a, b)
            np.testing.assert_allclose(y, x @ w + b, rtol=1e-5, atol=1e-4)
            np.testing.assert_allclose(m, a @ x, rtol=1e-5, atol=1e-4)


def test_mlp_bias_relu_run_on_packed_tiles_between_layers():
    names = re.findall(r"flow\.dispatch @\w+::@(\w+)", _flow_text((EXAMPLES / "mlp.mlir").read_text()))
    kinds = [n.split("_dispatch_")[1].split("_", 1)[1].rsplit("_", 2)[0] for n in names]
    # layers 1 and 2 keep the packed layout (bias + relu fused into the matmul dispatch); the
    # 10-wide last layer is not a multiple of 16, so its bias runs after the unpack. The weights
    # (arguments) are read in place by their matmul's dispatch, and so is x, packed panel by
    # panel inside the first matmul (form-dispatch-regions rule 5).
    assert kinds == ["matmul", "matmul", "matmul", "unset_encoding"]


def test_an_encoding_with_a_composed_broadcast_map_is_a_located_error():
    """IREE's broadcast encodings list several maps for one operand (user_indexing_maps =
    [[map, bcast], ...]); rt's data tiling refuses them at the op, never with an internal error."""
    text = """
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
#b = affine_map<(i, j) -> (j)>
#enc = #iree_encoding.encoding<operand_index = 0, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [[#lhs, #b], #rhs, #out]>
func.func @f(%v: tensor<8xf32>) -> tensor<8xf32> {
  %e = iree_encoding.set_encoding %v : tensor<8xf32> -> tensor<8xf32, #enc>
  %u = iree_encoding.unset_encoding %e : tensor<8xf32, #enc> -> tensor<8xf32>
  return %u : tensor<8xf32>
}
"""
    with pytest.raises(rt.CompileError, match=r"8:8: error: cannot resolve .*a broadcast composed into the "
                                              r"encoding"):
        rt.compile(text, devices=["llvm-cpu"])
