"""``iree_linalg_ext`` sort/scatter/gather/topk/scan/arg_compare/map_load/map_store/winograd ops.

Every op is in destination-passing style: operands in an ``inputs`` and an ``outputs`` group
(``ins(...)`` / ``outs(...)``, or ``%src into %dst`` for map_load/map_store), one result per
output on tensors, none on buffers. Named accessors (``updates``, ``indices``, ``mask``...)
read the groups as IREE's ops name their operands. The verifiers check what IREE's
``LinalgExtOps.cpp`` verifiers check about ranks, shapes, element types and regions; their
messages name the operand and say what was expected (the verifier pass locates them).

Semantics (what :mod:`rt.compiler.helpers.linalg_ext` lowers them to) follow IREE's
``generateScalarImplementation`` of each op (``LinalgExt/IR/TilingInterfaceImpl.cpp``).
Assembled into the dialect by :mod:`iree_linalg_ext`.

Source followed: IREE ``compiler/src/iree/compiler/Dialect/LinalgExt/IR/LinalgExtOps.td``.
"""
from typing import ClassVar

from xdsl.dialects.builtin import (DYNAMIC_INDEX, DenseArrayBase, IndexType, IntegerAttr, IntegerType, ShapedType,
                                   UnitAttr, i64)
from xdsl.irdl import (AttrSizedOperandSegments, irdl_op_definition, opt_operand_def, opt_prop_def, prop_def,
                       region_def, traits_def, var_operand_def, var_result_def)
from xdsl.traits import IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects._format import (RETURN_VALUES, AttrDict, Flag, FormattedOp, Int, Operand, Operands, OpFormat,
                                           Opt, Type)
from rt.compiler.dialects._linalg_ext_syntax import INS, OUTS, REGION, RESULTS, Bool, IntArray, ResultTypes

I1 = IntegerType(1)


@irdl_op_definition
class YieldOp(FormattedOp):
    """``iree_linalg_ext.yield %a, %b : t, u``: the terminator of every iree_linalg_ext region."""

    name = "iree_linalg_ext.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), Pure())
    FORMAT: ClassVar = OpFormat(AttrDict(), RETURN_VALUES)


def _shape(value):
    return tuple(value.type.get_shape())


def _element(value):
    return value.type.get_element_type()


def _same_dim(a, b):
    return a == b or DYNAMIC_INDEX in (a, b)


def _same_shape(a, b):
    return len(a) == len(b) and all(_same_dim(x, y) for x, y in zip(a, b))


class _DpsOp(FormattedOp):
    """Operands in ``inputs`` / ``outputs``; a result per output on tensors; an optional region."""

    inputs = var_operand_def()
    outputs = var_operand_def()
    result = var_result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    #: (min, max) counts of the inputs and the outputs
    INPUTS: ClassVar = (1, 1)
    OUTPUTS: ClassVar = (1, 1)
    #: what a wrong operand count message adds
    GROUPS_HINT: ClassVar = ""

    def fail(self, message):
        raise VerifyException(message)

    def verify_(self):
        for group, (low, high) in (("inputs", self.INPUTS), ("outputs", self.OUTPUTS)):
            count = len(getattr(self, group))
            if not low <= count <= high:
                want = "no" if high == 0 else str(low) if low == high else f"{low} to {high}"
                self.fail(f"takes {want} {group}, got {count}{self.GROUPS_HINT}")
        for value in (*self.inputs, *self.outputs):
            if not isinstance(value.type, ShapedType):
                self.fail(f"operands must be shaped (tensor or memref), got {value.type}")
        if self.results and [r.type for r in self.results] != [o.type for o in self.outputs]:
            self.fail(f"result types {[str(r.type) for r in self.results]} must equal the output types "
                      f"{[str(o.type) for o in self.outputs]}")
        self.verify_semantics()

    def verify_semantics(self):
        raise NotImplementedError

    def block_args(self, count, types=None):
        """Check the region has one block of ``count`` arguments (of ``types``) -> the block."""
        if not self.region.blocks:
            self.fail("needs a region with one block")
        block = self.region.blocks[0]
        if len(block.args) != count:
            self.fail(f"region takes {count} arguments, got {len(block.args)}")
        for k, (arg, want) in enumerate(zip(block.args, types or ())):
            if arg.type != want:
                self.fail(f"region argument {k} must be {want}, got {arg.type}")
        if block.last_op is None or not block.last_op.has_trait(IsTerminator):
            self.fail("region must end with iree_linalg_ext.yield")
        return block

    def yields(self, types):
        """Check the region's yield gives values of ``types``."""
        got = [v.type for v in self.region.blocks[0].last_op.operands]
        if got != list(types):
            self.fail(f"region must yield {', '.join(map(str, types))}, got {', '.join(map(str, got)) or 'nothing'}")

    def dimension_in_range(self, rank):
        dim = self.dimension.value.data
        if not 0 <= dim < rank:
            self.fail(f"dimension({dim}) is out of range for rank {rank}")
        return dim


