"""An SPMD call's first profiled dispatch holds the call's start-up, which ``host.call_us`` holds
too: it runs for ``max(class time, profiled - call_us)`` (rt.runtime.sim.costs ``Compute``),
against closed forms."""
import numpy as np
import pytest

import rt
from rt.runtime.sim.profile import ProfileTable

CLASS_US = 10.0 + 2 * 65536 * 4 / 1e3  # elementwise: 10 µs + 512 KiB at 1 GB/s = 534.288 µs



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


@pytest.mark.parametrize("profiled, call_us, kernels, expected", [
    (1000.0, 300.0, True, 1000.0),                 # 300 + (1000 - 300): the start-up once
    (600.0, 300.0, True, 300.0 + CLASS_US),        # no less than the class's time
    (1000.0, 300.0, False, 1300.0),                # no class to bound it: the profile as is
    (1000.0, 0.0, True, 1000.0),                   # no call cost, nothing counted twice
])
def test_the_first_profiled_dispatch_counts_the_start_up_once(spmd_exp_vmfb, spmd_exp_call_us,
                                                              tmp_path, profiled, call_us,
                                                              kernels, expected):
    path = str(tmp_path / "p.json")
    ProfileTable({_dispatch_key(spmd_exp_vmfb(2)): profiled}, source=path).write(path)
    assert spmd_exp_call_us(_topology(call_us, path, kernels), 2) == pytest.approx(expected)


def test_without_a_profile_the_class_time_follows_the_call_cost(spmd_exp_call_us):
    assert spmd_exp_call_us(_topology(300.0, None), 2) == pytest.approx(300.0 + CLASS_US)
