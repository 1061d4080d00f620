"""Dot-product mmt4d kernels: bf16 x bf16 -> f32 with VDPBF16PS, i8 x i8 -> i32 with VPDPBUSD.

Same layouts and loop nest as the f32 kernel of mmt4d.py (LHS [M1, K1, M0, K0], RHS
[N1, K1, N0, K0], OUT [M1, N1, M0, N0], all contiguous), for the tiles data tiling picks when
the target has the instruction (``encoding_cpu``): 16x16x2 bf16 with AVX512-BF16, 16x16x4 i8
with AVX512-VNNI. The K0 elements of one row or column fill one 32-bit word, so per k1 step
each RHS tile row is N0 words (N0 / 16 zmm), each LHS row's word is broadcast to 16 lanes and
one dot-product instruction multiplies the K0 pairs of every lane and adds them to the lane's
accumulator:

- ``vdpbf16ps``: acc + a0*b0 + a1*b1 in f32 (the bf16 products are exact in f32; the
  instruction rounds to nearest even and treats denormal inputs and outputs as zero, as
  IREE's avx512_bf16 ukernel and oneDNN accept);
- ``vpdpbusd`` takes unsigned LHS bytes: the LHS is biased to ``a + 128`` (one XOR of the
  M0 x 4 bytes per k1 step) and the bias's contribution, ``128 * sum_k b``, is taken off at
  the end: a second ``vpdpbusd`` per RHS vector sums the column (LHS bytes all 1). All of it
  wraps mod 2**32, so the result is exactly linalg.mmt4d's wrapping i32 sum.

Which kernel runs (``plan_kind``): a target with the feature runs the dot kernel alone; a
portable AVX-512BW target (``x86-64-v4``: data tiling gives it the same layouts,
``layout_kind``) carries it as an internal function compiled with the feature and calls it
when the host's bit in ``abi.HOST_CPU_DATA_SYMBOL`` (written by the loader from CPUID) says
the host has the feature, else runs the target's own widening loops of the same layout
(``emit_dot_or``); a named CPU without the feature never gets these layouts.

Source: IREE's mmt4d ukernels (runtime/src/iree/builtins/ukernel/arch/x86_64/
mmt4d_x86_64_avx512_bf16.c: bf16bf16f32 16x16x2 via vdpbf16ps; mmt4d_x86_64_avx512_vnni.c),
oneDNN's s8s8 compensation (``cpu/x64/jit_brgemm``: u8 shift by 128 and a column-sum term),
Intel SDM (VDPBF16PS, VPDPBUSD).
"""
from llvmlite import ir

from rt.compiler.codegen.llvm_cpu.interface import F32, I32, I64, PTR
from rt.compiler.codegen.llvm_cpu.loop import counted_loop
from rt.compiler.codegen.llvm_cpu.mmt4d_int import packed_out_tiles
from rt.compiler.codegen.llvm_cpu.target import CODEGEN_FEATURES, closure
from rt.devices.llvm_cpu import abi

I8 = ir.IntType(8)
I16 = ir.IntType(16)
LANES = 16


class _BFloat(ir.Type):
    """LLVM's ``bfloat`` (llvmlite has no bf16 type): the element of VDPBF16PS's operands."""

    def _to_string(self):
        return "bfloat"

    def __eq__(self, other):
        return isinstance(other, _BFloat)

    def __hash__(self):
        return hash("bfloat")


#: kind -> (LHS/RHS element types, OUT type, K0, required feature, intrinsic, operand vector)
KINDS = {
    "bf16": (("bf16", "bf16", "f32"), 2, "avx512bf16", "llvm.x86.avx512bf16.dpbf16ps.512",
             ir.VectorType(_BFloat(), 2 * LANES)),
    "i8": (("i8", "i8", "i32"), 4, "avx512vnni", "llvm.x86.avx512.vpdpbusd.512",
           ir.VectorType(I8, 4 * LANES)),
}