@irdl_op_definition
class SortOp(_DpsOp):
    """``sort dimension(d) outs(%a, %b : ...) {^bb0(%l0, %r0, %l1, %r1): ... yield %i1} -> ...``.

    Sorts every output along ``dimension`` in place, all by the order of the comparator region
    (it takes (lhs, rhs) pairs of each output's elements and yields whether lhs goes first).
    rt's sort is stable. ``ins`` is parsed for IREE's syntax but must be empty (as IREE's
    users leave it).
    """

    name = "iree_linalg_ext.sort"
    dimension = prop_def(IntegerAttr)
    region = region_def()
    INPUTS: ClassVar = (0, 0)
    OUTPUTS: ClassVar = (1, 64)
    GROUPS_HINT: ClassVar = "; sort sorts its outs(...) operands in place (ins(...) stays empty)"
    FORMAT: ClassVar = OpFormat(AttrDict(), " dimension(", Int("dimension", i64), ")", INS, *OUTS, *REGION, RESULTS)

    def verify_semantics(self):
        shape = _shape(self.outputs[0])
        for k, out in enumerate(self.outputs):
            if not _same_shape(_shape(out), shape):
                self.fail(f"output {k} has shape {out.type}; every output must have the shape of output 0")
        self.dimension_in_range(len(shape))
        self.block_args(2 * len(self.outputs), [t for o in self.outputs for t in (_element(o), _element(o))])
        self.yields([I1])


class _IndexedOp(_DpsOp):
    """Scatter and gather: ``dimension_map`` and a (batch..., index depth) indices operand."""

    dimension_map = prop_def(DenseArrayBase)
    INPUTS: ClassVar = (2, 3)

    def index_depth(self):
        return len(self.dimension_map.get_values())

    def batch_rank(self):
        """Rank of the batch dims of ``indices`` (all of its dims but the index vector one)."""
        shape = _shape(self.indices)
        if self.index_depth() == 1 and (not shape or shape[-1] != 1):
            return len(shape)
        return len(shape) - 1

    def check_indices(self, target, slice_rank):
        """``indices`` is integer, ends with the index depth, and indexes the dims of ``target``."""
        if not isinstance(_element(self.indices), IntegerType):
            self.fail(f"indices must have an integer element type, got {self.indices.type}")
        depth, shape = self.index_depth(), _shape(self.indices)
        if shape and len(shape) > self.batch_rank() and not _same_dim(shape[-1], depth):
            self.fail(f"indices {self.indices.type}: the last dim must be the index depth {depth} "
                      f"(the size of dimension_map)")
        rank = len(_shape(target))
        dims = list(self.dimension_map.get_values())
        if len(set(dims)) != len(dims) or any(not 0 <= d < rank for d in dims):
            self.fail(f"dimension_map {dims} must name distinct dims of the rank-{rank} {target.type}")
        if slice_rank > rank:
            self.fail(f"the slice rank {slice_rank} exceeds the rank of {target.type}")
        if self.mask is not None:
            if _element(self.mask) != I1 or not _same_shape(_shape(self.mask), shape[:self.batch_rank()]):
                self.fail(f"mask {self.mask.type} must be i1 of the indices' batch shape {shape[:self.batch_rank()]}")

    @property
    def indices(self):
        return self.inputs[1]

    @property
    def mask(self):
        return self.inputs[2] if len(self.inputs) > 2 else None


