"""``RtLexer``: xDSL's MLIR lexer with a string-literal pattern that cannot backtrack.

xDSL 0.74.0 matches a string literal with ``"(?:[^"\\\\\\n\\v\\f]+|\\\\(?:["nt\\\\]|[0-9A-Fa-f]{2}))*"``:
a ``+`` inside a ``*``. When the closing quote is missing (end of line, end of file, or an
invalid escape such as ``\\q``), the regex engine tries every way of splitting the characters
between the repetitions before it fails: 2^n steps for n characters, so ``"`` followed by ~30
characters hangs ``rt compile`` forever. Here both quantifiers are possessive (Python 3.11+):
the same strings match, and a string that does not match fails in one pass.

A literal that does not match is a located parse error saying why, at the character where it
stops: the end of the line or file before the closing quote, or an invalid escape.

Source followed: MLIR ``mlir/lib/AsmParser/Lexer.cpp`` (``lexString``: a string ends at ``"``
on the same line; escapes ``\\"``, ``\\\\``, ``\\n``, ``\\t`` and two hex digits).
"""
import re

from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRLexer

_BODY = r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+'
_ESCAPES = r"\n, \t, \\, \" or two hex digits"


class RtLexer(MLIRLexer):
    """An ``MLIRLexer`` whose string literals lex in linear time (see the module docstring)."""

    _unescaped_characters_regex = re.compile(_BODY + '"')
    _string_prefix_regex = re.compile(_BODY)

    def _lex_string_literal(self, start_pos):
        try:
            return super()._lex_string_literal(start_pos)
        except ParseError:
            content = self.input.content
            stop = self._string_prefix_regex.match(content, start_pos).end()
            if stop >= len(content):
                why = "the file ends before its closing '\"'"
            elif content[stop] == "\\":
                hex_digit = content[stop + 1:stop + 2] in "0123456789abcdefABCDEF"
                escape = content[stop:stop + (3 if hex_digit else 2)].rstrip("\n")
                why = f"invalid escape '{escape}' (valid: {_ESCAPES})"
            else:
                why = "the line ends before its closing '\"' (a string literal stays on one line)"
            raise ParseError(Span(stop, min(stop + 1, len(content)), self.input),
                             f"unterminated string literal starting at column "
                             f"{start_pos - content.rfind(chr(10), 0, start_pos)}: {why}") from None
