"""The per-CPU-family kernel table (compiler/targets/cpu_families.py) is what chooses mmt4d
tiles, workgroup tiles and panel sizes: a family per LLVM processor name, the generic family
of the widest ISA otherwise; IREE's ``--iree-llvmcpu-target-cpu`` reaches it; the AVX2,
generic and Intel AVX-512 families' code runs here and matches numpy where the host has
their features."""
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import rt
from rt.compiler.codegen.llvm_cpu.target import cpu_target
from rt.compiler.targets import get_backend
from rt.compiler.targets.cpu_families import cpu_family, family_of
from rt.devices.llvm_cpu.cpu_features import host_cpu_features, parse_feature_list

ROOT = pathlib.Path(__file__).resolve().parents[2]
BMM = ROOT / "benchmarks" / "programs" / "batch_matmul_16x256.mlir"
MLP = ROOT / "examples" / "mlp.mlir"
RNG = np.random.default_rng(5)


@pytest.mark.parametrize("cpu, family, tile, wg_tiles, panel_k", [
    ("znver4", "zen4", (16, 16, 1), (4, 4), 2048),
    ("sapphirerapids", "intel-avx512", (8, 32, 1), (2, 8), 2048),
    ("skylake-avx512", "intel-avx512", (8, 32, 1), (2, 8), 2048),
    ("haswell", "avx2", (6, 16, 1), (4, 8), 1024),
    ("znver3", "avx2", (6, 16, 1), (4, 8), 1024),
    ("x86-64-v4", "generic-avx512", (16, 16, 1), (4, 4), 2048),
    ("x86-64", "generic-sse", (8, 4, 1), (16, 8), 1024),
])
def test_named_cpus_take_their_family(cpu, family, tile, wg_tiles, panel_k):
    f = family_of(cpu_target(cpu))
    assert (f.name, f.f32_tile, f.mmt4d_workgroup_tiles, f.panel_k) == (family, tile, wg_tiles,
                                                                       panel_k)
    config = get_backend("llvm-cpu").target_config(cpu)
    assert get_backend("llvm-cpu").workgroup_tiles("mmt4d", config) == wg_tiles
    assert get_backend("llvm-cpu").workgroup_tiles("batch_mmt4d", config) == wg_tiles + (1,)


def test_a_family_needs_its_isa():
    """A CPU with its family's ISA turned off, or one the table does not name, falls back to
    the generic family of the features it has."""
    assert family_of(cpu_target("sapphirerapids", "-avx512f")).name == "generic-avx"
    assert family_of(cpu_target("haswell", "-fma")).name == "generic-avx"
    assert cpu_family("some-future-cpu", ("avx512f", "avx2", "fma")).name == "generic-avx512"
    assert cpu_family("znver4", ("sse2",)).name == "generic-sse"


def test_iree_target_cpu_flag_compiles_with_the_family_tiles(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "rt", "compile", str(ROOT / "examples" / "matmul_f32.mlir"),
         "--iree-hal-target-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=sapphirerapids",
         "--mlir-print-ir-after=iree-stream-specialize-encodings", "-o", str(tmp_path / "m.vmfb")],
        capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    # the RHS tile of Intel AVX-512 (8 x 32: N0 = 32)
    assert "innerTileSizes = [32, 1]" in out.stdout + out.stderr
    assert (tmp_path / "m.vmfb").stat().st_size > 0


def _runs_here(cpu):
    missing = set(parse_feature_list(cpu_target(cpu).required_features)[0]) - host_cpu_features()
    if missing:
        pytest.skip(f"this host lacks {sorted(missing)}, which {cpu} code uses")


@pytest.mark.parametrize("cpu", ["x86-64-v3", "x86-64", "icelake-server"])
def test_batch_matmul_and_mlp_for_each_family_match_numpy(cpu):
    _runs_here(cpu)
    a, b = (RNG.standard_normal((16, 256, 256), dtype=np.float32) for _ in range(2))
    vmfb = rt.compile(BMM, devices=[f"dev=llvm-cpu:{cpu}"])
    with rt.load(vmfb, devices=["local-task://llvm-cpu"]) as m:
        np.testing.assert_allclose(m.bmm(a, b), a @ b, rtol=1e-4, atol=1e-3)
    x = RNG.standard_normal((64, 784), dtype=np.float32)
    ws = [RNG.standard_normal(s, dtype=np.float32) * 0.05 for s in ((784, 512), (512, 512), (512, 10))]
    bs = [RNG.standard_normal(s, dtype=np.float32) for s in ((512,), (512,), (10,))]
    want = x.astype(np.float64)
    for i, (w, bias) in enumerate(zip(ws, bs)):
        want = want @ w + bias
        if i < 2:
            want = np.maximum(want, 0)
    vmfb = rt.compile(MLP, devices=[f"dev=llvm-cpu:{cpu}"])
    with rt.load(vmfb, devices=["local-task://llvm-cpu"]) as m:
        got = m.mlp(x, ws[0], bs[0], ws[1], bs[1], ws[2], bs[2])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
