"""Issue 5: one program split across two devices gives the single-device and numpy results.

examples/multi_device/split_vmvx_llvm.mlir declares a vmvx device and an llvm-cpu device as
IREE writes them; split.mlir is the same program naming devices @a/@b by affinity only,
compiled with ``--device=a=...`` flags. The elementwise prologue/epilogue run on the first
device, the data-tiled matmul on the second; ``flow.tensor.transfer`` moves tensors across as
queue copies ordered by fences.
"""
import json
import re
import subprocess
import sys

import numpy as np
import pytest

import rt
from rt.runtime.hal import create_device

VMVX, LLVM = "local-task://vmvx", "local-task://llvm-cpu"


def _close(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4)


def test_declared_devices_split_matches_numpy(compiled, split_inputs):
    args, expected = split_inputs
    with rt.load(compiled("split_vmvx_llvm"), devices=[VMVX, LLVM]) as m:
        assert [d.device_name for d in m.devices] == ["vmvx", "llvm-cpu"]
        out = m.split(*args)
    assert out.shape == (60, 36) and out.dtype == np.float32
    _close(out, expected)


@pytest.mark.parametrize("flags, uris", [(["a=vmvx", "b=llvm-cpu"], [VMVX, LLVM]),
                                         (["a=llvm-cpu", "b=llvm-cpu"], [LLVM, LLVM])])
def test_flag_devices_split_matches_numpy(compiled, split_inputs, flags, uris):
    args, expected = split_inputs
    with rt.load(compiled("split", flags), devices=uris) as m:
        assert [d.device_name for d in m.devices] == [u.partition("://")[2] for u in uris]
        assert m.devices[0] is not m.devices[1]
        _close(m.split(*args), expected)


def test_same_program_on_one_device_gives_the_same_result(compiled, split_inputs):
    """Both device globals bound to one device: the transfers become copies within its heap."""
    args, expected = split_inputs
    device = create_device(LLVM)
    try:
        with rt.load(compiled("split", ["a=llvm-cpu", "b=llvm-cpu"]), devices=[device, device]) as m:
            one = m.split(*args)
        with rt.load(compiled("split", ["a=llvm-cpu", "b=llvm-cpu"]), devices=[LLVM, LLVM]) as m:
            two = m.split(*args)
    finally:
        device.release()
    _close(one, expected)
    np.testing.assert_array_equal(one, two)


def _device_lanes(events):
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"}
    by_lane = {}
    for e in events:
        if e["ph"] == "X":
            by_lane.setdefault(threads[(e["pid"], e["tid"])], []).append(e)
    return by_lane


def test_trace_shows_elementwise_on_vmvx_and_tiled_matmul_on_llvm(compiled, split_inputs, tmp_path):
    args, expected = split_inputs
    tracer = rt.Tracer()
    with rt.load(compiled("split_vmvx_llvm"), devices=[VMVX, LLVM], tracer=tracer) as m:
        _close(m.split(*args), expected)
        vmvx, llvm = (d.label for d in m.devices)
    tracer.write(tmp_path / "t.json")
    lanes = _device_lanes(json.loads((tmp_path / "t.json").read_text())["traceEvents"])

    def dispatches(label):
        """The kind of each dispatch on ``label``'s queue (IREE's dispatch names: the root op)."""
        names = [e["name"] for e in lanes[f"{label} queue"] if e["name"].startswith("split_dispatch_")]
        return [re.match(r"split_dispatch_\d+_(elementwise|set_encoding|matmul|unset_encoding)", n)[1]
                for n in names]

    assert dispatches(vmvx) == ["elementwise", "elementwise"]
    assert dispatches(llvm) == ["set_encoding", "set_encoding", "matmul", "unset_encoding"]
    copies = {label: [e for e in lanes[f"{label} queue"] if e["name"] == "copy_buffer"]
              for label in (vmvx, llvm)}
    assert len(copies[llvm]) == 2 and len(copies[vmvx]) == 1
    assert len([e for e in lanes["host"] if e["name"] == "fence.await"]) == 1


