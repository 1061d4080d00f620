"""Driver registry and device URIs."""
import pytest

from rt.runtime import hal
from rt.runtime.errors import InvalidArgumentError, NotFoundError

from fake_executables import FAKE_LOADER


@pytest.mark.parametrize("uri,parts", [
    ("local-sync://llvm-cpu", ("local-sync", "llvm-cpu", {})),
    ("local-task://vmvx?threads=2&heap_capacity=64M", ("local-task", "vmvx", {"threads": "2", "heap_capacity": "64M"})),
])
def test_parse_device_uri(uri, parts):
    assert hal.parse_device_uri(uri) == parts


@pytest.mark.parametrize("uri,error,match", [
    ("llvm-cpu", InvalidArgumentError, r"not of the form driver://device.*drivers: local-sync, local-task"),
    ("cuda://gpu", NotFoundError, r"unknown HAL driver 'cuda'; registered drivers: local-sync, local-task"),
    ("local-task://", InvalidArgumentError, r"names no device; .*llvm-cpu, vmvx"),
    ("local-task://tpu", NotFoundError, r"unknown device 'tpu'; known devices: llvm-cpu, vmvx"),
    ("local-task://vmvx?workers=2", InvalidArgumentError, r"unknown parameter 'workers' .*valid parameters: threads"),
    ("local-sync://vmvx?threads=2", InvalidArgumentError, r"unknown parameter 'threads' for driver local-sync"),
    ("local-task://vmvx?threads=x", InvalidArgumentError, r"threads='x' must be an integer in \[1, 256\]"),
    ("local-task://vmvx?heap_capacity=-1", InvalidArgumentError, r"heap_capacity='-1' must be an integer"),
    ("local-task://vmvx?threads=1&threads=2", InvalidArgumentError, r"given twice"),
])
def test_bad_uris(uri, error, match):
    with pytest.raises(error, match=match):
        hal.create_device(uri)


def test_threads_and_capacity_parameters():
    dev = hal.create_device("local-task://vmvx?threads=3&heap_capacity=2K", loaders=[FAKE_LOADER])
    try:
        assert dev.threads == 3 and dev.allocator.capacity == 2048
        assert dev.uri == "local-task://vmvx?threads=3&heap_capacity=2K"
        assert dev.label.startswith("local-task://vmvx#")
    finally:
        dev.release()


def test_listing():
    uris = [info.uri for info in hal.list_devices()]
    assert uris == ["local-sync://llvm-cpu", "local-sync://vmvx", "local-task://llvm-cpu", "local-task://vmvx"]
    table = hal.format_device_table()
    assert "local-task: runs work on a queue thread" in table and "?threads=..." in table
    assert [d.name for d in hal.list_drivers()] == ["local-sync", "local-task"]


def test_registered_device_kind():
    hal.register_device_loader("fake", FAKE_LOADER)
    try:
        dev = hal.create_device("local-sync://fake")
        assert dev.loaders == (FAKE_LOADER,)
        dev.release()
        assert "local-sync://fake" in [i.uri for i in hal.list_devices()]
    finally:
        hal.register_device_loader("fake", None)
    with pytest.raises(InvalidArgumentError, match=r"expected an ExecutableLoader"):
        hal.register_device_loader("bad", object())