def dot_kind(features, types, tile):
    """The KINDS key whose kernel runs an mmt4d of element ``types`` (LHS, RHS, OUT) and static
    ``tile`` (M0, N0, K0) on a target with ``features``, or None."""
    for kind, (kind_types, k0, feature, _, _) in KINDS.items():
        if (tuple(types) == kind_types and tile[2] == k0 and tile[1] % LANES == 0
                and feature in features):
            return kind
    return None


def layout_kind(target, types):
    """The KINDS key whose tile data tiling gives a matmul of element ``types`` (LHS, RHS,
    OUT) on ``target`` (a CpuTarget), or None: the target has the kind's feature, or it is a
    portable x86-64 target (``x86-64``, ``-v4``...; not a named CPU) with AVX-512BW, whose
    objects pick the kernel at run time (``emit_dot_or``)."""
    for kind, (kind_types, _, feature, _, _) in KINDS.items():
        if tuple(types) == kind_types and (feature in target.features or _portable(target)):
            return kind
    return None


def _portable(target):
    return target.cpu.startswith("x86-64") and "avx512bw" in target.features


def runtime_kind(target, types, tile):
    """The KINDS key an mmt4d of ``types`` and ``tile`` on ``target`` runs when the host has
    its feature, chosen at run time (the target lacks it): None unless ``layout_kind`` would
    give that tile on a target without the feature."""
    if not _portable(target):
        return None
    kind = dot_kind(set(target.features) | set(abi.RUNTIME_FEATURES), types, tile)
    return kind if kind is not None and KINDS[kind][2] not in target.features else None


def plan_kind(target, types, tile):
    """``dot_kind`` for ``target``'s features, else ``runtime_kind``: the KINDS key of the
    kernel an mmt4d of ``types`` and ``tile`` runs (see ``emit_dot_or``), or None."""
    return dot_kind(target.features, types, tile) or runtime_kind(target, types, tile)


def emit_dot_or(b, target, kind, args, fallback):
    """Emit ``emit_dot_tiles(b, *args, kind)`` when ``target`` has the kind's feature; else a
    run-time choice: the host's bit in ``abi.HOST_CPU_DATA_SYMBOL`` (written by the loader)
    selects a call of the kernel compiled with the feature (an internal function whose
    ``target-features`` add it) or ``fallback()`` (emits the target's own loops). args:
    emit_dot_tiles' arguments after ``b`` and before ``kind``."""
    feature = KINDS[kind][2]
    if feature in target.features:
        emit_dot_tiles(b, *args, kind)
        return
    data = b.module.globals.get(abi.HOST_CPU_DATA_SYMBOL)
    if data is None:  # external linkage: the optimizer may not assume it stays 0
        data = ir.GlobalVariable(b.module, I64, abi.HOST_CPU_DATA_SYMBOL)
        data.initializer, data.align = I64(0), 8
    bit = I64(1 << abi.RUNTIME_FEATURES.index(feature))
    has = b.icmp_unsigned("!=", b.and_(b.load(data, typ=I64, align=8), bit), I64(0))
    with b.if_else(has) as (then, otherwise):
        with then:
            pointers, m_range, n_range, strides, k1, tile, accumulate = args
            fn = _outlined(b.module, target, kind, tile)
            b.call(fn, [*pointers, *m_range, *n_range, *strides, k1, accumulate])
        with otherwise:
            fallback()


def _outlined(module, target, kind, tile):
    """The internal function running emit_dot_tiles for ``kind`` and ``tile``, compiled with
    ``target``'s features plus the kind's (its own ``target-features``: LLVM never inlines it
    into code without them)."""
    name = f"rt_mmt4d_{kind}_{'x'.join(map(str, tile))}"
    fn = module.globals.get(name)
    if fn is not None:
        return fn
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR] * 3 + [I64] * 8
                                             + [ir.IntType(1)]), name)
    fn.linkage = "internal"
    on = closure(set(target.features) | {KINDS[kind][2]})
    features = ",".join(["+" + f for f in sorted(on)]
                        + ["-" + f for f in sorted(CODEGEN_FEATURES - on)])
    # llvmlite knows no string attributes; LLVM reads this one per function
    set.add(fn.attributes, f'"target-features"="{features}"')
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    a = fn.args
    emit_dot_tiles(b, a[0:3], a[3:5], a[5:7], a[7:10], a[10], tile, a[11], kind)
    b.ret_void()
    return fn


