"""HAL replay (issue 24 item 3): ``rt run --device_replay_output`` records the HAL work of a run,
``rt replay run|benchmark|dump`` plays it back without the VM, bit for bit, strict on mismatches,
with executable substitution."""
import json
import os
import zipfile

import numpy as np
import pytest

import rt
from rt.runtime.errors import CheckError, InvalidArgumentError, ModuleFormatError
from rt.runtime.hal.replay_format import ReplayFile
from rt.runtime.hal.replay_player import ReplayPlayer
from rt.runtime.hal.replay_recorder import ReplayRecorder

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_ELEMENTWISE = """func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
      affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.OP %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


@pytest.fixture(scope="module")
def mlp_replay(mlp_run):
    """The MLP's replay, recorded by ``rt run ... --device_replay_output`` (conftest)."""
    return mlp_run["replay"]


@pytest.fixture(scope="module")
def add_and_mul(tmp_path_factory):
    """Two 4xf32 modules whose one executable has the same name and ABI: x + y and x * y."""
    root = tmp_path_factory.mktemp("replay_subst")
    for op in ("addf", "mulf"):
        (root / f"{op}.vmfb").write_bytes(rt.compile(_ELEMENTWISE.replace("OP", op), devices=["llvm-cpu"]))
    return root


def _record_add(root):
    """Record one call of the add module through the Python API; returns the replay path."""
    path = root / "add.rtreplay"
    with rt.load((root / "addf.vmfb").read_bytes(), devices=["local-task://llvm-cpu"]) as m:
        f = m.lookup("f")
        prepared = f.prepare(np.float32([1, 2, 3, 4]), np.float32([10, 20, 30, 40]))
        recorder = ReplayRecorder(m.devices)
        raw = f.invoke(prepared)
        recorder.add_outputs(raw)
        recorder.detach()
        assert all(d.recorder is None for d in m.devices)
        recorder.write(path)
    return path


def _play(path, **kwargs):
    player = ReplayPlayer(ReplayFile(str(path)), **kwargs)
    try:
        return player, player.run()
    finally:
        player.close()


def test_mlp_replay_reruns_bit_identically(mlp_run, mlp_replay, rt_cli):
    out = rt_cli("replay", "run", mlp_replay)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "replayed 3 submissions on 1 device(s); 1 output(s) match the recording\n"
    player, outputs = _play(mlp_replay)
    player.verify(outputs)
    assert outputs[0] == np.load(mlp_run["result"]).tobytes()
    manifest = ReplayFile(str(mlp_replay)).manifest
    assert [s["op"] for s in manifest["submissions"]] == ["queue_alloca", "queue_execute", "queue_dealloca"]
    kinds = [c["kind"] for c in manifest["command_buffers"][0]["commands"]]
    assert kinds.count("dispatch") == 4 and len(manifest["executables"]) == 4
    inputs = [a for a in manifest["allocations"] if a["origin"] == "host" and a["contents"] is not None]
    assert sorted(a["size"] for a in inputs)[-1] == 784 * 512 * 4


def test_replay_dump_and_benchmark(mlp_replay, cli_main):
    code, out, err = cli_main("replay", "dump", mlp_replay)
    assert code == 0, err
    assert "device 0: local-task://llvm-cpu" in out
    assert "dispatch mlp_dispatch_0_matmul_64x512x784_f32 (executable 0) workgroups" in out
    assert "submission 1: device 0 queue_execute command buffers [0] wait [semaphore 0 >= 1]" in out
    code, out, err = cli_main("replay", "benchmark", mlp_replay, "--benchmark_min_time=2x")
    assert code == 0, err
    row = next(line for line in out.splitlines() if line.startswith("BM_replay/real_time"))
    assert row.split()[-2] == "2"  # iterations


def test_multi_device_replay_reruns_bit_identically(tmp_path, cli_main):
    vmfb = tmp_path / "split.vmfb"
    vmfb.write_bytes(rt.compile(os.path.join(ROOT, "examples", "multi_device", "split.mlir"),
                                devices=["a=llvm-cpu", "b=llvm-cpu"]))
    code, _, err = cli_main("run", vmfb, "--device=local-task://llvm-cpu", "--device=local-task://llvm-cpu",
                            "--input=60x100xf32=0.5", "--input=100x36xf32=0.25", "--input=36xf32=-1",
                            f"--output=@{tmp_path / 'y.npy'}", f"--device_replay_output={tmp_path / 'split.rtreplay'}")
    assert code == 0, err
    player, outputs = _play(tmp_path / "split.rtreplay")
    player.verify(outputs)
    assert outputs[0] == np.load(tmp_path / "y.npy").tobytes()
    np.testing.assert_array_equal(np.frombuffer(outputs[0], np.float32), np.full(60 * 36, 12.5 - 1, np.float32))
    manifest = ReplayFile(str(tmp_path / "split.rtreplay")).manifest
    assert len(manifest["devices"]) == 2
    assert {s["device"] for s in manifest["submissions"]} == {0, 1}


