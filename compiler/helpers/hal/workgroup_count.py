"""Host-side workgroup counts from a Kernel's Distribution, as an export's ``count`` region.

``workgroup_count[i] = ceildiv(domain[dims[i]], tiles[i])`` (kernel_ir.Distribution) where the
domain sizes are ints, push constants (``kernel_ir.Constant``) or index expressions over them
(``kernel_ir.Expr``). :func:`build_count_region` writes that arithmetic into a
``count(%device: !hal.device, %c0: i32, ...) -> (index, index, index)`` region whose arguments
are the dispatch's push constants; the hal conversion clones it at every dispatch site.
(IREE's count region takes the workload instead; rt's kernels state their grid over push
constants, which the dispatch site has in hand.)
"""
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, i32, i64
from xdsl.ir import Block, Region

from rt.compiler.codegen import kernel_ir
from rt.compiler.dialects.hal import ReturnOp
from rt.compiler.dialects.hal_types import DeviceType

INDEX = IndexType()
_EXPR_OPS = {"add": arith.AddiOp, "sub": arith.SubiOp, "mul": arith.MuliOp, "floordiv": arith.DivUIOp,
             "ceildiv": arith.CeilDivUIOp, "rem": arith.RemUIOp, "min": arith.MinUIOp, "max": arith.MaxUIOp}


def op_domain(op):
    """Loop sizes of a Kernel op (d0..dn), matching the dims its Distribution names."""
    if isinstance(op, kernel_ir.Generic):
        return tuple(op.domain)
    if isinstance(op, kernel_ir.Mmt4d):
        return (op.out.shape[0], op.out.shape[1], op.lhs.shape[1])
    if isinstance(op, kernel_ir.Pack):
        return tuple(op.dest.shape)
    if isinstance(op, kernel_ir.Unpack):
        return tuple(op.source.shape)
    raise TypeError(f"unknown Kernel op {type(op).__name__}")


def root_op(kernel):
    """The op whose loop dims the Distribution names (the last op split along all of them)."""
    dist = kernel.distribution
    for op, dims in reversed(list(zip(kernel.ops, dist.op_dims))):
        if tuple(dims) == tuple(dist.dims):
            return op
    return kernel.ops[-1] if kernel.ops else None


def grid_sizes(kernel):
    """Three kernel_ir Sizes: the workgroup count along x, y, z.

    ``Distribution.extents`` (the root's extent per distributed dim) is authoritative when the
    lowering sets it: with shifted copies (pad, concat, insert_slice) the last op split along
    every dim may cover only part of the output."""
    dist = kernel.distribution
    counts = [1, 1, 1]
    if dist.extents:
        extents = tuple(dist.extents)
    else:
        op = root_op(kernel)
        if op is None:
            return counts
        domain = op_domain(op)
        extents = tuple(domain[dim] for dim in dist.dims)
    for i, (extent, tile) in enumerate(zip(extents, dist.tiles)):
        counts[i] = _ceildiv(extent, tile)
    return counts


def _ceildiv(size, tile):
    if isinstance(size, int):
        return -(-size // tile)
    return size if tile == 1 else kernel_ir.Expr("ceildiv", (size, tile))


def build_count_region(kernel):
    """The ``count(%device, %c0: i32, ...)`` region computing :func:`grid_sizes`."""
    block = Block(arg_types=[DeviceType()] + [i32] * kernel.constant_count)
    block.args[0].name_hint = "device"
    for k, arg in enumerate(block.args[1:]):
        arg.name_hint = f"c{k}"
    cache = {}

    def emit(op):
        block.add_op(op)
        return op.results[0]

    def value(size):
        key = size
        if key in cache:
            return cache[key]
        if isinstance(size, int):
            result = emit(arith.ConstantOp(IntegerAttr(size, INDEX)))
        elif isinstance(size, kernel_ir.Constant):
            if not 0 <= size.ordinal < kernel.constant_count:
                raise ValueError(f"kernel {kernel.name}: push constant {size.ordinal} out of range "
                                 f"(constant_count {kernel.constant_count})")
            wide = emit(arith.ExtUIOp(block.args[1 + size.ordinal], i64))
            result = emit(arith.IndexCastOp(wide, INDEX))
        else:
            lhs, rhs = (value(s) for s in size.operands)
            result = emit(_EXPR_OPS[size.op](lhs, rhs))
        cache[key] = result
        return result

    counts = [value(s) for s in grid_sizes(kernel)]
    block.add_op(ReturnOp.build(operands=[counts]))
    return Region(block)
