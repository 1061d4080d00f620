"""Issue 23 item 3: calibrated per-class kernel costs and dispatch profile tables in topologies."""
import json

import numpy as np
import pytest

import rt
from rt.runtime.errors import InvalidArgumentError, NotFoundError
from rt.runtime.sim.dispatch_classes import classify
from rt.runtime.sim.profile import ProfileTable, lower_quartile
from rt.runtime.sim.topology import Topology

MM_FLOPS = 2 * 64 * 32 * 16
MM_BYTES = 64 * 32 * 4 + 32 * 16 * 4 + 64 * 16 * 4
A, B = np.ones((64, 32), np.float32), np.ones((32, 16), np.float32)


def _device(**fields):
    return {"devices": [{"name": "d", "uri": "local-task://llvm-cpu", **fields}]}


def _busy_us(vmfb, topology):
    with rt.load(vmfb, topology=topology) as m:
        np.testing.assert_array_equal(m.mm(A, B), A @ B)
        return m.report()["devices"]["d"]


@pytest.mark.parametrize("name, kind", [
    ("mm_dispatch_0_matmul_64x16x32_f32", "matmul"), ("f_dispatch_3_mmt4d_8x8x4_f32", "matmul"),
    ("main_dispatch_1_batch_matmul_4x8x8x8_f32", "matmul"), ("f_dispatch_2_conv_2d_nhwc_hwcf", "conv"),
    ("f_dispatch_0_reduction_16x256_f32", "reduction"), ("f_dispatch_0_elementwise_10_f32", "elementwise"),
    ("f_dispatch_1_unset_encoding_64x64_f32", "elementwise"), ("custom", "elementwise")])
def test_dispatch_class_comes_from_the_export_name(name, kind):
    assert classify(name) == kind


def test_a_calibrated_class_costs_overhead_plus_work_over_throughput(matmul_vmfb):
    kernels = {"matmul": {"overhead_us": 3.0, "gflops": 2.0}, "elementwise": {"gbps": 1.0}}
    device = _busy_us(matmul_vmfb, _device(kernels=kernels))
    assert device["time_model"] == "roofline"
    assert device["busy_us"] == pytest.approx(3.0 + MM_FLOPS / 2e3, abs=1e-6)
    # Without the matmul class the dispatch is costed by its bytes as an elementwise one.
    device = _busy_us(matmul_vmfb, _device(kernels={"elementwise": {"overhead_us": 1.0, "gbps": 1.0}}))
    assert device["busy_us"] == pytest.approx(1.0 + MM_BYTES / 1e3, abs=1e-6)


def test_a_compute_class_with_gbps_adds_its_bytes_over_that_rate(matmul_vmfb):
    kernels = {"matmul": {"overhead_us": 3.0, "gflops": 2.0, "gbps": 0.5}}
    device = _busy_us(matmul_vmfb, _device(kernels=kernels))
    assert device["busy_us"] == pytest.approx(3.0 + MM_FLOPS / 2e3 + MM_BYTES / 0.5e3, abs=1e-6)


def test_calibrated_kernels_round_trip_through_to_dict():
    kernels = {"matmul": {"overhead_us": 3.0, "gflops": 2.0, "gbps": 7.0},
               "copy": {"overhead_us": 0.5, "gbps": 8.0}}
    topology = Topology.from_dict(_device(kernels=kernels))
    assert topology.to_dict()["devices"][0]["kernels"] == kernels
    assert topology.validate() == topology


def test_a_recorded_trace_is_a_profile_the_simulation_replays(matmul_vmfb, tmp_path):
    tracer = rt.Tracer()
    with rt.load(matmul_vmfb, tracer=tracer) as m:
        for _ in range(3):
            m.mm(A, B)
    tracer.write(tmp_path / "real.json")
    table = ProfileTable.load(tmp_path / "real.json")
    ((name, workgroups), us), = table.times.items()
    assert name.startswith("mm_dispatch_0_matmul") and table.samples[(name, workgroups)] == 3
    events = json.loads((tmp_path / "real.json").read_text())["traceEvents"]
    durations = sorted(e["dur"] for e in events if e.get("args", {}).get("workgroups"))
    assert us == pytest.approx(durations[0] + (durations[1] - durations[0]) / 2)  # lower quartile
    # Measured model: the dispatch takes its recorded time, not what it takes now.
    (tmp_path / "t.yaml").write_text("devices:\n  - {name: d, uri: 'local-task://llvm-cpu', profile: real.json}\n")
    assert _busy_us(matmul_vmfb, Topology.load(tmp_path / "t.yaml"))["busy_us"] == pytest.approx(us, abs=1e-3)


