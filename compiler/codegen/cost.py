"""The work a dispatch does, for the simulator's roofline model: flops of a Kernel.

``kernel_flops(kernel)`` counts, for a kernel whose sizes are all static, the arithmetic of one
dispatch over its whole domain: a Generic does its body's arithmetic ops once per point of its
loop domain (fills and copies do none), an Mmt4d does a multiply and an add per
``m1*n1*k1*m0*n0*k0`` point; packs and unpacks move data only. A kernel with a dynamic size
(push constants) gives None: its cost depends on the call, and the simulator then takes the
bytes of its bindings only (a memory-bound estimate). The count goes into the executable's
metadata as ``costs = {export: {"flops": n}}`` (rt.runtime.hal.executable reads it).

Source followed: the roofline model (Williams, Waterman, Patterson, CACM 2009); counting
conventions as in IREE's ``iree-benchmark-module`` flop reporting (2 per multiply-add).
"""
import math

from rt.compiler.codegen.kernel_ir import Generic, Mmt4d, Opcode

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
