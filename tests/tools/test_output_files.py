"""Every file rt writes is replaced whole (rt.runtime.atomic_write), and a compile's codegen
workers never outlive it (issue 25 item 2)."""
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from rt.runtime.atomic_write import atomic_file, atomic_write
from rt.runtime.errors import InvalidArgumentError
from rt.runtime.io.irpa import write_irpa

ROOT = Path(__file__).resolve().parents[2]


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_a_failed_write_leaves_the_old_file(tmp_path):
    path = tmp_path / "m.vmfb"
    path.write_bytes(b"old contents")
    with pytest.raises(RuntimeError, match="boom"):
        with atomic_file(path) as f:
            f.write(b"new, half")
            raise RuntimeError("boom")
    assert path.read_bytes() == b"old contents" and _leftovers(tmp_path) == []
    atomic_write(path, b"new contents")
    assert path.read_bytes() == b"new contents" and _leftovers(tmp_path) == []


def test_a_full_disk_is_a_clear_error_and_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "w.irpa"
    write_irpa(path, {"w": np.arange(4, dtype=np.float32)})
    before = path.read_bytes()

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(InvalidArgumentError, match=rf"cannot write '{path}': No space left on device"):
        write_irpa(path, {"w": np.zeros(1024, dtype=np.float32)})
    assert path.read_bytes() == before and _leftovers(tmp_path) == []


def test_a_killed_write_leaves_the_old_file(tmp_path):
    path = tmp_path / "y.npy"
    path.write_bytes(b"old")
    script = textwrap.dedent(f"""
        import sys, time
        from rt.runtime.atomic_write import atomic_file
        with atomic_file({str(path)!r}) as f:
            f.write(b"x" * 100000)
            f.flush()
            print("writing", flush=True)
            time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    assert proc.stdout.readline() == b"writing\n"
    proc.kill()
    assert proc.wait(timeout=30) == -signal.SIGKILL
    assert path.read_bytes() == b"old"


def test_append_and_modes(tmp_path):
    path = tmp_path / "log.bin"
    path.write_bytes(b"ab")
    path.chmod(0o640)
    with atomic_file(path, "ab") as f:
        f.write(b"cd")
    assert path.read_bytes() == b"abcd" and stat.S_IMODE(path.stat().st_mode) == 0o640
    atomic_write(tmp_path / "k.key", b"secret", 0o600)
    assert stat.S_IMODE((tmp_path / "k.key").stat().st_mode) == 0o600


def test_sign_in_place_replaces_the_module_whole(rt_cli, modules, tmp_path):
    module = tmp_path / "m.vmfb"
    module.write_bytes((modules / "basic.vmfb").read_bytes())
    module.chmod(0o644)
    assert rt_cli("keygen", "-o", tmp_path / "k").returncode == 0
    inode = module.stat().st_ino
    out = rt_cli("sign", module, f"--key={tmp_path / 'k.key'}")
    assert out.returncode == 0, out.stderr
    data = module.read_bytes()
    assert data[-128:].startswith(b"RTVMSIG\0") and len(data) == (modules / "basic.vmfb").stat().st_size + 128
    assert module.stat().st_ino != inode and stat.S_IMODE(module.stat().st_mode) == 0o644
    assert _leftovers(tmp_path) == []


ADD = """func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def test_opt_dump_dir_and_executables_replace_their_files_whole(rt_cli, modules, tmp_path):
    """``rt opt -o``, ``--dump-dir`` and ``rt dump --executables-to`` write through atomic_write:
    an existing file is replaced by a new one (a new inode), never rewritten in place."""
    source = tmp_path / "add.mlir"
    source.write_text(ADD)
    out, dumps, exes = tmp_path / "out.mlir", tmp_path / "dumps", tmp_path / "exes"
    dumps.mkdir()
    exes.mkdir()
    out.write_text("old")
    first_dump = dumps / "01_verify.mlir"
    first_dump.write_text("old")
    old = {p: p.stat().st_ino for p in (out, first_dump)}
    done = rt_cli("opt", source, "-o", out)
    assert done.returncode == 0, done.stderr
    done = rt_cli("compile", source, "-o", tmp_path / "add.vmfb", "--dump-after=all", f"--dump-dir={dumps}")
    assert done.returncode == 0, done.stderr
    assert "arith.addf" in out.read_text() and "arith.addf" in first_dump.read_text()
    assert all(p.stat().st_ino != inode for p, inode in old.items())
    done = rt_cli("dump", modules / "add.vmfb", f"--executables-to={exes}")
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in exes.iterdir())
    assert written and all(n.endswith((".bin", ".o", ".json")) for n in written), written
    inodes = {p.name: p.stat().st_ino for p in exes.iterdir()}
    assert rt_cli("dump", modules / "add.vmfb", f"--executables-to={exes}").returncode == 0
    assert all(p.stat().st_ino != inodes[p.name] for p in exes.iterdir())
    assert _leftovers(tmp_path) == _leftovers(dumps) == _leftovers(exes) == []


def _children(pid):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry))
    return found


def _alive(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _many_dispatches(count):
    """A program of ``count`` distinct matmul + bias dispatches: seconds of codegen, so a signal
    sent once the workers exist lands while they work (examples/mlp.mlir can finish first on an
    idle machine)."""
    lines = ["func.func @main(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {"]
    value = "%x"
    for i in range(count):
        lines += [f"  %w{i} = arith.constant dense<{i + 1}.0> : tensor<8x8xf32>",
                  f"  %e{i} = tensor.empty() : tensor<8x8xf32>",
                  f"  %z{i} = arith.constant {float(i)} : f32",
                  f"  %f{i} = linalg.fill ins(%z{i} : f32) outs(%e{i} : tensor<8x8xf32>) -> tensor<8x8xf32>",
                  f"  %m{i} = linalg.matmul ins({value}, %w{i} : tensor<8x8xf32>, tensor<8x8xf32>) "
                  f"outs(%f{i} : tensor<8x8xf32>) -> tensor<8x8xf32>",
                  f"  %t{i} = math.tanh %m{i} : tensor<8x8xf32>"]
        value = f"%t{i}"
    return "\n".join(lines + [f"  return {value} : tensor<8x8xf32>", "}", ""])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the workers through /proc (Linux)")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL, signal.SIGINT])
def test_a_signalled_compile_leaves_no_codegen_worker(tmp_path, signum):
    source = tmp_path / "many.mlir"
    source.write_text(_many_dispatches(40))
    # a terminal's Ctrl-C: the child starts with SIGINT at its default even when the test runner
    # (an xdist worker) ignores it, which Python would otherwise inherit and never raise
    proc = subprocess.Popen([sys.executable, "-m", "rt", "compile", source, "--jobs=2",
                             "-o", tmp_path / "mlp.vmfb"], stderr=subprocess.PIPE, cwd=tmp_path,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    workers = []
    while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
        workers = _children(proc.pid)
        time.sleep(0.01)
    assert len(workers) == 2, "the compile forked no workers"
    proc.send_signal(signum)
    stderr = proc.stderr.read()  # EOF: no worker holds the pipe
    assert proc.wait(timeout=60) in (-signum, 130)
    time.sleep(0.5)
    assert [pid for pid in workers if _alive(pid)] == []
    assert b"Traceback" not in stderr and not (tmp_path / "mlp.vmfb").exists()