@irdl_op_definition
class ScatterOp(_IndexedOp):
    """``scatter dimension_map = [..] unique_indices(b) ins(%updates, %indices[, %mask] : ...)
    outs(%original : ...) {^bb0(%update, %current): ... yield} -> ...``.

    ``updates`` is (batch..., slice...); each update element combines (the region) into
    ``original`` at the start its indices give (``dimension_map[k]`` is the dim index ``k``
    addresses) plus its slice offset, the slice dims being the last dims of ``original``. A
    false ``mask`` entry skips that update. rt applies updates in batch order (so repeated
    indices are exact whatever ``unique_indices`` says) and skips updates out of range.
    """

    name = "iree_linalg_ext.scatter"
    unique_indices = prop_def(IntegerAttr)
    region = region_def()
    FORMAT: ClassVar = OpFormat(AttrDict(), " dimension_map = ", IntArray("dimension_map"), " unique_indices(",
                                Bool("unique_indices"), ")", INS, *OUTS, *REGION, RESULTS)

    @property
    def updates(self):
        return self.inputs[0]

    @property
    def original(self):
        return self.outputs[0]

    def verify_semantics(self):
        batch = self.batch_rank()
        update_shape = _shape(self.updates)
        if not _same_shape(update_shape[:batch], _shape(self.indices)[:batch]):
            self.fail(f"updates {self.updates.type} must start with the batch dims of indices {self.indices.type}")
        slice_shape = update_shape[batch:]
        self.check_indices(self.original, len(slice_shape) + self.index_depth())
        original = _shape(self.original)
        for k, size in enumerate(slice_shape):
            limit = original[len(original) - len(slice_shape) + k]
            if size != DYNAMIC_INDEX and limit != DYNAMIC_INDEX and size > limit:
                self.fail(f"update slice {slice_shape} does not fit in original {self.original.type}")
        element = _element(self.original)
        if _element(self.updates) != element:
            self.fail(f"updates {self.updates.type} and original {self.original.type} element types differ")
        self.block_args(2, [element, element])
        self.yields([element])


@irdl_op_definition
class GatherOp(_IndexedOp):
    """``gather dimension_map = [..] ins(%source, %indices[, %mask] : ...) outs(%output : ...) -> ...``.

    ``output`` is (batch..., slice...); element (b, s) reads ``source`` at the start the
    indices of batch b give plus s (the slice dims being the last dims of ``source``). A false
    ``mask`` entry keeps ``output``'s value. rt clamps each index into its dim (IREE leaves an
    out-of-range gather undefined; rt never reads outside ``source``).
    """

    name = "iree_linalg_ext.gather"
    FORMAT: ClassVar = OpFormat(AttrDict(), " dimension_map = ", IntArray("dimension_map"), INS, *OUTS, RESULTS)

    @property
    def source(self):
        return self.inputs[0]

    @property
    def output(self):
        return self.outputs[0]

    def verify_semantics(self):
        batch = self.batch_rank()
        out_shape = _shape(self.output)
        if not _same_shape(out_shape[:batch], _shape(self.indices)[:batch]):
            self.fail(f"output {self.output.type} must start with the batch dims of indices {self.indices.type}")
        self.check_indices(self.source, len(out_shape) - batch)
        if _element(self.source) != _element(self.output):
            self.fail(f"source {self.source.type} and output {self.output.type} element types differ")


