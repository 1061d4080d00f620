"""Shared helpers for the llvm-cpu device tests (imported by the test modules beside it)."""
from rt.compiler.codegen.llvm_cpu.library import LibraryBuilder
from rt.compiler.codegen.llvm_cpu.target import cpu_target
from rt.devices.llvm_cpu import LOADER


def load(obj):
    """Load an ExecutableObject with the llvm-cpu loader."""
    return LOADER.load(obj.format, obj.data, obj.metadata)


def bindings(*arrays):
    """(pointers, byte lengths) of contiguous numpy arrays."""
    for a in arrays:
        assert a.flags.c_contiguous
    return [a.ctypes.data for a in arrays], [a.nbytes for a in arrays]


def build(emit, cpu="host", name="lib", **build_args):
    """Build a library: ``emit(library_builder)`` adds the exports."""
    lb = LibraryBuilder(name, cpu_target(cpu))
    emit(lb)
    return lb.build(**build_args)
