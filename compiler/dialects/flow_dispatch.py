"""Dispatch ops of the ``flow`` dialect: regions, workgroups, dispatches and dispatch tensor I/O.

Printed forms (IREE's):
``flow.dispatch.region[%w] -> (tensor<?xf32>{%d}) { ... flow.return %v : tensor<?xf32> } count(...) {...}``,
``flow.dispatch.workgroups[%w](%a, %d) : (tensor<?xf32>{%d}, index) -> tensor<?xf32>{%d} =
(%arg0: !flow.dispatch.tensor<readonly:tensor<?xf32>>, ...) { ... flow.return } count(...) {...}``,
``flow.dispatch @ex::@ep[%w0](%a, %b) : (tensor<10xf32>, tensor<10xf32>) -> %b``,
``flow.dispatch.tensor.load %arg, offsets = [0], sizes = [%d], strides = [1] :
!flow.dispatch.tensor<readonly:tensor<?xf32>>{%d} -> tensor<?xf32>`` and
``flow.dispatch.tensor.store %v, %arg, offsets = [..], sizes = [..], strides = [..] : tensor<..> ->
!flow.dispatch.tensor<writeonly:tensor<..>>{dims}``.

Tied results (``-> %b``, ``-> %t as type{dims}``) are recorded as IREE does, in a
``tied_operands`` array holding, per result, the index of the operand it reuses or -1.

Source followed: IREE ``compiler/src/iree/compiler/Dialect/Flow/IR/FlowOps.td`` and the
``custom<ShapedFunctionType>`` directive of ``Dialect/Util/IR/ClosureOpUtils``.
"""
from typing import ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, DenseArrayBase, IndexType, IntegerAttr, SymbolRefAttr, TensorType, i64
from xdsl.dialects.utils import parse_dynamic_index_list_without_types, print_dynamic_index_list
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.traits import IsolatedFromAbove, IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects._format import (
    RETURN_VALUES,
    AttrDict,
    Custom,
    Directive,
    FormattedOp,
    Operand,
    OpFormat,
    Sized,
    Type,
)
from rt.compiler.dialects._regions import parse_workgroups_region, print_workgroups_region
from rt.compiler.dialects.flow_types import DispatchTensorType, check_dims, operand_key, split_dims

INDEX = IndexType()


@irdl_op_definition
class ReturnOp(FormattedOp):
    """``flow.return %x, %y, %z : index, index, index``: the terminator of dispatch and workgroup-count regions."""

    name = "flow.return"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), Pure())
    FORMAT: ClassVar = OpFormat(AttrDict(), RETURN_VALUES)


def _tied_array(tied):
    return ArrayAttr([IntegerAttr(t, i64) for t in tied])


def _tied_list(op):
    if op.tied_operands is None:
        return [-1] * len(op.results)
    return [a.value.data for a in op.tied_operands.data]


def _parse_shaped_operand_types(parser, count):
    """``(type{dims}, ...)`` -> (types, unresolved dims), checking there are ``count`` types."""
    pos = parser.pos
    entries = parser.parse_comma_separated_list(
        Parser.Delimiter.PAREN, lambda: (parser.parse_type(), syn.parse_optional_dims(parser)))
    if len(entries) != count:
        parser.raise_error(f"expected {count} operand types, got {len(entries)}", pos)
    return [t for t, _ in entries], [d for _, ds in entries for d in ds]


