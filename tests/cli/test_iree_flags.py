"""IREE's command-line spellings (rt.iree_flags): translated to rt's flags, run end to end, and
unknown ``--iree-*`` flags rejected naming the nearest flag."""
import pathlib
import subprocess
import sys

import pytest

from rt.iree_flags import ALIASES, translate
from rt.runtime.errors import InvalidArgumentError

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "matmul_f32.mlir"
INPUTS = ["--function=foo", "--input=2x3xf32=1,2,3,4,5,6", "--input=3x2xf32=1,0,0,1,1,1"]


def rt_cli(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "rt", *map(str, args)], capture_output=True, timeout=300, **kwargs)


@pytest.mark.parametrize("argv, expected", [
    (["--iree-hal-target-backends=vmvx"], ["--device=vmvx"]),
    (["--iree-hal-target-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=znver4"], ["--device=llvm-cpu:znver4"]),
    (["--iree-llvmcpu-target-cpu=generic", "--iree-hal-target-device=a=local"], ["--device=a=llvm-cpu:x86-64"]),
    (["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=vmvx"], ["--device=vmvx"]),
    (["--device=b=llvm-cpu", "--iree-llvmcpu-target-cpu=host"], ["--device=b=llvm-cpu"]),
    (["--device=llvm-cpu", "--iree-llvmcpu-target-cpu=x86-64-v3"], ["--device=llvm-cpu:x86-64-v3"]),
    (["--iree-opt-data-tiling=false"], ["--no-data-tiling"]),
    (["--iree-opt-data-tiling"], []),
    (["--iree-llvmcpu-reassociate-fp-reductions=false"], ["--no-reassociate-fp-reductions"]),
    (["--iree-llvmcpu-reassociate-fp-reductions=true"], []),
    (["--mlir-print-ir-after-all"], ["--dump-after=all", "--dump-dir=-"]),
    (["--mlir-print-ir-after=iree-stream-convert-to-stream"],
     ["--dump-after=iree-stream-convert-to-stream", "--dump-dir=-"]),
    (["--output-format=vm-bytecode", "--iree-input-type=none", "-o", "-"], ["-o", "-", "--input-type=none"]),
    (["--iree-input-type=stablehlo"], ["--input-type=stablehlo"]),
    (["--iree-flow-trace-dispatch-tensors"], ["--trace-dispatch-tensors"]),
    (["--iree-flow-trace-dispatch-tensors=false"], []),
    (["--iree-flow-trace-dispatch=matmul"], ["--trace-dispatch=matmul"]),
    (["--mlir-timing", "--mlir-disable-threading"], ["--timing", "--jobs=1"]),
])
def test_compile_flags_translate(argv, expected):
    assert translate("compile", ["in.mlir"] + argv) == ["in.mlir"] + expected


@pytest.mark.parametrize("command, argv, expected", [
    ("benchmark", ["--benchmark_repetitions=7", "--benchmark_min_time=0.5s"],
     ["--benchmark_repetitions=7", "--benchmark_min_time=0.5s"]),
    ("run", ["--print_statistics", "--device=local-task"], ["--print-statistics", "--device=local-task"]),
    ("run", ["--print_statistics=false"], []),
    ("run", ["--task_topology_group_count=4"], ["--device=local-task?threads=4"]),
    ("benchmark", ["--device=local-task://vmvx?heap_capacity=1M", "--device=local-sync://llvm-cpu",
                   "--task_topology_cpu_ids=0,1", "--task_topology_max_group_count=2"],
     ["--device=local-task://vmvx?heap_capacity=1M&cpu_ids=0,1&max_threads=2",
      "--device=local-sync://llvm-cpu"]),
    ("run", ["m.mlir", "--iree-hal-target-backends=vmvx", "--task_topology_group_count=1"],
     ["m.mlir", "--device=local-task://vmvx?threads=1"]),
])
def test_run_flags_translate(command, argv, expected):
    assert translate(command, argv) == expected


