"""Located compiler diagnostics: ``file:line:col: error: message`` + source line + caret.

Errors come from two places: the parser (an xDSL ``Span``) and passes/verifiers (an op whose
``location`` the parser set to ``loc("file":line:col)``). Both become
:class:`~rt.runtime.errors.CompileError`. The source text of recently parsed files is kept in a
small bounded cache so the offending line can be shown even for in-memory input.
"""
from collections import OrderedDict

from xdsl.dialects.builtin import FileLineColLoc

from rt.runtime.errors import CompileError

_SOURCES = OrderedDict()
_MAX_SOURCES = 16


def remember_source(filename, text):
    """Keep ``text`` as the source of ``filename`` for caret diagnostics (LRU of 16 files)."""
    _SOURCES[filename] = text.splitlines()
    _SOURCES.move_to_end(filename)
    while len(_SOURCES) > _MAX_SOURCES:
        _SOURCES.popitem(last=False)


def _source_line(filename, line):
    lines = _SOURCES.get(filename)
    if lines is None:
        try:
            with open(filename, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            return None
    return lines[line - 1] if 0 < line <= len(lines) else None


def error_from_span(span, message):
    """CompileError at an xDSL parser ``Span``."""
    loc = span.get_location()
    return CompileError(message, loc.file, loc.line, loc.col, _source_line(loc.file, loc.line))


def op_location(op):
    """(file, line, col) of ``op``, or None when it has no file location."""
    loc = op.location
    while loc is not None and not isinstance(loc, FileLineColLoc):
        nested = getattr(loc, "callee", None) or getattr(loc, "child_loc", None)
        if nested is None:
            return None
        loc = nested
    if loc is None:
        return None
    return loc.filename.data, loc.line.data, loc.column.data


def error_at_op(op, message):
    """CompileError located at ``op`` (falls back to its nearest located ancestor)."""
    current = op
    while current is not None:
        where = op_location(current)
        if where is not None:
            file, line, col = where
            return CompileError(message, file, line, col, _source_line(file, line))
        current = current.parent_op()
    return CompileError(message)


def verify_module(module):
    """Verify every op of ``module``; the first failure is a CompileError at that op.

    The message follows mlir-opt: ``'<op name>' op <reason>``. Runs the pass manager's
    verifier (rt.compiler.passes.verifier), which checks each distinct op signature's IRDL
    constraints once, so a module of many repeated layers verifies in time of its distinct ops.
    """
    from rt.compiler.passes.verifier import Verifier

    Verifier().verify_module(module)