def _parse_shaped_results(parser, operands, operand_types, operand_dims):
    """IREE's ``custom<ShapedFunctionType>`` results: ``type{dims}``, ``%x`` or ``%x as type{dims}``.

    Returns (result types, resolved result dims, tied operand indices).
    """
    grouped = split_dims(operand_types, operand_dims)

    def one():
        pos = parser.pos
        tied = parser.parse_optional_unresolved_operand()
        if tied is None:
            type_, dims = syn.parse_sized_type(parser)
            return type_, dims, -1
        names = [operand_key(o) for o in operands]
        if operand_key(tied) not in names:
            parser.raise_error(f"tied result {tied.span.text} is not an operand of this op", pos)
        index = names.index(operand_key(tied))
        if parser.parse_optional_keyword("as") is not None:
            type_, dims = syn.parse_sized_type(parser)
            return type_, dims, index
        return operand_types[index], [parser.resolve_operand(d, INDEX) for d in grouped[index]], index

    items = syn.parse_result_list(parser, one)
    return [t for t, _, _ in items], [d for _, ds, _ in items for d in ds], [i for _, _, i in items]


def _print_shaped_function_type(printer, operands, operand_dims, results, result_dims, tied):
    """Print ``(type{dims}, ...) -> result`` / ``-> (results)`` with tied results as ``%x``."""
    in_types = [o.type for o in operands]
    in_groups = split_dims(in_types, operand_dims)
    printer.print_string("(")
    printer.print_list(list(zip(in_types, in_groups)), lambda entry: syn.print_sized_type(printer, *entry))
    printer.print_string(") -> ")
    out_groups = split_dims([r.type for r in results], result_dims)

    def result(i, value):
        if tied[i] >= 0:
            printer.print_ssa_value(operands[tied[i]])
            if value.type == in_types[tied[i]] and out_groups[i] == in_groups[tied[i]]:
                return
            printer.print_string(" as ")
        syn.print_sized_type(printer, value.type, out_groups[i])

    syn.print_result_list(printer, results, result)


def _verify_tied(op, operands, operand_dims, results):
    tied = _tied_list(op)
    if len(tied) != len(results):
        raise VerifyException(f"{op.name}: tied_operands has {len(tied)} entries for {len(results)} results")
    for r, t in enumerate(tied):
        if not -1 <= t < len(operands):
            raise VerifyException(f"{op.name}: result {r} is tied to operand {t}, but there are {len(operands)} operands")
    check_dims(op.name, "operand types", [o.type for o in operands], operand_dims)
    check_dims(op.name, "result types", [r.type for r in results], op.result_dims)


def _parse_call_operands(parser):
    """``(%a, %b) attr-dict : (types{dims}) -> results`` -> pieces for a dispatch-like op."""
    unresolved = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_unresolved_operand)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    types, dims = _parse_shaped_operand_types(parser, len(unresolved))
    parser.parse_punctuation("->")
    res_types, res_dims, tied = _parse_shaped_results(parser, unresolved, types, dims)
    operands = [parser.resolve_operand(u, t) for u, t in zip(unresolved, types)]
    dims = [parser.resolve_operand(d, INDEX) for d in dims]
    props = {"tied_operands": _tied_array(tied)} if any(t >= 0 for t in tied) else {}
    return operands, dims, res_types, res_dims, props, attrs


@irdl_op_definition
class DispatchOp(FormattedOp):
    """``flow.dispatch @ex::@ep[%w0, %w1](%a, %b, %d0) : (tensor<?xf32>{%d0}, tensor<4xf32>, index) -> tensor<?xf32>{%d0}``.

    Runs the executable export ``entry_point`` over ``workload``; results may be tied to operands.
    """

    name = "flow.dispatch"
    entry_point = prop_def(SymbolRefAttr)
    workload = var_operand_def(INDEX)
    arguments = var_operand_def()
    argument_dims = var_operand_def(INDEX)
    result_dims = var_operand_def(INDEX)
    tied_operands = opt_prop_def(ArrayAttr)
    results_ = var_result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    FORMAT: ClassVar = OpFormat(Custom())

    @classmethod
    def parse_syntax(cls, parser):
        entry = syn.parse_entry_point(parser)
        workload = syn.parse_optional_workload(parser)
        operands, dims, res_types, res_dims, props, attrs = _parse_call_operands(parser)
        return cls.build(operands=[workload, operands, dims, res_dims], result_types=[res_types],
                         properties={"entry_point": entry, **props}, attributes=attrs)

    def print_syntax(self, printer):
        printer.print_string(" ")
        printer.print_attribute(self.entry_point)
        syn.print_workload(printer, self.workload)
        syn.print_operand_list(printer, self.arguments, "(", ")")
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        _print_shaped_function_type(printer, list(self.arguments), list(self.argument_dims), list(self.results),
                                    list(self.result_dims), _tied_list(self))

    def verify_(self):
        _verify_tied(self, self.arguments, self.argument_dims, self.results)

    def tied_operand_indices(self):
        """Per result, the index in ``arguments`` it is tied to, or -1."""
        return _tied_list(self)