def test_substituted_kernel_runs(add_and_mul, cli_main):
    path = _record_add(add_and_mul)
    _, outputs = _play(path)
    np.testing.assert_array_equal(np.frombuffer(outputs[0], np.float32), [11, 22, 33, 44])
    player, outputs = _play(path, substitutions={"f_dispatch_0": str(add_and_mul / "mulf.vmfb")})
    np.testing.assert_array_equal(np.frombuffer(outputs[0], np.float32), [10, 40, 90, 160])
    with pytest.raises(CheckError, match=r"output 0 \(buffer 2\) differs from the recording: .*"
                                         r"executables \[0\] were substituted"):
        player.verify(outputs)
    code, out, err = cli_main("replay", "run", path, f"--executable_substitution=0={add_and_mul / 'mulf.vmfb'}",
                              "--no-verify")
    assert code == 0, err
    assert out == f"output 0: 16 B, first bytes {np.float32([10, 40, 90, 160]).tobytes()[:16].hex()}\n"


def test_substitution_with_another_abi_is_refused(add_and_mul, mlp_run, cli_main):
    path = _record_add(add_and_mul)
    folder = add_and_mul / "mlp_executables"
    assert cli_main("dump", mlp_run["module"], f"--executables-to={folder}")[0] == 0
    binary = folder / "mlp_dispatch_0_llvm_cpu_object_x86_64.o"
    with pytest.raises(InvalidArgumentError, match=r"executable 0 \(f_dispatch_0\): the loaded executable's "
                                                   r"exports .* a substitute must have the same ABI"):
        _play(path, substitutions={0: str(binary)})
    with pytest.raises(InvalidArgumentError, match=r"no executable 'nope' in .*; it has: 0=f_dispatch_0"):
        _play(path, substitutions={"nope": str(binary)})
    code, _, err = cli_main("replay", "run", path, "--executable_substitution=0")
    assert code == 1 and "expected ORDINAL_OR_NAME=PATH" in err


