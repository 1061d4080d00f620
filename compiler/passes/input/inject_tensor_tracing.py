"""``iree-flow-inject-tensor-tracing``: trace the tensors of ops annotated with ``iree.tensor.trace``.

Input: any op carrying the discardable attribute ``iree.tensor.trace`` (a string key, or a unit
attribute to derive the key: a dispatch's export name, a call's callee, else the op name).
Output: a ``flow.tensor.trace "<key> inputs"`` of its tensor operands before it and a
``flow.tensor.trace "<key> outputs"`` of its tensor results after it (each only when there are
such tensors; dynamic dims from ``tensor.dim``), and the attribute removed. It runs first in the
input phase, before conversions that rebuild ops (elementwise-to-linalg, set-encoding) could
drop the attribute.

Example::

    %0 = arith.addf %a, %b {iree.tensor.trace = "sum"} : tensor<?xf32>
    // ->
    %c0 = arith.constant 0 : index
    %d = tensor.dim %a, %c0 : tensor<?xf32>
    ...
    flow.tensor.trace "sum inputs" = [%a : tensor<?xf32>{%d}, %b : tensor<?xf32>{%d1}]
    %0 = arith.addf %a, %b : tensor<?xf32>
    flow.tensor.trace "sum outputs" = [%0 : tensor<?xf32>{%d2}]

Source followed: IREE ``Dialect/Flow/Transforms/InjectTensorTracing.cpp`` (which IREE runs at
the start of dispatch creation).
"""
import dataclasses

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr, TensorType
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import flow, hal, stream
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.passes.base import Pass
from rt.compiler.passes.flow.inject_dispatch_tracing import export_name, trace_op
from rt.compiler.helpers.dispatch.shapes import materialize_dims

ATTR = "iree.tensor.trace"


def _in_executable(op):
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, (flow.ExecutableOp, hal.ExecutableOp, stream.ExecutableOp)):
            return True
        parent = parent.parent_op()
    return False


def _key(op, attr):
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(op, flow.DispatchOp):
        return export_name(op.entry_point)
    callee = op.properties.get("callee") or op.attributes.get("callee")
    if isinstance(callee, SymbolRefAttr):
        return callee.root_reference.data
    return op.name


def _trace(key, values, anchor, after=False):
    """A flow.tensor.trace of the tensors among ``values`` next to ``anchor`` (none if empty)."""
    tensors = [v for v in values if isinstance(v.type, TensorType)]
    if not tensors:
        return
    point = anchor.next_op if after else anchor
    if point is None:
        return
    dims = [d for v in tensors for d in materialize_dims(v, point)]
    Rewriter.insert_op(trace_op(key, tensors, dims, anchor.location), InsertPoint.before(point))


@dataclasses.dataclass(frozen=True)
class InjectTensorTracingPass(Pass):
    """Insert ``flow.tensor.trace`` around ops annotated with ``iree.tensor.trace``."""

    name = "iree-flow-inject-tensor-tracing"

    def run(self, module, ctx):
        for op in [o for o in module.walk() if ATTR in o.attributes]:
            if _in_executable(op):
                raise error_at_op(op, f"'{ATTR}' on an op inside an executable: dispatch bodies cannot "
                                      "trace; put the attribute on the flow.dispatch that calls it")
            key = _key(op, op.attributes.pop(ATTR))
            _trace(f"{key} inputs", list(op.operands), op)
            _trace(f"{key} outputs", list(op.results), op, after=True)
