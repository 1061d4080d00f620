"""IREE parameter archives (``.irpa``): the reader rt loads parameters from, and a small writer.

Format (IREE ``runtime/src/iree/schemas/parameter_archive.h``, version 0.0; all integers
little-endian, structs packed): a file holds one or more archives linked by
``next_header_offset``. Each archive starts with an 88-byte header::

    u32 magic "IRPA", u16 version_major, u16 version_minor, u64 header_size (88),
    u64 next_header_offset (0: last), u64 flags, u64 entry_count,
    {u64 offset, u64 length} entry_segment, metadata_segment, storage_segment

(offsets relative to the header). The entry table holds ``entry_count`` entries, each aligned
to 16 bytes and starting with a 60-byte header ``u64 entry_size, u32 type, u64 flags,
{u64,u64} name, {u64,u64} metadata, u64 minimum_alignment`` (name/metadata ranges in the
metadata segment). Types: 0 skip; 1 splat (``u64 length, u8 pattern[16], u8 pattern_length``):
``length`` bytes repeating a 1/2/4/8/16-byte little-endian pattern; 2 data (``{u64 offset,
u64 length} storage``): bytes of the storage segment; 3 external (a range of another file;
rejected here, as IREE's parser does).

:func:`read_irpa` copies the file into private memory (:func:`read_snapshot`), validates every
range against that copy (a truncated or corrupt file is an :class:`InvalidArgumentError` naming
the file, the archive offset and the field, never a crash) and returns data entries as
zero-copy views of the copy. Nothing reads the file again, so truncating or rewriting it after
the read changes nothing a module holds; a file that changes while it is read is an error.
:func:`write_irpa` writes the layout IREE's builder (``irpa_builder.c``) writes: header,
entry table, names, then the storage segment with each data entry 64-byte aligned.

Source followed: IREE ``runtime/src/iree/io/formats/irpa/irpa_parser.c`` and ``irpa_builder.c``.
"""
import dataclasses
import os
import struct

import numpy as np

from rt.runtime.atomic_write import atomic_write
from rt.runtime.errors import InvalidArgumentError, NotFoundError, UnimplementedError
from rt.runtime.io.file_snapshot import read_snapshot

MAGIC = 0x41505249  # "IRPA"
_PREFIX = struct.Struct("<IHHQQQ")  # magic, major, minor, header_size, next_header_offset, flags
_HEADER = struct.Struct("<IHHQQQQQQQQQQ")  # prefix + entry_count + 3 ranges
_ENTRY = struct.Struct("<QIQQQQQQ")  # size, type, flags, name{off,len}, metadata{off,len}, min_alignment
_SPLAT = struct.Struct("<Q16sB")  # length, pattern, pattern_length
_DATA = struct.Struct("<QQ")  # storage {offset, length}
ENTRY_ALIGNMENT = 16
DATA_ALIGNMENT = 64
SKIP, SPLAT, DATA, EXTERNAL = 0, 1, 2, 3


@dataclasses.dataclass(frozen=True)
class Splat:
    """A parameter of ``length`` bytes repeating ``pattern`` (1, 2, 4, 8 or 16 bytes)."""

    pattern: bytes
    length: int


@dataclasses.dataclass(frozen=True)
class IrpaEntry:
    """One parameter of an archive: ``key``, ``length`` in bytes, ``metadata`` bytes and either
    ``data`` (a memoryview into the mapped file) or ``splat`` (a :class:`Splat`)."""

    key: str
    length: int
    metadata: bytes = b""
    data: memoryview = None
    splat: Splat = None


def _align(value, alignment):
    return (value + alignment - 1) // alignment * alignment


