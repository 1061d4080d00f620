"""A fake executable loader whose exports are numpy callables, for the HAL tests.

The fake format ``"fake-numpy"`` lets the HAL be tested independently of the devices' code
generators; the CTS adds the fake loader next to each device's real loader.
"""
import numpy as np
from rt.runtime.errors import DeviceError, ModuleFormatError
from rt.runtime.hal import ExecutableLibrary, ExecutableLoader, ExportInfo

FAKE_FORMAT = "fake-numpy"
FAKE_DATA = b"fake-kernels-v1"


class _Memory:
    """Describes raw memory to numpy via the array interface (no buffer exports, which
    would make exception tracebacks holding the views unsafe to garbage-collect)."""

    def __init__(self, address, length):
        self.__array_interface__ = {"data": (address, False), "shape": (length,),
                                    "typestr": "|u1", "version": 3}


def _bytes_at(address, length):
    return np.asarray(_Memory(address, length)) if length else np.zeros(0, np.uint8)


def _empty(wid, count, constants, views):
    pass


def _add_f32(wid, count, constants, views):
    n = constants[0]
    a, b, c = (v.view(np.float32) for v in views)
    s = slice(wid[0] * n, (wid[0] + 1) * n)
    c[s] = a[s] + b[s]


def _scale_i32(wid, count, constants, views):
    x = views[0].view(np.int32)
    scale, bias = np.array(constants, np.uint32).view(np.int32)
    x[:] = x * scale + bias


def _fail(wid, count, constants, views):
    if wid == (1, 0, 0):
        raise DeviceError("workgroup (1, 0, 0) stored out of bounds at byte 4096")


def _fail_bound(wid, count, constants, views):
    raise DeviceError(f"workgroup {wid} stored out of bounds at byte {views[0].size}")


KERNELS = (
    (ExportInfo("empty", 0, 0), _empty),
    (ExportInfo("add_f32", 3, 1), _add_f32),
    (ExportInfo("scale_i32", 1, 2), _scale_i32),
    (ExportInfo("fail", 0, 0), _fail),
    (ExportInfo("fail_bound", 1, 2), _fail_bound),
)


class NumpyLibrary(ExecutableLibrary):
    """Exports run as numpy functions once per workgroup; records each dispatch's threads."""

    format = FAKE_FORMAT

    def __init__(self):
        self.exports = tuple(info for info, _ in KERNELS)
        self.threads_seen = []

    def dispatch(self, ordinal, workgroup_count, constants, binding_ptrs, binding_lengths, threads=1):
        self.threads_seen.append(threads)
        fn = KERNELS[ordinal][1]
        views = [_bytes_at(p, n) for p, n in zip(binding_ptrs, binding_lengths)]
        x, y, z = workgroup_count
        for k in range(z):
            for j in range(y):
                for i in range(x):
                    fn((i, j, k), workgroup_count, constants, views)


class FakeLoader(ExecutableLoader):
    name = "fake"
    formats = (FAKE_FORMAT,)

    def unsupported_reason(self, format, metadata):
        if format not in self.formats:
            return f"format {format!r} is not one of {self.formats}"
        if "+nonexistent" in str((metadata or {}).get("cpu_features", "")):
            return "requires CPU features +nonexistent which this host lacks"
        return None

    def load(self, format, data, metadata):
        if bytes(data) != FAKE_DATA:
            raise ModuleFormatError(f"fake loader: expected {FAKE_DATA!r}, got {bytes(data)[:16]!r}")
        return NumpyLibrary()


FAKE_LOADER = FakeLoader()


def make_fake_executable(device):
    """The fake executable loaded on ``device`` (exports: empty, add_f32, scale_i32, fail)."""
    return device.create_executable(FAKE_FORMAT, FAKE_DATA, {})
