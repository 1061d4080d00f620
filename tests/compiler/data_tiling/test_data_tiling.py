"""Data tiling end to end: set-encoding, per-device resolution, packed sizes and mmt4d dispatches."""
import pathlib

import numpy as np
import pytest

import rt
from rt.compiler.dialects.hal import ExecutableTargetAttr
from rt.compiler.driver import compile_source
from rt.compiler.frontend import parse_module
from rt.compiler.helpers.hal.target_devices import executable_target
from rt.compiler.passes.global_optimization.set_encoding import matmul_encoding
from rt.compiler.targets.encoding import EncodingInfo, encoding_info_for_matmul, resolve, resolved_info
from rt.compiler.targets.encoding_cpu import choose_matmul_tile, vmvx_matmul_tiles, x86_64_matmul_tiles

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
MATMUL = (EXAMPLES / "matmul_f32.mlir").read_text()


def _dispatch_names(vmfb_text_source, **options):
    import re

    from rt.compiler.dialects import make_context
    from rt.compiler.passes import PassPipeline, pipeline

    ctx = make_context()
    module = parse_module(vmfb_text_source, "m.mlir", ctx)
    passes = pipeline.build_passes({**options, "devices": ["llvm-cpu"]}, until="iree-flow-outline-dispatch-regions")
    PassPipeline(passes).run(module, ctx)
    return re.findall(r"flow\.dispatch @(\w+)::", str(module))


@pytest.mark.parametrize("features,tile", [("+avx512f", (16, 16, 1)), ("+avx,+avx2,+fma", (8, 8, 1)),
                                           ("", (8, 4, 1))])
def test_x86_f32_tiles_follow_cpu_features(features, tile):
    config = {"target_triple": "x86_64-unknown-linux", "cpu_features": features}
    assert x86_64_matmul_tiles(("f32", "f32", "f32"), config)[0] == tile


@pytest.mark.parametrize("cpu,features,tile", [("skylake-avx512", "+avx512f,+avx512bw", (16, 16, 2)),
                                               ("x86-64", "+avx,+avx2", (8, 8, 2)),
                                               ("x86-64", "", (8, 4, 2))])
def test_x86_i8_tiles_use_k0_2(cpu, features, tile):
    config = {"target_triple": "x86_64-unknown-linux", "cpu": cpu, "cpu_features": features}
    assert x86_64_matmul_tiles(("i8", "i8", "i32"), config)[0] == tile


@pytest.mark.parametrize("types,cpu,features,tile", [
    (("i8", "i8", "i32"), "cascadelake", "+avx512bw,+avx512vnni", (16, 16, 4)),
    (("i16", "i16", "i32"), "cascadelake", "+avx512bw,+avx512vnni", (16, 16, 2)),
    (("bf16", "bf16", "f32"), "cooperlake", "+avx512bf16", (16, 16, 2)),
    (("bf16", "bf16", "bf16"), "cooperlake", "+avx512bf16", (8, 32, 1)),
    (("bf16", "bf16", "f32"), "cascadelake", "+avx512bw", (8, 32, 1)),
    # a portable AVX-512 target keeps the dot-product layouts: its objects choose at run time
    (("bf16", "bf16", "f32"), "x86-64", "+avx512bw", (16, 16, 2)),
    (("i8", "i8", "i32"), "x86-64-v4", "", (16, 16, 4)),
    (("i8", "i8", "i32"), "x86-64-v3", "", (8, 8, 2))])
def test_x86_dot_product_tiles_need_the_feature(types, cpu, features, tile):
    config = {"target_triple": "x86_64-unknown-linux", "cpu": cpu, "cpu_features": features}
    assert x86_64_matmul_tiles(types, config)[0] == tile


def test_narrow_m_and_n_pick_truncated_tiles():
    tiles = x86_64_matmul_tiles(("f32", "f32", "f32"), {"cpu_features": "+avx512f"})
    assert choose_matmul_tile(tiles, (1, None, None)) == (1, 16, 1)
    assert choose_matmul_tile(tiles, (5, None, None)) == (8, 16, 1)
    assert choose_matmul_tile(tiles, (None, 1, None)) == (16, 1, 1)
    assert choose_matmul_tile(tiles, (None, None, None)) == (16, 16, 1)
    assert choose_matmul_tile(vmvx_matmul_tiles(("f32",) * 3), None) == (8, 8, 1)
    assert choose_matmul_tile(vmvx_matmul_tiles(("i8", "i8", "i32")), None) == (8, 8, 4)


def _matmul_op(text):
    module = parse_module(text, "m.mlir")
    return next(op for op in module.walk() if op.name == "linalg.matmul")


