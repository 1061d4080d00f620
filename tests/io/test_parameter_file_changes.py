"""Parameter files that change under a loaded module (issue 25, item 1).

A module keeps the parameter values it loaded whatever happens to the file afterwards: a
truncated file never kills the process (it did, with SIGBUS, while .irpa data was mapped), an
in-place rewrite (rt's own ``write_irpa`` too) never changes the module's constants, and a file
that changes while it is read, or between indexing and loading, is an error naming it."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import rt
from rt.runtime.errors import InvalidArgumentError
from rt.runtime.io import file_snapshot
from rt.runtime.io.irpa import read_irpa, write_irpa
from rt.runtime.io.parameter_index import ParameterIndex

N = 4096  # 16 KiB of f32: several pages, so later accesses really reach the file's pages
SOURCE = f"""util.global private @w = #flow.parameter.named<"model"::"w"> : tensor<{N}xf32>
func.func @add(%x: tensor<{N}xf32>) -> tensor<{N}xf32> {{
  %w = util.global.load @w : tensor<{N}xf32>
  %r = arith.addf %x, %w : tensor<{N}xf32>
  return %r : tensor<{N}xf32>
}}
"""
DEVICES = {"llvm-cpu": "local-task://llvm-cpu", "vmvx": "local-sync://vmvx"}
W = np.arange(N, dtype=np.float32)
X = np.full(N, 0.5, np.float32)


@pytest.fixture(scope="module")
def compiled():
    return {target: rt.compile(SOURCE, devices=[target]) for target in DEVICES}


@pytest.mark.parametrize("target", sorted(DEVICES))
def test_truncation_after_load_keeps_values(tmp_path, compiled, target):
    """In a child process, so that a SIGBUS (the failure before) fails this test, not the run."""
    (tmp_path / "m.vmfb").write_bytes(compiled[target])
    script = textwrap.dedent(f"""
        import os, sys, numpy as np, rt
        from rt.runtime.io.irpa import write_irpa
        w = np.arange({N}, dtype=np.float32)
        path = sys.argv[1] + "/w.irpa"
        write_irpa(path, {{"w": w}})
        m = rt.load(open(sys.argv[1] + "/m.vmfb", "rb").read(), devices=["{DEVICES[target]}"],
                    parameters={{"model": path}})
        first = m.add(np.full({N}, 0.5, np.float32))
        os.truncate(path, 0)
        second = m.add(np.full({N}, 0.5, np.float32))
        os.remove(path)
        third = m.add(np.full({N}, 0.5, np.float32))
        np.save(sys.argv[1] + "/out.npy", np.stack([first, second, third]))
    """)
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), np.stack([W + 0.5] * 3))


@pytest.mark.parametrize("target", sorted(DEVICES))
def test_rewrite_in_place_keeps_old_values(tmp_path, compiled, target):
    path = tmp_path / "w.irpa"
    write_irpa(path, {"w": W})
    with rt.load(compiled[target], devices=[DEVICES[target]], parameters={"model": path}) as m:
        np.testing.assert_array_equal(m.add(X), W + 0.5)
        write_irpa(path, {"w": W * 100})  # same layout, new values, written over the old file
        np.testing.assert_array_equal(m.add(X), W + 0.5)
        with open(path, "r+b") as f:  # a writer patching bytes in place, without truncating
            f.seek(-4 * N, os.SEEK_END)
            f.write(np.full(N, 7, np.float32).tobytes())
        np.testing.assert_array_equal(m.add(X), W + 0.5)
    with rt.load(compiled[target], devices=[DEVICES[target]], parameters={"model": path}) as m:
        np.testing.assert_array_equal(m.add(X), 7.5)  # a new load reads the new file


def _fstat_then(action):
    """An os.fstat for file_snapshot that runs ``action(fd)`` right after the read starts
    (the second fstat: the first checks the file type), as a concurrent writer would."""
    real, calls = os.fstat, []

    def fstat(fd):
        result = real(fd)
        calls.append(fd)
        if len(calls) == 2:
            action(fd)
        return result
    return fstat


@pytest.mark.parametrize("change, fragment", [
    (lambda path: os.truncate(path, 100), "size 16576 -> 100 bytes"),
    (lambda path: open(path, "ab").write(b"x" * 64), "size 16576 -> 16640 bytes"),
    (lambda path: os.utime(path, ns=(1, 1)), "modification time"),
])
def test_change_while_reading_is_an_error(tmp_path, monkeypatch, change, fragment):
    path = tmp_path / "w.irpa"
    write_irpa(path, {"w": W})
    assert path.stat().st_size == 16576
    monkeypatch.setattr(file_snapshot.os, "fstat", _fstat_then(lambda fd: change(path)))
    with pytest.raises(InvalidArgumentError) as e:
        read_irpa(path)
    assert str(e.value).startswith(f"parameter file {str(path)!r} changed while it was being read (")
    assert fragment in str(e.value) and str(e.value).endswith("; read it again once it is complete")


def test_snapshot_is_private_and_aligned(tmp_path):
    path = tmp_path / "w.irpa"
    write_irpa(path, {"w": W})
    entry = read_irpa(path)["w"]
    write_irpa(path, {"w": W * 2})
    os.truncate(path, 10)
    view = np.frombuffer(entry.data, np.float32)
    np.testing.assert_array_equal(view, W)
    assert view.ctypes.data % 64 == 0  # still zero-copy for device buffers of constants


def test_not_a_regular_file_is_refused(tmp_path):
    with pytest.raises(InvalidArgumentError, match="is not a regular file|Is a directory"):
        read_irpa(tmp_path)


def test_safetensors_changed_after_indexing_is_named(tmp_path):
    from safetensors.numpy import save_file

    from rt.runtime.io.parameters_module import IoParametersModule

    path = tmp_path / "w.safetensors"
    save_file({"w": W}, str(path))
    index = ParameterIndex().add_file(path, "model")
    entry, _ = index.lookup("model", "w")
    np.testing.assert_array_equal(entry.read().view(np.float32), W)
    save_file({"w": W * 3}, str(tmp_path / "new.safetensors"))
    os.replace(tmp_path / "new.safetensors", path)
    with pytest.raises(InvalidArgumentError) as e:
        entry.read()
    message = str(e.value)
    assert message.startswith(f"parameter file {str(path)!r} changed after it was indexed (")
    assert "(the file was replaced)" in message and message.endswith(
        "while reading tensor 'w'; load the module again to use the new file")
    os.remove(path)
    with pytest.raises(InvalidArgumentError, match="was removed after it was indexed"):
        IoParametersModule(index)._load_one(None, "model", "w", 0, 0, 4 * N, 0)