@irdl_op_definition
class DispatchRegionOp(FormattedOp):
    """``flow.dispatch.region[%w] -> (tensor<?xf32>{%d}) { ... flow.return %v : tensor<?xf32> }``.

    A not-yet-isolated group of ops that will become one dispatch; the body captures values from
    above. An optional ``count(%w: index) -> (index, index, index) {...}`` region maps the workload
    to a workgroup count.
    """

    name = "flow.dispatch.region"
    result_dims = var_operand_def(INDEX)
    workload = var_operand_def(INDEX)
    results_ = var_result_def()
    body = region_def("single_block")
    workgroup_count = region_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    FORMAT: ClassVar = OpFormat(Custom())

    @classmethod
    def parse_syntax(cls, parser):
        workload = syn.parse_optional_workload(parser)
        parser.parse_punctuation("->")
        entries = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, lambda: syn.parse_sized_type(parser))
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        count = parse_workgroups_region(parser, "count")
        return cls.build(operands=[[d for _, ds in entries for d in ds], workload],
                         result_types=[[t for t, _ in entries]], regions=[body, count],
                         attributes=attrs.data if attrs else {})

    def print_syntax(self, printer):
        syn.print_workload(printer, self.workload)
        printer.print_string(" -> (")
        groups = split_dims([r.type for r in self.results], list(self.result_dims))
        for i, (r, ds) in enumerate(zip(self.results, groups)):
            if i:
                printer.print_string(", ")
            syn.print_sized_type(printer, r.type, ds)
        printer.print_string(")")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body)
        print_workgroups_region(printer, "count", self.workgroup_count)

    def verify_(self):
        check_dims(self.name, "result types", [r.type for r in self.results], self.result_dims)
        term = self.body.block.last_op
        if not isinstance(term, ReturnOp):
            raise VerifyException(f"{self.name}: the body must end with flow.return")
        got = [v.type for v in term.values]
        if got != [r.type for r in self.results]:
            raise VerifyException(f"{self.name}: flow.return types ({', '.join(map(str, got))}) differ from the "
                                  f"region's result types ({', '.join(str(r.type) for r in self.results)})")


