"""Per-dispatch overhead of the HAL: empty kernels, 1 and 64 workgroups, local-sync/local-task.

Three figures per configuration:
  in-cb   : microseconds per dispatch when a command buffer of 1000 dispatches is replayed
            (the Cython replay loop + the library's dispatch call + its launcher);
  traced  : the same with a trace sink installed on the device (a sink that only counts
            events: the cost of the HAL's tracing hooks themselves);
  submit  : microseconds for queue_execute of a 1-dispatch command buffer plus the fence wait
            (queue hand-off, semaphore signal, waking the waiter; on local-task the waiter
            donates its thread to the idle queue).
Kernels: ``llvm-cpu`` (the device's real empty kernel from rt.devices.llvm_cpu.testing),
``vmvx`` (rt.devices.vmvx.testing.empty, run by the VM interpreter) and ``null`` (a Python
library whose dispatch returns at once: the HAL's own overhead).

    python benchmarks/hal_dispatch.py [--json out.json] [--repeat 5]
"""
import argparse
import json
import platform
import time

from rt.runtime import hal
from rt.runtime.hal import ExecutableLibrary, ExecutableLoader, ExportInfo
from rt.runtime.hal.trace import TraceSink

BATCH = 1000


class _NullLibrary(ExecutableLibrary):
    format = "null"
    exports = (ExportInfo("empty", 0, 0),)

    def dispatch(self, ordinal, workgroup_count, constants, binding_ptrs, binding_lengths, threads=1):
        return None


class _NullLoader(ExecutableLoader):
    name = "null"
    formats = ("null",)

    def unsupported_reason(self, format, metadata):
        return None if format == "null" else f"format {format!r} is not 'null'"

    def load(self, format, data, metadata):
        return _NullLibrary()


class _CountingSink(TraceSink):
    def __init__(self):
        self.events = 0

    def zone_begin(self, lane, name, timestamp_ns, args=None):
        self.events += 1

    def zone_end(self, lane, timestamp_ns, args=None):
        self.events += 1

    def instant(self, lane, name, timestamp_ns, args=None):
        self.events += 1


def _variant(kind):
    if kind == "llvm-cpu":
        from rt.devices.llvm_cpu import testing
        obj = testing.empty_executable()
        return obj.format, obj.data, obj.metadata
    if kind == "vmvx":
        from rt.devices.vmvx import testing
        return testing.empty()
    return "null", b"", {}


def _device(driver, kind):
    uri = f"{driver}://{'vmvx' if kind == 'null' else kind}"
    if driver == "local-task":
        uri += "?threads=2"
    loaders = [_NullLoader()] if kind == "null" else None
    return hal.create_device(uri, loaders=loaders), uri


def _record(device, exe, workgroups, count):
    cb = device.create_command_buffer()
    cb.begin()
    for _ in range(count):
        cb.dispatch(exe, 0, (workgroups, 1, 1), [], [])
    cb.end()
    return cb


def measure(driver, kind, workgroups, repeat):
    device, uri = _device(driver, kind)
    try:
        exe = device.prepare_executable([_variant(kind)])
        batch = _record(device, exe, workgroups, BATCH)
        single = _record(device, exe, workgroups, 1)
        device.queue_execute([batch]).wait(60)
        in_cb = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            device.queue_execute([batch]).wait(60)
            in_cb.append((time.perf_counter() - t0) / BATCH * 1e6)
        sink = _CountingSink()
        device.set_trace_sink(sink)
        traced = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            device.queue_execute([batch]).wait(60)
            traced.append((time.perf_counter() - t0) / BATCH * 1e6)
        device.set_trace_sink(None)
        expected = repeat * (2 * BATCH + 3)  # per command a zone; the queue zone; one instant
        if sink.events != expected:
            raise RuntimeError(f"{uri}: the sink saw {sink.events} events, expected {expected}")
        submit = []
        for _ in range(repeat):
            n = 200
            t0 = time.perf_counter()
            for _ in range(n):
                device.queue_execute([single]).wait(60)
            submit.append((time.perf_counter() - t0) / n * 1e6)
        return {"uri": uri, "kernel": kind, "workgroups": workgroups,
                "in_cb_us": min(in_cb), "traced_us": min(traced), "submit_us": min(submit)}
    finally:
        device.release()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="also write the rows to this JSON file")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (best is kept)")
    args = parser.parse_args(argv)
    rows = [measure(driver, kind, wg, args.repeat)
            for driver in ("local-sync", "local-task")
            for kind in ("null", "llvm-cpu", "vmvx")
            for wg in (1, 64)]
    print(f"{'device':<34} {'kernel':<9} {'wg':>3} {'in-cb us/dispatch':>18} {'traced':>7} "
          f"{'submit+wait us':>15}")
    for r in rows:
        print(f"{r['uri']:<34} {r['kernel']:<9} {r['workgroups']:>3} {r['in_cb_us']:>18.2f} "
              f"{r['traced_us']:>7.2f} {r['submit_us']:>15.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": platform.processor() or platform.machine(),
                       "date": time.strftime("%Y-%m-%d"), "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