def _function_ir(path, name):
    text = path.read_text()
    return text[text.index(f"util.func public @{name}("):]


def _copies_per_device(module_ir, ir):
    """{device global: copy_buffer commands recorded in that device's command buffers} for the
    command buffers function text ``ir`` records, or loads memoized (recorded once into a
    ``__command_buffer_*`` global in the module's initializer)."""
    loaded = set(re.findall(r"util\.global\.load @(__command_buffer_\w+) : !hal\.command_buffer", ir))
    init = module_ir[module_ir.index("util.initializer {"):]
    init = init[:init.index("util.return")]
    copies = {}
    for text, memoized in ((ir, False), (init, True)):
        devices, buffers, counts, kept = {}, {}, {}, set()
        for line in text.splitlines():
            if m := re.search(r"(%\w+) = util.global.load @(\w+) : !hal.device", line):
                devices[m[1]] = m[2]
            elif m := re.search(r"util.global.store (%\w+), @(\w+) : !hal.device", line):
                devices[m[1]] = m[2]
            elif m := re.search(r"(%\w+) = hal.command_buffer.create device\((%\w+)", line):
                buffers[m[1]], counts[m[1]] = devices[m[2]], 0
            elif m := re.search(r"hal.command_buffer.copy_buffer<(%\w+)", line):
                counts[m[1]] += 1
            elif m := re.search(r"util.global.store (%\w+), @(\w+) : !hal.command_buffer", line):
                if m[2] in loaded:
                    kept.add(m[1])
        for cmd, n in counts.items():
            if n and (not memoized or cmd in kept):
                copies[buffers[cmd]] = copies.get(buffers[cmd], 0) + n
    return copies


def test_transfers_are_queue_copies_chained_by_fences(examples_dir, tmp_path):
    """Transfers are copy commands in the consuming device's queue work; every queue operation
    but the first waits on a fence an earlier one signals; the host awaits once, after the
    last submission (no host round trip between the devices)."""
    from rt.compiler.driver import compile_file

    compile_file(examples_dir / "split_vmvx_llvm.mlir",
                 options={"dump_after": "iree-hal-convert-to-hal", "dump_dir": str(tmp_path)})
    (dump,) = tmp_path.glob("*convert-to-hal.mlir")
    ir = _function_ir(dump, "split")
    assert _copies_per_device(dump.read_text(), ir) == {"dev_b": 2, "dev_a": 1}
    queue_ops = re.findall(r"hal\.device\.queue\.([\w.]+)<(%\w+) .*? wait\((%\w+)\) signal\((%\w+)\)", ir)
    assert len([op for op, *_ in queue_ops if op.startswith("execute")]) >= 3
    signalled = set()
    for k, (_, _, wait, signal) in enumerate(queue_ops):
        assert k == 0 or wait in signalled, f"queue op {k} waits on {wait}, not an earlier signal"
        signalled.add(signal)
    assert ir.count("hal.fence.await") == 1
    assert ir.index("hal.fence.await") > ir.rindex("hal.device.queue.")


def test_cli_runs_the_split_with_two_device_flags(compiled, split_inputs, tmp_path):
    args, expected = split_inputs
    (tmp_path / "split.vmfb").write_bytes(compiled("split_vmvx_llvm"))
    for name, array in zip(("x", "w", "bias"), args):
        np.save(tmp_path / f"{name}.npy", array)
    out = subprocess.run([sys.executable, "-m", "rt", "run", "split.vmfb", "--function=split",
                          f"--device={VMVX}", f"--device={LLVM}", "--input=@x.npy", "--input=@w.npy",
                          "--input=@bias.npy", "--output=@y.npy"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["EXEC @split"]
    _close(np.load(tmp_path / "y.npy"), expected)
