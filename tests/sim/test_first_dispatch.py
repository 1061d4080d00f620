"""An SPMD call's first profiled dispatch holds the call's start-up, which ``host.call_us`` holds
too: it runs for ``max(class time, profiled - call_us)`` (rt.runtime.sim.costs ``Compute``),
against closed forms."""
import numpy as np
import pytest

import rt
from rt.runtime.sim.profile import ProfileTable

EXP = """
shard.grid @grid(shape = 2)
func.func @f(%x: tensor<65536xf32>) -> tensor<65536xf32> {
  %e = tensor.empty() : tensor<65536xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<65536xf32>) outs(%e : tensor<65536xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = math.exp %v : f32
    linalg.yield %y : f32
  } -> tensor<65536xf32>
  return %r : tensor<65536xf32>
}
"""
CLASS_US = 10.0 + 2 * 65536 * 4 / 1e3  # elementwise: 10 µs + 512 KiB at 1 GB/s = 534.288 µs


@pytest.fixture(scope="module")
def exp_vmfb():
    return rt.compile(EXP, devices=["llvm-cpu"])


def _dispatch_key(vmfb):
    tracer = rt.Tracer()
    with rt.load(vmfb, topology=_topology(0.0, None), ranks=2, dry_run=True, tracer=tracer) as module:
        module.f.spmd([[np.ones(65536, np.float32)]] * 2, to_host=False)
    (found,) = {(e["name"], tuple(e["args"]["workgroups"])) for e in tracer.events
                if e.get("ph") == "X" and "workgroups" in (e.get("args") or {})}
    return found


def _topology(call_us, profile, kernels=True):
    device = {"uri": "local-sync://llvm-cpu", "peak_gflops": 100, "memory_gbps": 10}
    if kernels:
        device["kernels"] = {"elementwise": {"overhead_us": 10.0, "gbps": 1.0}}
    return {"devices": [{"name": f"d{r}", **device} for r in range(2)],
            "host": {"call_us": call_us}, **({"profile": profile} if profile else {})}


def _call_us(vmfb, topology):
    with rt.load(vmfb, topology=topology, ranks=2, dry_run=True) as module:
        before = module.simulation.drain()
        module.f.spmd([[np.ones(65536, np.float32)]] * 2, to_host=False)
        return module.simulation.drain() - before


@pytest.mark.parametrize("profiled, call_us, kernels, expected", [
    (1000.0, 300.0, True, 1000.0),                 # 300 + (1000 - 300): the start-up once
    (600.0, 300.0, True, 300.0 + CLASS_US),        # no less than the class's time
    (1000.0, 300.0, False, 1300.0),                # no class to bound it: the profile as is
    (1000.0, 0.0, True, 1000.0),                   # no call cost, nothing counted twice
])
def test_the_first_profiled_dispatch_counts_the_start_up_once(exp_vmfb, tmp_path, profiled, call_us,
                                                              kernels, expected):
    path = str(tmp_path / "p.json")
    ProfileTable({_dispatch_key(exp_vmfb): profiled}, source=path).write(path)
    assert _call_us(exp_vmfb, _topology(call_us, path, kernels)) == pytest.approx(expected)


def test_without_a_profile_the_class_time_follows_the_call_cost(exp_vmfb):
    assert _call_us(exp_vmfb, _topology(300.0, None)) == pytest.approx(300.0 + CLASS_US)