@pytest.mark.parametrize("argv, expected", [
    (["--Xcompiler,iree-flow-trace-dispatch-tensors"], ["--trace-dispatch-tensors"]),
    (["--Xcompiler,--iree-opt-data-tiling=false", "--iree-flow-trace-dispatch=mm"],
     ["--no-data-tiling", "--trace-dispatch=mm"]),
    (["--Xcompiler,iree-hal-target-device=local", "--Xcompiler,iree-hal-local-target-device-backends=vmvx"],
     ["--device=local-task://vmvx"]),
    (["--iree-hal-target-backends=vmvx", "--device=local-sync://vmvx"], ["--device=local-sync://vmvx"]),
    (["--Xcompiler,iree-llvmcpu-reassociate-fp-reductions=false"], ["--no-reassociate-fp-reductions"]),
])
def test_run_takes_iree_run_mlir_compile_flags(argv, expected):
    """iree-run-mlir's compile flags (bare or ``--Xcompiler,FLAG``) apply to an .mlir module."""
    assert translate("run", ["in.mlir"] + argv) == ["in.mlir"] + expected


def test_run_compile_target_must_match_the_device():
    with pytest.raises(InvalidArgumentError, match=r"target vmvx but --device runs local-task://llvm-cpu"):
        translate("run", ["in.mlir", "--Xcompiler,iree-hal-target-backends=vmvx", "--device=local-task://llvm-cpu"])
    with pytest.raises(InvalidArgumentError, match=r"--Xcompiler,dump-after=all: not an iree-compile flag"):
        translate("run", ["in.mlir", "--Xcompiler,dump-after=all"])


@pytest.mark.parametrize("device", ["local-sync://llvm-cpu", "local-task://vmvx"])
def test_run_mlir_with_dispatch_tracing_end_to_end(device):
    """``rt run IN.mlir --Xcompiler,iree-flow-trace-dispatch-tensors`` compiles with tracing and
    prints each dispatch's tensors under IREE's ``executable::export`` labels."""
    run = rt_cli("run", EXAMPLE, f"--device={device}", "--Xcompiler,iree-flow-trace-dispatch-tensors", *INPUTS)
    assert run.returncode == 0, run.stderr
    lines = run.stderr.decode().splitlines()
    outputs = [i for i, line in enumerate(lines) if line.startswith("=== ") and line.endswith(" outputs ===")]
    assert outputs and all("::foo_dispatch_" in lines[i] for i in outputs)
    assert lines[outputs[-1] + 1] == "2x2xf32=[4 5][10 11]"
    assert run.stdout.decode().splitlines()[-1] == "2x2xf32=[4 5][10 11]"


def test_compile_flags_with_a_vmfb_are_an_error(tmp_path):
    vmfb = tmp_path / "m.vmfb"
    assert rt_cli("compile", EXAMPLE, "-o", vmfb).returncode == 0
    run = rt_cli("run", vmfb, "--trace-dispatch-tensors", *INPUTS)
    assert run.returncode == 1
    assert ("--trace-dispatch-tensors is a compile flag: it applies when the module is an .mlir file"
            in run.stderr.decode())


@pytest.mark.parametrize("command, flag, fragments", [
    ("compile", "--iree-llvmcpu-target-cpu-features=+avx2", ["did you mean --iree-llvmcpu-target-cpu",
                                                              "--device=llvm-cpu:CPU"]),
    ("compile", "--iree-opt-data-tilin=false", ["did you mean --iree-opt-data-tiling"]),
    ("compile", "--iree-hal-target-backends=llvm-cpu,vmvx", ["one backend per device"]),
    ("compile", "--iree-hal-target-backends=cuda", ["rt compiles for llvm-cpu or vmvx"]),
    ("compile", "--iree-opt-data-tiling=maybe", ["expected true or false"]),
    ("compile", "--output-format=vm-asm", ["vm-bytecode modules only"]),
    ("compile", "--iree-input-type=torch", ["--compile-to=input", "rt reads auto, none, stablehlo"]),
    ("run", "--iree-hal-target-backends=cuda", ["rt compiles for llvm-cpu or vmvx"]),
    ("run", "--iree-opt-strip-assertions", ["rt does not implement"]),
    ("run", "--Xcompiler,mlir-print-ir-after-all", ["without IR dumps", "python -m rt compile"]),
    ("benchmark", "--iree-llvmcpu-target-cpu=znver4", ["host CPU", "--device=llvm-cpu:znver4"]),
    ("compile", "--iree-flow-trace-dispatch=@main:0", ["@function:ordinal form is not supported"]),
    ("compile", "--iree-hal-dump-executable-files-to=d", ["instead: --dump-after=iree-hal-materialize-interfaces"]),
    ("compile", "--iree-opt-const-eval=false", ["instead: nothing", "iree-util-hoist-into-globals"]),
])
def test_bad_iree_flags_are_named(command, flag, fragments):
    with pytest.raises(InvalidArgumentError) as info:
        translate(command, [flag], ["--device", "--dump-after"])
    assert flag.split("=")[0] in str(info.value)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_instead_hints_name_real_passes():
    from rt.compiler.passes.registry import pass_names
    from rt.iree_flags import INSTEAD

    for hint in INSTEAD.values():
        for word in hint.replace("=", " ").replace("(", " ").replace(")", " ").split():
            if word.startswith("iree-") and not word.startswith("iree-flow-trace"):
                assert word in pass_names(), word


