"""Region pieces of IREE's op syntax: symbols, bodies, workgroup-count regions, symbol containers.

``workgroups(%arg0: index, %arg1: index) -> (index, index, index) { ... }`` on
``flow.executable.export`` / ``stream.executable.export`` and ``count(...)`` on
``hal.executable.export``: the region computes the workgroup count from the workload.
``private @name attributes {..} { ... }``: the head and body of a symbol container
(``flow.executable``, ``stream.executable``, ``hal.executable``).

Each piece is an :class:`~rt.compiler.dialects._syntax.Directive` for op formats; the
workgroups region also has plain parse/print functions for hand-written ops.
Source followed: IREE ``Dialect/HAL/IR/HALOps.td`` (``hal.executable.export``) and
``Dialect/Flow/IR/FlowOps.td`` (``flow.executable.export``).
"""
from typing import ClassVar

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block, Region
from xdsl.irdl import opt_prop_def, prop_def, region_def, traits_def
from xdsl.parser import Parser
from xdsl.traits import IsolatedFromAbove, NoTerminator, SymbolOpInterface, SymbolTable

from rt.compiler.dialects._format import AttrDict, Directive, FormattedOp, OpFormat
from rt.compiler.dialects._syntax import parse_optional_visibility, print_visibility


def parse_workgroups_region(parser, keyword):
    """``keyword(%a: t, ...) -> (t, ...) { ... }`` -> Region (empty Region when absent)."""
    if parser.parse_optional_keyword(keyword) is None:
        return Region()
    args = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_argument)
    parser.parse_punctuation("->")
    parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_type)
    return parser.parse_region(args)


def print_workgroups_region(printer, keyword, region):
    if not region.blocks:
        return
    block = region.blocks[0]
    printer.print_string(f" {keyword}(")
    printer.print_list(block.args, printer.print_block_argument)
    printer.print_string(") -> (")
    terminator = block.last_op
    types = [v.type for v in terminator.operands] if terminator is not None else []
    printer.print_list(types, printer.print_attribute)
    printer.print_string(") ")
    printer.print_region(region, print_entry_block_args=False)


class Workgroups(Directive):
    """`` keyword(%a: index) -> (index, index, index) {...}`` when the region ``field`` has a block."""

    def __init__(self, field, keyword):
        self.field, self.keyword = field, keyword

    def parse(self, state):
        state.regions[self.field] = parse_workgroups_region(state.parser, self.keyword)

    def print(self, op, printer):
        print_workgroups_region(printer, self.keyword, getattr(op, self.field))


class Visibility(Directive):
    """`` public``/`` private``/`` nested`` when ``sym_visibility`` is set."""

    field = "sym_visibility"

    def parse(self, state):
        visibility = parse_optional_visibility(state.parser)
        if visibility is not None:
            state.set_prop(self.field, visibility)

    def print(self, op, printer):
        print_visibility(printer, op.sym_visibility)


class SymbolName(Directive):
    """``@name``: the op's ``sym_name``."""

    field = "sym_name"

    def parse(self, state):
        state.set_prop(self.field, state.parser.parse_symbol_name())

    def print(self, op, printer):
        printer.print_symbol_name(op.sym_name.data)


class Body(Directive):
    """``{ ... }``: a region (entry block arguments from an earlier directive, else none; printed
    without them unless ``print_entry_block_args``); with ``ensure_block`` an empty one gets a block."""

    def __init__(self, field="body", ensure_block=True, **print_options):
        self.field, self.ensure_block = field, ensure_block
        self.options = {"print_entry_block_args": False} | print_options

    def parse(self, state):
        region = state.parser.parse_region(state.block_args.get(self.field))
        if self.ensure_block and not region.blocks:
            region.add_block(Block())
        state.regions[self.field] = region

    def print(self, op, printer):
        printer.print_region(getattr(op, self.field), **self.options)


#: ``<visibility>? @name``: the head of every symbol op.
SYMBOL = (Visibility(), " ", SymbolName())


class WorkgroupsExportOp(FormattedOp):
    """``<op> <visibility>? @name workgroups(%a: index) -> (index, index, index) {...}`` (flow/stream exports)."""

    sym_name = prop_def(StringAttr)
    sym_visibility = opt_prop_def(StringAttr)
    workgroup_count = region_def()
    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())
    FORMAT: ClassVar = OpFormat(*SYMBOL, Workgroups("workgroup_count", "workgroups"), AttrDict(keyword=True))


class SymbolContainerOp(FormattedOp):
    """``<op> <visibility>? @name attributes {..}? { body }``: a single-block, terminator-free symbol table."""

    sym_name = prop_def(StringAttr)
    sym_visibility = opt_prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(SymbolOpInterface(), SymbolTable(), NoTerminator(), IsolatedFromAbove())
    FORMAT: ClassVar = OpFormat(*SYMBOL, AttrDict(keyword=True), " ", Body(print_empty_block=False))
