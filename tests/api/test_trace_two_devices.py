"""Issue 5: a trace of two independent matmuls on two llvm-cpu devices shows them overlapping.

The module is built by hand (rt.runtime.vm.ModuleBuilder, as rt.testing does) so that it
submits one mmt4d command buffer per device before awaiting both fences, which is the schedule
the trace must reveal; the same .vmfb then runs through ``python -m rt run --trace``.
"""
import json
import subprocess
import sys

import numpy as np
import pytest

import rt
from rt.runtime.errors import RtError
from rt.runtime.hal import BufferUsage, ElementType, MemoryType
from rt.runtime.hal.module import HalModule
from rt.runtime.vm import ModuleBuilder
from rt.testing import devices_attribute, reflection

M1 = N1 = 32
K1 = 512
TILE = (16, 16, 1)
REPEATS = 8
DEVICE = "local-task://llvm-cpu?threads=1"
EXPORT = "mmt4d_f32"


def _tensor(name, shape, device):
    dims = "x".join(str(d) for d in shape)
    return {"name": name, "type": f"tensor<{dims}xf32>", "kind": "tensor", "shape": list(shape),
            "dtype": "f32", "encoding": None, "device": device}


LHS, RHS, OUT = (M1, K1, TILE[0], TILE[2]), (N1, K1, TILE[1], TILE[2]), (M1, N1, TILE[0], TILE[1])


def _twin_matmuls():
    """``.vmfb`` bytes of ``matmuls(l0, r0, l1, r1) -> (l0 @ r0, l1 @ r1)``, one per device."""
    try:
        from rt.devices.llvm_cpu import testing
        obj = testing.mmt4d_executable(tile=TILE)
    except (ImportError, RtError) as error:
        pytest.skip(f"llvm-cpu unavailable: {error}")
    mb = ModuleBuilder("twins", attributes={"rt.devices": devices_attribute("llvm-cpu", "llvm-cpu")})
    hal = {n: mb.import_function("hal." + n, HalModule.exports[n][1].text) for n in (
        "devices.get", "executable.create", "buffer_view.buffer", "buffer_view.create",
        "device.allocator", "allocator.allocate", "command_buffer.create",
        "command_buffer.dispatch", "command_buffer.finalize", "fence.create",
        "device.queue.execute", "fence.await")}
    fmt_ro = mb.rodata("format", obj.format.encode())
    data_ro = mb.executable("mmt4d", obj.format, obj.data, obj.metadata)
    dev_globals = [mb.global_(f"__device_{d}", "ref") for d in range(2)]
    exe_globals = [mb.global_(f"__executable_{d}", "ref") for d in range(2)]

    def const(fb, type_, value):
        r = fb.reg(type_)
        getattr(fb, f"const_{type_}")(r, value)
        return r

    fb = mb.function("__init", "0v_v", export=True)
    for d in range(2):
        dev, fr, dr, null, exe = (fb.reg("ref") for _ in range(5))
        fb.call_import(hal["devices.get"], [const(fb, "i32", d)], [dev])
        fb.global_store_ref(dev, dev_globals[d])
        fb.const_ref_rodata(fr, fmt_ro)
        fb.const_ref_rodata(dr, data_ro)
        fb.const_ref_zero(null)
        fb.call_import(hal["executable.create"], [dev, const(fb, "i64", -1), fr, dr, null], [exe])
        fb.global_store_ref(exe, exe_globals[d])
    fb.return_([])

    args = [_tensor(n, s, d) for d in range(2) for n, s in (("lhs", LHS), ("rhs", RHS))]
    fb = mb.function("matmuls", "0rrrr_rr", export=True, reflection=reflection(
        "func @matmuls(...)", args, [_tensor("", OUT, 0), _tensor("", OUT, 1)], "twins.mlir:1:1"))
    zero32, one32, zero64, minus1 = (const(fb, "i32", 0), const(fb, "i32", 1),
                                     const(fb, "i64", 0), const(fb, "i64", -1))
    sizes = [const(fb, "i64", int(np.prod(s)) * 4) for s in (LHS, RHS, OUT)]
    outs, fences = [], []
    for d in range(2):
        dev, exe, alloc, out, cb, fence, null = (fb.reg("ref") for _ in range(7))
        bufs = [fb.reg("ref"), fb.reg("ref")]
        fb.global_load_ref(dev, dev_globals[d])
        fb.global_load_ref(exe, exe_globals[d])
        fb.const_ref_zero(null)
        for view, buf in zip(fb.args[2 * d:2 * d + 2], bufs):
            fb.call_import(hal["buffer_view.buffer"], [view], [buf])
        fb.call_import(hal["device.allocator"], [dev], [alloc])
        fb.call_import(hal["allocator.allocate"], [
            alloc, minus1, const(fb, "i32", int(MemoryType.DEVICE_LOCAL)),
            const(fb, "i32", int(BufferUsage.DEFAULT)), sizes[2]], [out])
        fb.call_import(hal["command_buffer.create"], [dev, one32, const(fb, "i32", 3), minus1,
                                                      zero32], [cb])
        bindings = []
        for buf, size in zip((*bufs, out), sizes):
            bindings += [zero32, zero32, buf, zero64, size]
        constants = [const(fb, "i32", v) for v in (M1, N1, K1, 0)]
        for _ in range(REPEATS):
            fb.call_variadic(hal["command_buffer.dispatch"], [4, 3],
                             [cb, exe, zero64, one32, one32, one32, zero64, *constants,
                              *bindings], [])
        fb.call_import(hal["command_buffer.finalize"], [cb], [])
        fb.call_import(hal["fence.create"], [dev, zero64], [fence])
        fb.call_import(hal["device.queue.execute"], [dev, minus1, null, fence, cb, zero64], [])
        outs.append(out)
        fences.append(fence)
    status = fb.reg("i32")
    fb.call_variadic(hal["fence.await"], [2], [const(fb, "i32", -1), zero64, *fences], [status])
    views = [fb.reg("ref"), fb.reg("ref")]
    for out, view in zip(outs, views):
        fb.call_variadic(hal["buffer_view.create"], [4],
                         [out, zero64, sizes[2], const(fb, "i32", int(ElementType.FLOAT_32)),
                          one32, *(const(fb, "i64", v) for v in OUT)], [view])
    fb.return_(views)
    return mb.build()


