"""``#iree_codegen.*`` attributes: IREE's codegen tuning hints, read and set aside.

IREE lets a program pin an op's tiling with ``compilation_info = #iree_codegen.compilation_info<
lowering_config = ..., translation_info = ...>`` (and ``#iree_codegen.lowering_config`` /
``translation_info`` alone). rt reads these attributes, keeps their text, and ignores them: its
code generators choose tiles per target (``targets/``), so a hint written for IREE's pipelines
changes nothing in rt's output and never fails a compile. The nested ``#iree_cpu.*`` /
``#iree_gpu.*`` attributes inside are kept as text, not parsed.

Source followed: IREE ``compiler/src/iree/compiler/Codegen/Dialect/Codegen/IR/IREECodegenAttrs.td``.
"""
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Dialect, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition


class _Hint(ParametrizedAttribute):
    """An attribute whose ``<...>`` body is kept as text (balanced brackets, strings skipped)."""

    body: StringAttr

    @classmethod
    def parse_parameters(cls, parser):
        token = parser._current_token  # xDSL 0.74.0 parser state: skip the body as MLIR's opaque attrs do
        if token.text != "<":
            parser.raise_error(f"#{cls.name}: expected '<'")
        start = token.span.end
        end = parser._raw_scan_balanced(start)
        body = parser.lexer.input.content[start:end]
        parser.lexer.pos = end
        parser._parser_state.current_token = parser.lexer.lex()
        parser.parse_punctuation(">")
        return (StringAttr(body),)

    def print_parameters(self, printer):
        printer.print_string(f"<{self.body.data}>")


@irdl_attr_definition
class CompilationInfoAttr(_Hint):
    name = "iree_codegen.compilation_info"


@irdl_attr_definition
class LoweringConfigAttr(_Hint):
    name = "iree_codegen.lowering_config"


@irdl_attr_definition
class TranslationInfoAttr(_Hint):
    name = "iree_codegen.translation_info"


def build_dialect():
    """The ``iree_codegen`` attributes rt reads (no ops)."""
    return Dialect("iree_codegen", [], [CompilationInfoAttr, LoweringConfigAttr, TranslationInfoAttr])
