"""IREE parameter archives (rt.runtime.io.irpa): IREE's layout, round trips, and bad files that
must be clear errors (truncated at every length, corrupted bytes), never a crash or a hang."""
import random
import struct

import numpy as np
import pytest

from rt.runtime.errors import InvalidArgumentError, NotFoundError, RtError, UnimplementedError
from rt.runtime.io import irpa
from rt.runtime.io.irpa import Splat, read_irpa, write_irpa


def test_struct_sizes_follow_iree_schema():
    # parameter_archive.h (packed): header_v0 88 bytes, entry header 60, splat 60+25, data 60+16
    assert irpa._HEADER.size == 88 and irpa._PREFIX.size == 32
    assert irpa._ENTRY.size == 60 and irpa._SPLAT.size == 25 and irpa._DATA.size == 16


def test_round_trip_data_and_splats(tmp_path):
    path = tmp_path / "p.irpa"
    weights = np.arange(12, dtype=np.float32).reshape(3, 4)
    write_irpa(path, {"w": weights, "ones": Splat(struct.pack("<f", 1.0), 64), "raw": b"\x01\x02\x03",
                      "unicode-ключ": np.array([7], np.int64)})
    data = path.read_bytes()
    assert data[:4] == b"IRPA" and struct.unpack_from("<HHQ", data, 4) == (0, 0, 88)
    entries = read_irpa(path)
    assert list(entries) == ["w", "ones", "raw", "unicode-ключ"]
    np.testing.assert_array_equal(np.frombuffer(entries["w"].data, np.float32).reshape(3, 4), weights)
    assert entries["ones"].splat == Splat(struct.pack("<f", 1.0), 64) and entries["ones"].length == 64
    assert bytes(entries["raw"].data) == b"\x01\x02\x03" and entries["unicode-ключ"].length == 8
    # data entries are 64-byte aligned in the file (zero-copy mapping of device buffers)
    base = np.frombuffer(entries["w"].data, np.uint8).ctypes.data
    assert base % 64 == 0


def test_views_are_copy_on_write(tmp_path):
    path = tmp_path / "p.irpa"
    write_irpa(path, {"w": np.zeros(4, np.int32)})
    before = path.read_bytes()
    view = np.frombuffer(read_irpa(path)["w"].data, np.int32)
    view[:] = 9
    assert path.read_bytes() == before


def test_linked_archives_are_all_read(tmp_path):
    first, second = tmp_path / "a.irpa", tmp_path / "b.irpa"
    write_irpa(first, {"a": np.array([1, 2], np.int16)})
    write_irpa(second, {"b": Splat(b"\x07", 3)})
    head, tail = bytearray(first.read_bytes()), second.read_bytes()
    head += bytes(-len(head) % 16)
    struct.pack_into("<Q", head, 16, len(head))  # next_header_offset, relative to the first header
    joined = tmp_path / "joined.irpa"
    joined.write_bytes(bytes(head) + tail)
    entries = read_irpa(joined)
    assert sorted(entries) == ["a", "b"] and bytes(entries["a"].data) == b"\x01\x00\x02\x00"


@pytest.mark.parametrize("mutate, fragment", [
    (lambda b: b.__setitem__(slice(0, 4), b"IRPB"), "magic"),
    (lambda b: struct.pack_into("<H", b, 4, 1), "IRPA version 1.0"),
    (lambda b: struct.pack_into("<H", b, 6, 3), "IRPA version 0.3"),
    (lambda b: struct.pack_into("<Q", b, 8, 96), "header size 96"),
    (lambda b: struct.pack_into("<Q", b, 16, 8), "points inside this header"),
    (lambda b: struct.pack_into("<Q", b, 16, 1 << 40), "truncated before the archive header"),
    (lambda b: struct.pack_into("<Q", b, 32, 5), "entry table truncated"),
    (lambda b: struct.pack_into("<Q", b, 48, 1 << 20), "entry table"),
    (lambda b: struct.pack_into("<Q", b, 80, 1 << 30), "storage segment"),
    (lambda b: struct.pack_into("<I", b, 96 + 8, 9), "unknown type 9"),
    (lambda b: struct.pack_into("<I", b, 96 + 8, 3), "external file"),
    (lambda b: struct.pack_into("<Q", b, 96, 20), "declares 20 bytes"),
    (lambda b: struct.pack_into("<Q", b, 96 + 20, 1 << 33), "name of entry 0"),
    (lambda b: struct.pack_into("<Q", b, 96 + 60, 1 << 33), "data of 'w'"),
])
def test_corrupt_fields_are_named(tmp_path, mutate, fragment):
    path = tmp_path / "p.irpa"
    write_irpa(path, {"w": np.arange(4, dtype=np.int32)})
    blob = bytearray(path.read_bytes())
    mutate(blob)
    path.write_bytes(bytes(blob))
    with pytest.raises((InvalidArgumentError, UnimplementedError)) as info:
        read_irpa(path)
    assert fragment in str(info.value) and str(path) in str(info.value)


def test_duplicate_keys_and_missing_files(tmp_path):
    path = tmp_path / "p.irpa"
    write_irpa(path, {"w": b"abcd", "v": b"efgh"})
    blob = bytearray(path.read_bytes())
    assert struct.unpack_from("<QQ", blob, 176 + 20) == (1, 1)  # the second entry's name: "v"
    blob[blob.index(b"wv", 96) + 1] = ord("w")
    path.write_bytes(bytes(blob))
    with pytest.raises(InvalidArgumentError, match="parameter 'w' appears twice"):
        read_irpa(path)
    with pytest.raises(NotFoundError, match="does not exist"):
        read_irpa(tmp_path / "missing.irpa")
    with pytest.raises(InvalidArgumentError, match="truncated before the archive header"):
        (tmp_path / "empty.irpa").write_bytes(b"")
        read_irpa(tmp_path / "empty.irpa")


def test_every_truncation_is_a_clear_error(tmp_path):
    path = tmp_path / "p.irpa"
    write_irpa(path, {"w": np.arange(40, dtype=np.float32), "s": Splat(b"\x01\x02", 8), "k": b"x"})
    blob = path.read_bytes()
    cut = tmp_path / "cut.irpa"
    for length in range(len(blob)):
        cut.write_bytes(blob[:length])
        with pytest.raises(InvalidArgumentError):
            read_irpa(cut)


def test_random_corruption_never_crashes(tmp_path):
    path = tmp_path / "p.irpa"
    write_irpa(path, {"w": np.arange(10, dtype=np.float32), "s": Splat(b"\x01\x02", 8), "k": b"xyz"})
    blob = path.read_bytes()
    rng = random.Random(8)
    bad = tmp_path / "bad.irpa"
    for _ in range(600):
        mutated = bytearray(blob)
        for _ in range(rng.randint(1, 6)):
            position = rng.randrange(0, 160)
            mutated[position] = rng.randrange(256)
        bad.write_bytes(bytes(mutated))
        try:
            entries = read_irpa(bad)
        except RtError:
            continue
        for entry in entries.values():
            assert entry.length >= 0
            if entry.data is not None:
                assert len(entry.data) == entry.length
