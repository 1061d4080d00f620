"""Build Kernel IR in Python, serialize it with the vmvx backend, dispatch it on numpy arrays."""
import numpy as np

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.targets import get_backend
from rt.devices.vmvx import LOADER

DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i1": np.bool_,
          "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}
#: Backend configurations every codegen test runs under: microkernels, then scalar bytecode only.
CONFIGS = ("", "no-ukernels")


def d(*dims):
    """An indexing map of plain loop dims: d(0, 2) is (d0, d2)."""
    return tuple(kir.AffineExpr.dim(x) for x in dims)


def op(name, operands, result_type, **attrs):
    """A ScalarOp with sorted attrs."""
    return kir.ScalarOp(name, tuple(operands), result_type, tuple(sorted(attrs.items())))


def view(binding, dtype, shape, offset=0, strides=None):
    return kir.View(binding, dtype, tuple(shape), offset, None if strides is None else tuple(strides))


def compile_kernels(kernels, config=""):
    """Serialize ``kernels`` with the vmvx backend and load them; returns the executable."""
    backend = get_backend("vmvx")
    fmt, data, metadata = backend.serialize("test_exe", list(kernels), backend.target_config(config))
    assert fmt == "vmvx-bytecode" and metadata["exports"] == [k.name for k in kernels]
    return LOADER.load(fmt, data, metadata)


def run(exe, ordinal, arrays, constants=(), workgroups=(1, 1, 1)):
    """Dispatch export ``ordinal`` with ``arrays`` (C-contiguous numpy) as bindings."""
    exe.dispatch(ordinal, tuple(workgroups), list(constants), [a.ctypes.data for a in arrays],
                 [a.nbytes for a in arrays])


def grid(kernel, extents):
    """Workgroup count: ``extents[i]`` is the size of distributed dim i (x, y, z order)."""
    counts = [-(-e // t) for e, t in zip(extents, kernel.distribution.tiles)]
    return tuple(counts + [1] * (3 - len(counts)))


def dispatch(kernel, arrays, extents=(), constants=(), config=""):
    """Compile one kernel and run it over the grid covering ``extents``."""
    run(compile_kernels([kernel], config), 0, arrays, constants, grid(kernel, extents))