@irdl_op_definition
class DispatchWorkgroupsOp(FormattedOp):
    """``flow.dispatch.workgroups[%w](%a, %d) : (tensor<?xf32>{%d}, index) -> tensor<?xf32>{%d} = (%arg0: ..., ...) {...}``.

    An isolated dispatch body: each tensor operand becomes a ``!flow.dispatch.tensor`` block
    argument (readonly, or readwrite when a result is tied to it), other operands pass as they are,
    and every untied result adds a writeonly ``!flow.dispatch.tensor`` argument at the end. The
    body ends with a bare ``flow.return``.
    """

    name = "flow.dispatch.workgroups"
    workload = var_operand_def(INDEX)
    arguments = var_operand_def()
    argument_dims = var_operand_def(INDEX)
    result_dims = var_operand_def(INDEX)
    tied_operands = opt_prop_def(ArrayAttr)
    results_ = var_result_def()
    workgroup_body = region_def("single_block")
    workgroup_count = region_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(IsolatedFromAbove())

    FORMAT: ClassVar = OpFormat(Custom())

    @classmethod
    def parse_syntax(cls, parser):
        workload = syn.parse_optional_workload(parser)
        operands, dims, res_types, res_dims, props, attrs = _parse_call_operands(parser)
        parser.parse_punctuation("=")
        args = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_argument)
        body = parser.parse_region(args)
        count = parse_workgroups_region(parser, "count")
        extra = parser.parse_optional_attr_dict_with_keyword()
        return cls.build(operands=[workload, operands, dims, res_dims], result_types=[res_types],
                         regions=[body, count], properties=props,
                         attributes=(attrs or {}) | (extra.data if extra else {}))

    def print_syntax(self, printer):
        syn.print_workload(printer, self.workload)
        syn.print_operand_list(printer, self.arguments, "(", ")")
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        _print_shaped_function_type(printer, list(self.arguments), list(self.argument_dims), list(self.results),
                                    list(self.result_dims), _tied_list(self))
        printer.print_string(" =\n")
        printer.print_string("    (")
        printer.print_list(self.workgroup_body.block.args, printer.print_block_argument)
        printer.print_string(") ")
        printer.print_region(self.workgroup_body, print_entry_block_args=False)
        print_workgroups_region(printer, "count", self.workgroup_count)

    def verify_(self):
        _verify_tied(self, self.arguments, self.argument_dims, self.results)
        tied = _tied_list(self)
        want = len(self.arguments) + sum(1 for t in tied if t < 0)
        got = len(self.workgroup_body.block.args)
        if got != want:
            raise VerifyException(f"{self.name}: body takes {got} arguments; expected {want} (one per operand plus "
                                  "one per untied result)")

    def tied_operand_indices(self):
        """Per result, the index in ``arguments`` it is tied to, or -1."""
        return _tied_list(self)


class SliceLists(Directive):
    """``, offsets = [..], sizes = [..], strides = [..]``: mixed static/dynamic index lists.

    Dynamic entries are the ``offsets``/``sizes``/``strides`` operands, the full lists the
    ``static_*`` DenseArray properties (``DYNAMIC_INDEX`` where an operand stands).
    """

    field = "offsets"
    KEYS = ("offsets", "sizes", "strides")

    def parse(self, state):
        for key in self.KEYS:
            state.parser.parse_punctuation(",")
            state.parser.parse_keyword(key)
            state.parser.parse_punctuation("=")
            dynamic, static = parse_dynamic_index_list_without_types(state.parser, DYNAMIC_INDEX)
            state.names[key] = list(dynamic)
            state.set_prop(f"static_{key}", DenseArrayBase.from_list(i64, list(static)))

    def print(self, op, printer):
        for key in self.KEYS:
            printer.print_string(f", {key} = ")
            print_dynamic_index_list(printer, DYNAMIC_INDEX, getattr(op, key), getattr(op, f"static_{key}").get_values())


def _verify_slice(op, dispatch_type, dims, forbidden_access):
    if not isinstance(dispatch_type, DispatchTensorType):
        raise VerifyException(f"{op.name}: expected a !flow.dispatch.tensor, got {dispatch_type}")
    if dispatch_type.access.data == forbidden_access:
        raise VerifyException(f"{op.name}: cannot use a {forbidden_access} dispatch tensor ({dispatch_type})")
    check_dims(op.name, "dispatch tensor type", dispatch_type.bound_type, dims)
    rank = len(dispatch_type.get_shape())
    for key, dyn, static in (("offsets", op.offsets, op.static_offsets), ("sizes", op.sizes, op.static_sizes),
                             ("strides", op.strides, op.static_strides)):
        values = static.get_values()
        if len(values) != rank:
            raise VerifyException(f"{op.name}: {dispatch_type} has rank {rank} but {len(values)} {key} were given")
        if sum(1 for v in values if v == DYNAMIC_INDEX) != len(dyn):
            raise VerifyException(f"{op.name}: {key} list and its dynamic values disagree")