def _dot(b, kind, acc, x, y):
    _, _, _, name, vty = KINDS[kind]
    fn = b.module.globals.get(name)
    if fn is None:
        fn = ir.Function(b.module, ir.FunctionType(acc.type, [acc.type, vty, vty]), name)
    return b.call(fn, [acc, b.bitcast(x, vty), b.bitcast(y, vty)])


def _words(b, vector, start, count):
    return b.shuffle_vector(vector, ir.Constant(vector.type, ir.Undefined),
                            ir.Constant(ir.VectorType(I32, count),
                                        list(range(start, start + count))))


def emit_dot_tiles(b, pointers, m_range, n_range, outer_strides, k1_total, tile, accumulate,
                   kind):
    """Emit the loops computing OUT tiles (m1, n1) over the [begin, end) ranges.

    pointers: (lhs, rhs, out) element-0 pointers (bf16 as i16 / i8 inputs, f32 / i32 OUT);
    outer_strides: (K1 of LHS, K1 of RHS, N1 of OUT) as i64; k1_total: i64; tile: static
    (M0, N0, K0) with ``dot_kind(...) == kind``; accumulate: i1 (False overwrites OUT).
    """
    m0, n0, k0 = tile
    integer = kind == "i8"
    ety = I8 if integer else I16
    oty = I32 if integer else F32
    chunks = n0 // LANES
    word_ty = ir.VectorType(I32, LANES)

    def gep(base, offset, ty):
        return b.gep(base, [offset], inbounds=True, source_etype=ty)

    with packed_out_tiles(b, pointers, m_range, n_range, outer_strides, tile, (ety, oty), LANES,
                          accumulate) as (lhs_panel, rhs_panel, row, init):
        if integer:  # the column sums of the RHS, for the LHS bias
            init += [ir.Constant(word_ty, None)] * chunks
        with counted_loop(b, I64(0), k1_total, I64(1), "k1", carried=init) as lk:
            rhs_v = b.load(gep(rhs_panel, b.mul(lk.index, I64(n0 * k0)), ety),
                           typ=ir.VectorType(ety, n0 * k0), align=ety.width // 8)
            rhs_w = b.bitcast(rhs_v, ir.VectorType(I32, n0))
            cols = [_words(b, rhs_w, c * LANES, LANES) for c in range(chunks)]
            lhs_v = b.load(gep(lhs_panel, b.mul(lk.index, I64(m0 * k0)), ety),
                           typ=ir.VectorType(ety, m0 * k0), align=ety.width // 8)
            if integer:
                lhs_v = b.xor(lhs_v, ir.Constant(lhs_v.type, [ir.Constant(I8, 0x80)] * (m0 * k0)))
            words = b.bitcast(lhs_v, ir.VectorType(I32, m0))
            acc = list(lk.carried)
            for r in range(m0):
                a = b.shuffle_vector(words, ir.Constant(words.type, ir.Undefined),
                                     ir.Constant(word_ty, [r] * LANES))
                for c in range(chunks):
                    acc[r * chunks + c] = _dot(b, kind, acc[r * chunks + c], a, cols[c])
            if integer:
                ones = ir.Constant(word_ty, [ir.Constant(I32, 0x01010101)] * LANES)
                for c in range(chunks):
                    acc[m0 * chunks + c] = _dot(b, kind, acc[m0 * chunks + c], ones, cols[c])
            lk.next_carried = acc
        result = list(lk.carried)
        for r in range(m0):
            for c in range(chunks):
                value = result[r * chunks + c]
                if integer:
                    bias = b.shl(result[m0 * chunks + c], ir.Constant(word_ty, [I32(7)] * LANES))
                    value = b.sub(value, bias)
                b.store(value, row(r, c), align=4)
