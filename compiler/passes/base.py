"""The ``Pass`` base class: a named module transformation with frozen-dataclass options.

A pass is a frozen dataclass whose fields are its options (``--pass=name{key=value}`` on the
``opt`` command line; a field whose metadata has a ``"parse"`` function turns the text into its
value with it, e.g. device specs) and whose class docstring shows its input and output IR. ``run(module,
ctx)`` rewrites ``module`` in place and raises CompileError (located at the offending op via
:func:`rt.compiler.frontend.error_at_op`) when the input is not acceptable.

Source followed: MLIR ``mlir::Pass`` / xDSL ``ModulePass`` (one pass per file, named options).
"""
import dataclasses
from typing import ClassVar

from rt.runtime.errors import InvalidArgumentError


@dataclasses.dataclass(frozen=True)
class Pass:
    """Base of every rt pass; subclasses are ``@dataclass(frozen=True)`` with option fields."""

    name: ClassVar[str] = ""

    def run(self, module, ctx):
        """Transform ``module`` (a builtin.module) in place; ``ctx`` is the xDSL Context."""
        raise NotImplementedError(f"pass {self.name} does not implement run()")

    @classmethod
    def from_options(cls, options):
        """Build the pass from ``{"key": "text"}`` option strings; InvalidArgumentError on bad keys/values."""
        fields = {f.name: f for f in dataclasses.fields(cls)}
        values = {}
        for key, text in options.items():
            field = fields.get(key.replace("-", "_"))
            if field is None:
                known = ", ".join(sorted(fields)) or "none"
                raise InvalidArgumentError(f"pass {cls.name}: unknown option '{key}' (options: {known})")
            parse = field.metadata.get("parse")
            if parse is None:
                values[field.name] = _convert(cls.name, key, text, field.type)
                continue
            try:
                values[field.name] = parse(text)
            except InvalidArgumentError as exc:
                raise InvalidArgumentError(f"pass {cls.name}: option '{key}': {exc}") from None
        return cls(**values)


def _convert(pass_name, key, text, type_):
    kind = type_ if isinstance(type_, type) else {"int": int, "bool": bool, "float": float, "str": str}.get(str(type_), str)
    try:
        if kind is bool:
            if text.lower() not in ("true", "false", "1", "0"):
                raise ValueError(text)
            return text.lower() in ("true", "1")
        return kind(text)
    except ValueError:
        raise InvalidArgumentError(
            f"pass {pass_name}: option '{key}' expects {kind.__name__}, got '{text}'"
        ) from None