class _RowOp(_DpsOp):
    """An op over one ``dimension`` of its input, with a comparator/combiner region."""

    dimension = prop_def(IntegerAttr)
    region = region_def()

    def check_reduced(self, value, shape, dim, what):
        """``value`` has ``shape`` without ``dim``."""
        want = shape[:dim] + shape[dim + 1:]
        if not _same_shape(_shape(value), want):
            self.fail(f"{what} {value.type} must have the input shape {list(shape)} without dim {dim}")

    def check_comparator(self, element):
        self.block_args(2, [element, element])
        self.yields([I1])


@irdl_op_definition
class ScanOp(_RowOp):
    """``scan dimension(d) inclusive(b) ins(%in : ...) outs(%out, %acc : ...) {^bb0(%prev, %x): ...}``.

    ``out[.., 0, ..]`` is ``in[.., 0, ..]`` (inclusive) or ``acc`` (exclusive); then
    ``out[i] = region(out[i - 1], in[i])`` (inclusive) or ``region(out[i - 1], in[i - 1])``
    (exclusive); ``acc`` ends as ``out[.., last, ..]``.
    """

    name = "iree_linalg_ext.scan"
    inclusive = prop_def(IntegerAttr)
    OUTPUTS: ClassVar = (2, 2)
    FORMAT: ClassVar = OpFormat(AttrDict(), " dimension(", Int("dimension", i64), ") inclusive(",
                                Bool("inclusive"), ")", INS, *OUTS, *REGION, RESULTS)

    def verify_semantics(self):
        source, out, acc = self.inputs[0], self.outputs[0], self.outputs[1]
        shape = _shape(source)
        dim = self.dimension_in_range(len(shape))
        if not _same_shape(_shape(out), shape) or _element(out) != _element(source):
            self.fail(f"output {out.type} must have the input's type {source.type}")
        self.check_reduced(acc, shape, dim, "accumulator")
        element = _element(source)
        self.block_args(2, [element, element])
        self.yields([element])


@irdl_op_definition
class TopkOp(_RowOp):
    """``topk dimension(d) ins(%values[, %indices] : ...) outs(%out_values, %out_indices : ...)``.

    The k (the outputs' size along ``dimension``) elements that go first by the comparator
    region, in that order, ties broken by the smaller index; indices from ``indices`` or the
    position along ``dimension``. The outputs' initial contents are candidates too, as in
    IREE (its users fill them with the comparator's identity), when k is static and at most 16;
    rt ignores them for a larger or dynamic k or outputs straight from ``tensor.empty``.
    """

    name = "iree_linalg_ext.topk"
    INPUTS: ClassVar = (1, 2)
    OUTPUTS: ClassVar = (2, 2)
    FORMAT: ClassVar = OpFormat(AttrDict(), " dimension(", Int("dimension", i64), ")", INS, *OUTS, *REGION, RESULTS)

    def verify_semantics(self):
        values = self.inputs[0]
        shape = _shape(values)
        dim = self.dimension_in_range(len(shape))
        out_values, out_indices = self.outputs
        if len(self.inputs) == 2 and not _same_shape(_shape(self.inputs[1]), shape):
            self.fail(f"indices {self.inputs[1].type} must have the shape of values {values.type}")
        for out in (out_values, out_indices):
            out_shape = _shape(out)
            if len(out_shape) != len(shape) or not all(
                    _same_dim(a, b) for k, (a, b) in enumerate(zip(out_shape, shape)) if k != dim):
                self.fail(f"output {out.type} must have the shape of values {values.type} but along dim {dim}")
        if _element(out_values) != _element(values):
            self.fail(f"output values {out_values.type} must have the element type of {values.type}")
        if not isinstance(_element(out_indices), IntegerType):
            self.fail(f"output indices {out_indices.type} must be integers")
        self.check_comparator(_element(values))


