"""rt's CSE (compiler/passes/common/cse.py) on what the lit test cannot spell: attributes with no
value hash are compared by equality alone, never an internal TypeError."""
from xdsl.dialects import func, test
from xdsl.dialects.builtin import ModuleOp, i32
from xdsl.ir import Block, Data, Region
from xdsl.irdl import irdl_attr_definition

from rt.compiler.dialects import make_context
from rt.compiler.passes.common.cse import CSEPass


@irdl_attr_definition
class _ListData(Data[list]):
    """An attribute holding a list: equal by value, unhashable."""

    name = "rt_test.list"

    @classmethod
    def parse_parameter(cls, parser):
        raise NotImplementedError

    def print_parameter(self, printer):
        printer.print_string(repr(self.data))


def test_ops_with_unhashable_attributes_merge_by_equality():
    ops = [test.TestPureOp(result_types=[i32], attributes={"v": _ListData(data)}) for data in ([1], [1], [2])]
    block = Block([*ops, func.ReturnOp(*[op.results[0] for op in ops])])
    module = ModuleOp([func.FuncOp("f", ((), (i32, i32, i32)), Region(block))])
    CSEPass().run(module, make_context())
    kept = [op for op in module.walk() if isinstance(op, test.TestPureOp)]
    assert [op.attributes["v"].data for op in kept] == [[1], [2]]
    ret = next(op for op in module.walk() if isinstance(op, func.ReturnOp))
    assert [v.owner for v in ret.operands] == [kept[0], kept[0], kept[1]]
