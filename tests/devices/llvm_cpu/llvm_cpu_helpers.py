"""Shared helpers for the llvm-cpu device tests (imported by the test modules beside it)."""
from llvmlite import ir

from rt.compiler.codegen.llvm_cpu.interface import I32, I64, KernelInterface
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


def emit_record(lb):
    """Export ``record``: out[linear id] = worker_id * 2**20 + 1 + visits so far (i32 per wg)."""
    fn = lb.declare_export("record")
    b = ir.IRBuilder(fn.append_basic_block())
    k = KernelInterface(b, fn)
    cx, cy = k.workgroup_count(0), k.workgroup_count(1)
    linear = b.add(k.workgroup_id(0), b.mul(cx, b.add(k.workgroup_id(1),
                                                       b.mul(cy, k.workgroup_id(2)))))
    slot = b.gep(k.binding(0), [linear], inbounds=True, source_etype=I32)
    old = b.load(slot, typ=I32)
    tag = b.trunc(b.add(b.shl(k.worker_id(), I64(20)), I64(1)), I32)
    b.store(b.add(b.and_(old, I32(0xFFFFF)), tag), slot)
    b.ret(I32(0))
    lb.add_export(fn, 1, 0)
