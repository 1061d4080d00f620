"""``iree-convert-shard-to-flow``: upstream ``shard`` SPMD ops -> IREE's flow collectives.

Input: ``shard.grid`` declarations and ``shard.all_reduce / all_gather / reduce_scatter /
all_to_all / process_linear_index`` ops. Output: ``flow.collective.*`` on a channel per
(grid, grid axes): the runtime's default channel (``flow.channel.default``) when the axes are
all of the grid's in order, else a ``!flow.channel`` global that a ``util.initializer`` splits
from the default one (color: the process's index over the other axes; key: its index over the
group's axes, in the order given), and a ``util.initializer`` per grid asserts that the
default channel has as many ranks as the grid has processes. Gathers, scatters and all-to-all work on dimension 0 in
flow, so other axes are transposed there and back; all-to-all then moves the received blocks
into ``concat_axis``. The grids are erased.

Example::

    shard.grid @grid(shape = 2x2)
    %0 = shard.all_reduce %x on @grid grid_axes = [1] reduction = max : tensor<4xf32> -> tensor<4xf32>
    // ->
    util.global private @_shard_grid_axes_1 : !flow.channel
    util.initializer { ... flow.channel.split %default, %color, %key ... util.global.store ... }
    %ch = util.global.load @_shard_grid_axes_1 : !flow.channel
    %e = tensor.empty() : tensor<4xf32>
    %0 = flow.collective.all_reduce maximum, f32, %e, %x, %ch : (...) -> %e as tensor<4xf32>

Signless integer elements are collected as signed (``si32``; IREE uses ``ui``), so minimum
and maximum compare the way numpy does. Errors (CompileError at the op): an unknown grid,
axes out of range, a dimension the group size does not divide, a dynamic shape, an element
type collectives do not carry (i1, complex).

Source followed: IREE ``Dialect/Flow/Conversion/ShardToFlow/Patterns.cpp`` and
``Transforms/ConvertShardToFlow.cpp``.
"""
import dataclasses
import math

from xdsl.dialects import arith, cf, tensor
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.ops import TransposeOp
from xdsl.ir import Block, Region
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import flow_collective as fc
from rt.compiler.dialects import shard, util
from rt.compiler.frontend import error_at_op
from rt.compiler.frontend.diagnostics import op_location
from rt.compiler.passes.base import Pass

INDEX = IndexType()
_REDUCTIONS = {"sum": "sum", "max": "maximum", "min": "minimum", "product": "product", "average": "average"}


def element_type_name(element, op):
    """The flow collective element type for a tensor element type (signless ints: signed)."""
    if isinstance(element, IntegerType) and element.width.data in (8, 16, 32, 64):
        prefix = "ui" if element.signedness.data == Signedness.UNSIGNED else "si"
        return f"{prefix}{element.width.data}"
    names = {Float16Type: "f16", Float32Type: "f32", Float64Type: "f64", BFloat16Type: "bf16"}
    for cls, name in names.items():
        if isinstance(element, cls):
            return name
    raise error_at_op(op, f"'{op.name}': collectives carry 8/16/32/64-bit integers and f16, bf16, "
                          f"f32, f64 elements, not {element}")


class _Builder:
    """Inserts new ops before ``anchor``."""

    def __init__(self, anchor):
        self.anchor = anchor

    def add(self, op):
        Rewriter.insert_op(op, InsertPoint.before(self.anchor))
        return op.results[0] if op.results else op

    def const(self, value):
        return self.add(arith.ConstantOp(IntegerAttr(value, INDEX)))

    def empty(self, shape, element):
        return self.add(tensor.EmptyOp([], TensorType(element, shape)))

    def transpose(self, value, permutation):
        if list(permutation) == sorted(permutation):
            return value
        shape = value.type.get_shape()
        out = self.empty([shape[p] for p in permutation], value.type.element_type)
        return self.add(TransposeOp(value, out, DenseArrayBase.from_list(i64, list(permutation)),
                                    out.type))

    def swap(self, value, a, b):
        perm = list(range(len(value.type.get_shape())))
        perm[a], perm[b] = perm[b], perm[a]
        return self.transpose(value, perm)

    def reshape(self, value, shape, groups, expand):
        type_ = TensorType(value.type.element_type, shape)
        reassociation = ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in g]) for g in groups])
        if expand:
            op = tensor.ExpandShapeOp.build(
                operands=[value, []], result_types=[type_],
                properties={"reassociation": reassociation,
                            "static_output_shape": DenseArrayBase.from_list(i64, list(shape))})
        else:
            op = tensor.CollapseShapeOp.build(operands=[value], result_types=[type_],
                                              properties={"reassociation": reassociation})
        return self.add(op)


