"""The ``.vmfb`` container: header, binary segments, JSON manifest (writer and reader).

Layout (all integers little-endian)::

    0   magic  b"RTVMFB\\0\\0"          8 bytes
    8   u32    format version (1)
    12  u32    flags (0)
    16  u32    CRC32 (zlib) of the whole file with these 4 bytes left out
    20  u32    header size (64)
    24  u64    manifest offset        32  u64 manifest size
    40  u64    file size              48  16 reserved bytes (zero)
    64  segments, each starting on a multiple of max(64, its alignment)
        manifest (UTF-8 JSON, schema in manifest.py) at the end

A signed module (flags bit 0, ``FLAG_SIGNED``) is followed, past the recorded file size, by a
128-byte trailer: magic ``b"RTVMSIG\0"``, u32 version (1), u32 algorithm (1 = Ed25519),
the signer's 32-byte public key, the 64-byte signature of ``SIGNATURE_CONTEXT`` + the module
bytes before the trailer, and 16 reserved zero bytes. The reader only parses the trailer;
``rt.runtime.signing`` signs and verifies.

Segments are exposed as memoryviews over the file's bytes (or its mmap), never copied.
Source: the role of IREE's FlatBuffer module_def (iree/schemas/bytecode_module_def.fbs);
the encoding here is rt's own.

Errors: every malformed input raises :class:`ModuleFormatError` naming the field and offset.
"""
import json
import struct
import zlib

from rt.runtime.errors import ModuleFormatError
from rt.runtime.record import Record
from rt.runtime.vm.manifest import validate_manifest

MAGIC = b"RTVMFB\0\0"
VERSION = 1
HEADER_SIZE = 64
SEGMENT_ALIGNMENT = 64
MAX_MANIFEST_SIZE = 64 << 20
_HEADER = struct.Struct("<8sIIIIQQQ16s")
_CRC_OFFSET = 16
FLAG_SIGNED = 1
SIGNATURE_MAGIC = b"RTVMSIG\0"
SIGNATURE_CONTEXT = b"rt.vmfb.signature.v1\0"
SIGNATURE_ED25519 = 1
_TRAILER = struct.Struct("<8sII32s64s16s")
TRAILER_SIZE = _TRAILER.size


class ModuleSignature(Record):
    """The signature trailer of a signed module: who signed (``public_key``) and ``signature``
    over ``message`` (``SIGNATURE_CONTEXT`` + the signed module bytes)."""

    __slots__ = ("algorithm", "public_key", "signature", "signed")

    @property
    def message(self):
        """The bytes the signature covers."""
        return SIGNATURE_CONTEXT + bytes(self.signed)


def split_signature(data):
    """``(module bytes, ModuleSignature or None)`` of a .vmfb (bytes-like), checking the trailer.

    Raises ModuleFormatError for a signed module whose trailer is missing or malformed.
    """
    mv = memoryview(data).cast("B")
    if len(mv) < HEADER_SIZE or bytes(mv[:8]) != MAGIC:
        return mv, None
    flags, = struct.unpack_from("<I", mv, 12)
    if not flags & FLAG_SIGNED:
        return mv, None
    fsize, = struct.unpack_from("<Q", mv, 40)
    if fsize > len(mv) or len(mv) - fsize != TRAILER_SIZE:
        raise ModuleFormatError(f"signed .vmfb: {len(mv)} bytes, expected the recorded {fsize} "
                                f"plus a {TRAILER_SIZE}-byte signature trailer (truncated?)")
    magic, version, algorithm, key, signature, reserved = _TRAILER.unpack_from(mv, fsize)
    if magic != SIGNATURE_MAGIC or version != 1 or algorithm != SIGNATURE_ED25519 or any(reserved):
        raise ModuleFormatError(f"signed .vmfb: signature trailer has magic {magic!r}, version "
                                f"{version}, algorithm {algorithm}; expected {SIGNATURE_MAGIC!r}, "
                                f"1, 1 (Ed25519) and reserved zero bytes")
    return mv[:fsize], ModuleSignature("ed25519", bytes(key), bytes(signature), mv[:fsize])


def append_signature(signed, public_key, signature):
    """``signed`` (module bytes with ``FLAG_SIGNED`` set, resealed) + its signature trailer."""
    return bytes(signed) + _TRAILER.pack(SIGNATURE_MAGIC, 1, SIGNATURE_ED25519, public_key,
                                         signature, bytes(16))


def set_flags(data, flags):
    """``data`` (an unsigned module's bytes) with header flags ``flags``, resealed."""
    out = bytearray(data)
    struct.pack_into("<I", out, 12, flags)
    return reseal(bytes(out))


def compute_crc(data):
    """CRC32 of ``data`` (bytes-like) with the 4-byte checksum field at offset 16 skipped."""
    mv = memoryview(data)
    return zlib.crc32(mv[_CRC_OFFSET + 4 :], zlib.crc32(mv[:_CRC_OFFSET])) & 0xFFFFFFFF


