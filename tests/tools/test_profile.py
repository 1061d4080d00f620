"""Device profiling with IREE's flag names (issue 24 item 4): ``--device_profiling_mode``,
``--device_profiling_output``, ``--print_device_statistics`` and ``rt profile``."""
import json
import re

import pytest

from rt.runtime.errors import InvalidArgumentError, ModuleFormatError
from rt.runtime.hal.profiling import DeviceProfiler, parse_modes
from rt.runtime.hal.trace import Lane

#: the MLP's dispatches and their matmul sizes (M, N, K)
MLP_MATMULS = {"mlp_dispatch_0_matmul_64x512x784_f32": (64, 512, 784),
               "mlp_dispatch_1_matmul_64x512x512_f32": (64, 512, 512),
               "mlp_dispatch_2_matmul_64x10x512_f32": (64, 10, 512)}


@pytest.fixture(scope="module")
def profile(mlp_run):
    return json.loads(mlp_run["profile"].read_text())


def test_profile_of_the_mlp_shows_each_dispatch_with_time_and_flops(profile):
    assert profile["format"] == "rt-device-profile" and profile["version"] == 1
    assert profile["modes"] == ["queue-events", "dispatch-events", "memory-events"]
    dispatches = profile["dispatches"]
    assert re.fullmatch(r"local-task://llvm-cpu#\d+", profile["devices"][0]["label"])
    assert [d["entry"] for d in dispatches] == [*MLP_MATMULS, "mlp_dispatch_3_unset_encoding_64x10_f32"]
    for d in dispatches:
        assert 0 <= d["start_ns"] < d["end_ns"] and d["device"] == profile["devices"][0]["label"]
        if d["entry"] in MLP_MATMULS:
            m, n, k = MLP_MATMULS[d["entry"]]
            padded = 2 * m * -(-n // 16) * 16 * k  # data tiling pads N to the mmt4d tile (16)
            assert 2 * m * n * k <= d["flops"] <= padded * 1.01  # the matmul and its fused bias/relu
    first = dispatches[0]
    pool = profile["memory_events"][0]["bytes"]  # the transient pool the dispatches share
    assert first["binding_bytes"] == (64 * 784 + 784 * 512 + 512) * 4 + pool  # x, w1, b1, the pool
    assert first["executable"] == "mlp_dispatch_0" and len(first["workgroups"]) == 3


def test_profile_queue_and_memory_events(profile):
    ops = [e["op"] for e in profile["queue_events"]]
    # the barrier: the replay recorder of the same run drained the queue before the call
    assert ops == ["queue_barrier", "queue_alloca", "queue_execute", "queue_dealloca"]
    for e in profile["queue_events"]:
        assert e["submit_ns"] <= e["start_ns"] <= e["end_ns"] and not e["failed"]
    execute = profile["queue_events"][2]
    assert all(execute["start_ns"] <= d["start_ns"] and d["end_ns"] <= execute["end_ns"]
               for d in profile["dispatches"])
    pool = profile["memory_events"][0]["bytes"]
    assert pool >= 64 * 512 * 4  # at least one 64x512 f32 intermediate
    assert [(e["op"], e["bytes"]) for e in profile["memory_events"]] == [("queue_alloca", pool),
                                                                         ("queue_dealloca", pool)]
    memory = profile["devices"][0]["memory"]
    assert memory["peak_bytes"] >= pool and memory["frees"] >= 1


def test_profile_summary_matches_the_trace_dispatch_zones(mlp_run, profile):
    trace = json.loads(mlp_run["trace"].read_text())["traceEvents"]
    zones = {e["name"]: e["dur"] for e in trace if e.get("ph") == "X" and e["name"].startswith("mlp_dispatch")}
    assert set(zones) == {d["entry"] for d in profile["dispatches"]}
    for d in profile["dispatches"]:
        assert abs((d["end_ns"] - d["start_ns"]) / 1e3 - zones[d["entry"]]) <= 0.05 * zones[d["entry"]] + 0.01


def test_rt_profile_reports(mlp_run, cli_main):
    code, out, err = cli_main("profile", "summary", mlp_run["profile"])
    assert code == 0, err
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("mlp_dispatch")}
    assert set(rows) == {*MLP_MATMULS, "mlp_dispatch_3_unset_encoding_64x10_f32"}
    assert all(row[1] == "1" and float(row[4]) > 0 for name, row in rows.items() if name in MLP_MATMULS)
    assert re.search(r"^local-task://llvm-cpu#\d+ queue +queue_alloca x1, queue_barrier x1, queue_dea", out, re.M)
    assert re.search(r"^local-task://llvm-cpu#\d+: memory high-water \d+ B", out, re.M)
    code, out, _ = cli_main("profile", "summary", mlp_run["profile"], "--jsonl")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [r["kind"] for r in lines] == ["dispatch_summary"] * 4 + ["queue", "memory"]
    summary = {r["entry"]: r for r in lines if r["kind"] == "dispatch_summary"}
    first = summary["mlp_dispatch_0_matmul_64x512x784_f32"]
    assert first["gflops_per_s"] == pytest.approx(first["flops"] / first["total_ns"])
    assert first["flops_per_byte"] == pytest.approx(first["flops"] / first["binding_bytes"])
    assert 0 < lines[4]["occupancy"] <= 1 and lines[4]["operations"]["queue_execute"] == 1
    code, out, _ = cli_main("profile", "dispatch", mlp_run["profile"], "--jsonl")
    assert [json.loads(line)["entry"] for line in out.splitlines()][:3] == list(MLP_MATMULS)
    code, out, _ = cli_main("profile", "memory", mlp_run["profile"])
    assert code == 0 and "queue_alloca" in out and "high-water" in out


