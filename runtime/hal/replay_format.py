"""The ``.rtreplay`` container of a HAL replay: a manifest and byte blobs in one zip file.

A replay file is a zip archive (stored, not compressed: executables and buffer contents are
read back as they were written) holding:

* ``manifest.json``: ``{"format": "rt-hal-replay", "version": 1, "devices": [...],
  "semaphores": [...], "executables": [...], "allocations": [...], "buffers": [...],
  "command_buffers": [...], "submissions": [...], "outputs": [...]}``; the records are
  described in rt.runtime.hal.replay_recorder. Byte payloads appear as ``{"blob": N}``.
* ``blobs/N``: the bytes of blob N (executable binaries, initial buffer contents, update
  sources, the outputs' final contents).

Written whole or not at all (rt.runtime.atomic_write). Reading checks the format name, the
version and every blob reference; anything else is a ``ModuleFormatError`` naming the file and
what was expected. The idea follows IREE's HAL replay files (``--device_replay_output``), not
their layout.
"""
import io
import json
import zipfile

from rt.runtime.atomic_write import atomic_write
from rt.runtime.errors import ModuleFormatError, NotFoundError

FORMAT = "rt-hal-replay"
VERSION = 1
MANIFEST = "manifest.json"


class Blobs:
    """The byte payloads of a replay being written: ``add(data)`` returns ``{"blob": N}``."""

    def __init__(self):
        self.items = []

    def add(self, data):
        self.items.append(bytes(data))
        return {"blob": len(self.items) - 1}


def encode(value, blobs):
    """``value`` (dicts, lists, tuples, str, numbers, bools, None, bytes-like) as JSON data with
    bytes moved into ``blobs``; tuples become lists."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return blobs.add(value)
    if isinstance(value, dict):
        return {str(k): encode(v, blobs) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v, blobs) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def write(path, manifest, blobs):
    """Write ``manifest`` (a dict, JSON data) and ``blobs`` (a ``Blobs``) to ``path``."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.writestr(MANIFEST, json.dumps(dict(manifest, format=FORMAT, version=VERSION), indent=1))
        for i, data in enumerate(blobs.items):
            z.writestr(f"blobs/{i}", data)
    atomic_write(path, out.getvalue(), what="the device replay")


class ReplayFile:
    """A replay file read back: ``manifest`` (dict) and ``blob(ref)`` for ``{"blob": N}`` refs.

    Raises ``NotFoundError`` when the file cannot be read and ``ModuleFormatError`` when it is
    not a replay file of this version.
    """

    def __init__(self, path):
        self.path = path
        try:
            self._zip = zipfile.ZipFile(path)
            text = self._zip.read(MANIFEST)
        except OSError as e:
            raise NotFoundError(f"cannot read replay file {path!r}: {e.strerror or e}") from None
        except (zipfile.BadZipFile, KeyError):
            raise ModuleFormatError(f"{path}: not an rt HAL replay file (expected a zip archive "
                                    f"with {MANIFEST}; write one with rt run "
                                    "--device_replay_output=FILE)") from None
        try:
            manifest = json.loads(text)
        except ValueError as e:
            raise ModuleFormatError(f"{path}: {MANIFEST} is not JSON: {e}") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise ModuleFormatError(f"{path}: not an rt HAL replay file (format "
                                    f"{manifest.get('format') if isinstance(manifest, dict) else None!r}"
                                    f", expected {FORMAT!r})")
        if manifest.get("version") != VERSION:
            raise ModuleFormatError(f"{path}: replay format version {manifest.get('version')!r}; "
                                    f"this rt reads version {VERSION} (record it again with this rt)")
        self.manifest = manifest
        self._blobs = {}

    def blob(self, ref, where):
        """The bytes of ``ref`` (``{"blob": N}``, read once); ModuleFormatError naming ``where``
        if absent."""
        try:
            name = f"blobs/{int(ref['blob'])}"
            data = self._blobs.get(name)
            if data is None:
                data = self._blobs[name] = self._zip.read(name)
            return data
        except (KeyError, TypeError, ValueError):
            raise ModuleFormatError(f"{self.path}: {where}: blob {ref!r} is missing from the "
                                    "file") from None

    def records(self, section):
        """The list of records of ``section``; ModuleFormatError if it is missing or no list."""
        records = self.manifest.get(section)
        if not isinstance(records, list):
            raise ModuleFormatError(f"{self.path}: section {section!r} is missing or not a list")
        return records

    def decode(self, value, where):
        """``value`` with ``{"blob": N}`` refs replaced by their bytes."""
        if isinstance(value, dict):
            if set(value) == {"blob"}:
                return self.blob(value, where)
            return {k: self.decode(v, where) for k, v in value.items()}
        if isinstance(value, list):
            return [self.decode(v, where) for v in value]
        return value

    def close(self):
        self._zip.close()
