"""Parameter files read so that they cannot change or vanish under a loaded module.

A module's parameters must keep the values they had when the module loaded, whatever happens
to the file afterwards. A memory map of the file does not give that: a shared or private
(copy-on-write) mapping still shows later writes to pages the process has not written, and
pages past a truncation fault with ``SIGBUS`` on the next access. So rt copies:

* :func:`read_snapshot` reads a whole ``.irpa`` file into private, page-aligned anonymous
  memory once, when the file is indexed, and checks that the file did not change while it was
  read (same size, modification time and inode before and after, and exactly ``size`` bytes
  read). Nothing reads the file again; its entries are views of that copy.
* :class:`Fingerprint` (size, ``st_mtime_ns``, inode, device) is taken when a file is indexed
  and compared whenever the file is read again later (``.safetensors`` tensors are read when a
  module loads them): a file that changed in between is an :class:`InvalidArgumentError`
  naming the file and what changed, never silently new values.

Cost: one read of the file (the copy is then shared, zero-copy, by the device buffers of
constant globals). BENCHMARKS.md ("Parameter files copied at load") has the figures.
Source followed: POSIX ``mmap`` (``MAP_PRIVATE`` semantics) and ``fstat``.
"""
import dataclasses
import mmap
import os
import stat

from rt.runtime.errors import InvalidArgumentError, NotFoundError

#: private anonymous memory, its pages allocated up front (Linux MAP_POPULATE: ~35% faster
#: than faulting them in one by one while the file is read into it)
_ANONYMOUS = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_POPULATE", 0)


@dataclasses.dataclass(frozen=True)
class Fingerprint:
    """What identifies one version of a file: ``size`` (bytes), ``mtime_ns``, ``inode``, ``device``."""

    size: int
    mtime_ns: int
    inode: int
    device: int

    @classmethod
    def of(cls, st):
        """The fingerprint of an ``os.stat_result``."""
        return cls(st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)

    def changes(self, later):
        """Human-readable differences from this fingerprint to ``later`` ("size 640 -> 0 bytes")."""
        out = []
        if later.size != self.size:
            out.append(f"size {self.size} -> {later.size} bytes")
        if later.mtime_ns != self.mtime_ns:
            out.append(f"modification time {self.mtime_ns} -> {later.mtime_ns} ns")
        if (later.inode, later.device) != (self.inode, self.device):
            out.append(f"inode {self.inode} -> {later.inode} (the file was replaced)")
        return out


def _open(path):
    try:
        f = open(path, "rb", buffering=0)
    except FileNotFoundError:
        raise NotFoundError(f"parameter file {path!r} does not exist") from None
    except OSError as e:
        raise InvalidArgumentError(f"cannot read parameter file {path!r}: {e.strerror or e}") from None
    mode = os.fstat(f.fileno()).st_mode
    if not stat.S_ISREG(mode):
        f.close()
        raise InvalidArgumentError(f"parameter file {path!r} is not a regular file; give the path of an .irpa or "
                                   f".safetensors file")
    return f


def fingerprint(path):
    """The :class:`Fingerprint` of the regular file at ``path`` (NotFoundError, InvalidArgumentError)."""
    with _open(os.fspath(path)) as f:
        return Fingerprint.of(os.fstat(f.fileno()))


def check_unchanged(path, expected, when):
    """Raise InvalidArgumentError naming ``path`` if its fingerprint is no longer ``expected``.

    ``when`` says what is being done ("reading tensor 'w'"), for the message.
    """
    try:
        now = fingerprint(path)
    except NotFoundError:
        raise InvalidArgumentError(f"parameter file {path!r} was removed after it was indexed ({when}); "
                                   f"load the module again with the file in place") from None
    changes = expected.changes(now)
    if changes:
        raise InvalidArgumentError(f"parameter file {path!r} changed after it was indexed ({', '.join(changes)}) "
                                   f"while {when}; load the module again to use the new file")


def read_snapshot(path):
    """A private copy of the whole file at ``path``: an anonymous ``mmap`` (page-aligned, so
    the file's 64-byte-aligned data stays aligned), or ``b""`` for an empty file.

    Raises NotFoundError (no such file) or InvalidArgumentError (not a regular file, a read
    error, or a file that changed while it was read: size, modification time or inode differ
    after the read, or it ended early or grew).
    """
    path = os.fspath(path)
    with _open(path) as f:
        before = Fingerprint.of(os.fstat(f.fileno()))
        if before.size == 0:
            return b""
        copy = mmap.mmap(-1, before.size, flags=_ANONYMOUS)
        done = 0
        try:
            with memoryview(copy) as view:
                while done < before.size:
                    count = f.readinto(view[done:])
                    if not count:
                        break
                    done += count
            grew = bool(f.read(1))
            after = Fingerprint.of(os.fstat(f.fileno()))
        except OSError as e:
            copy.close()
            raise InvalidArgumentError(f"cannot read parameter file {path!r}: {e.strerror or e}") from None
    changes = before.changes(after)
    if done != before.size or grew or changes:
        copy.close()
        what = ", ".join(changes) or (f"ended after {done} of {before.size} bytes" if done != before.size else
                                      f"grew past {before.size} bytes")
        raise InvalidArgumentError(f"parameter file {path!r} changed while it was being read ({what}); read it "
                                   f"again once it is complete")
    return copy