@pytest.mark.parametrize("flag, message", [
    ("--task_topology_group_count=0", "expected a positive integer"),
    ("--task_topology_max_group_count=x", "expected a positive integer"),
    ("--task_topology_cpu_ids=0,a", "expected comma-separated CPU numbers"),
    ("--task_topology_cpu_ids", "expected comma-separated CPU numbers"),
])
def test_bad_topology_flags_rejected(flag, message):
    with pytest.raises(InvalidArgumentError, match=message):
        translate("run", ["m.vmfb", flag])


def test_topology_flag_end_to_end(tmp_path):
    out = rt_cli("run", EXAMPLE, "--iree-hal-target-backends=llvm-cpu", *INPUTS,
                 "--task_topology_group_count=1", "--task_topology_max_group_count=1")
    assert out.returncode == 0, out.stderr
    assert "2x2xf32=[4 5][10 11]" in out.stdout.decode().replace("\n", "")


def test_doc_lists_every_alias():
    doc = (ROOT / "docs" / "iree_flags.md").read_text()
    for _, iree, rt_flag, _ in ALIASES:
        first = iree.split(" / ")[0].split("=")[0].split("[")[0]
        assert first in doc, first
        assert rt_flag.split("=")[0].split(" ")[0].strip("()") in doc


def test_iree_compile_command_line_end_to_end(tmp_path):
    out = rt_cli("compile", EXAMPLE, "--iree-hal-target-backends=vmvx", "--iree-opt-data-tiling=false", "-o", "-",
                 "--output-format=vm-bytecode")
    assert out.returncode == 0, out.stderr
    assert out.stdout[:6] == b"RTVMFB"
    (tmp_path / "m.vmfb").write_bytes(out.stdout)
    run = rt_cli("run", f"--module={tmp_path / 'm.vmfb'}", "--device=local-sync", *INPUTS, "--print_statistics")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.decode().splitlines()
    assert lines[:3] == ["EXEC @foo", "result[0]: hal.buffer_view", "2x2xf32=[4 5][10 11]"]
    assert lines[3] == "[[ local-sync://vmvx allocator memory statistics ]]" and "B peak /" in lines[4]
    bench = rt_cli("benchmark", f"--module={tmp_path / 'm.vmfb'}", *INPUTS, "--benchmark_repetitions=3",
                   "--benchmark_min_time=3x", "--device=local-sync")
    assert bench.returncode == 0, bench.stderr
    rows = [line.split() for line in bench.stdout.decode().splitlines()[3:]]
    assert [(r[0], r[5]) for r in rows] == [("BM_foo/process_time/real_time", "3")] * 3 + [
        (f"BM_foo/process_time/real_time_{k}", "3") for k in ("mean", "median", "stddev", "cv")]


def test_print_ir_after_goes_to_stderr(tmp_path):
    out = rt_cli("compile", EXAMPLE, "--mlir-print-ir-after=iree-stream-convert-to-stream", "--compile-to=stream",
                 "-o", tmp_path / "s.mlir")
    assert out.returncode == 0, out.stderr
    err = out.stderr.decode()
    assert err.startswith("// -----// IR Dump After ConvertToStreamPass (iree-stream-convert-to-stream) //----- //\n")
    assert "stream.tensor.dispatch" in err
    assert "stream.cmd.execute" in (tmp_path / "s.mlir").read_text()


def test_unknown_iree_flag_fails_the_command():
    out = rt_cli("compile", EXAMPLE, "--iree-llvmcpu-target-cpu-features=+avx2", "-o", "-")
    assert out.returncode == 1 and out.stdout == b""
    assert out.stderr.decode().startswith("rt compile: --iree-llvmcpu-target-cpu-features is an IREE flag rt does "
                                          "not implement; did you mean --iree-llvmcpu-target-cpu")
