"""Any --dump-after file re-runs with `rt opt` in another process: executables live in the IR.

The dumps after the hal translation (iree-hal-translate-executables and every pass after it) are
fed to a fresh `python -m rt opt` that runs the rest of the pipeline (by pass names, or with
`--compile-from=executable-targets` at the end of that phase); the module it prints must
embed the same executables and compute the same results as the module compiled in one run.
"""
import re
import subprocess
import sys

import numpy as np
import pytest

import rt
from rt.compiler.dialects import make_context
from rt.compiler.frontend import parse_module
from rt.compiler.passes import pipeline
from rt.compiler.passes.vm.conversion import vmfb_bytes
from rt.runtime.vm import Module

LAYER = """func.func @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}
"""


def _executables(vmfb):
    return [(e.name, e.format, e.metadata, bytes(e.data)) for e in Module.from_bytes(vmfb).executables]


def _run(vmfb, uri, args):
    with rt.load(vmfb, devices=[uri]) as m:
        return m.layer(*args)


@pytest.mark.parametrize("target,uri", [("llvm-cpu", "local-sync://llvm-cpu"), ("vmvx", "local-sync://vmvx")])
def test_dumps_after_hal_translation_rerun_in_a_fresh_process(tmp_path, target, uri):
    vmfb = rt.compile(LAYER, devices=[target], dump_after="all", dump_dir=tmp_path)
    names = pipeline.pass_names()
    first = names.index("iree-hal-translate-executables")
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype(np.float32) for s in ((8, 16), (16, 16), (16,))]
    want = np.tanh(args[0] @ args[1] + args[2])
    np.testing.assert_allclose(_run(vmfb, uri, args), want, rtol=1e-5, atol=1e-5)
    for index in range(first, len(names) - 1):
        dump = tmp_path / f"{index + 1:02d}_{names[index]}.mlir"
        rest = [f"--pass={name}" for name in names[index + 1:]]
        if index == first:  # the end of a phase: resume by phase name
            assert pipeline.phase_of(names[index]) == "executable-targets"
            rest = ["--compile-from=executable-targets"]
        out = subprocess.run([sys.executable, "-m", "rt", "opt", str(dump), *rest],
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        assert re.search(r"^  vm\.module @module data\(dense<\"0x[0-9A-F]+\"> : vector<\d+xi8>\)", out.stdout, re.M)
        rerun = vmfb_bytes(parse_module(out.stdout, "rerun.mlir", make_context()))
        assert _executables(rerun) == _executables(vmfb), names[index]
        np.testing.assert_array_equal(_run(rerun, uri, args), _run(vmfb, uri, args))
