"""Build Kernel IR in Python, compile it for the host with llvm-cpu, dispatch on numpy arrays."""
import numpy as np

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu.kernel_codegen import emit_kernel
from rt.compiler.codegen.llvm_cpu.library import LibraryBuilder
from rt.compiler.codegen.llvm_cpu.target import cpu_target
from rt.devices.llvm_cpu import LOADER

DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i1": np.bool_,
          "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}


def d(*dims):
    """An indexing map of plain loop dims: d(0, 2) is (d0, d2)."""
    return tuple(kir.AffineExpr.dim(x) for x in dims)


def op(name, operands, result_type, **attrs):
    """A ScalarOp with sorted attrs."""
    return kir.ScalarOp(name, tuple(operands), result_type, tuple(sorted(attrs.items())))


def compile_kernels(kernels, cpu="host"):
    """Load a library holding ``kernels`` (export order)."""
    lb = LibraryBuilder("test", cpu_target(cpu))
    for k in kernels:
        emit_kernel(lb, k)
    obj = lb.build()
    return LOADER.load(obj.format, obj.data, obj.metadata)


def run(lib, ordinal, arrays, constants=(), workgroups=(1, 1, 1), threads=1):
    """Dispatch ``ordinal`` with ``arrays`` (numpy, C-contiguous) as bindings."""
    lib.dispatch(ordinal, workgroups, list(constants), [a.ctypes.data for a in arrays],
                 [a.nbytes for a in arrays], threads)


def grid(kernel, extents):
    """Workgroup count for ``kernel``: extents maps each distributed loop dim to its size."""
    dist = kernel.distribution
    counts = [-(-extents[dim] // tile) for dim, tile in zip(dist.dims, dist.tiles)]
    return tuple(counts + [1] * (3 - len(counts)))


def size_value(size, constants=()):
    """The value of a kernel_ir Size given the dispatch's push constants."""
    if isinstance(size, int):
        return size
    if isinstance(size, kir.Constant):
        return constants[size.ordinal]
    a, b = (size_value(x, constants) for x in size.operands)
    return {"add": a + b, "sub": a - b, "mul": a * b, "floordiv": a // b, "ceildiv": -(-a // b),
            "rem": a % b, "min": min(a, b), "max": max(a, b)}[size.op]


def grid_of(kernel, constants=()):
    """Workgroup count from ``kernel.distribution.extents`` (what the host computes)."""
    dist = kernel.distribution
    counts = [-(-size_value(e, constants) // t) for e, t in zip(dist.extents, dist.tiles)]
    return tuple(counts + [1] * (3 - len(counts)))