@dataclasses.dataclass(frozen=True)
class ConvertShardToFlowPass(Pass):
    """shard collectives -> flow collectives on default or split channels."""

    name = "iree-convert-shard-to-flow"

    def run(self, module, ctx):
        grids = {op.sym_name.data: op for op in module.walk() if isinstance(op, shard.GridOp)}
        channels, used = {}, {}
        for op in list(module.walk()):
            if isinstance(op, (shard.ProcessLinearIndexOp, shard._CollectiveOp)):
                grid = grids.get(op.grid_name)
                if grid is None:
                    raise error_at_op(op, f"'{op.name}': no shard.grid @{op.grid_name}; declared grids: "
                                          f"{', '.join('@' + g for g in grids) or '(none)'}")
                _convert(op, grid, channels, module)
                used[op.grid_name] = grid
        for grid in used.values():
            _rank_count_check(grid)
        for grid in grids.values():
            Rewriter.erase_op(grid)


def _rank_count_check(grid):
    """A ``util.initializer`` (before ``grid``'s channel globals) that fails the load unless
    the default channel has as many ranks as the grid has processes: a collective over the
    wrong rank count would silently compute something else."""
    block = Block()
    block.add_op(util.ReturnOp.build(operands=[[]]))
    b = _Builder(block.last_op)
    n = math.prod(grid.sizes)
    default = b.add(fc.ChannelDefaultOp.build(result_types=[fc.ChannelType()]))
    count = b.add(fc.ChannelCountOp.build(operands=[default], result_types=[INDEX]))
    ok = b.add(arith.CmpiOp(count, b.const(n), "eq"))
    where = op_location(grid)
    prefix = f"{where[0]}:{where[1]}:{where[2]}: " if where else ""
    shape = "x".join(map(str, grid.sizes))
    b.add(cf.AssertOp(ok, f"{prefix}shard.grid @{grid.sym_name.data} of shape {shape} runs on {n} "
                          f"rank(s), but its channel has another rank count: load it with ranks={n} "
                          f"(rt run --ranks={n})"))
    Rewriter.insert_op(util.InitializerOp.build(regions=[Region(block)]), InsertPoint.before(grid))


def _channel(op, grid, axes, channels, module):
    """A value of the channel for ``axes`` of ``grid`` (None = all axes, the default channel)."""
    b = _Builder(op)
    sizes = grid.sizes
    if axes is None or list(axes) == list(range(len(sizes))):
        return b.add(fc.ChannelDefaultOp.build(result_types=[fc.ChannelType()]))
    for axis in axes:
        if not 0 <= axis < len(sizes):
            raise error_at_op(op, f"'{op.name}': grid axis {axis} is out of range for @{grid.sym_name.data} "
                                  f"of shape {'x'.join(map(str, sizes))}")
    name = f"_shard_{grid.sym_name.data}_axes_{'_'.join(map(str, axes))}"
    if name not in channels:
        channels[name] = _split_global(name, grid, axes, module)
    return b.add(util.GlobalLoadOp.build(result_types=[fc.ChannelType()],
                                         properties={"global": SymbolRefAttr(name)}))


def _split_global(name, grid, axes, module):
    """``util.global @name : !flow.channel`` set by an initializer that splits the default."""
    glob = util.GlobalOp.build(properties={"sym_name": StringAttr(name), "sym_visibility": StringAttr("private"),
                                           "type": fc.ChannelType()})
    Rewriter.insert_op(glob, InsertPoint.after(grid))
    block = Block()
    block.add_op(util.ReturnOp.build(operands=[[]]))
    terminator = block.last_op
    b = _Builder(terminator)
    default = b.add(fc.ChannelDefaultOp.build(result_types=[fc.ChannelType()]))
    rank = b.add(fc.ChannelRankOp.build(operands=[default], result_types=[INDEX]))
    sizes = grid.sizes
    index = []
    for axis in range(len(sizes)):
        stride = math.prod(sizes[axis + 1:])
        value = b.add(arith.DivUIOp(rank, b.const(stride))) if stride != 1 else rank
        index.append(b.add(arith.RemUIOp(value, b.const(sizes[axis]))))

    def linear(dims):
        total = b.const(0)
        for d in dims:
            total = b.add(arith.AddiOp(b.add(arith.MuliOp(total, b.const(sizes[d]))), index[d]))
        return total

    color = linear([d for d in range(len(sizes)) if d not in axes])
    key = linear(list(axes))
    split = b.add(fc.ChannelSplitOp.build(operands=[default, color, key], result_types=[fc.ChannelType()]))
    b.add(util.GlobalStoreOp.build(operands=[split], properties={"global": SymbolRefAttr(name)}))
    init = util.InitializerOp.build(regions=[Region(block)])
    Rewriter.insert_op(init, InsertPoint.after(glob))
    return glob


