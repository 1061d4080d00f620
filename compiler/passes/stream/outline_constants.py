"""``iree-stream-outline-constants``: dense tensor constants in host code become immutable globals.

Input: the flow form. Output: every ``arith.constant`` holding a non-splat dense tensor (an
xDSL dense literal or rt's ``ElementsAttr`` handle, which moves without copying) that
sits directly in the body of a host function or initializer becomes a private immutable
``util.global @_constant`` (names uniqued as ``_constant_0``, ``_constant_1``, ...; marked
``noinline``) placed after the module's other globals, and the constant is replaced by a
``util.global.load``. Splats stay inline (they become cheap fills), and so do constants inside
executables and nested regions. convert-to-stream then turns each such global into a constant
resource uploaded once by an initializer.

Example (the seeds' ``@test``)::

    %cst = arith.constant dense<[0.0, 0.01, ...]> : tensor<10xf32>
    %3 = flow.dispatch @ex::@fn[%c10](%1, %cst) : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xf32>
    // ->
    util.global private @_constant {noinline} = dense<[0.0, 0.01, ...]> : tensor<10xf32>
    ...
    %_constant = util.global.load @_constant : tensor<10xf32>
    %3 = flow.dispatch @ex::@fn[%c10](%1, %_constant) : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xf32>

Errors: none. Source followed: IREE ``Stream/Transforms/OutlineConstants.cpp``.
"""
import dataclasses

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, StringAttr, SymbolRefAttr, TensorType, UnitAttr
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import util
from rt.compiler.frontend import ElementsAttr, is_splat
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream.resources import host_callables

BASE_NAME = "_constant"


@dataclasses.dataclass(frozen=True)
class OutlineConstantsPass(Pass):
    """Hoist non-splat dense tensor constants into private immutable globals."""

    name = "iree-stream-outline-constants"

    def run(self, module, ctx):
        constants = [op for c in host_callables(module) for block in c.regions[0].blocks for op in block.ops
                     if _is_outlinable(op)]
        if not constants:
            return
        taken = {op.sym_name.data for op in module.body.block.ops if "sym_name" in op.properties}
        anchor = _insertion_anchor(module)
        for op in constants:
            name = _unique_name(taken)
            props = {"sym_name": StringAttr(name), "sym_visibility": StringAttr("private"),
                     "type": op.result.type, "initial_value": op.value}
            glob = util.GlobalOp.build(properties=props, attributes={"noinline": UnitAttr()})
            glob.location = op.location
            Rewriter.insert_op(glob, anchor)
            anchor = InsertPoint.after(glob)
            load = util.GlobalLoadOp.build(result_types=[op.result.type], properties={"global": SymbolRefAttr(name)})
            load.location = op.location
            Rewriter.replace_op(op, load)
            load.result.name_hint = name


def _is_outlinable(op):
    if not isinstance(op, arith.ConstantOp) or not isinstance(op.result.type, TensorType):
        return False
    return isinstance(op.value, (DenseIntOrFPElementsAttr, ElementsAttr)) and not is_splat(op.value)


def _unique_name(taken):
    name, counter = BASE_NAME, 0
    while name in taken:
        name = f"{BASE_NAME}_{counter}"
        counter += 1
    taken.add(name)
    return name


def _insertion_anchor(module):
    """After the module's last leading util.global (at the start when there is none)."""
    last = None
    for op in module.body.block.ops:
        if not isinstance(op, util.GlobalOp):
            break
        last = op
    return InsertPoint.after(last) if last is not None else InsertPoint.at_start(module.body.block)
