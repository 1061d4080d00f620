"""Strided views of bindings: element addressing, loads and stores by Kernel IR element type.

An ``Access`` is one view read or written through an indexing map: its element index is the
affine function ``constant + sum(coeffs[d] * i_d)`` of the loop indices, with
``coeffs[d] = sum_k strides[k] * coeff(map[k], d)``. Coefficients are folded Sizes, so a
static 0 (the view does not move along d) or 1 (contiguous along d) is known when the code
generator picks the dim to vectorize. Storage follows kernel_ir: narrow floats as their bits (f16/bf16 i16, f8 i8), i1 as a byte.

Bounds: ``access_out_of_range`` emits the check that every index the map produces over the
whole iteration domain lies inside the view's shape, and ``extent_out_of_range`` that the
view's elements lie inside its binding (both in i128, so no push constant can wrap them).
"""
from llvmlite import ir

from rt.compiler.codegen.kernel_ir import NARROW_FLOATS, PACKED, element_bits, element_size
from rt.compiler.codegen.llvm_cpu import sizes as sz
from rt.compiler.codegen.llvm_cpu.half import f16_bits_to_f32, f32_to_f16_bits
from rt.compiler.codegen.llvm_cpu.interface import I64
from rt.compiler.codegen.llvm_cpu.scalar import compute_type, lane_type, splat
from rt.compiler.codegen.llvm_cpu.small_float import from_float, to_f32
from rt.runtime.errors import CompileError

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I128 = ir.IntType(128)


def storage_type(element_type):
    """The LLVM type an element occupies in memory (sub-byte integers: the byte holding it)."""
    if element_type in PACKED:
        return I8
    if element_type in NARROW_FLOATS:
        return ir.IntType(element_bits(element_type))
    if element_type == "i1":
        return I8
    return compute_type(element_type)


class Access:
    """``view`` addressed through ``amap`` (tuple of kernel_ir.AffineExpr) over ``ndims`` loops.

    coeffs: Size per loop dim; constant: Size. ``values(sizes)`` turns both into i64 values.
    """

    def __init__(self, view, amap, ndims, where):
        if len(amap) != len(view.shape):
            raise CompileError(f"llvm-cpu codegen: {where}: indexing map has {len(amap)} "
                               f"results but the view has rank {len(view.shape)}")
        self.bits = element_bits(view.element_type)
        self.view = view
        self.amap = tuple(amap)
        strides = sz.view_strides(view)
        if len(strides) != len(view.shape):
            raise CompileError(f"llvm-cpu codegen: {where}: {len(strides)} strides for a rank "
                               f"{len(view.shape)} view")
        coeffs = [0] * ndims
        constant = view.offset
        for k, expr in enumerate(amap):
            for d, c in expr.terms:
                if not 0 <= d < ndims:
                    raise CompileError(f"llvm-cpu codegen: {where}: indexing map uses d{d} "
                                       f"but the domain has {ndims} dims")
                coeffs[d] = sz.add(coeffs[d], sz.mul(strides[k], c))
            constant = sz.add(constant, sz.mul(strides[k], expr.constant))
        self.coeffs = tuple(coeffs)
        self.constant = constant
        self.storage = storage_type(view.element_type)

    def is_static(self, d, value):
        """True when the coefficient of loop dim ``d`` is statically ``value``."""
        return isinstance(self.coeffs[d], int) and self.coeffs[d] == value