def _group_size(op, grid):
    return math.prod(grid.sizes[a] for a in op.axes)


def _convert(op, grid, channels, module):
    b = _Builder(op)
    if isinstance(op, shard.ProcessLinearIndexOp):
        channel = _channel(op, grid, None, channels, module)
        rank = b.add(fc.ChannelRankOp.build(operands=[channel], result_types=[INDEX]))
        op.result.replace_all_uses_with(rank)
        Rewriter.erase_op(op)
        return
    for t in (op.input.type, op.result.type):
        if any(d < 0 for d in t.get_shape()):
            raise error_at_op(op, f"'{op.name}': dynamic shapes ({t}) are not supported; give static shapes")
    channel = _channel(op, grid, op.axes, channels, module)
    element = op.input.type.element_type
    etype = StringAttr(element_type_name(element, op))
    count = _group_size(op, grid)
    rank = len(op.input.type.get_shape())

    def collective(cls, source, result_shape, reduction=None):
        target = b.empty(result_shape, element)
        props = {"element_type": etype}
        if reduction is not None:
            props["reduction_op"] = StringAttr(_REDUCTIONS[reduction])
        return b.add(cls.build(operands=[target, [], source, channel], result_types=[target.type],
                               properties=props))

    def reduction():
        return op.reduction.data if op.reduction is not None else "sum"

    def axis_of(attr, what):
        axis = attr.value.data
        if not 0 <= axis < rank:
            raise error_at_op(op, f"'{op.name}': {what} {axis} is out of range for {op.input.type}")
        return axis

    if isinstance(op, shard.AllReduceOp):
        result = collective(fc.CollectiveAllReduceOp, op.input, op.input.type.get_shape(), reduction())
    elif isinstance(op, (shard.AllGatherOp, shard.ReduceScatterOp)):
        gather = isinstance(op, shard.AllGatherOp)
        axis = axis_of(op.gather_axis if gather else op.scatter_axis, "gather_axis" if gather else "scatter_axis")
        if not gather and op.input.type.get_shape()[axis] % count:
            raise error_at_op(op, f"'{op.name}': dimension {axis} of {op.input.type} is not divisible by the "
                                  f"{count} processes of the group")
        moved = b.swap(op.input, 0, axis)
        out_shape = list(op.result.type.get_shape())
        out_shape[0], out_shape[axis] = out_shape[axis], out_shape[0]
        cls = fc.CollectiveAllGatherOp if gather else fc.CollectiveReduceScatterOp
        flow_result = collective(cls, moved, out_shape, None if gather else reduction())
        result = b.swap(flow_result, 0, axis)
    else:
        split = axis_of(op.split_axis, "split_axis")
        concat = axis_of(op.concat_axis, "concat_axis")
        shape = list(op.input.type.get_shape())
        if shape[split] % count:
            raise error_at_op(op, f"'{op.name}': split dimension {split} of {op.input.type} is not divisible "
                                  f"by the {count} processes of the group")
        moved = b.swap(op.input, 0, split)
        exchanged = b.swap(collective(fc.CollectiveAllToAllOp, moved, moved.type.get_shape()), 0, split)
        result = _split_move_collapse(b, exchanged, split, concat, count)
    op.result.replace_all_uses_with(result)
    Rewriter.erase_op(op)


def _split_move_collapse(b, value, split, concat, count):
    """(.., S, .., C, ..) -> (.., S/count, .., count*C, ..): the received blocks (stacked along
    ``split``) placed side by side along ``concat``."""
    if split == concat:
        return value
    shape = list(value.type.get_shape())
    expanded = shape[:split] + [count, shape[split] // count] + shape[split + 1:]
    groups = [[d] for d in range(split)] + [[split, split + 1]] + [[d + 1] for d in range(split + 1, len(shape))]
    v = b.reshape(value, expanded, groups, expand=True)
    # Move the block axis (``split`` after expanding) right before the concat axis.
    perm = [d for d in range(len(expanded)) if d != split]
    perm.insert(concat, split)
    v = b.transpose(v, perm)
    moved_shape = v.type.get_shape()
    at = perm.index(split)
    collapsed = list(moved_shape[:at]) + [moved_shape[at] * moved_shape[at + 1]] + list(moved_shape[at + 2:])
    groups = [[d] for d in range(at)] + [[at, at + 1]] + [[d] for d in range(at + 2, len(moved_shape))]
    return b.reshape(v, collapsed, groups, expand=False)