def reseal(data):
    """Return ``data`` with its checksum recomputed (tests use it to reach the manifest parser)."""
    out = bytearray(data)
    if len(out) >= HEADER_SIZE:
        struct.pack_into("<I", out, _CRC_OFFSET, compute_crc(out))
    return bytes(out)


def _align(n, a):
    return (n + a - 1) // a * a


def write_module(manifest, segments):
    """Serialize a manifest (dict without ``segments``) and binary segments into .vmfb bytes.

    ``segments``: list of ``(bytes-like, alignment)``; their offsets and sizes are recorded in
    ``manifest["segments"]`` in the same order.
    """
    pos = HEADER_SIZE
    table, blobs = [], []
    for data, alignment in segments:
        pos = _align(pos, max(SEGMENT_ALIGNMENT, alignment))
        size = len(memoryview(data).cast("B"))
        table.append({"offset": pos, "size": size})
        blobs.append((pos, data))
        pos += size
    body = dict(manifest)
    body["segments"] = table
    text = json.dumps(body, sort_keys=True, separators=(",", ":")).encode("utf-8")
    manifest_offset = _align(pos, 8)
    total = manifest_offset + len(text)
    out = bytearray(total)
    for off, data in blobs:
        mv = memoryview(data).cast("B")
        out[off : off + len(mv)] = mv
    out[manifest_offset:total] = text
    _HEADER.pack_into(out, 0, MAGIC, VERSION, 0, 0, HEADER_SIZE, manifest_offset, len(text), total, bytes(16))
    struct.pack_into("<I", out, _CRC_OFFSET, compute_crc(out))
    return bytes(out)


def read_module(data):
    """Check the container and return ``(manifest, segments)``.

    ``data``: bytes-like (bytes, mmap, memoryview). ``manifest`` is the validated dict;
    ``segments`` a list of read-only memoryviews into ``data``.
    """
    try:
        mv = memoryview(data).cast("B")
    except TypeError as e:
        raise ModuleFormatError(f"module data must be bytes-like, got {type(data).__name__}") from e
    if mv.readonly is False:
        mv = mv.toreadonly()
    mv, _ = split_signature(mv)
    n = len(mv)
    if n < HEADER_SIZE:
        raise ModuleFormatError(f"not a .vmfb: {n} bytes is shorter than the {HEADER_SIZE}-byte header")
    magic, version, flags, crc, hsize, moff, msize, fsize, reserved = _HEADER.unpack_from(mv, 0)
    if magic != MAGIC:
        raise ModuleFormatError(f"not a .vmfb: magic is {bytes(magic)!r}, expected {MAGIC!r}")
    if version != VERSION:
        raise ModuleFormatError(f".vmfb format version {version} is not supported; this rt reads version {VERSION}")
    if flags & ~FLAG_SIGNED or hsize != HEADER_SIZE or any(reserved):
        raise ModuleFormatError(
            f".vmfb header: flags={flags}, header size={hsize}, reserved bytes nonzero={any(reserved)}; "
            f"expected flags 0 or {FLAG_SIGNED} (signed), header size {HEADER_SIZE}, reserved zero"
        )
    if fsize != n:
        raise ModuleFormatError(f".vmfb header records file size {fsize} but the data has {n} bytes (truncated?)")
    actual = compute_crc(mv)
    if actual != crc:
        raise ModuleFormatError(f".vmfb checksum mismatch: header says {crc:#010x}, contents give {actual:#010x} (corrupted file)")
    if not (HEADER_SIZE <= moff <= n and msize <= n - moff and msize <= MAX_MANIFEST_SIZE):
        raise ModuleFormatError(f".vmfb manifest at offset {moff} size {msize} lies outside the {n}-byte file")
    try:
        manifest = json.loads(bytes(mv[moff : moff + msize]).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ModuleFormatError(f".vmfb manifest at offset {moff} is not valid UTF-8 JSON: {e}") from None
    validate_manifest(manifest)
    segments, spans = [], []
    for k, seg in enumerate(manifest["segments"]):
        off, size = seg["offset"], seg["size"]
        if off % SEGMENT_ALIGNMENT or off < HEADER_SIZE or off > n or size > n - off:
            raise ModuleFormatError(
                f".vmfb segment {k} (offset {off}, size {size}) must be {SEGMENT_ALIGNMENT}-byte aligned and lie "
                f"between the header and the end of the {n}-byte file"
            )
        if off < moff + msize and moff < off + size:
            raise ModuleFormatError(f".vmfb segment {k} (offset {off}, size {size}) overlaps the manifest")
        spans.append((off, off + size, k))
        segments.append(mv[off : off + size])
    spans.sort()
    for (a0, a1, ka), (b0, b1, kb) in zip(spans, spans[1:]):
        if b0 < a1:
            raise ModuleFormatError(f".vmfb segments {ka} and {kb} overlap")
    return manifest, segments