class BoundAccess:
    """An Access with i64 values for its coefficients and its buffer's base pointer
    (``inbounds``: whether element GEPs from ``base`` may be marked inbounds)."""

    def __init__(self, access, sizes, base, inbounds=True):
        self.access = access
        self.coeffs = [sizes.get(c) for c in access.coeffs]
        self.constant = sizes.get(access.constant)
        self.base = base
        self.inbounds = inbounds

    def linear(self, builder, indices):
        """The i64 element index for loop ``indices`` (dict dim -> i64 value)."""
        b = builder
        linear = self.constant
        for d, index in indices.items():
            if not self.access.is_static(d, 0):
                linear = b.add(linear, b.mul(self.coeffs[d], index))
        return linear

    def pointer(self, builder, indices):
        """Element pointer for loop ``indices`` (dict dim -> i64 value); whole-byte types only."""
        return builder.gep(self.base, [self.linear(builder, indices)], inbounds=self.inbounds,
                           source_etype=self.access.storage)

    def _packed(self, builder, indices):
        """(byte pointer, i8 bit shift) of a sub-byte element: element k is at bit k * bits."""
        b, bits = builder, self.access.bits
        linear = self.linear(b, indices)
        per_byte_log2 = {4: 1, 2: 2}[bits]
        ptr = b.gep(self.base, [b.lshr(linear, I64(per_byte_log2))], inbounds=self.inbounds,
                    source_etype=I8)
        shift = b.mul(b.trunc(b.and_(linear, I64((1 << per_byte_log2) - 1)), I8), I8(bits))
        return ptr, shift

    def load(self, builder, indices, lanes, vector):
        """Load one element (splat to ``lanes``) or, when ``vector``, ``lanes`` consecutive ones."""
        b, access = builder, self.access
        if access.bits < 8:
            if vector:
                raise CompileError("llvm-cpu codegen: sub-byte elements are loaded one at a time")
            ptr, shift = self._packed(b, indices)
            value = b.trunc(b.lshr(b.load(ptr, typ=I8, align=1), shift), ir.IntType(access.bits))
            return splat(b, _widen(b, value, access.view.element_type), lanes)
        ptr = self.pointer(b, indices)
        align = element_size(access.view.element_type)
        ty = lane_type(access.storage, lanes if vector else 1)
        value = _widen(b, b.load(ptr, typ=ty, align=align), access.view.element_type)
        return value if vector else splat(b, value, lanes)

    def store(self, builder, indices, value):
        """Store ``value`` (scalar or vector of consecutive elements) at ``indices``. A sub-byte
        element is merged into its byte with two atomic read-modify-writes (clear, then set its
        bits), so workgroups writing neighbouring elements of one byte never lose an update
        (MLIR's narrow-type emulation of partial stores does the same)."""
        b, access = builder, self.access
        if access.bits < 8:
            if isinstance(value.type, ir.VectorType):
                raise CompileError("llvm-cpu codegen: sub-byte elements are stored one at a time")
            value = _narrow(b, value, access.view.element_type)
            ptr, shift = self._packed(b, indices)
            mask = b.shl(I8((1 << access.bits) - 1), shift)
            b.atomic_rmw("and", ptr, b.xor(mask, I8(0xFF)), "monotonic")
            b.atomic_rmw("or", ptr, b.shl(b.zext(value, I8), shift), "monotonic")
            return
        ptr = self.pointer(b, indices)
        align = element_size(access.view.element_type)
        b.store(_narrow(b, value, access.view.element_type), ptr, align=align)


def _widen(b, value, element_type):
    if element_type == "f16":
        return f16_bits_to_f32(b, value)
    if element_type in NARROW_FLOATS:
        return to_f32(b, value, element_type)
    if element_type == "i1":
        return b.icmp_unsigned("!=", value, ir.Constant(value.type, None))
    return value


def _narrow(b, value, element_type):
    if element_type == "f16":
        return f32_to_f16_bits(b, value)
    if element_type in NARROW_FLOATS:
        return from_float(b, value, element_type)
    if element_type == "i1":
        ty = I8 if not isinstance(value.type, ir.VectorType) else ir.VectorType(I8, value.type.count)
        return b.zext(value, ty)
    return value


def _wide(b, sizes, size):
    return b.zext(sizes.get(size), I128)


def extent_out_of_range(builder, sizes, view, length):
    """i1: the view has elements and some lies past ``length`` bytes (i64) of its binding."""
    b = builder
    strides = sz.view_strides(view)
    last = _wide(b, sizes, view.offset)
    nonempty = ir.Constant(I1, 1)
    for extent, stride in zip(view.shape, strides):
        e = _wide(b, sizes, extent)
        nonempty = b.and_(nonempty, b.icmp_unsigned("!=", e, I128(0)))
        last = b.add(last, b.mul(b.sub(e, I128(1)), _wide(b, sizes, stride)))
    bits = element_bits(view.element_type)
    need = b.udiv(b.add(b.mul(b.add(last, I128(1)), I128(bits)), I128(7)), I128(8))
    return b.and_(nonempty, b.icmp_unsigned(">", need, b.zext(length, I128)))


def access_out_of_range(builder, sizes, access, domain):
    """i1: some index ``access.amap`` yields over ``domain`` (Sizes, all non-zero) is outside
    the view's shape."""
    b = builder
    dom = [_wide(b, sizes, d) for d in domain]
    bad = ir.Constant(I1, 0)
    for expr, extent in zip(access.amap, access.view.shape):
        lo = hi = ir.Constant(I128, expr.constant)
        for d, c in expr.terms:
            term = b.mul(b.sub(dom[d], I128(1)), ir.Constant(I128, c))
            if c > 0:
                hi = b.add(hi, term)
            else:
                lo = b.add(lo, term)
        bad = b.or_(bad, b.icmp_signed("<", lo, I128(0)))
        bad = b.or_(bad, b.icmp_signed(">=", hi, _wide(b, sizes, extent)))
    return bad


def domain_nonempty(builder, sizes, domain):
    """i1: every extent of ``domain`` is non-zero."""
    b = builder
    ok = ir.Constant(I1, 1)
    for extent in domain:
        ok = b.and_(ok, b.icmp_unsigned("!=", sizes.get(extent), I64(0)))
    return ok
