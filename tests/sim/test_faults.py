"""Injected faults travel the failure path to every dependent fence; nothing hangs; other
devices and later calls keep working."""
import numpy as np
import pytest

import rt
from rt.runtime.errors import DeviceError, InvalidArgumentError, ResourceExhaustedError
from rt.runtime.hal import Fence
from rt.runtime.sim.faults import InjectedFaultError, parse
from rt.runtime.sim.simulation import Simulation
from rt.runtime.sim.topology import Topology

TOPO = {"devices": [{"name": "a", "uri": "local-sync://llvm-cpu", "memory_gbps": 1},
                    {"name": "b", "uri": "local-sync://llvm-cpu", "memory_gbps": 1}],
        "links": [{"between": ["a", "b"], "bandwidth_gbps": 2, "latency_us": 3}]}


def _chain(error):
    texts = []
    while error is not None:
        texts.append(str(error))
        error = error.__cause__
    return texts


def test_a_device_fails_at_its_nth_submission_and_dependents_fail_with_the_cause():
    sim = Simulation(Topology.from_dict(TOPO), deterministic=True, faults=["device=b,fail_at=2"])
    try:
        a, b = sim.devices
        buf_a, buf_b = a.allocator.allocate_buffer(64), b.allocator.allocate_buffer(64)
        first = b.queue_fill(buf_b, 0, 64, 1, 4)
        second = b.queue_fill(buf_b, 0, 64, 2, 4, wait_fence=first)          # fails
        third = a.queue_copy(buf_b, 0, buf_a, 0, 64, wait_fence=second)      # depends on it
        other = a.queue_fill(buf_a, 0, 64, 7, 4)                             # independent
        other.wait()
        with pytest.raises(DeviceError) as info:
            third.wait()
        chain = _chain(info.value)
        assert any("b: queue_fill (submission 2) failed: injected fault 'device=b,fail_at=2'" in t
                   for t in chain)
        assert any("a: queue_copy not run: its wait fence failed" in t for t in chain)
        assert isinstance(second.failure, InjectedFaultError)
        later = b.queue_fill(buf_b, 0, 64, 3, 4)                              # submission 4 works
        later.wait()
        assert int(buf_b.host_bytes().view(np.int32)[0]) == 3
    finally:
        sim.release()


def test_compiled_program_fault_then_later_calls_work(two_device_vmfb):
    x = np.arange(1024, dtype=np.float32)
    with rt.load(two_device_vmfb, topology=TOPO, deterministic=True, faults=["device=b,fail_at=2"]) as m:
        with pytest.raises(DeviceError, match=r"injected fault 'device=b,fail_at=2'"):
            m.hop(x)
        np.testing.assert_array_equal(m.hop(x), -2 * x)


def test_failed_link_fails_transfers_over_it(two_device_vmfb):
    x = np.arange(1024, dtype=np.float32)
    with rt.load(two_device_vmfb, topology=TOPO, deterministic=True, faults=["link=a-b,fail"]) as m:
        with pytest.raises(DeviceError, match=r"link a-b failed: injected fault 'link=a-b,fail'"):
            m.hop(x)
    with rt.load(two_device_vmfb, topology=TOPO, deterministic=True, faults=["link=b-a,fail_at=1"]) as m:
        with pytest.raises(DeviceError, match="link a-b: transfer 1 failed"):
            m.hop(x)
        np.testing.assert_array_equal(m.hop(x), -2 * x)     # only the first transfer failed


def test_slow_link_slows_its_transfers(two_device_vmfb):
    x = np.arange(1024, dtype=np.float32)
    reports = []
    for faults in ((), ["link=a-b,slow=4"]):
        with rt.load(two_device_vmfb, topology=TOPO, deterministic=True, faults=faults) as m:
            m.hop(x)
            reports.append(m.report())
    hop = 3 + 4096 / 2000
    assert reports[0]["links"]["a-b"]["busy_us"] == pytest.approx(2 * hop)
    assert reports[1]["links"]["a-b"]["busy_us"] == pytest.approx(2 * 4 * hop)
    assert reports[1]["makespan_us"] - reports[0]["makespan_us"] == pytest.approx(2 * 3 * hop)