class _Reader:
    def __init__(self, path, view):
        self.path, self.view, self.size = path, view, len(view)

    def fail(self, base, what):
        raise InvalidArgumentError(f"{self.path}: not a valid IREE parameter archive: {what} (archive at byte {base}, "
                                   f"file of {self.size} bytes)")

    def range(self, base, offset, length, what):
        if length and base + offset + length > self.size:
            self.fail(base, f"{what} [{base + offset}, {base + offset + length}) runs past the end of the file")

    def archive(self, base, entries):
        """Add the entries of the archive at ``base``; returns the next archive's offset or None."""
        if base + _PREFIX.size > self.size:
            self.fail(base, "the file is truncated before the archive header (empty or not an .irpa file)")
        magic, major, minor, header_size, next_offset, _ = _PREFIX.unpack_from(self.view, base)
        if magic != MAGIC:
            self.fail(base, f"magic {magic:08X} is not {MAGIC:08X} ('IRPA')")
        if major != 0 or minor != 0:
            raise UnimplementedError(f"{self.path}: IRPA version {major}.{minor} is not supported (rt reads 0.0)")
        if header_size != _HEADER.size or base + header_size > self.size:
            self.fail(base, f"header size {header_size} (expected {_HEADER.size}) or the file is truncated")
        fields = _HEADER.unpack_from(self.view, base)
        count, segments = fields[6], fields[7:]
        entry_seg, meta_seg, storage_seg = segments[0:2], segments[2:4], segments[4:6]
        for (offset, length), what in zip((entry_seg, meta_seg, storage_seg),
                                          ("entry table", "metadata segment", "storage segment")):
            self.range(base, offset, length, what)
        pos, remaining = base + entry_seg[0], entry_seg[1]
        for index in range(count):
            if remaining < _ENTRY.size:
                self.fail(base, f"entry table truncated at entry {index} of {count}")
            size, kind, _, name_off, name_len, meta_off, meta_len, _ = _ENTRY.unpack_from(self.view, pos)
            if size < _ENTRY.size or size > remaining:
                self.fail(base, f"entry {index} declares {size} bytes with {remaining} left in the entry table")
            key = self.text(base, meta_seg, name_off, name_len, f"name of entry {index}")
            metadata = bytes(self.slice(base, meta_seg, meta_off, meta_len, f"metadata of '{key}'"))
            entry = self.entry(base, pos, size, kind, key, metadata, storage_seg)
            if entry is not None:
                if entry.key in entries:
                    self.fail(base, f"parameter '{key}' appears twice")
                entries[entry.key] = entry
            step = _align(size, ENTRY_ALIGNMENT)
            pos, remaining = pos + step, remaining - min(step, remaining)
        if next_offset and next_offset < _HEADER.size:
            self.fail(base, f"next_header_offset {next_offset} points inside this header")
        return base + next_offset if next_offset else None

    def slice(self, base, segment, offset, length, what):
        if offset + length > segment[1]:
            self.fail(base, f"{what} [{offset}, {offset + length}) lies outside its segment of {segment[1]} bytes")
        start = base + segment[0] + offset
        return self.view[start:start + length]

    def text(self, base, segment, offset, length, what):
        try:
            return bytes(self.slice(base, segment, offset, length, what)).decode("utf-8")
        except UnicodeDecodeError:
            self.fail(base, f"{what} is not UTF-8")

    def entry(self, base, pos, size, kind, key, metadata, storage_seg):
        body = pos + _ENTRY.size
        if kind == SKIP:
            return None
        if kind == SPLAT:
            if size < _ENTRY.size + _SPLAT.size:
                self.fail(base, f"splat entry '{key}' is {size} bytes, shorter than a splat entry")
            length, pattern, pattern_length = _SPLAT.unpack_from(self.view, body)
            if pattern_length not in (1, 2, 4, 8, 16) or length % pattern_length:
                self.fail(base, f"splat '{key}': pattern length {pattern_length} must be 1, 2, 4, 8 or 16 and "
                                f"divide the length {length}")
            return IrpaEntry(key, length, metadata, splat=Splat(pattern[:pattern_length], length))
        if kind == DATA:
            if size < _ENTRY.size + _DATA.size:
                self.fail(base, f"data entry '{key}' is {size} bytes, shorter than a data entry")
            offset, length = _DATA.unpack_from(self.view, body)
            return IrpaEntry(key, length, metadata, data=self.slice(base, storage_seg, offset, length,
                                                                    f"data of '{key}'"))
        if kind == EXTERNAL:
            raise UnimplementedError(f"{self.path}: parameter '{key}' refers to an external file; rt (like "
                                     "IREE's parser) reads embedded data and splats only")
        self.fail(base, f"entry '{key}' has unknown type {kind}")


