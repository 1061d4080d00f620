"""Affine accesses of views as linear functions of the loop indices.

A Generic operand reads ``view[map(d0..dn)]``; with row-major element strides that address is
``offset + sum_k (map_k(d) * stride_k)`` = ``base + sum_d (d * loop_stride[d])``: an affine
function of the loop indices. Every backend decision here (which loops a microkernel covers,
how offsets advance in bytecode loops) works on that form, which also covers broadcasts
(stride 0), transposes and the strided/dilated windows of convs and pooling.
Source: the strided-memref view of IREE's VMVX lowering (memref.extract_strided_metadata
feeding the ukernel operands, compiler/src/iree/compiler/Dialect/VMVX/Transforms).
"""
from dataclasses import dataclass

from rt.compiler.codegen import kernel_ir
from rt.runtime.errors import CompileError


@dataclass
class Access:
    """One operand: ``view``, ``base`` element offset, ``strides[d]`` per loop dim (int or
    i64 register), ``depends[d]``: whether the map mentions loop dim d with a non-zero
    coefficient (a static fact, unlike a stride that may be dynamic)."""

    view: kernel_ir.View
    base: object
    strides: list
    depends: list

    @property
    def element_type(self):
        return self.view.element_type

    @property
    def element_size(self):
        return kernel_ir.element_size(self.view.element_type)

    @property
    def packed(self):
        """True for sub-byte elements (addressed by element index, see scalar.load_packed)."""
        return self.view.element_type in kernel_ir.PACKED


def linearize(em, view, exprs, num_dims):
    """The Access of ``view`` indexed by ``exprs`` (AffineExpr per view dim) over num_dims loops."""
    try:
        kernel_ir.element_bits(view.element_type)
    except ValueError as e:
        raise CompileError(f"vmvx codegen: kernel {em.kernel.name!r}: binding {view.binding}: {e}") from None
    if len(exprs) != len(view.shape):
        raise CompileError(f"vmvx codegen: kernel {em.kernel.name!r}: indexing map has {len(exprs)} results "
                           f"for a rank-{len(view.shape)} view of binding {view.binding}")
    base, strides = em.layout(view)
    loop = [0] * num_dims
    depends = [False] * num_dims
    for expr, stride in zip(exprs, strides):
        base = em.add(base, em.mul(expr.constant, stride))
        for dim, coeff in expr.terms:
            if not 0 <= dim < num_dims:
                raise CompileError(f"vmvx codegen: kernel {em.kernel.name!r}: indexing map uses d{dim} but the "
                                   f"op has {num_dims} loops")
            if coeff != 0:
                depends[dim] = True
                loop[dim] = em.add(loop[dim], em.mul(coeff, stride))
    return Access(view, base, loop, depends)


def offset_at(em, access, starts):
    """Element offset of ``access`` at loop point ``starts`` (int or register per dim)."""
    off = access.base
    for d, start in enumerate(starts):
        if access.depends[d]:
            off = em.add(off, em.mul(start, access.strides[d]))
    return off