def test_shrunk_memory_is_resource_exhausted(two_device_vmfb):
    with rt.load(two_device_vmfb, topology=TOPO, deterministic=True, faults=["device=b,memory=1KiB"]) as m:
        with pytest.raises(ResourceExhaustedError, match=r"b: allocating \d+ bytes would exceed the heap "
                                                         "capacity of 1024 bytes"):
            m.hop(np.zeros(1024, np.float32))


def test_a_rank_failing_inside_a_collective_fails_every_rank_and_the_next_call_works():
    text = """
shard.grid @grid(shape = 2)
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = shard.all_reduce %x on @grid grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""
    vmfb = rt.compile(text, devices=["llvm-cpu"])
    topo = {"devices": [{"name": f"g{r}", "uri": "local-sync://llvm-cpu"} for r in range(2)],
            "links": [{"between": ["g0", "g1"], "bandwidth_gbps": 1}]}
    x = np.ones(4, np.float32)
    with rt.load(vmfb, topology=topo, ranks=2, deterministic=True, faults=["device=g1,fail_at=1"]) as m:
        with pytest.raises(DeviceError, match="injected fault") as info:
            m.f.spmd([[x], [x]])
        assert "failed" in str(info.value)
        np.testing.assert_array_equal(m.f.spmd([[x], [x]])[0], 2 * x)


@pytest.mark.parametrize("spec, message", [
    ("device=zz,fail_at=1", "no device 'zz'; devices: a, b"),
    ("link=a-c,fail", "no link 'a-c'; links: a-b"),
    ("device=a", "say what fails: fail_at=N or memory=SIZE"),
    ("device=a,fail_at=0", "fail_at must be a positive integer"),
    ("device=a,slow=2", "unknown setting 'slow' for a device"),
    ("link=a-b", "say what happens"),
    ("link=a-b,slow=0.5", "slow must be a factor >= 1"),
    ("memory=1G", "expected device=NAME or link=A-B first"),
    ("device=a,memory=lots", "expected a size"),
])
def test_bad_fault_specs(spec, message):
    with pytest.raises(InvalidArgumentError, match=message):
        Simulation(Topology.from_dict(TOPO), faults=[spec])


def test_fault_specs_as_dicts():
    fault = parse({"link": "a-b", "slow": 2})
    assert (fault.target, fault.name, fault.slow) == ("link", "a-b", 2.0)


DIVIDE = """
func.func @div(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %e = tensor.empty() : tensor<4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %d = arith.divsi %x, %y : i32
    linalg.yield %d : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}
"""


@pytest.mark.parametrize("deterministic", [False, True])
@pytest.mark.parametrize("executor", ["local-sync://llvm-cpu", "local-task://vmvx"])
def test_a_failing_dispatch_on_a_simulated_device_names_its_command_and_source(
        tmp_path, executor, deterministic):
    source = tmp_path / "div.mlir"
    source.write_text(DIVIDE)
    vmfb = rt.compile(str(source), devices=[executor.split("://")[1]])
    topology = {"devices": [{"name": "d0", "uri": executor}]}
    a = np.array([1, 2, 3, 4], np.int32)
    with rt.load(vmfb, topology=topology, deterministic=deterministic) as m:
        with pytest.raises(DeviceError) as info:
            m.div(a, np.array([1, 0, 1, 1], np.int32))
        message = str(info.value)
        assert "d0: queue_execute failed: command buffer" in message
        assert "command 0 (dispatch of export 'div_dispatch_0_elementwise_4_i32'" in message
        assert "recorded at " + str(source) + ":4:8 in @div" in message
        assert "division by zero" in message
        np.testing.assert_array_equal(m.div(a, np.array([1, 2, 3, 4], np.int32)), [1, 1, 1, 1])
