"""Parse/print helpers for IREE's keyword-introduced regions with their own block arguments.

``workgroups(%arg0: index, %arg1: index) -> (index, index, index) { ... }`` on
``flow.executable.export`` / ``stream.executable.export`` and ``count(...)`` on
``hal.executable.export``: the region computes the workgroup count from the workload.
"""
from xdsl.ir import Region
from xdsl.parser import Parser


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
