"""compiler/op_handlers.py: handlers found by op class (and base class), never by op name."""
import pytest
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType, TensorType, f32

from rt.compiler.dialects import make_context
from rt.compiler.op_handlers import OpHandlers, handles


class _Visitor:
    handler = OpHandlers()

    def __init__(self):
        self.seen = []

    @handles(arith.ConstantOp)
    def _constant(self, op):
        self.seen.append(("constant", op.name))

    @handles(tensor.EmptyOp, tensor.SplatOp)
    def _shape_only(self, op):
        self.seen.append(("shape", op.name))


def test_an_op_of_rts_subclass_finds_the_handler_of_xdsls_class():
    rt_constant = make_context().get_optional_op("arith.constant")
    assert rt_constant is not arith.ConstantOp and issubclass(rt_constant, arith.ConstantOp)
    v = _Visitor()
    op = rt_constant.from_int_and_width(3, IndexType())
    v.handler(op)(op)
    assert v.seen == [("constant", "arith.constant")]


def test_one_handler_serves_several_classes_and_unknown_ops_get_none():
    v = _Visitor()
    empty = tensor.EmptyOp([], TensorType(f32, [2]))
    v.handler(empty)(empty)
    assert v.seen == [("shape", "tensor.empty")]
    assert v.handler(arith.AddfOp(empty.results[0], empty.results[0])) is None


def test_handles_refuses_anything_but_classes():
    with pytest.raises(TypeError, match="op classes"):
        handles("arith.constant")


def test_op_table_finds_entries_by_class_and_base_class():
    from rt.compiler.op_handlers import OpTable

    rt_constant = make_context().get_optional_op("arith.constant")
    table = OpTable({arith.ConstantOp: "constant", tensor.EmptyOp: "empty"})
    op = rt_constant.from_int_and_width(3, IndexType())
    assert table[op] == "constant" and table.get(rt_constant) == "constant" and op in table
    empty = tensor.EmptyOp([], TensorType(f32, [2]))
    assert table.get(empty) == "empty"
    add = arith.AddfOp(empty.results[0], empty.results[0])
    assert add not in table and table.get(add, "none") == "none"
    with pytest.raises(KeyError, match="AddfOp"):
        table[add]
    assert set(table) == {arith.ConstantOp, tensor.EmptyOp} and len(table) == 2


def test_op_table_refuses_string_keys():
    from rt.compiler.op_handlers import OpTable

    with pytest.raises(TypeError, match="op classes"):
        OpTable({"arith.addf": "fadd"})


def test_the_compiler_routes_no_op_by_its_name_string():
    """CONVENTIONS.md: an op reaches its code by its class, never by ``op.name == "..."``, a set of
    names or a method name built from the op name. The two exceptions name things that are not op
    classes: a target backend's name, and the ops MLIR has that rt rejects on purpose."""
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[2] / "compiler"
    pattern = re.compile(r"""\.name\s*(==|!=)\s*["']|\.name\s+(not\s+)?in\s+[(\[{A-Z_]|\.name\.replace\(\s*["']\.""")
    allowed = {("/translate_executables.py", 'backend.name == "llvm-cpu"'),
               ("/legality.py", "UNSUPPORTED")}
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line) and not line.lstrip().startswith(("#", "``")) and not any(
                    rel.endswith(f) and text in line for f, text in allowed):
                found.append(f"{rel}:{number}: {line.strip()}")
    assert not found, "op routing by name string:\n" + "\n".join(found)