def test_print_device_statistics(mlp_run):
    lines = mlp_run["stdout"].splitlines()
    at = next(i for i, line in enumerate(lines) if re.fullmatch(r"\[\[ local-task://llvm-cpu#\d+ device "
                                                                r"statistics \]\]", line))
    assert lines[at + 1].startswith("  4 dispatches, ") and lines[at + 2].startswith("  memory high-water ")


def test_profiling_modes_and_bad_input(mlp_run, cli_main, tmp_path):
    assert parse_modes("dispatch-events") == ("dispatch-events",)
    assert parse_modes("") == ("queue-events", "dispatch-events", "memory-events")
    with pytest.raises(InvalidArgumentError, match="unknown mode 'dispatch-event' .did you mean dispatch-events"):
        parse_modes("queue-events,dispatch-event")
    profiler = DeviceProfiler(("dispatch-events",))
    lane = Lane("dev", "queue")
    profiler.instant(lane, "submit queue_execute", 0)
    profiler.zone_begin(lane, "queue_execute", 1)
    profiler.zone_begin(lane, "k", 2, {"executable": "e", "ordinal": 0, "workgroups": [1, 1, 1],
                                       "bindings": [16, 16]})
    profiler.zone_end(lane, 5)
    profiler.zone_end(lane, 6)
    document = profiler.to_json()
    assert document["queue_events"] == [] and document["memory_events"] == []
    assert [(d["entry"], d["binding_bytes"], d["flops"]) for d in document["dispatches"]] == [("k", 32, None)]
    code, _, err = cli_main("run", mlp_run["module"], "--function=mlp", *mlp_run["inputs"],
                            "--device_profiling_mode=queue-events")
    assert code == 1 and "--device_profiling_mode needs --device_profiling_output=FILE" in err
    (tmp_path / "p.json").write_text("{}")
    with pytest.raises(ModuleFormatError, match="not an rt device profile"):
        from rt.profile_report import read_profile

        read_profile(tmp_path / "p.json")
    code, _, err = cli_main("profile", "summary", tmp_path / "p.json")
    assert code == 1 and err.startswith("rt profile: ") and "not an rt device profile" in err
