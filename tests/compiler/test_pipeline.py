"""The one pipeline table: registration, phase stops, options, --timing and progress."""
import io
import re
import subprocess
import sys

import numpy as np
import pytest

import rt
from rt.compiler.passes import instrumentation, pipeline
from rt.compiler.passes.registry import get_pass_class
from rt.runtime.errors import InvalidArgumentError

ADD = """func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  %1 = arith.mulf %0, %b : tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""
A = np.array([1, 2, 3, 4], np.float32)
B = np.array([0.5, -1, 2, 3], np.float32)


def test_every_entry_names_its_class_and_phases_are_irees():
    for entry in pipeline.all_entries():
        assert get_pass_class(entry.name).name == entry.name
    assert pipeline.phase_names() == [
        "input", "abi", "preprocessing", "global-optimization", "dispatch-creation", "flow", "stream",
        "executable-sources", "executable-configurations", "executable-targets", "hal", "vm", "end"]
    names = pipeline.pass_names()
    assert names.count("cse") == 4 and len(set(names)) == len(names) - 3
    assert pipeline.phase_of("iree-hal-translate-executables") == "executable-targets"


def test_options_reach_passes_through_the_table():
    passes = pipeline.build_passes({"data_tiling": False, "devices": ["d=vmvx"]})
    by_name = {p.name: p for p in passes}
    assert by_name["iree-dispatch-creation-set-encoding"].data_tiling is False
    assert [str(s) for s in by_name["iree-hal-assign-target-devices"].targets] == ["d=vmvx"]
    prefix = pipeline.build_passes(None, until="cse")
    assert [p.name for p in prefix] == ["verify", "rt-tosa-to-stablehlo", "iree-stablehlo-legalize-shape-computations",
                                       "iree-stablehlo-preprocessing-lower-complex",
                                       "iree-stablehlo-to-iree-input",
                                       "iree-import-ml-program",
                                       "iree-flow-inject-tensor-tracing", "rt-unpack-packed-storage", "canonicalize",
                                       "cse"]


def test_bad_phase_names_and_ranges_are_rejected():
    with pytest.raises(InvalidArgumentError, match=r"compile_to='flwo' is not a compiler phase; phases: input, abi"):
        rt.compile(ADD, compile_to="flwo")
    with pytest.raises(InvalidArgumentError, match=r"compile_from='stream' must come before compile_to='flow'"):
        rt.compile(ADD, compile_from="stream", compile_to="flow")
    with pytest.raises(InvalidArgumentError, match=r"until='nope' is not a pass of the pipeline"):
        pipeline.build_passes(None, until="nope")


def test_compile_to_stops_and_compile_from_resumes(tmp_path):
    text = rt.compile(ADD, devices=["vmvx"], compile_to="flow").decode()
    assert "flow.executable" in text and "stream.async" not in text and "stream.executable" not in text
    vmfb = rt.compile(text, compile_from="flow")
    with rt.load(vmfb, devices=["local-sync://vmvx"]) as m:
        np.testing.assert_allclose(m.add(A, B), (A + B) * B)


def test_timing_report_is_nested_by_phase(tmp_path):
    src = tmp_path / "add.mlir"
    src.write_text(ADD)
    out = subprocess.run([sys.executable, "-m", "rt", "compile", str(src), "-o", str(tmp_path / "a.vmfb"),
                          "--device=vmvx", "--timing"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert "... Execution time report ..." in lines[2]
    total = float(re.match(r"  Total Execution Time: (\d+\.\d+) seconds", lines[4]).group(1))
    rows = [re.match(r"  +(\d+\.\d{4}) \( *(\d+\.\d)%\)  ( *)(\S.*)", line) for line in lines[7:]]
    assert all(rows), lines[7:]
    depth = {m.group(4): len(m.group(3)) // 2 for m in rows}
    top = [m.group(4) for m in rows if not m.group(3)]
    assert top == ["parse", *[phase.name for phase in pipeline.PHASES if phase.passes], "output", "Total"]
    assert all(depth[name] == 1 for name in pipeline.pass_names())
    assert rows[-1].group(4) == "Total" and rows[-1].group(2) == "100.0" and float(rows[-1].group(1)) == total
    phase_rows = [m for m in rows if not m.group(3) and m.group(4) != "Total"]
    assert sum(float(m.group(1)) for m in phase_rows) <= total + 1e-3
    stream = [i for i, m in enumerate(rows) if m.group(4) == "stream"][0]
    end = next(i for i in range(stream + 1, len(rows)) if not rows[i].group(3))
    nested = [m.group(4) for m in rows[stream + 1:end]]
    stream_passes = [e.name for e in pipeline.entries("flow", "stream")]
    assert nested == list(dict.fromkeys(stream_passes)) + [instrumentation.VERIFIER]


def test_progress_only_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    quiet, tty = io.StringIO(), Tty()
    for stream in (quiet, tty):
        progress = instrumentation.Progress(stream, interval=0.0)
        progress.pass_started(3, 41, "cse")
        progress.step(2, 5)
        progress.finish()
    assert quiet.getvalue() == ""
    assert tty.getvalue() == "\r\x1b[K[3/41] cse\r\x1b[K[3/41] cse 2/5\r\x1b[K"


def test_verification_after_each_pass_each_phase_or_the_end():
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import f32

    from rt.compiler.dialects import make_context
    from rt.compiler.frontend import parse_module
    from rt.compiler.passes import PassPipeline
    from rt.compiler.passes.base import Pass
    from rt.runtime.errors import CompileError

    ran = []

    class Break(Pass):
        name = "break"

        def run(self, module, ctx):
            addf = next(op for op in module.walk() if op.name == "arith.addf")
            addf.parent.insert_op_before(arith.AddfOp.create(operands=list(addf.operands), result_types=[f32]), addf)

    class Record(Pass):
        name = "record"

        def run(self, module, ctx):
            ran.append(True)

    # a bad op made by the first pass fails after it ("each"), after its phase ("phase": the
    # phase's second pass ran), or after the last pass ("end": both phases ran)
    phases = ["a", "a", "b"]
    for verify, runs in (("end", [True, True]), ("phase", [True]), ("each", [])):
        ran.clear()
        module = parse_module(ADD, "add.mlir", make_context())
        with pytest.raises(CompileError, match=r"add\.mlir:\d+:\d+: error: .arith.addf. op result"):
            PassPipeline([Break(), Record(), Record()], verify=verify, phases=phases).run(module, make_context())
        assert ran == runs
    with pytest.raises(InvalidArgumentError, match="verify='sometimes'"):
        PassPipeline([Record()], verify="sometimes")


def test_verification_mode_from_the_option_or_the_environment(monkeypatch):
    monkeypatch.delenv(pipeline.VERIFY_ENV, raising=False)
    assert pipeline.pass_manager({}).verify == "end"
    assert pipeline.pass_manager({"verify_each": True}).verify == "each"
    monkeypatch.setenv(pipeline.VERIFY_ENV, "phase")
    assert pipeline.pass_manager({}).verify == "phase"
    assert pipeline.pass_manager({"verify_each": True}).verify == "each"
    monkeypatch.setenv(pipeline.VERIFY_ENV, "always")
    with pytest.raises(InvalidArgumentError, match="RT_VERIFY='always'.*each, phase, end"):
        pipeline.pass_manager({})