def full_slice(shape, dims):
    """(offsets, sizes, strides) mixed lists (ints or SSA values) covering a whole tensor of ``shape``."""
    dims = list(dims)
    sizes = [dims.pop(0) if d == DYNAMIC_INDEX else d for d in shape]
    return [0] * len(shape), sizes, [1] * len(shape)


def _mixed(values):
    static = [v if isinstance(v, int) else DYNAMIC_INDEX for v in values]
    return [v for v in values if not isinstance(v, int)], DenseArrayBase.from_list(i64, static)


@irdl_op_definition
class DispatchTensorLoadOp(FormattedOp):
    """``flow.dispatch.tensor.load %arg, offsets = [..], sizes = [..], strides = [..] : !flow.dispatch.tensor<readonly:T>{dims} -> T'``.

    Reads a (possibly strided) slice of a dispatch argument into a tensor value.
    """

    name = "flow.dispatch.tensor.load"
    source = operand_def(DispatchTensorType)
    source_dims = var_operand_def(INDEX)
    offsets = var_operand_def(INDEX)
    sizes = var_operand_def(INDEX)
    strides = var_operand_def(INDEX)
    static_offsets = prop_def(DenseArrayBase)
    static_sizes = prop_def(DenseArrayBase)
    static_strides = prop_def(DenseArrayBase)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FORMAT: ClassVar = OpFormat(" ", Operand("source"), SliceLists(), AttrDict(), " : ", Sized("source", "source_dims"),
                                " -> ", Type("result"))

    def verify_(self):
        _verify_slice(self, self.source.type, self.source_dims, "writeonly")

    @classmethod
    def whole(cls, source, dims, result_type=None):
        """Load all of ``source`` (a !flow.dispatch.tensor SSA value with its dynamic ``dims``)."""
        offsets, sizes, strides = full_slice(source.type.get_shape(), dims)
        parts = [_mixed(v) for v in (offsets, sizes, strides)]
        return cls.build(operands=[source, list(dims), *[p[0] for p in parts]],
                         result_types=[result_type or source.type.bound_type],
                         properties=dict(zip(("static_offsets", "static_sizes", "static_strides"), [p[1] for p in parts])))


@irdl_op_definition
class DispatchTensorStoreOp(FormattedOp):
    """``flow.dispatch.tensor.store %v, %arg, offsets = [..], sizes = [..], strides = [..] : T -> !flow.dispatch.tensor<writeonly:T>{dims}``."""

    name = "flow.dispatch.tensor.store"
    value = operand_def(TensorType)
    target = operand_def(DispatchTensorType)
    target_dims = var_operand_def(INDEX)
    offsets = var_operand_def(INDEX)
    sizes = var_operand_def(INDEX)
    strides = var_operand_def(INDEX)
    static_offsets = prop_def(DenseArrayBase)
    static_sizes = prop_def(DenseArrayBase)
    static_strides = prop_def(DenseArrayBase)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FORMAT: ClassVar = OpFormat(" ", Operand("value"), ", ", Operand("target"), SliceLists(), AttrDict(), " : ",
                                Type("value"), " -> ", Sized("target", "target_dims"))

    def verify_(self):
        _verify_slice(self, self.target.type, self.target_dims, "readonly")

    @classmethod
    def whole(cls, value, target, dims):
        """Store ``value`` over all of ``target`` (a !flow.dispatch.tensor with its dynamic ``dims``)."""
        offsets, sizes, strides = full_slice(target.type.get_shape(), dims)
        parts = [_mixed(v) for v in (offsets, sizes, strides)]
        return cls.build(operands=[value, target, list(dims), *[p[0] for p in parts]],
                         properties=dict(zip(("static_offsets", "static_sizes", "static_strides"), [p[1] for p in parts])))