def test_encoding_info_matches_the_seed_layouts():
    op = _matmul_op("""func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}""")
    infos = [encoding_info_for_matmul(matmul_encoding(op, i), (16, 16, 1)) for i in range(3)]
    assert infos == [EncodingInfo((0, 1), (16, 1), (0, 1)), EncodingInfo((1, 0), (16, 1), (1, 0)),
                     EncodingInfo((0, 1), (16, 16), (0, 1))]
    assert infos[1].packed_shape([53, 29], lambda d, t: -(-d // t)) == [2, 53, 16, 1]


def test_resolve_round_trips_through_the_layout_attribute():
    op = _matmul_op("""func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}""")
    target = executable_target("llvm-cpu:znver4")
    assert isinstance(target, ExecutableTargetAttr)
    resolved = resolve(target, matmul_encoding(op, 0))
    assert "cpu_encoding_layout" in str(resolved) and not resolved.user_indexing_maps.data
    assert resolved_info(resolved) == EncodingInfo((0, 1), (4, 1), (0, 1))  # M = 4 is narrow
    vmvx = resolve(executable_target("vmvx"), matmul_encoding(op, 1))
    assert resolved_info(vmvx) == EncodingInfo((1, 0), (8, 1), (1, 0))


def test_matmul_forms_the_seed_four_dispatches():
    names = _dispatch_names(MATMUL)
    # the dynamic N might put B's rows 4 KiB apart, so B keeps its pack; the LHS is packed
    # panel by panel and the result written in place by the matmul (form-dispatch-regions
    # rule 5): pack RHS, matmul
    assert [n.split("_dispatch_")[1] for n in names] == ["0", "1"]
    assert _dispatch_names(MATMUL, data_tiling=False) == ["foo_dispatch_0"]


def test_tensor_sizeof_gives_two_sizes_on_two_devices():
    vmfb = rt.compile(str(EXAMPLES / "tensor_sizeof.mlir"))
    with rt.load(vmfb, devices=["local-sync://vmvx", "local-sync://llvm-cpu"]) as m:
        sizes = m.tensor_sizeof(37, 53)
    vmvx = (-(-37 // 8) * 8) * 53 * 4
    avx512 = (-(-37 // 16) * 16) * 53 * 4
    assert [int(s) for s in sizes] == [vmvx, avx512] == [8480, 10176]


@pytest.fixture(scope="module")
def matmul_modules():
    return {b: rt.compile(MATMUL, devices=[b]) for b in ("llvm-cpu", "vmvx")}


@pytest.mark.parametrize("backend", ["llvm-cpu", "vmvx"])
@pytest.mark.parametrize("m,k,n", [(37, 53, 29), (1, 300, 1), (2, 3, 2), (17, 1, 33)])
def test_data_tiled_matmul_matches_numpy(matmul_modules, backend, m, k, n):
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    with rt.load(matmul_modules[backend], devices=[f"local-sync://{backend}"]) as mod:
        np.testing.assert_allclose(mod.foo(a, b), a @ b, rtol=1e-5, atol=1e-4)


@pytest.mark.slow
def test_data_tiled_matmul_1024(matmul_modules):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((1024, 1024)).astype(np.float32)
    b = rng.standard_normal((1024, 1024)).astype(np.float32)
    with rt.load(matmul_modules["llvm-cpu"], devices=["local-task://llvm-cpu"]) as mod:
        np.testing.assert_allclose(mod.foo(a, b), a @ b, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("backend", ["llvm-cpu", "vmvx"])
def test_data_tiled_mlp_matches_numpy(backend):
    vmfb = rt.compile(str(EXAMPLES / "mlp.mlir"), devices=[backend])
    rng = np.random.default_rng(3)
    shapes = [(64, 784), (784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]
    x, w1, b1, w2, b2, w3, b3 = [rng.standard_normal(s).astype(np.float32) * 0.1 for s in shapes]
    want = np.maximum(x @ w1 + b1, 0)
    want = np.maximum(want @ w2 + b2, 0) @ w3 + b3
    with rt.load(vmfb, devices=[f"local-sync://{backend}"]) as mod:
        np.testing.assert_allclose(mod.mlp(x, w1, b1, w2, b2, w3, b3), want, rtol=1e-4, atol=1e-4)


def test_i8_matmul_is_data_tiled_and_exact():
    src = """func.func @mm(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xi8>
  %n = tensor.dim %b, %c1 : tensor<?x?xi8>
  %z = arith.constant 0 : i32
  %e = tensor.empty(%m, %n) : tensor<?x?xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<?x?xi32>) -> tensor<?x?xi32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xi8>, tensor<?x?xi8>) outs(%f : tensor<?x?xi32>) -> tensor<?x?xi32>
  return %r : tensor<?x?xi32>
}"""
    assert len(_dispatch_names(src)) == 4
    rng = np.random.default_rng(1)
    a = rng.integers(-128, 128, (19, 37), dtype=np.int8)
    b = rng.integers(-128, 128, (37, 11), dtype=np.int8)
    for backend in ("llvm-cpu", "vmvx"):
        with rt.load(compile_source(src, devices=[backend]), devices=[f"local-sync://{backend}"]) as mod:
            np.testing.assert_array_equal(mod.mm(a, b), a.astype(np.int32) @ b.astype(np.int32))
