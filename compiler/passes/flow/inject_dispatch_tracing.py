"""``iree-flow-inject-dispatch-tracing``: print every dispatch's input and output tensors at run time.

Input: host functions with ``flow.dispatch`` ops (after outlining and deduplication, so the
printed names are the executables' final names). Output: before each selected dispatch a
``flow.tensor.trace "<executable>::<export> inputs"`` of its tensor operands, after it a
``flow.tensor.trace "<executable>::<export> outputs"`` of its tensor results (dynamic dims carried
along); the label is the dispatch's entry point with ``::`` between its symbol references, as
IREE's ``DispatchOp::getEntryPointName`` spells it. At run time each trace prints
``=== <label> inputs ===`` and the tensors to the runtime's trace sink (stderr by default), as
``iree-run-module`` does for a module compiled with ``--iree-flow-trace-dispatch-tensors``.

Options: ``enabled``: trace every dispatch (the pipeline sets it from
``--trace-dispatch-tensors``; ``rt opt`` runs the pass enabled); ``symbol``: trace the
dispatches whose export symbol contains this text (``--trace-dispatch=SYMBOL``, IREE's
``--iree-flow-trace-dispatch=SYMBOL``), which also turns the pass on.

Example::

    %2 = flow.dispatch @f_dispatch_0::@f_dispatch_0_elementwise_4_f32[%c4](%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    // ->
    flow.tensor.trace "f_dispatch_0::f_dispatch_0_elementwise_4_f32 inputs" = [%0 : tensor<4xf32>, %1 : tensor<4xf32>]
    %2 = flow.dispatch @f_dispatch_0::@f_dispatch_0_elementwise_4_f32[%c4](%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    flow.tensor.trace "f_dispatch_0::f_dispatch_0_elementwise_4_f32 outputs" = [%2 : tensor<4xf32>]

Tensors with an encoding (data tiling's packed layouts, between a ``set_encoding`` and an
``unset_encoding`` dispatch) are traced as they are: their exported buffers carry the layout
identifier, and the runtime prints them unpacked to row-major (runtime/hal/packed_layout.py),
where IREE inserts a ``flow.tensor.encode`` to row-major before the trace.

Tracing exports every traced tensor to the host, so each dispatch ends its own execution
region: a debugging mode, not a fast one (as in IREE).

Source followed: IREE ``Dialect/Flow/Transforms/InjectDispatchTracing.cpp`` and the
``--iree-flow-trace-dispatch-tensors`` / ``--iree-flow-trace-dispatch`` options of
``Dialect/Flow/Transforms/Passes.cpp``.
"""
import dataclasses

from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import flow
from rt.compiler.dialects.flow_types import split_dims
from rt.compiler.passes.base import Pass


def _tensors_with_dims(values, dims):
    """The tensor-typed ``values`` and their dynamic dims (flat), skipping scalar operands."""
    per_value = split_dims([v.type for v in values], list(dims))
    tensors, tensor_dims = [], []
    for value, value_dims in zip(values, per_value):
        if isinstance(value.type, TensorType):
            tensors.append(value)
            tensor_dims.extend(value_dims)
    return tensors, tensor_dims


def export_name(entry_point):
    """``fn`` of ``@ex::@fn`` (the root name when there is no nested reference)."""
    nested = entry_point.nested_references.data
    return (nested[-1] if nested else entry_point.root_reference).data


def entry_point_label(entry_point):
    """``ex::fn`` of ``@ex::@fn``: the symbol references joined by ``::`` (IREE's
    ``DispatchOp::getEntryPointName``)."""
    return "::".join([entry_point.root_reference.data,
                      *(ref.data for ref in entry_point.nested_references.data)])


def trace_op(key, values, dims, location):
    """A ``flow.tensor.trace`` of ``values`` (their dynamic dims flat in ``dims``) at ``location``."""
    op = flow.TensorTraceOp.build(operands=[values, dims], properties={"key": StringAttr(key)})
    op.location = location
    return op


@dataclasses.dataclass(frozen=True)
class InjectDispatchTracingPass(Pass):
    """Insert ``flow.tensor.trace`` ops around the (selected) dispatches of host functions."""

    name = "iree-flow-inject-dispatch-tracing"
    enabled: bool = True
    symbol: str = ""

    def run(self, module, ctx):
        if not (self.enabled or self.symbol):
            return
        dispatches = [op for top in module.ops if not isinstance(top, flow.ExecutableOp)
                      for op in top.walk() if isinstance(op, flow.DispatchOp)]
        for op in dispatches:
            export = export_name(op.entry_point)
            if self.symbol and self.symbol not in export:
                continue
            label = entry_point_label(op.entry_point)
            inputs, input_dims = _tensors_with_dims(list(op.arguments), op.argument_dims)
            trace = trace_op(f"{label} inputs", inputs, input_dims, op.location)
            Rewriter.insert_op(trace, InsertPoint.before(op))
            outputs, output_dims = _tensors_with_dims(list(op.results), op.result_dims)
            trace = trace_op(f"{label} outputs", outputs, output_dims, op.location)
            Rewriter.insert_op(trace, InsertPoint.after(op))

