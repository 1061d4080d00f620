"""Elementwise f32 kernels over contiguous buffers, vectorized for the target.

The kernel form IREE's LLVMCPU pipeline produces for a 1-D elementwise ``linalg.generic``
(CPUDoubleTilingExpert: distribute over workgroups, then vectorize by the native width):

- bindings: inputs (1 for unary ops, 2 for binary ops), then the output; all f32, contiguous,
  same element count; the output may alias an input.
- push constants: [0] = element count n (uint32).
- workgroups: the x dimension splits n into equal chunks (multiples of the vector width); any
  x count works, y/z must be 1 (extra y/z workgroups do nothing).
- returns ``abi.STATUS_OUT_OF_RANGE`` if any binding holds fewer than 4*n bytes.

Per chunk: a main loop of ``unroll`` vectors of ``target.f32_lanes`` lanes, a one-vector
loop, then a scalar tail.
"""
from llvmlite import ir

from rt.compiler.codegen.llvm_cpu import intrinsics
from rt.compiler.codegen.llvm_cpu.interface import F32, I32, I64, KernelInterface
from rt.compiler.codegen.llvm_cpu.loop import counted_loop
from rt.compiler.codegen.llvm_cpu.math_approximation import emit_exp
from rt.devices.llvm_cpu import abi
from rt.runtime.errors import InvalidArgumentError


BINARY_OPS = {
    "add": lambda b, x, y: b.fadd(x, y),
    "sub": lambda b, x, y: b.fsub(x, y),
    "mul": lambda b, x, y: b.fmul(x, y),
    "div": lambda b, x, y: b.fdiv(x, y),
    "max": lambda b, x, y: intrinsics.call(b, "maximum", x, y),
    "min": lambda b, x, y: intrinsics.call(b, "minimum", x, y),
}
UNARY_OPS = {
    "neg": lambda b, x: b.fneg(x),
    "abs": lambda b, x: intrinsics.call(b, "fabs", x),
    "sqrt": lambda b, x: intrinsics.call(b, "sqrt", x),
    "exp": emit_exp,
}


def emit_elementwise(library, name, op, unroll=4):
    """Add export ``name`` computing ``out = op(in0[, in1])`` to ``library``; returns its ordinal.

    op: a key of BINARY_OPS (add, sub, mul, div, max, min; max/min propagate NaN) or UNARY_OPS
    (neg, abs, sqrt, exp). unroll: vectors per main-loop iteration (>= 1).
    Raises InvalidArgumentError for an unknown op or unroll < 1.
    """
    if op in BINARY_OPS:
        arity, fn_op = 2, BINARY_OPS[op]
    elif op in UNARY_OPS:
        arity, fn_op = 1, UNARY_OPS[op]
    else:
        raise InvalidArgumentError(f"elementwise op {op!r} is not one of "
                                   f"{sorted(BINARY_OPS) + sorted(UNARY_OPS)}")
    if unroll < 1:
        raise InvalidArgumentError(f"elementwise unroll must be >= 1, got {unroll}")
    lanes = library.target.f32_lanes
    fn = library.declare_export(name)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    k = KernelInterface(b, fn)
    n = k.constant(0)
    bytes_needed = b.mul(n, I64(4))
    too_small = ir.Constant(ir.IntType(1), 0)
    for i in range(arity + 1):
        too_small = b.or_(too_small, b.icmp_unsigned("<", k.binding_length(i), bytes_needed))
    with b.if_then(too_small, likely=False):
        b.ret(I32(abi.STATUS_OUT_OF_RANGE))
    ins = [k.binding(i) for i in range(arity)]
    out = k.binding(arity)
    # chunk = ceil(ceil(n / count_x) / lanes) * lanes; this workgroup runs [begin, end).
    count = k.workgroup_count(0)
    per = b.udiv(b.add(n, b.sub(count, I64(1))), count)
    per = b.mul(b.udiv(b.add(per, I64(lanes - 1)), I64(lanes)), I64(lanes))
    begin = b.mul(k.workgroup_id(0), per)
    begin = b.select(b.icmp_unsigned("<", begin, n), begin, n)
    end = b.add(begin, per)
    end = b.select(b.icmp_unsigned("<", end, n), end, n)
    vec = ir.VectorType(F32, lanes)

    def step(ty, i):
        args = [b.load(b.gep(p, [i], inbounds=True, source_etype=F32), typ=ty, align=4)
                for p in ins]
        value = fn_op(b, *args)
        b.store(value, b.gep(out, [i], inbounds=True, source_etype=F32), align=4)

    with counted_loop(b, begin, end, I64(lanes * unroll), "main") as main:
        for u in range(unroll):
            step(vec, b.add(main.index, I64(u * lanes)))
    with counted_loop(b, main.index, end, I64(lanes), "vector") as one:
        step(vec, one.index)
    with counted_loop(b, one.index, end, I64(1), "tail") as tail:
        step(F32, tail.index)
    b.ret(I32(abi.STATUS_OK))
    return library.add_export(fn, binding_count=arity + 1, constant_count=1)
