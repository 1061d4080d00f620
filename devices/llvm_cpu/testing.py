"""Ready-made llvm-cpu executables for tests (the HAL conformance suite uses these).

Each builder returns an ``ExecutableObject`` (``format``, ``data``, ``metadata``) that
``rt.devices.llvm_cpu.LOADER.load(obj.format, obj.data, obj.metadata)`` accepts, compiled for
the host CPU by ``rt.compiler.codegen.llvm_cpu`` (llvmlite only; no xDSL). Objects are cached
per process; each call returns a fresh metadata dict.

Exports:

- ``empty``: no bindings, no constants, returns 0.
- ``add_f32``: bindings [lhs, rhs, out] f32[n]; constants [n]; out = lhs + rhs
  (see ``elementwise.emit_elementwise``).
- ``fail_at``: no bindings; constants [x, y, z, code]; workgroup (x, y, z) returns ``code``,
  every other workgroup returns 0.
- ``mmt4d_f32``: see ``mmt4d.emit_mmt4d`` (constants [M1, N1, K1, flags]).
"""
import dataclasses
import functools

from llvmlite import ir

from rt.compiler.codegen.llvm_cpu.elementwise import emit_elementwise
from rt.compiler.codegen.llvm_cpu.interface import I32, KernelInterface
from rt.compiler.codegen.llvm_cpu.library import LibraryBuilder
from rt.compiler.codegen.llvm_cpu.mmt4d import default_tile, emit_mmt4d
from rt.compiler.codegen.llvm_cpu.target import cpu_target


def emit_empty(library, name="empty"):
    """Add an export that does nothing and returns 0; returns its ordinal."""
    fn = library.declare_export(name)
    ir.IRBuilder(fn.append_basic_block("entry")).ret(I32(0))
    return library.add_export(fn, binding_count=0, constant_count=0)


def emit_fail_at(library, name="fail_at"):
    """Add an export returning constant[3] at workgroup (c[0], c[1], c[2]), else 0."""
    fn = library.declare_export(name)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    k = KernelInterface(b, fn)
    hit = ir.Constant(ir.IntType(1), 1)
    for d in range(3):
        hit = b.and_(hit, b.icmp_unsigned("==", k.workgroup_id(d), k.constant(d)))
    code = b.trunc(k.constant(3), I32)
    b.ret(b.select(hit, code, I32(0)))
    return library.add_export(fn, binding_count=0, constant_count=4)


def _fresh(obj):
    return dataclasses.replace(obj, metadata=dict(obj.metadata))


@functools.cache
def _build(kind, cpu, tile):
    target = cpu_target(cpu)
    lb = LibraryBuilder(f"rt_testing_{kind}", target)
    if kind in ("empty", "conformance"):
        emit_empty(lb)
    if kind in ("add", "conformance"):
        emit_elementwise(lb, "add_f32", "add")
    if kind in ("fail", "conformance"):
        emit_fail_at(lb)
    if kind in ("mmt4d", "conformance"):
        emit_mmt4d(lb, "mmt4d_f32", *(tile or default_tile(target)))
    return lb.build()


def empty_executable(cpu="host"):
    """One export, ``empty``."""
    return _fresh(_build("empty", cpu, None))


def elementwise_add_executable(cpu="host"):
    """One export, ``add_f32``."""
    return _fresh(_build("add", cpu, None))


def failing_executable(cpu="host"):
    """One export, ``fail_at``."""
    return _fresh(_build("fail", cpu, None))


def mmt4d_executable(tile=None, cpu="host"):
    """One export, ``mmt4d_f32``, with ``tile`` (M0, N0, K0) or the CPU's default tile."""
    return _fresh(_build("mmt4d", cpu, tuple(tile) if tile else None))


def conformance_executable(cpu="host"):
    """Exports by ordinal: 0 ``empty``, 1 ``add_f32``, 2 ``fail_at``, 3 ``mmt4d_f32``."""
    return _fresh(_build("conformance", cpu, None))
