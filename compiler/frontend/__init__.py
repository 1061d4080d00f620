"""rt's compiler front door: MLIR text -> verified xDSL ``ModuleOp`` with located errors.

``parse_module(text, filename)`` parses with :class:`RtParser` (xDSL's parser plus rt's
guards), resolves ``dense_resource`` blobs into the module's own constants and verifies the
result. Every failure is a :class:`~rt.runtime.errors.CompileError` printed like mlir-opt::

    model.mlir:3:8: error: invalid 'arith.addf': ...
      %0 = arith.addf %a, %b : i32
           ^
"""
from rt.compiler.frontend.diagnostics import error_at_op, error_from_span, verify_module
from rt.compiler.frontend.elements import ElementsAttr, elements_to_numpy, is_splat, make_elements, splat_value


def parse_module(text, filename="<input>", context=None, verify=True):
    """Parse MLIR ``text`` (str or bytes) into a ``builtin.module``.

    ``filename`` names the source in diagnostics and op locations. ``context`` defaults to
    :func:`rt.compiler.dialects.make_context`. With ``verify`` the module is verified too.
    Raises CompileError (``file:line:col: error: message`` + source line + caret).
    """
    from xdsl.dialects.builtin import DenseResourceAttr
    from xdsl.utils.exceptions import ParseError

    from rt.compiler.dialects import make_context
    from rt.compiler.frontend.diagnostics import remember_source
    from rt.compiler.frontend.parser import RtParser
    from rt.runtime.errors import RtError

    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    remember_source(filename, text)
    context = context or make_context()
    try:
        parser = RtParser(context, text, filename)
        module = parser.parse_module()
        for op in module.walk():
            for table in (op.properties, op.attributes):
                for key, value in list(table.items()):
                    if isinstance(value, DenseResourceAttr):
                        table[key] = parser.resolve_dense_resource(value)
    except ParseError as exc:
        raise error_from_span(exc.span, exc.msg) from None
    except RtError as exc:
        if getattr(exc, "file", None) is not None:
            raise
        raise error_from_span(parser._current_token.span, str(exc)) from None
    except Exception as exc:
        raise error_from_span(parser._current_token.span, f"{type(exc).__name__}: {exc}") from None
    if verify:
        verify_module(module)
    return module


__all__ = [
    "parse_module",
    "verify_module",
    "error_at_op",
    "ElementsAttr",
    "elements_to_numpy",
    "is_splat",
    "make_elements",
    "splat_value",
]