def test_a_traced_profile_keeps_the_lower_quartile_of_each_dispatchs_samples():
    # Contention only adds time: two slow samples (lost core) do not move the entry; the
    # inclusive lower quartile of 13, 14, 15, 95, 96 is the second sample, 14.
    slices = [{"ph": "X", "name": "mm", "dur": d, "args": {"workgroups": [1, 1, 1]}}
              for d in (95, 13, 96, 15, 14)]
    slices.append({"ph": "X", "name": "once", "dur": 7, "args": {"workgroups": [2, 1, 1]}})
    table = ProfileTable.from_trace_events(slices)
    assert table.times == {("mm", (1, 1, 1)): 14.0, ("once", (2, 1, 1)): 7.0}
    assert table.samples == {("mm", (1, 1, 1)): 5, ("once", (2, 1, 1)): 1}
    assert lower_quartile([10, 20]) == 12.5


def test_a_profile_file_overrides_the_roofline_and_unlisted_dispatches_keep_it(matmul_vmfb, tmp_path):
    name = "mm_dispatch_0_matmul_64x16x32_f32"
    for workgroups, expected in (([1, 2, 1], 42.5), ([9, 9, 9], MM_FLOPS / 1e3)):
        table = ProfileTable({(name, tuple(workgroups)): 42.5}, source=str(tmp_path / "p.json"))
        table.write(tmp_path / "p.json")
        assert ProfileTable.load(tmp_path / "p.json") == table
        topology = {"profile": str(tmp_path / "p.json"), **_device(peak_gflops=1.0)}
        assert _busy_us(matmul_vmfb, topology)["busy_us"] == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("kernels, message", [
    ({"gemm": {"gflops": 1}}, "devices[0].kernels.gemm: unknown field; expected one of matmul"),
    ({"matmul": {"overhead_us": 1}}, "devices[0].kernels.matmul: missing required field 'gflops'"),
    ({"copy": {"gflops": 1}}, "devices[0].kernels.copy.gflops: unknown field; expected one of overhead_us, gbps"),
    ({"matmul": {"gflops": 0}}, "devices[0].kernels.matmul.gflops: must be > 0"),
    ({"matmul": {"gflops": 1, "gbps": -2}}, "devices[0].kernels.matmul.gbps: must be > 0"),
    ({"elementwise": {"gbps": 1, "gflops": 2}}, "devices[0].kernels.elementwise.gflops: unknown field; expected one of overhead_us, gbps"),
    ({"fill": {"gbps": 1, "overhead_us": -1}}, "devices[0].kernels.fill.overhead_us: must be >= 0"),
    ([1], "devices[0].kernels: expected a mapping")])
def test_bad_kernels_name_the_field(kernels, message):
    with pytest.raises(InvalidArgumentError, match=message.replace(".", r"\.").replace("[", r"\[")):
        Topology.from_dict(_device(kernels=kernels))


def test_bad_profiles_are_clear(tmp_path):
    cases = {"sim.json": {"traceEvents": [], "otherData": {"clock": "simulated: virtual µs"}},
             "empty.json": {"traceEvents": [{"ph": "X", "name": "EXEC @f", "dur": 3}]},
             "entry.json": {"format": "rt-dispatch-profile", "dispatches": [{"name": "f", "us": 1}]},
             "other.json": {"a": 1}}
    messages = {"sim.json": "trace is of a simulated run", "empty.json": "holds no dispatch slice",
                "entry.json": r"dispatches\[0\]: expected", "other.json": "got neither"}
    for file, data in cases.items():
        (tmp_path / file).write_text(json.dumps(data))
        with pytest.raises(InvalidArgumentError, match=messages[file]):
            ProfileTable.load(tmp_path / file)
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(InvalidArgumentError, match="must be JSON"):
        ProfileTable.load(tmp_path / "bad.json")
    with pytest.raises(NotFoundError, match="cannot read dispatch profile"):
        ProfileTable.load(tmp_path / "missing.json")
    with pytest.raises(InvalidArgumentError, match=r"t.yaml:2: devices\[0\].profile: .*missing.json"):
        (tmp_path / "t.yaml").write_text("devices:\n  - {name: d, uri: 'local-sync://vmvx', profile: missing.json}\n")
        Topology.load(tmp_path / "t.yaml")