def _inputs():
    rng = np.random.default_rng(5)
    return [rng.standard_normal(s, np.float32) for s in (LHS, RHS, LHS, RHS)]


def _expect(lhs, rhs):
    return np.einsum("akmc,bknc->abmn", lhs, rhs)


def _lanes(events):
    """{thread name: (pid, tid)} and {pid: process name}."""
    threads = {e["args"]["name"]: (e["pid"], e["tid"]) for e in events if e["name"] == "thread_name"}
    processes = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    return threads, processes


def _check_overlapping_trace(events, labels):
    threads, processes = _lanes(events)
    assert processes == {1: "host", 2: labels[0], 3: labels[1]}
    assert {name: pid for name, (pid, _) in threads.items()} == {
        "host": 1, f"{labels[0]} queue": 2, f"{labels[1]} queue": 3}
    slices = [e for e in events if e["ph"] == "X"]

    def on(lane, name):
        return [e for e in slices if (e["pid"], e["tid"]) == threads[lane] and e["name"] == name]

    executes = [on(f"{label} queue", f"queue_execute: {EXPORT}, {EXPORT}, {EXPORT}, ...")
                for label in labels]
    assert [len(x) for x in executes] == [1, 1]
    a, b = executes[0][0], executes[1][0]
    assert a["ts"] < b["ts"] + b["dur"] and b["ts"] < a["ts"] + a["dur"], "no overlap"
    for label, execute in zip(labels, (a, b)):
        dispatches = on(f"{label} queue", EXPORT)
        assert [d["args"]["workgroups"] for d in dispatches] == [[1, 1, 1]] * REPEATS
        assert all(execute["ts"] <= d["ts"] and d["ts"] + d["dur"] <= execute["ts"] + execute["dur"]
                   for d in dispatches)
    (call,) = on("host", "EXEC @matmuls")
    (wait,) = on("host", "fence.await")
    assert wait["args"]["status"] == "OK"
    assert all(any(t.startswith(f"semaphore 0 of {label}") for label in labels) and
               t.endswith(" >= 1") for t in wait["args"]["timepoints"])
    assert call["ts"] <= min(a["ts"], b["ts"])
    assert max(a["ts"] + a["dur"], b["ts"] + b["dur"]) <= call["ts"] + call["dur"]


def test_two_devices_overlap_in_the_api_trace(tmp_path):
    vmfb = _twin_matmuls()
    tracer = rt.Tracer()
    l0, r0, l1, r1 = _inputs()
    with rt.load(vmfb, devices=[DEVICE, DEVICE], tracer=tracer) as m:
        out0, out1 = m.matmuls(l0, r0, l1, r1)
        labels = [d.label for d in m.devices]
    np.testing.assert_allclose(out0, _expect(l0, r0), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(out1, _expect(l1, r1), rtol=1e-4, atol=1e-3)
    tracer.write(tmp_path / "trace.json")
    _check_overlapping_trace(json.loads((tmp_path / "trace.json").read_text())["traceEvents"],
                             labels)


def test_two_devices_overlap_in_the_cli_trace(tmp_path):
    (tmp_path / "twins.vmfb").write_bytes(_twin_matmuls())
    inputs = []
    for k, array in enumerate(_inputs()):
        np.save(tmp_path / f"x{k}.npy", array)
        inputs.append(f"--input=@x{k}.npy")
    out = subprocess.run([sys.executable, "-m", "rt", "run", "twins.vmfb", "--function=matmuls",
                          *inputs, f"--device={DEVICE}", f"--device={DEVICE}",
                          "--output=@y0.npy", "--output=@y1.npy", "--trace=t.json"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    l0, r0, _, _ = _inputs()
    np.testing.assert_allclose(np.load(tmp_path / "y0.npy"), _expect(l0, r0), rtol=1e-4, atol=1e-3)
    events = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    _, processes = _lanes(events)
    labels = [processes[2], processes[3]]
    assert all(label.startswith("local-task://llvm-cpu#") for label in labels)
    _check_overlapping_trace(events, labels)
