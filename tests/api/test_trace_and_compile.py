"""rt.trace (Chrome trace lanes) and rt.compile's option handling (against a stand-in driver)."""
import json
import sys
import types

import numpy as np
import pytest

import rt
from rt import testing
from rt.compiler.targets.device_spec import DeviceSpec, parse_device_flag, parse_device_specs
from rt.runtime.errors import InvalidArgumentError, NotFoundError


@pytest.mark.parametrize("uri, backend, export", [("local-sync://vmvx", "vmvx", "add_dispatch_0"),
                                                   ("local-task://vmvx", "vmvx", "add_dispatch_0"),
                                                   ("local-task://llvm-cpu", "llvm-cpu", "add_f32")])
def test_trace_has_a_lane_per_device_queue_with_dispatches(tmp_path, uri, backend, export):
    tracer = rt.Tracer()
    with rt.load(testing.add_module(backend), devices=[uri], tracer=tracer) as m:
        np.testing.assert_array_equal(m.add(np.ones(200, np.float32), np.ones(200, np.float32)), np.full(200, 2))
        queue_lane = f"{m.devices[0].label} queue"
    path = tmp_path / "trace.json"
    tracer.write(path)
    events = json.loads(path.read_text())["traceEvents"]
    lanes = {e["args"]["name"]: e["tid"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    processes = {e["args"]["name"]: e["pid"] for e in events if e["name"] == "process_name"}
    assert set(lanes) == {"host", queue_lane} and processes == {"host": 1, queue_lane[:-6]: 2}
    slices = {e["name"]: e for e in events if e["ph"] == "X"}
    assert set(slices) == {"EXEC @add", "fence.await", f"queue_execute: {export}", export}
    execute, dispatch = slices[f"queue_execute: {export}"], slices[export]
    assert execute["tid"] == dispatch["tid"] == lanes[queue_lane]
    assert execute["pid"] == dispatch["pid"] == 2
    assert slices["EXEC @add"]["tid"] == slices["fence.await"]["tid"] == lanes["host"]
    assert execute["args"]["commands"] == [f"dispatch {export}[4,1,1]"]
    assert execute["args"]["wait"] == [] and execute["args"]["signal"] == [f"semaphore 0 of {queue_lane[:-6]} >= 1"]
    assert dispatch["args"]["workgroups"] == [4, 1, 1] and dispatch["args"]["command"] == 0
    assert execute["ts"] <= dispatch["ts"] and dispatch["ts"] + dispatch["dur"] <= execute["ts"] + execute["dur"]
    host = slices["EXEC @add"]
    assert host["ts"] <= execute["ts"] and execute["ts"] + execute["dur"] <= host["ts"] + host["dur"]


def test_closing_uninstalls_the_tracer_from_given_devices():
    from rt.runtime import hal

    device = hal.create_device("local-sync://vmvx")
    tracer = rt.Tracer()
    try:
        with rt.load(testing.add_module(), devices=[device], tracer=tracer) as m:
            assert device.trace_sink is tracer
            m.add(np.ones(1, np.float32), np.ones(1, np.float32))
        assert device.trace_sink is None
        device.queue_barrier().wait(timeout=10)
        names = [e["name"] for e in tracer.events if e["ph"] == "X"]
        assert names.count("queue_barrier") == 0 and names.count("EXEC @add") == 1
    finally:
        device.release()


def test_tracer_events_and_errors(tmp_path):
    from rt.runtime.hal.trace import HOST_LANE, Lane, now_ns

    tracer = rt.Tracer()
    lane = Lane("local-task://llvm-cpu#7", "queue")
    base = now_ns()
    tracer.zone_begin(lane, "queue_execute", base + 2_000, {"wait": []})
    tracer.instant(lane, "marker", base + 3_000, {"n": 1})
    tracer.zone_end(lane, base + 5_000, {"error": "boom"})
    tracer.zone_begin(HOST_LANE, "EXEC @f", base + 6_000)
    events = tracer.events
    meta = [(e["name"], e["pid"], e["tid"], e["args"]) for e in events if e["ph"] == "M"]
    assert meta[:4] == [("process_name", 1, 0, {"name": "host"}), ("process_sort_index", 1, 0, {"sort_index": 1}),
                        ("thread_name", 1, 1, {"name": "host"}), ("thread_sort_index", 1, 1, {"sort_index": 1})]
    assert ("process_name", 2, 0, {"name": "local-task://llvm-cpu#7"}) in meta
    assert ("thread_name", 2, 2, {"name": "local-task://llvm-cpu#7 queue"}) in meta
    instant, zone, unfinished = [e for e in events if e["ph"] != "M"]
    assert {k: instant[k] for k in ("ph", "s", "name", "pid", "tid", "args")} == {
        "ph": "i", "s": "t", "name": "marker", "pid": 2, "tid": 2, "args": {"n": 1}}
    assert {k: zone[k] for k in ("ph", "name", "pid", "tid", "dur", "args")} == {
        "ph": "X", "name": "queue_execute", "pid": 2, "tid": 2, "dur": 3.0, "args": {"wait": [], "error": "boom"}}
    assert instant["ts"] - zone["ts"] == pytest.approx(1.0) and zone["ts"] > 0
    assert unfinished["name"] == "EXEC @f" and unfinished["args"] == {"unfinished": True}
    assert unfinished["tid"] == 1 and unfinished["ts"] - zone["ts"] == pytest.approx(4.0)
    with pytest.raises(InvalidArgumentError, match=r"zone_end on lane local-task://llvm-cpu#7 queue without an open zone"):
        tracer.zone_end(lane, 7_000)
    with pytest.raises(InvalidArgumentError, match=r"cannot write the trace to '/nonexistent/t.json'"):
        tracer.write("/nonexistent/t.json")
def test_device_options():
    assert parse_device_specs(None) == ()
    assert [str(s) for s in parse_device_specs(["llvm-cpu", "vmvx"])] == ["__device_0=llvm-cpu", "__device_1=vmvx"]
    assert parse_device_specs({"a": "llvm-cpu:znver4"}) == (DeviceSpec("a", "llvm-cpu", "znver4"),)
    spec = parse_device_flag("cpu=llvm-cpu:x86-64-v3", 3)
    assert (spec.name, spec.target) == ("cpu", "llvm-cpu:x86-64-v3")
    assert dict(spec.config)["cpu_features"].startswith("+") and "+avx2" in dict(spec.config)["cpu_features"]
    with pytest.raises(InvalidArgumentError, match=r"'cuda' is not a compile target; expected vmvx, llvm-cpu"):
        parse_device_specs(["cuda"])
    with pytest.raises(InvalidArgumentError, match=r"--device=llvm-cpu:pentium: llvm-cpu target CPU 'pentium' is not known"):
        parse_device_specs(["llvm-cpu:pentium"])
    with pytest.raises(InvalidArgumentError, match=r"names must be unique"):
        parse_device_specs(["a=vmvx", "a=llvm-cpu"])
    with pytest.raises(InvalidArgumentError, match=r"device name '1x' must be an identifier"):
        parse_device_flag("1x=vmvx", 0)


@pytest.fixture
def fake_driver(monkeypatch):
    calls = []
    module = types.ModuleType("rt.compiler.driver")

    def compile_source(text, filename="<input>", devices=None, options=None):
        calls.append((text, filename, devices, options))
        return testing.basic_module()

    module.compile_source = compile_source
    monkeypatch.setitem(sys.modules, "rt.compiler.driver", module)
    return calls


def test_compile_passes_text_devices_and_options(fake_driver, tmp_path):
    src = tmp_path / "m.mlir"
    src.write_text("func.func @f() {\n  return\n}\n")
    vmfb = rt.compile(str(src), devices=["vmvx"], dump_after="all", dump_dir=tmp_path, data_tiling=False)
    assert vmfb == testing.basic_module()
    text, filename, devices, options = fake_driver[0]
    assert text.startswith("func.func @f()") and filename == str(src) and devices == (DeviceSpec("__device_0", "vmvx"),)
    assert options == {"dump_after": "all", "dump_dir": str(tmp_path), "data_tiling": False, "compile_to": "end",
                       "compile_from": None, "timing": False, "jobs": 0, "verify_each": False,
                       "cache_dir": None, "reassociate_fp_reductions": True,
                       "trace_dispatch_tensors": False, "trace_dispatch": "", "input_type": "auto"}
    rt.compile("func.func @g() {\n  return\n}")
    assert fake_driver[1][1] == "<input>" and fake_driver[1][2] is None
    with rt.load(src) as m:
        assert m.add_i32(1, 2) == 3


def test_compile_errors():
    with pytest.raises(NotFoundError, match=r"input file '/nonexistent.mlir' does not exist"):
        rt.compile("/nonexistent.mlir")
    with pytest.raises(InvalidArgumentError, match=r"dump_after='all' needs dump_dir"):
        rt.compile("func.func @f() {\n}", dump_after="all")


def _driver_available():
    try:
        import rt.compiler.driver  # noqa: F401
    except ImportError:
        return False
    return True


needs_driver = pytest.mark.skipif(not _driver_available(), reason="rt.compiler.driver is not in this tree")


@needs_driver
def test_compile_and_run_scalars_through_the_compiler(tmp_path):
    src = "func.func @addi(%a: i32, %b: i32) -> i32 {\n  %0 = arith.addi %a, %b : i32\n  return %0 : i32\n}\n"
    with rt.load(rt.compile(src, devices=["llvm-cpu"])) as m:
        assert m.functions == ["addi"] and m.addi(3, -7) == -4
        with pytest.raises(InvalidArgumentError, match=r"input 1 of @addi: expected i32, got float"):
            m.addi(1, 2.5)


@pytest.mark.slow
@needs_driver
def test_compile_and_run_an_example_end_to_end():
    from pathlib import Path

    example = Path(__file__).parents[2] / "examples" / "test_constant_add.mlir"
    with rt.load(rt.compile(example)) as m:
        x = np.arange(10, dtype=np.float32).reshape(1, 10)
        np.testing.assert_allclose(m.test(x), x + np.arange(10, dtype=np.float32) / 100, rtol=1e-6)
