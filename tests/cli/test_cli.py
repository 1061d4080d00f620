"""``python -m rt`` run | benchmark | devices | compile | dump, as subprocesses: outputs and errors."""
import json
import subprocess
import sys

import numpy as np
import pytest

from rt import testing


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    root = tmp_path_factory.mktemp("modules")
    for name, build in (("basic", testing.basic_module), ("add", testing.add_module),
                        ("checks", testing.check_module)):
        (root / f"{name}.vmfb").write_bytes(build())
    return root


def rt_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "rt", *map(str, args)], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def test_run_prints_like_iree_run_module(modules):
    out = rt_cli("run", modules / "basic.vmfb", "--function=identity", "--input=2x4xf32=[1 2 3 4][5 6 7 8]")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "EXEC @identity\nresult[0]: hal.buffer_view\n2x4xf32=[1 2 3 4][5 6 7 8]\n"
    out = rt_cli("run", modules / "basic.vmfb", "--function=scale", "--input=2.5", "--input=7")
    assert out.stdout == "EXEC @scale\nresult[0]: f32=5\nresult[1]: index=8\n"
    out = rt_cli("run", f"--module={modules / 'basic.vmfb'}", "--function=add_i32", "--input=i32=4", "--input=-5")
    assert out.stdout == "EXEC @add_i32\nresult[0]: i32=-1\n"


def test_run_dispatch_on_each_driver_with_splat(modules):
    for device in ("local-sync://vmvx", "local-task://vmvx?threads=2", "local-sync"):
        out = rt_cli("run", modules / "add.vmfb", "--function=add", "--input=4xf32=1,2,3,4", "--input=4xf32=0.5",
                     f"--device={device}")
        assert out.returncode == 0, out.stderr
        assert out.stdout.splitlines()[-1] == "4xf32=1.5 2.5 3.5 4.5"


def test_npy_inputs_and_outputs(modules, tmp_path):
    np.save(tmp_path / "x.npy", np.arange(8, dtype=np.float32).reshape(2, 4))
    out = rt_cli("run", modules / "basic.vmfb", "--function=identity", "--input=@x.npy", "--output=@y.npy",
                 cwd=tmp_path)
    assert out.returncode == 0 and out.stdout == "EXEC @identity\n"
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), np.arange(8).reshape(2, 4))
    rt_cli("run", modules / "basic.vmfb", "--function=identity", "--input=1x4xf32=9", "--output=+y.npy",
           cwd=tmp_path)
    with open(tmp_path / "y.npy", "rb") as f:
        np.load(f)
        np.testing.assert_array_equal(np.load(f), [[9, 9, 9, 9]])


@pytest.mark.parametrize("args, message", [
    (["run", "MISSING.vmfb", "--function=f"], "rt run: module file 'MISSING.vmfb' does not exist"),
    (["run", "BASIC", "--function=nope"], "rt run: module 'basic' has no exported function 'nope'; exports: "
                                          "add_i32, device_count, identity, is_positive, reshape, scale"),
    (["run", "BASIC"], "rt run: --function=NAME is required; module basic exports: add_i32, device_count"),
    (["run", "BASIC", "--function=identity", "--input=4x7xf32"],
     "rt run: input 0 of @identity: expected tensor<?x4xf32>, got 4x7xf32"),
    (["run", "BASIC", "--function=identity", "--input=2x4xf64"],
     "rt run: input 0 of @identity: expected tensor<?x4xf32>, got 2x4xf64"),
    (["run", "BASIC", "--function=add_i32", "--input=1"],
     "rt run: @add_i32 takes 2 input(s) (a: i32, b: i32), got 1"),
    (["run", "BASIC", "--function=add_i32", "--input=1", "--input=x"], "rt run: --input=x: 'x' is not a valid i32"),
    (["run", "BASIC", "--function=identity", "--input=2x4xf32=1,2"],
     "rt run: --input=2x4xf32=1,2: 2 values for a 8-element tensor"),
    (["run", "BASIC", "--function=identity", "--input=1x4xf32", "--device=local-task://vmvx"],
     "rt run: device 0 (__device_0) of module basic targets llvm-cpu"),
    (["run", "BASIC", "--function=identity", "--input=1x4xf32", "--device=gpu://x"],
     "rt run: unknown HAL driver 'gpu'"),
    (["run", "BASIC", "--bogus"], "rt run: unknown flag --bogus (see python -m rt run --help)"),
    (["run", "CHECKS", "--function=expect_eq", "--input=3xf32=1,2,3", "--input=3xf32=1,2,4"],
     "rt run: check_test.mlir:4:3 in @expect_eq: check.expect_eq failed: lhs and rhs (3xf32): 1 of 3 elements "
     "differ; first at [2]: lhs=3.0 rhs=4.0"),
    (["compile", "nothere.mlir", "-o", "x.vmfb"], "rt compile: input file 'nothere.mlir' does not exist"),
    (["compile", "BASIC", "-o", "x.vmfb", "--device=cuda"], "rt compile: --device=cuda: target 'cuda' is not"),
    (["compile", "BASIC"], "rt compile: the following arguments are required: -o/--output"),
    (["benchmark", "ADD", "--function=add", "--input=1xf32=1", "--input=1xf32=1", "--repetitions=0"],
     "rt benchmark: --repetitions must be >= 1, --benchmark_repetitions >= 1"),
    (["frobnicate"], "rt: unknown command 'frobnicate' (commands: compile, run, benchmark, benchmark-collectives, devices, dump, opt, "
                    "keygen, sign, calibrate, replay, profile)"),
    (["run", "--function=f"], "rt run: give the module once"),
])
def test_bad_input_is_one_line_and_exit_code_1(modules, tmp_path, args, message):
    names = {"BASIC": modules / "basic.vmfb", "CHECKS": modules / "checks.vmfb", "ADD": modules / "add.vmfb"}
    out = rt_cli(*[names.get(a, a) for a in args], cwd=tmp_path)
    assert out.returncode == 1
    assert out.stderr.startswith(message), out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_trace_file(modules, tmp_path):
    trace = tmp_path / "t.json"
    out = rt_cli("run", modules / "add.vmfb", "--function=add", "--input=100xf32=1", "--input=100xf32=2",
                 f"--trace={trace}", "--device=local-task://vmvx")
    assert out.returncode == 0, out.stderr
    events = json.loads(trace.read_text())["traceEvents"]
    lanes = sorted(e["args"]["name"] for e in events if e["name"] == "thread_name")
    assert lanes[0] == "host" and lanes[1].startswith("local-task://vmvx#") and lanes[1].endswith(" queue")
    names = sorted(e["name"] for e in events if e["ph"] == "X")
    assert names == ["EXEC @add", "add_dispatch_0", "fence.await", "queue_execute: add_dispatch_0"]


