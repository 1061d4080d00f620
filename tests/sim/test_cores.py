"""Devices sharing the host's cores (``host: {cores}``, rt.runtime.sim.cores): with n kernels
in flight on c < n cores each runs at c/n of its speed (processor sharing), against closed forms;
a bad ``cores`` names the field."""
import numpy as np
import pytest
import yaml

import rt
from rt.runtime.errors import InvalidArgumentError
from rt.runtime.sim.cores import CoreShare
from rt.runtime.sim.engine import Engine
from rt.runtime.sim.host_costs import HostCosts
from rt.runtime.sim.topology import Topology

def _ends(cores, starts):
    """End times of kernels ``[(start µs, own µs)]`` on ``cores`` cores."""
    engine, share, ends = Engine(), None, {}
    share = CoreShare(engine, cores, (0,))
    for i, (at, us) in enumerate(starts):
        engine.at(at, (1, i), lambda i=i, us=us: share.run(us, lambda i=i: ends.__setitem__(i, engine.now)))
    engine.run()
    return [ends[i] for i in range(len(starts))]


def test_kernels_share_the_cores_when_more_run_than_there_are():
    assert _ends(2, [(0.0, 100.0)] * 2) == [100.0, 100.0]
    assert _ends(2, [(0.0, 100.0)] * 4) == [pytest.approx(200.0)] * 4
    assert _ends(1, [(0.0, 30.0), (0.0, 60.0)]) == [pytest.approx(60.0), pytest.approx(90.0)]
    # a and b alone for 50 µs (50 left each), then three at 2/3 speed: a, b end at
    # 50 + 50 / (2/3) = 125; c has had 50 of its 100 µs, alone after: 175.
    assert _ends(2, [(0.0, 100.0), (0.0, 100.0), (50.0, 100.0)]) == \
        [pytest.approx(125.0), pytest.approx(125.0), pytest.approx(175.0)]


def _four(cores):
    topology = {"devices": [{"name": f"d{r}", "uri": "local-sync://llvm-cpu", "peak_gflops": 100,
                             "memory_gbps": 10} for r in range(4)]}
    if cores is not None:
        topology["host"] = {"call_us": 0, "cores": cores}
    return topology


def test_four_ranks_on_fewer_cores_stretch_by_the_oversubscription(spmd_exp_call_us):
    """Four ranks' identical kernels start together: on c cores the call takes 4/c times
    as long as with a core each (and no longer with 4 or more cores)."""
    alone = spmd_exp_call_us(_four(None), 4)
    assert alone > 0
    assert spmd_exp_call_us(_four(4), 4) == pytest.approx(alone)
    assert spmd_exp_call_us(_four(2), 4) == pytest.approx(2 * alone)
    assert spmd_exp_call_us(_four(1), 4) == pytest.approx(4 * alone)


def test_cores_round_trip_and_bad_values_name_the_field():
    topology = Topology.from_dict(_four(2))
    assert topology.host == HostCosts(0.0, 2)
    assert Topology.from_dict(topology.to_dict()).host == HostCosts(0.0, 2)
    for bad in (0, 1.5, "two", True):
        text = yaml.safe_dump({**_four(None), "host": {"call_us": 0, "cores": bad}})
        with pytest.raises(InvalidArgumentError, match=r"t.yaml:\d+: host.cores: expected a whole "
                                                        r"number of cores >= 1"):
            Topology.from_yaml(text, "t.yaml")


TWO_DISPATCHES = """
func.func @f(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x256xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    linalg.yield %c : f32
  } -> tensor<64xf32>
  %o = tensor.empty() : tensor<64x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<64x256xf32>, tensor<64xf32>) outs(%o : tensor<64x256xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}
"""


def _one_device(dispatch_us):
    return {"devices": [{"name": "d", "uri": "local-sync://llvm-cpu", "peak_gflops": 100, "memory_gbps": 10}],
            "host": {"call_us": 0, "dispatch_us": dispatch_us}}


def test_each_dispatch_after_an_operations_first_stage_pays_the_dispatch_gap():
    """k dispatches in one queue operation: (k - 1) gaps of ``dispatch_us`` more."""
    vmfb = rt.compile(TWO_DISPATCHES, devices=["llvm-cpu"])
    times, dispatches = [], []
    for gap in (0.0, 25.0):
        tracer = rt.Tracer()
        with rt.load(vmfb, topology=_one_device(gap), dry_run=True, tracer=tracer) as module:
            before = module.simulation.drain()
            module.f(np.ones((64, 256), np.float32), to_host=False)
            times.append(module.simulation.drain() - before)
        dispatches.append(sum(1 for e in tracer.events
                              if e.get("ph") == "X" and "workgroups" in (e.get("args") or {})))
    assert dispatches[0] == dispatches[1] == 2
    assert times[1] - times[0] == pytest.approx(25.0)


def test_a_traced_chain_gives_its_dispatches_per_operation_and_their_median_duration():
    from rt.runtime.sim.calibration import chain_dispatches

    def x(name, ts, dur, tid=1, dispatch=True):
        return {"ph": "X", "name": name, "ts": ts, "dur": dur, "tid": tid,
                "args": {"workgroups": [1, 1, 1]} if dispatch else {}}
    events = [x("queue_execute: f", 0, 100, dispatch=False), x("a", 10, 20), x("b", 33, 10),
              x("c", 50, 40),
              x("queue_execute: g", 200, 50, dispatch=False), x("d", 205, 10), x("e", 220, 5),
              x("other thread", 30, 1, tid=2)]              # not in tid 1's operation
    assert chain_dispatches(events) == (3, 10.0)             # durations 1 5 10 10 20 40
    assert chain_dispatches([x("queue_execute: f", 0, 9, dispatch=False)]) == (0, 0.0)


def test_the_dispatch_gap_is_the_untraced_cost_of_a_dispatch_beyond_its_duration():
    """What one more dispatch adds to an untraced call, less its traced duration; with more
    devices than cores the marginal is the stretched dispatch's, so it is unstretched first;
    never negative (an untraced dispatch may run faster than its traced duration)."""
    from rt.runtime.sim.calibration import dispatch_gap_us

    assert dispatch_gap_us(12.0, 5.0, ranks=2, cores=2) == pytest.approx(7.0)
    assert dispatch_gap_us(12.0, 5.0, ranks=4, cores=2) == pytest.approx(1.0)
    assert dispatch_gap_us(4.1, 4.9, ranks=2, cores=2) == 0.0