@irdl_op_definition
class TopkV2Op(_RowOp):
    """``topk_v2 dimension(d) is_sorted? ins(%values[, %indices] : ...) outs(%out_values[, %out_indices] : ...)``:
    :class:`TopkOp` with optional output indices; rt always gives the k in comparator order, and
    with ``is_sorted`` (k static, at most 16) orders ties as IREE's bubble sort after each
    insertion does (``helpers/linalg_ext/selection.py``)."""

    name = "iree_linalg_ext.topk_v2"
    is_sorted = opt_prop_def(UnitAttr)
    INPUTS: ClassVar = (1, 2)
    OUTPUTS: ClassVar = (1, 2)
    FORMAT: ClassVar = OpFormat(AttrDict(), " dimension(", Int("dimension", i64), ")", Flag(" is_sorted", "is_sorted"),
                                INS, *OUTS, *REGION, RESULTS)

    def verify_semantics(self):
        if len(self.inputs) == 2 and len(self.outputs) == 1:
            self.fail("takes input indices only together with output indices")
        values = self.inputs[0]
        shape = _shape(values)
        dim = self.dimension_in_range(len(shape))
        for out in self.outputs:
            out_shape = _shape(out)
            if len(out_shape) != len(shape) or not all(
                    _same_dim(a, b) for k, (a, b) in enumerate(zip(out_shape, shape)) if k != dim):
                self.fail(f"output {out.type} must have the shape of values {values.type} but along dim {dim}")
        if _element(self.outputs[0]) != _element(values):
            self.fail(f"output values {self.outputs[0].type} must have the element type of {values.type}")
        self.check_comparator(_element(values))


@irdl_op_definition
class ArgCompareOp(_RowOp):
    """``arg_compare dimension(d) ins(%x[, %idx] : ...) outs(%val, %index : ...) index_base(%b : index)?``.

    Reduces ``dimension``: a candidate replaces the best so far when the region (candidate,
    best) yields true, so the first of equal candidates stays; the index is the position along
    ``dimension`` plus ``index_base``, or the candidate's ``idx`` entry.
    """

    name = "iree_linalg_ext.arg_compare"
    index_base = opt_operand_def(IndexType)
    INPUTS: ClassVar = (1, 2)
    OUTPUTS: ClassVar = (2, 2)
    FORMAT: ClassVar = OpFormat(AttrDict(), " dimension(", Int("dimension", i64), ")", INS, *OUTS,
                                Opt("  index_base(", Operand("index_base"), " : ", Type("index_base"), ")"),
                                *REGION, RESULTS)

    def verify_semantics(self):
        values = self.inputs[0]
        shape = _shape(values)
        dim = self.dimension_in_range(len(shape))
        out_value, out_index = self.outputs
        self.check_reduced(out_value, shape, dim, "output value")
        self.check_reduced(out_index, shape, dim, "output index")
        if _element(out_value) != _element(values):
            self.fail(f"output value {out_value.type} must have the element type of {values.type}")
        if not isinstance(_element(out_index), (IntegerType, IndexType)):
            self.fail(f"output index {out_index.type} must be integers")
        if len(self.inputs) == 2:
            if self.index_base is not None:
                self.fail("takes index_base only without an input index operand")
            if not _same_shape(_shape(self.inputs[1]), shape) or _element(self.inputs[1]) != _element(out_index):
                self.fail(f"input index {self.inputs[1].type} must have the input's shape and the output index type")
        self.check_comparator(_element(values))


class _MapOp(_DpsOp):
    """``<op> %a into %b {^bb0(%i0: index, ...): ... yield} : t into u -> u``."""

    region = region_def()
    FORMAT: ClassVar = OpFormat(AttrDict(), " ", Operands("inputs"), " into ", Operands("outputs"), *REGION,
                                " : ", Type("inputs"), " into ", Type("outputs"), Opt(" -> ", ResultTypes()))