def test_benchmark_summary_and_json(modules, tmp_path):
    out = rt_cli("benchmark", modules / "add.vmfb", "--function=add", "--input=256xf32=1", "--input=256xf32=2",
                 "--repetitions=5", f"--json={tmp_path / 'b.json'}", "--device=local-sync://vmvx")
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines() if line.startswith("BM_")]
    assert [(r[0], r[2], r[4], r[5]) for r in rows] == [("BM_add/process_time/real_time", "ms", "ms", "5")]
    summary = json.loads((tmp_path / "b.json").read_text())
    assert summary["repetitions"] == 5 and summary["min_ms"] <= summary["median_ms"] <= summary["max_ms"]


def test_benchmark_trace_has_one_exec_per_call(modules, tmp_path):
    trace = tmp_path / "bench.json"
    out = rt_cli("benchmark", modules / "add.vmfb", "--function=add", "--input=64xf32=1", "--input=64xf32=2",
                 "--repetitions=3", "--warmup=1", f"--trace={trace}", "--device=local-task://vmvx")
    assert out.returncode == 0, out.stderr
    events = json.loads(trace.read_text())["traceEvents"]
    slices = [e["name"] for e in events if e["ph"] == "X"]
    assert slices.count("add_dispatch_0") == 4 and slices.count("queue_execute: add_dispatch_0") == 4


def test_devices_lists_drivers_and_cpu():
    out = rt_cli("devices")
    assert out.returncode == 0
    assert "local-task://llvm-cpu        available" in out.stdout and "local-sync://vmvx" in out.stdout
    cpu = [line for line in out.stdout.splitlines() if line.startswith("host CPU: ")]
    features = [line for line in out.stdout.splitlines() if line.startswith("CPU features (")]
    assert len(cpu) == 1 and len(features) == 1 and " +sse2" in features[0]


def test_dump_and_opt_are_kept(modules):
    out = rt_cli("dump", modules / "basic.vmfb")
    assert out.returncode == 0 and "identity" in out.stdout
    out = rt_cli("opt", "--list-passes")
    assert out.returncode == 0 and "canonicalize" in out.stdout


def test_dump_writes_executables(tmp_path):
    src = tmp_path / "add.mlir"
    src.write_text("func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
                   "  %0 = arith.addf %a, %b : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n")
    for target, suffix, magic in (("llvm-cpu", ".o", b"\x7fELF"), ("vmvx", ".bin", None)):
        vmfb = tmp_path / f"{target}.vmfb"
        assert rt_cli("compile", src, "-o", vmfb, f"--device={target}").returncode == 0
        out = rt_cli("dump", vmfb, f"--executables-to={tmp_path / target}")
        assert out.returncode == 0, out.stderr
        assert out.stderr.strip() == f"wrote 1 executables to {tmp_path / target}"
        (binary,) = sorted((tmp_path / target).glob("*" + suffix))
        meta = json.loads(binary.with_suffix(".json").read_text())
        assert f"format '{meta['format']}'" in out.stdout
        assert meta["metadata"]["exports"] == ["add_dispatch_0_elementwise_4_f32"]
        if magic:
            assert binary.read_bytes()[:4] == magic


def test_dump_executable_names_cannot_leave_the_directory(tmp_path):
    from types import SimpleNamespace

    from rt.runtime.vm.dump import write_executables

    exe = [SimpleNamespace(name="../../evil", ordinal=0, format="llvm-cpu-object-x86_64", data=b"x", metadata={}),
           SimpleNamespace(name="../../evil", ordinal=1, format="vmvx-bytecode-fb", data=b"y", metadata={})]
    paths = write_executables(SimpleNamespace(executables=exe), tmp_path / "out")
    assert [p.rsplit("/", 1)[1] for p in paths] == ["______evil.o", "______evil_1.bin"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "______evil.json", "______evil.o", "______evil_1.bin", "______evil_1.json"]
    assert not (tmp_path.parent / "evil.o").exists()
