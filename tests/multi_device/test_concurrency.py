"""Issue 5: independent work on two llvm-cpu devices runs concurrently.

examples/multi_device/twin_matmuls.mlir multiplies one 512^3 pair on device @a and another on
@b. The compiled program must submit both devices' work before it waits on either
(schedule-execution keeps @a's matmul out of the region that waits for @b; elide-timepoints
sinks each await to its first consumer), so the trace shows:

* every queue submission of a call before the host's first ``fence.await``;
* the two matmul dispatches in flight at the same time. This is checked structurally, not by
  timing: a trace sink makes each matmul dispatch wait at a rendezvous until the other
  device's has started too (``_Rendezvous``), which only a schedule that runs both at once
  gets past; a serialized one would leave the first dispatch alone at the rendezvous until it
  gives up, failing the call. So the overlap holds however loaded the machine is.
"""
import json
import subprocess
import sys
import threading

import numpy as np

import rt

DEVICE = "local-task://llvm-cpu"
FLAGS = ["a=llvm-cpu", "b=llvm-cpu"]
PIDS = [2, 3]  # the trace's processes of the two devices (pid 1 is the host)
CALLS = 4


def _inputs():
    rng = np.random.default_rng(3)
    return [rng.standard_normal((512, 512), np.float32) for _ in range(4)]


def _check_products(out0, out1, inputs):
    a0, b0, a1, b1 = inputs
    np.testing.assert_allclose(out0, a0 @ b0, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(out1, a1 @ b1, rtol=1e-3, atol=1e-3)


def _calls(events):
    """Per ``EXEC @twin`` zone: its submissions, host awaits and matmul zones per device pid."""
    out = []
    for call in (e for e in events if e["ph"] == "X" and e["name"] == "EXEC @twin"):
        lo, hi = call["ts"], call["ts"] + call["dur"]
        inside = [e for e in events if e.get("ts") is not None and lo <= e["ts"] <= hi]
        out.append({
            "submits": [e for e in inside if e["ph"] == "i" and e["name"].startswith("submit ")],
            "awaits": [e for e in inside if e["ph"] == "X" and e["name"] == "fence.await"],
            "matmuls": {e["pid"]: e for e in inside if e["ph"] == "X" and "_matmul_" in e["name"]},
        })
    return out


def _overlaps(call):
    a, b = (call["matmuls"][p] for p in PIDS)
    return a["ts"] < b["ts"] + b["dur"] and b["ts"] < a["ts"] + a["dur"]


def _check_submissions(events):
    """Each call submits work to both devices, all of it before the host first waits."""
    calls = _calls(events)
    assert calls, "no EXEC @twin zone in the trace"
    for call in calls:
        first_await = min(e["ts"] for e in call["awaits"])
        assert {e["pid"] for e in call["submits"]} == set(PIDS)
        assert all(e["ts"] < first_await for e in call["submits"]), \
            "a device's work was submitted after the host started waiting"
        assert sorted(call["matmuls"]) == PIDS
    return calls


class _Rendezvous(rt.Tracer):
    """A Tracer whose matmul dispatch zones start only in pairs, one per device: the first
    to begin waits (GIL released) until the other begins; alone for ``seconds``, the barrier
    breaks and the sink's error fails the dispatch (and so the call)."""

    def __init__(self, seconds=120):
        super().__init__()
        self._pair = threading.Barrier(2, timeout=seconds)
        self.pairs = 0

    def zone_begin(self, lane, name, timestamp_ns, args=None):
        if name.startswith("twin_dispatch_") and "_matmul_" in name:  # the dispatch's own zone
            if self._pair.wait() == 0:
                self.pairs += 1
        super().zone_begin(lane, name, timestamp_ns, args)


def _check_overlap(events):
    calls = _check_submissions(events)
    assert all(_overlaps(c) for c in calls), "the two matmul dispatches did not run at the " \
        "same time: " + str([[(m["ts"], m["dur"]) for m in c["matmuls"].values()] for c in calls])


def test_two_devices_run_their_matmuls_concurrently(compiled, tmp_path):
    inputs = _inputs()
    tracer = _Rendezvous()
    with rt.load(compiled("twin_matmuls", FLAGS), devices=[DEVICE, DEVICE], tracer=tracer) as m:
        for _ in range(CALLS):
            _check_products(*m.twin(*inputs), inputs)
    assert tracer.pairs == CALLS
    tracer.write(tmp_path / "t.json")
    _check_overlap(json.loads((tmp_path / "t.json").read_text())["traceEvents"])


def _cli(tmp_path, command, *flags):
    out = subprocess.run([sys.executable, "-m", "rt", command, "twin.vmfb", "--function=twin",
                          *(f"--input=@x{k}.npy" for k in range(4)), f"--device={DEVICE}",
                          f"--device={DEVICE}", *flags], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return out


def test_cli_traces_show_the_overlap(compiled, tmp_path):
    """``rt run --trace``: one (cold) call submits both devices' work before waiting;
    ``rt benchmark --trace``: warm calls in one trace, each submitting both devices' work
    before it waits (the overlap itself is ``test_two_devices_run_their_matmuls_concurrently``'s)."""
    (tmp_path / "twin.vmfb").write_bytes(compiled("twin_matmuls", FLAGS))
    inputs = _inputs()
    for k, array in enumerate(inputs):
        np.save(tmp_path / f"x{k}.npy", array)
    out = _cli(tmp_path, "run", "--output=@y0.npy", "--output=@y1.npy", "--trace=run.json")
    assert out.stdout.splitlines() == ["EXEC @twin"]
    _check_products(np.load(tmp_path / "y0.npy"), np.load(tmp_path / "y1.npy"), inputs)
    events = json.loads((tmp_path / "run.json").read_text())["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    assert processes[1] == "host" and all(processes[p].startswith(f"{DEVICE}#") for p in PIDS)
    _check_submissions(events)
    _cli(tmp_path, "benchmark", f"--repetitions={CALLS}", "--trace=bench.json")
    events = json.loads((tmp_path / "bench.json").read_text())["traceEvents"]
    assert len(_calls(events)) == CALLS + 1
    _check_submissions(events)