@irdl_op_definition
class MapLoadOp(_MapOp):
    """``map_load %source into %output {^bb0(%i..: index): yield %s.., %pad} : ...``: each output
    element reads ``source`` at the indices the region yields for its own indices, or the
    padding value where those are out of bounds."""

    name = "iree_linalg_ext.map_load"

    def verify_semantics(self):
        source, output = self.inputs[0], self.outputs[0]
        self.block_args(len(_shape(output)), [IndexType()] * len(_shape(output)))
        self.yields([IndexType()] * len(_shape(source)) + [_element(source)])
        if _element(source) != _element(output):
            self.fail(f"source {source.type} and output {output.type} element types differ")


@irdl_op_definition
class MapStoreOp(_MapOp):
    """``map_store %input into %output {^bb0(%i..: index): yield %o.., %mask} : ...``: each input
    element is written to ``output`` at the indices the region yields, where the mask is true
    (and the indices are in bounds: rt skips the others)."""

    name = "iree_linalg_ext.map_store"

    def verify_semantics(self):
        source, output = self.inputs[0], self.outputs[0]
        self.block_args(len(_shape(source)), [IndexType()] * len(_shape(source)))
        self.yields([IndexType()] * len(_shape(output)) + [I1])
        if _element(source) != _element(output):
            self.fail(f"input {source.type} and output {output.type} element types differ")


class _WinogradOp(_DpsOp):
    """``<op> output_tile_size(m) kernel_size(r) image_dimensions([..]) ins(%x : t) outs(%y : u) -> u``."""

    output_tile_size = prop_def(IntegerAttr)
    kernel_size = prop_def(IntegerAttr)
    image_dimensions = prop_def(DenseArrayBase)
    FORMAT: ClassVar = OpFormat(AttrDict(), " output_tile_size(", Int("output_tile_size", i64), ") kernel_size(",
                                Int("kernel_size", i64), ") image_dimensions(", IntArray("image_dimensions"), ")",
                                INS, *OUTS, RESULTS)

    def verify_semantics(self):
        m, r = self.output_tile_size.value.data, self.kernel_size.value.data
        if (m, r) != (6, 3):
            self.fail(f"supports output_tile_size(6) kernel_size(3) (IREE's F(6, 3)), got ({m}, {r})")
        dims = list(self.image_dimensions.get_values())
        if dims not in ([0, 1], [1, 2], [2, 3]):
            self.fail(f"image_dimensions {dims} must be [1, 2] (NHWC), [2, 3] (NCHW / FCHW) or [0, 1] (HWCF)")
        for value in (*self.inputs, *self.outputs):
            if len(_shape(value)) not in (4, 6):
                self.fail(f"operand {value.type} must be 4-d (image) or 6-d (tiles)")


@irdl_op_definition
class WinogradInputTransformOp(_WinogradOp):
    """``winograd.input_transform``: image (N, H, W, C) / (N, C, H, W) -> tiles (8, 8, N, tH, tW, C),
    each 8x8 input tile (stride 6, zero beyond the image) multiplied as ``B^T d B``."""

    name = "iree_linalg_ext.winograd.input_transform"


@irdl_op_definition
class WinogradFilterTransformOp(_WinogradOp):
    """``winograd.filter_transform``: filter (H, W, C, F) / (F, C, H, W) 3x3 -> (8, 8, C, F) as ``G g G^T``."""

    name = "iree_linalg_ext.winograd.filter_transform"


@irdl_op_definition
class WinogradOutputTransformOp(_WinogradOp):
    """``winograd.output_transform``: tiles (8, 8, N, tH, tW, F) -> image (N, H, W, F) / (N, F, H, W),
    each tile multiplied as ``A^T m A`` (6x6 outputs)."""

    name = "iree_linalg_ext.winograd.output_transform"


#: op classes of this module, registered by iree_linalg_ext.build_dialect
OPS = (YieldOp, SortOp, ScatterOp, GatherOp, ScanOp, TopkOp, TopkV2Op, ArgCompareOp, MapLoadOp, MapStoreOp,
       WinogradInputTransformOp, WinogradFilterTransformOp, WinogradOutputTransformOp)
#: attribute classes of this module
ATTRIBUTES = ()
