"""Every op class rt defines declares its syntax one way: a FormattedOp with an OpFormat ``FORMAT``.

xDSL's ``assembly_format`` and hand-written ``parse``/``print`` are not used; an op whose whole
syntax no directive declares goes through the one escape, ``OpFormat(Custom())`` (its class's
``parse_syntax``/``print_syntax``). Op classes that only inherit upstream xDSL syntax unchanged
(``tensor.extract_slice``, ``linalg.div``) define none of their own and are not checked.
"""
import importlib

import pytest
from xdsl.irdl import IRDLOperation

from rt.compiler.dialects import RT_DIALECTS
from rt.compiler.dialects._format import Custom, FormattedOp, Operand, OpFormat


def _rt_classes(op):
    """The classes in ``op``'s MRO that rt's dialect modules define (the op's own syntax lives there)."""
    return [c for c in op.__mro__ if c.__module__.startswith("rt.compiler.dialects")
            and c not in (FormattedOp,) and issubclass(c, IRDLOperation)]


def _op_classes():
    ops = {}
    for module in sorted(set(RT_DIALECTS.values())):
        for op in importlib.import_module(f"rt.compiler.dialects.{module}").build_dialect().operations:
            ops[op.name] = op
    return sorted(ops.items())


def syntax_problems(op):
    """What is wrong with how op class ``op`` declares its syntax (empty when it is one FORMAT)."""
    own = _rt_classes(op)
    if not own:
        return []
    problems = [f"{c.__name__} sets assembly_format" for c in own
                if c.__dict__.get("assembly_format") is not None]
    problems += [f"{c.__name__} defines {m}" for c in own for m in ("parse", "print") if m in c.__dict__]
    defines_syntax = problems or any(n in c.__dict__ for c in own for n in ("FORMAT", "parse_syntax"))
    if not defines_syntax:
        return []
    if not (issubclass(op, FormattedOp) and isinstance(getattr(op, "FORMAT", None), OpFormat)):
        problems.append("is not a FormattedOp with an OpFormat FORMAT")
    elif op.parse.__func__ is not FormattedOp.parse.__func__ or op.print is not FormattedOp.print:
        problems.append("overrides FormattedOp's parse/print")
    elif any(isinstance(i, Custom) for i in op.FORMAT.items) and not hasattr(op, "parse_syntax"):
        problems.append("uses Custom() without parse_syntax/print_syntax")
    return problems


@pytest.mark.parametrize("name,op", _op_classes(), ids=lambda v: v if isinstance(v, str) else "")
def test_op_declares_its_syntax_with_one_format(name, op):
    assert syntax_problems(op) == []


def test_checker_flags_each_other_way_of_declaring_syntax():
    class AssemblyFormat(IRDLOperation):
        name = "t.a"
        assembly_format = "attr-dict"

    class HandWritten(IRDLOperation):
        name = "t.b"

        @classmethod
        def parse(cls, parser):
            return cls()

    class Declared(FormattedOp):
        name = "t.c"
        FORMAT = OpFormat()

    for cls in (AssemblyFormat, HandWritten, Declared):
        cls.__module__ = "rt.compiler.dialects.fake"
    assert syntax_problems(AssemblyFormat) == ["AssemblyFormat sets assembly_format",
                                               "is not a FormattedOp with an OpFormat FORMAT"]
    assert syntax_problems(HandWritten) == ["HandWritten defines parse",
                                            "is not a FormattedOp with an OpFormat FORMAT"]
    assert syntax_problems(Declared) == []


def test_custom_must_be_the_whole_format():
    with pytest.raises(TypeError, match="only item"):
        OpFormat(" ", Operand("x"), Custom())


def test_escaped_and_declared_ops_round_trip():
    from rt.compiler.frontend import parse_module

    src = ("util.func public @f(%t: tensor<?xi32>, %a: index) -> i32 {\n"
           "  %0 = flow.tensor.load %t[%a] : tensor<?xi32>{%a}\n"
           "  util.return %0 : i32\n}")
    text = str(parse_module(src))
    assert "  util.func public @f(%t: tensor<?xi32>, %a: index) -> i32 {\n" in text
    assert "    %0 = flow.tensor.load %t[%a] : tensor<?xi32>{%a}\n" in text
    assert str(parse_module(text)) == text