def _rewritten(source, target, change):
    """Copy replay ``source`` to ``target`` with ``change(manifest)`` applied."""
    with zipfile.ZipFile(source) as z:
        items = {name: z.read(name) for name in z.namelist()}
    manifest = json.loads(items["manifest.json"])
    change(manifest)
    items["manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(target, "w") as z:
        for name, data in items.items():
            z.writestr(name, data)
    return target


def test_mismatched_replays_are_clear_errors(mlp_replay, tmp_path, rt_cli):
    old = _rewritten(mlp_replay, tmp_path / "v2.rtreplay", lambda m: m.update(version=2))
    with pytest.raises(ModuleFormatError, match="replay format version 2; this rt reads version 1"):
        ReplayFile(str(old))
    with pytest.raises(InvalidArgumentError, match=r"executable 0 \(mlp_dispatch_0\) is 'llvm-cpu-object-x86_64', "
                                                   r"which local-task://vmvx#\d+ does not load"):
        _play(mlp_replay, devices=["local-task://vmvx"])
    with pytest.raises(InvalidArgumentError, match=r"the recording has 1 device\(s\) \(local-task://llvm-cpu\), "
                                                   "got 2 --device flag"):
        _play(mlp_replay, devices=["local-task://llvm-cpu"] * 2)

    def shrink(manifest):
        manifest["allocations"][1]["size"] -= 4
    with pytest.raises(ModuleFormatError, match=r"allocation 1: 200704 bytes of contents for a 200700-byte"):
        _play(_rewritten(mlp_replay, tmp_path / "size.rtreplay", shrink))

    def widen(manifest):
        manifest["buffers"][2]["length"] += 64
    with pytest.raises(ModuleFormatError, match=r"buffer 2: \[0, \+1605696\) exceeds its 1605632-byte allocation 2"):
        _play(_rewritten(mlp_replay, tmp_path / "view.rtreplay", widen))

    def drop(manifest):
        del manifest["submissions"][1]["command_buffers"]
    with pytest.raises(ModuleFormatError, match=r"submission 1 \(queue_execute\) is malformed \(KeyError"):
        _play(_rewritten(mlp_replay, tmp_path / "drop.rtreplay", drop))
    (tmp_path / "junk.rtreplay").write_bytes(b"not a zip")
    out = rt_cli("replay", "run", tmp_path / "junk.rtreplay")
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr == (f"rt replay: {tmp_path / 'junk.rtreplay'}: not an rt HAL replay file (expected a zip "
                          "archive with manifest.json; write one with rt run --device_replay_output=FILE)\n")


def test_replay_flags_are_checked_before_the_run(mlp_run, tmp_path, cli_main):
    path, flags = mlp_run["module"], mlp_run["inputs"]
    code, out, err = cli_main("run", path, "--function=mlp", *flags,
                              f"--device_replay_output={tmp_path / 'no' / 'r.rtreplay'}")
    assert code == 1 and out == "" and err.startswith("rt run: --device_replay_output=")
    code, out, err = cli_main("run", path, "--function=mlp", *flags, "--device_replay_output=r.rtreplay", "--ranks=2")
    assert code == 1 and "a simulated topology or SPMD ranks do not record" in err


def test_benchmark_records_one_call_and_profiles_every_call(add_and_mul, cli_main, tmp_path):
    code, out, err = cli_main("benchmark", add_and_mul / "addf.vmfb", "--input=4xf32=1,2,3,4", "--input=4xf32=2",
                              "--benchmark_min_time=3x", "--warmup=1", f"--device_replay_output={tmp_path / 'b.rtreplay'}",
                              f"--device_profiling_output={tmp_path / 'b.json'}")
    assert code == 0, err
    manifest = ReplayFile(str(tmp_path / "b.rtreplay")).manifest
    assert [s["op"] for s in manifest["submissions"]] == ["queue_execute"]
    player, outputs = _play(tmp_path / "b.rtreplay")
    player.verify(outputs)
    np.testing.assert_array_equal(np.frombuffer(outputs[0], np.float32), [3, 4, 5, 6])
    profile = json.loads((tmp_path / "b.json").read_text())
    assert len(profile["dispatches"]) == 1 + 1 + 3  # the recorded call, the warmup, the timed calls


def test_hal_level_recording_of_every_queue_operation(tmp_path):
    """Transfers, command-buffer commands with direct and binding-table refs, a barrier, an
    alloca waiting on a host-signalled semaphore: all replay to the same bytes."""
    from rt.runtime.hal import BufferView, Fence, create_device
    from rt.runtime.hal.commands import BufferRef
    from rt.runtime.hal.element_type import dtype_to_element_type

    device = create_device("local-task://vmvx")
    try:
        source = device.allocator.allocate_from(np.arange(64, dtype=np.uint8))
        out = device.allocator.allocate_buffer(80)
        recorder = ReplayRecorder([device])
        host = device.create_semaphore(0)
        pool = device.queue_alloca(64, wait_fence=Fence([(host, 1)]))
        filled = device.queue_fill(pool, 0, 64, 0xAB, 1)
        cb = device.create_command_buffer(binding_capacity=1)
        cb.begin()
        cb.copy_buffer(source, 0, out, 0, 32)
        cb.fill_buffer(out, 32, 16, 0x0102, 2)
        cb.update_buffer(b"\x07" * 8, 0, out, 48, 8)
        cb.execution_barrier()
        cb.copy_buffer(BufferRef(None, 0, 0, None), 8, out, 56, 8)
        cb.end()
        executed = device.queue_execute([cb], wait_fence=filled, binding_table=[(pool, 0, 64)])
        host.signal(1)
        copied = device.queue_copy(source, 60, out, 64, 4, wait_fence=executed)
        updated = device.queue_update(b"\x09" * 12, 0, out, 68, 12, wait_fence=copied)
        device.queue_dealloca(pool, wait_fence=device.queue_barrier(wait_fence=updated)).wait(30)
        recorder.add_outputs([BufferView(out, (80,), dtype_to_element_type(np.dtype(np.uint8)))])
        recorder.detach()
        recorder.write(tmp_path / "hal.rtreplay")
        expected = bytes(range(32)) + b"\x02\x01" * 8 + b"\x07" * 8 + b"\xab" * 8 + bytes(range(60, 64)) + b"\x09" * 12
        assert bytes(out.host_bytes()) == expected
    finally:
        device.release()
    manifest = ReplayFile(str(tmp_path / "hal.rtreplay")).manifest
    assert [s["op"] for s in manifest["submissions"]] == [
        "queue_alloca", "queue_fill", "queue_execute", "queue_copy", "queue_update", "queue_barrier",
        "queue_dealloca"]
    assert manifest["submissions"][0]["wait"] == [[0, 1]]  # signalled by the host: the player does
    player, outputs = _play(tmp_path / "hal.rtreplay")
    player.verify(outputs)
    assert outputs[0] == expected


def test_async_call_with_encoded_constants_replays(tmp_path, cli_main):
    """A coarse-fences function (results ready only at its signal fence) whose constants are
    packed buffers (tagged with their encoding) records and replays bit-identically."""
    vmfb = tmp_path / "affine_relu.vmfb"
    vmfb.write_bytes(rt.compile(os.path.join(ROOT, "tests", "e2e", "coarse_fences", "affine_relu.mlir"),
                                devices=["llvm-cpu"]))
    code, out, err = cli_main("run", vmfb, "--function=affine_relu$async", "--input=2x4xf32=1,2,-3,0.5,-1,0,4,2",
                              f"--device_replay_output={tmp_path / 'a.rtreplay'}")
    assert code == 0, err
    assert out.endswith("2x3xf32=[5 0 0][0 10.5 8.5]\n")
    player, outputs = _play(tmp_path / "a.rtreplay")
    player.verify(outputs)
    np.testing.assert_array_equal(np.frombuffer(outputs[0], np.float32), [5, 0, 0, 0, 10.5, 8.5])
