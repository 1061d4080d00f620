"""The work a dispatch does, for the simulator's roofline model and the launcher: flops and
bytes of a Kernel.

``kernel_flops(kernel)`` counts, for a kernel whose sizes are all static, the arithmetic of one
dispatch over its whole domain: a Generic does its body's arithmetic ops once per point of its
loop domain (fills and copies do none), an Mmt4d does a multiply and an add per
``m1*n1*k1*m0*n0*k0`` point; packs and unpacks move data only. A kernel with a dynamic size
(push constants) gives None: its cost depends on the call, and the simulator then takes the
bytes of its bindings only (a memory-bound estimate). ``kernel_bytes(kernel)`` counts the bytes
of every view its ops read or write (an intermediate written and read back counts twice; None
when a size is dynamic). Both go into the executable's metadata as
``costs = {export: {"flops": n, "bytes": b}}`` (rt.runtime.hal.executable reads it; the llvm-cpu
launcher runs a dispatch whose estimate is small on one thread, rt.devices.llvm_cpu.loader).

Source followed: the roofline model (Williams, Waterman, Patterson, CACM 2009); counting
conventions as in IREE's ``iree-benchmark-module`` flop reporting (2 per multiply-add).
"""
import math

from rt.compiler.codegen.kernel_ir import Attention, Generic, Mmt4d, Opcode, Pack, Unpack

#: scalar ops that are not arithmetic (value plumbing).
_FREE = frozenset({Opcode.INDEX, Opcode.CONSTANT, Opcode.CONSTANT_LOAD, Opcode.EXTF, Opcode.TRUNCF,
                   Opcode.EXTSI, Opcode.EXTUI, Opcode.TRUNCI, Opcode.SITOFP, Opcode.UITOFP, Opcode.FPTOSI,
                   Opcode.FPTOUI, Opcode.BITCAST, Opcode.SELECT})


def _static(sizes):
    return all(isinstance(s, int) for s in sizes)


def kernel_flops(kernel):
    """Flops of one dispatch of ``kernel`` (int), or None when a size is dynamic."""
    total = 0
    for op in kernel.ops:
        if isinstance(op, Generic):
            if not _static(op.domain):
                return None
            work = sum(1 for s in op.body if s.opcode not in _FREE)
            total += work * math.prod(op.domain)
        elif isinstance(op, Mmt4d):
            m1, k1, m0, k0 = op.lhs.shape
            n1, _, n0, _ = op.rhs.shape
            if not _static((m1, k1, m0, k0, n1, n0)):
                return None
            total += 2 * m1 * n1 * k1 * m0 * n0 * k0
    return total


def _element_bytes(element_type):
    bits = int("".join(c for c in element_type if c.isdigit()) or (64 if element_type == "index" else 8))
    return max(1, bits // 8) * (2 if element_type.startswith("complex") else 1)


def _views(op):
    if isinstance(op, Generic):
        return (*op.inputs, *op.outputs, *op.gathers)
    if isinstance(op, Mmt4d):
        return op.lhs, op.rhs, op.out
    if isinstance(op, (Pack, Unpack)):
        return op.source, op.dest
    if isinstance(op, Attention):
        return tuple(v for v in (op.q, op.k, op.v, op.out, op.mask) if v is not None)
    return ()


def kernel_bytes(kernel):
    """Bytes of every view the ops of one dispatch of ``kernel`` read or write (int), or None
    when a view's size is dynamic."""
    total = 0
    for op in kernel.ops:
        for view in _views(op):
            if not _static(view.shape):
                return None
            total += math.prod(view.shape) * _element_bytes(view.element_type)
    return total
