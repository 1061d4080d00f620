"""Files written whole or not at all: a temporary file in the same folder, fsynced, renamed.

Every file rt writes (``rt compile -o``, ``rt run --output=@``, ``--report``, ``--trace``,
``rt benchmark --json`` / ``--benchmark_out``, ``rt sign`` in place, ``write_irpa``, the codegen
cache) goes through :func:`atomic_write`: the data is written to ``.NAME.XXXX.tmp`` beside the
target, flushed and ``fsync``-ed, then ``os.replace``-d over the target and the folder is
fsynced. A failure or a signal at any moment leaves either the old file or the complete new one
(POSIX ``rename(2)`` is atomic within a file system); the temporary file is removed on any
failure the process survives. A new file gets mode 0o666 minus the umask (as ``open`` gives);
a replaced file keeps its mode. docs/SECURITY.md states the guarantee.

Source followed: the write-temp-then-rename idiom of LLVM's output files
(``llvm::sys::fs::TempFile::keep``, used by clang and iree-compile for ``-o``).
"""
import contextlib
import os
import tempfile

from rt.runtime.errors import InvalidArgumentError


def _mode(path, default):
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        if default is not None:
            return default
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_folder(folder):
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot fsync a directory; the rename itself is still atomic
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_file(path, mode="wb", file_mode=None, encoding=None, what=None):
    """Open a temporary file beside ``path``; on a clean exit it replaces ``path``.

    mode: ``"wb"``, ``"w"`` (text, ``encoding`` default UTF-8) or ``"ab"`` / ``"a"`` (the old
    contents are copied first, then the new data follows them). file_mode: the permission bits
    of a new file (e.g. 0o600 for a private key; default: 0o666 minus the umask). Raises
    InvalidArgumentError "cannot write [WHAT to ]'PATH': REASON" when the folder cannot be
    written or the disk is full; the target is then unchanged.
    """
    if mode not in ("wb", "w", "ab", "a"):
        raise ValueError(f"atomic_file mode must be wb, w, ab or a, not {mode!r}")
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    target = f"{what} to {path!r}" if what else repr(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    except OSError as e:
        raise InvalidArgumentError(f"cannot write {target}: {e.strerror}") from None
    try:
        os.fchmod(fd, _mode(path, file_mode))
        with os.fdopen(fd, "wb") as raw:
            if mode.startswith("a"):
                with contextlib.suppress(FileNotFoundError), open(path, "rb") as old:
                    while chunk := old.read(1 << 20):
                        raw.write(chunk)
            if mode.endswith("b"):
                yield raw
            else:
                text = open(raw.fileno(), "w", encoding=encoding or "utf-8", closefd=False)
                yield text
                text.flush()
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, path)
    except OSError as e:
        _remove(tmp)
        raise InvalidArgumentError(f"cannot write {target}: {e.strerror or e}") from None
    except BaseException:
        _remove(tmp)
        raise
    _fsync_folder(folder)


def _remove(tmp):
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def atomic_write(path, data, file_mode=None, what=None):
    """Write ``data`` (bytes, or str as UTF-8) to ``path`` whole or not at all (:func:`atomic_file`)."""
    with atomic_file(path, "wb", file_mode, what=what) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)


def check_writable(path, what):
    """Raise InvalidArgumentError unless a file can be created at ``path`` (checked before a run,
    so that a bad ``--output`` / ``--report`` / ``--trace`` / ``-o`` path fails at once): its folder
    must exist and be writable, and ``path`` must not be a folder. ``what`` names the flag."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise InvalidArgumentError(f"{what}: {path!r} is a folder; give a file path")
    if not os.path.isdir(folder):
        raise InvalidArgumentError(f"{what}: cannot write {path!r}: folder {folder!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InvalidArgumentError(f"{what}: cannot write {path!r}: folder {folder!r} is not writable")
