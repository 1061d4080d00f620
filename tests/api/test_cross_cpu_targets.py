"""Tests that `--device=NAME=llvm-cpu:<cpu>` builds a module for a CPU other than the host's,
with the data tiling layout chosen for that CPU's vector width, and that it runs here and
matches numpy where the host has every feature the CPU's code needs (generic x86-64 and
x86-64-v3 run on any AVX2 host; an AVX-512 CPU's code is skipped, with the reason, elsewhere)."""
import json
import pathlib

import numpy as np
import pytest

import rt
from rt.compiler.codegen.llvm_cpu.target import cpu_target
from rt.devices.llvm_cpu.cpu_features import host_cpu_features, parse_feature_list
from rt.runtime.vm import Module

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "matmul_f32.mlir"


@pytest.mark.parametrize("cpu,n0", [("x86-64", 4), ("x86-64-v3", 16), ("znver4", 16),
                                    ("icelake-server", 32)])
def test_matmul_built_for_another_cpu_runs_on_the_host(cpu, n0, tmp_path):
    vmfb = rt.compile(EXAMPLE, devices=[f"dev=llvm-cpu:{cpu}"],
                      dump_after="iree-stream-specialize-encodings", dump_dir=str(tmp_path))
    devices = json.loads(Module.from_bytes(vmfb).attributes["rt.devices"])
    assert devices[0]["targets"][0]["config"]["cpu"] == cpu
    (dump,) = tmp_path.glob("*specialize-encodings.mlir")
    # the RHS tile of that CPU (the LHS is packed inside the matmul's dispatch)
    assert f"innerTileSizes = [{n0}, 1]" in dump.read_text()
    missing = set(parse_feature_list(cpu_target(cpu).required_features)[0]) - host_cpu_features()
    if missing:
        pytest.skip(f"this host lacks {sorted(missing)}, which {cpu} code uses")
    a = np.random.default_rng(0).standard_normal((37, 53), dtype=np.float32)
    b = np.random.default_rng(1).standard_normal((53, 29), dtype=np.float32)
    with rt.load(vmfb, devices=["local-task://llvm-cpu"]) as m:
        np.testing.assert_allclose(m.foo(a, b), a @ b, rtol=1e-4, atol=1e-4)