def read_irpa(path):
    """{key: IrpaEntry} of the archive(s) in the file at ``path``.

    Data entries are zero-copy views of a private, page-aligned copy of the file
    (:func:`read_snapshot`), which stays alive while any view is: a later truncation or
    rewrite of the file never reaches them. Raises NotFoundError (no such file),
    InvalidArgumentError (truncated or corrupt archive, a file that changed while being read,
    naming the file and what is wrong) or UnimplementedError (a newer IRPA version, external
    entries).
    """
    path = os.fspath(path)
    snapshot = read_snapshot(path)
    entries = {}
    reader, base = _Reader(path, memoryview(snapshot)), 0
    while base is not None:
        base = reader.archive(base, entries)
    return entries


def _entry_header(size, kind, name, metadata, alignment):
    return _ENTRY.pack(size, kind, 0, name[0], name[1], metadata[0], metadata[1], alignment)


def write_irpa(path, parameters):
    """Write ``{key: value}`` as a one-archive ``.irpa`` file at ``path``.

    value: a numpy array or bytes-like (stored as data, 64-byte aligned) or a :class:`Splat`.
    Keys are UTF-8 strings; order is kept. Returns the number of bytes written. The file is
    replaced whole (rt.runtime.atomic_write): a module that mapped the old file keeps its data,
    and a failure leaves the old file; InvalidArgumentError when it cannot be written.
    """
    items = [(key.encode("utf-8"), value) for key, value in parameters.items()]
    table, names, storage = bytearray(), bytearray(), bytearray()
    for key, value in items:
        table += bytes(_align(len(table), ENTRY_ALIGNMENT) - len(table))
        name = (len(names), len(key))
        names += key
        if isinstance(value, Splat):
            if len(value.pattern) not in (1, 2, 4, 8, 16) or value.length % len(value.pattern):
                raise InvalidArgumentError(f"splat '{key.decode()}': pattern of {len(value.pattern)} bytes must be "
                                           f"1, 2, 4, 8 or 16 bytes and divide the length {value.length}")
            size = _ENTRY.size + _SPLAT.size
            table += _entry_header(size, SPLAT, name, (0, 0), 0)
            table += _SPLAT.pack(value.length, value.pattern.ljust(16, b"\0"), len(value.pattern))
            continue
        data = np.ascontiguousarray(value).tobytes() if isinstance(value, np.ndarray) else bytes(value)
        offset = _align(len(storage), DATA_ALIGNMENT)
        storage += bytes(offset - len(storage)) + data
        table += _entry_header(_ENTRY.size + _DATA.size, DATA, name, (0, 0), DATA_ALIGNMENT)
        table += _DATA.pack(offset, len(data))
    entry_offset = _align(_HEADER.size, ENTRY_ALIGNMENT)
    meta_offset = entry_offset + len(table)
    storage_offset = _align(meta_offset + len(names), DATA_ALIGNMENT)
    header = _HEADER.pack(MAGIC, 0, 0, _HEADER.size, 0, 0, len(items), entry_offset, len(table),
                          meta_offset, len(names), storage_offset, len(storage))
    blob = header + bytes(entry_offset - len(header)) + table + names
    blob += bytes(storage_offset - len(blob)) + storage
    atomic_write(path, bytes(blob))
    return len(blob)
