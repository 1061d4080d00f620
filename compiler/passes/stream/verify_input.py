"""``iree-stream-verify-input``: check that the module is in the form the stream phase converts.

Input: the module after dispatch creation (the "flow" form). Output: the same module, unchanged.
Fails with a CompileError at the first op that the stream phase cannot take:

* dispatch regions that were never outlined (``flow.dispatch.region``,
  ``flow.dispatch.workgroups``) and ``linalg``/``tensor`` ops left in host code (other than
  ``tensor.dim`` shape queries), which belong inside a ``flow.executable``;
* public functions taking or returning tensors (they must have been wrapped by
  ``iree-abi-wrap-entry-points``; private functions may pass tensors, convert-to-stream expands
  them);
* ``flow.dispatch`` ops naming an executable or export the module does not define.

``flow.executable`` and ``hal.executable`` bodies are not inspected (codegen owns them). Indirect
globals (``util.global.address``, ``util.global.load.indirect``), which IREE's stream phase does
not support either, never reach it: rt's util dialect does not define them, so parsing rejects them.

Example::

    util.func public @f(%arg0: !hal.buffer_view) -> !hal.buffer_view { ... flow.dispatch @ex::@fn ... }
    // -> unchanged (or: error: 'flow.dispatch' names @ex::@missing, which the module does not define)

Source followed: IREE ``Stream/Transforms/VerifyLowerings.cpp`` (VerifyInputPass) and the
input expectations of ``ConvertToStream.cpp``.
"""
import dataclasses

from xdsl.dialects import tensor
from xdsl.dialects.builtin import TensorType

from rt.compiler.dialects import flow, hal, stream
from rt.compiler.frontend import error_at_op
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream.call_conversion import is_public
from rt.compiler.helpers.stream.resources import host_callables

_UNOUTLINED = (flow.DispatchRegionOp, flow.DispatchWorkgroupsOp)
_EXECUTABLES = (flow.ExecutableOp, hal.ExecutableOp, stream.ExecutableOp)
_EXPORTS = (flow.ExecutableExportOp, stream.ExecutableExportOp, hal.ExecutableExportOp)


@dataclasses.dataclass(frozen=True)
class VerifyInputPass(Pass):
    """Reject IR the stream phase cannot convert (no rewrite)."""

    name = "iree-stream-verify-input"

    def run(self, module, ctx):
        exports = _dispatchable_exports(module)
        for callable_op in host_callables(module):
            _check_signature(callable_op)
            for op in callable_op.walk():
                _check_host_op(op, exports)


def _dispatchable_exports(module):
    """{executable name: {export names}} of the module's flow/stream/hal executables."""
    table = {}
    for op in module.body.block.ops:
        if not isinstance(op, _EXECUTABLES):
            continue
        names = table.setdefault(op.sym_name.data, set())
        for inner in op.walk():
            if isinstance(inner, _EXPORTS):
                names.add(inner.sym_name.data)
    return table


def _check_signature(callable_op):
    function_type = callable_op.properties.get("function_type")
    if function_type is None or not is_public(callable_op):
        return
    for kind, types in (("argument", function_type.inputs.data), ("result", function_type.outputs.data)):
        for i, type_ in enumerate(types):
            if isinstance(type_, TensorType):
                raise error_at_op(callable_op, f"{kind} {i} of @{callable_op.sym_name.data} is a tensor ({type_}); "
                                               f"public functions of the stream phase take and return "
                                               f"!hal.buffer_view (run iree-abi-wrap-entry-points)")


def _check_host_op(op, exports):
    if isinstance(op, _UNOUTLINED):
        raise error_at_op(op, f"'{op.name}' was not outlined; run iree-dispatch-creation-convert-dispatch-regions-to-"
                              f"workgroups and iree-flow-outline-dispatch-regions before the stream phase")
    # every linalg/tensor op (but the tensor.dim shape query) computes on tensors
    if op.dialect_name() in ("linalg", "tensor") and not isinstance(op, tensor.DimOp):
        raise error_at_op(op, f"'{op.name}' is outside any dispatch; the stream phase expects tensor computation "
                              f"to be formed into flow.dispatch ops (iree-dispatch-creation-form-dispatch-regions)")
    if isinstance(op, flow.DispatchOp):
        exe, entry = op.entry_point.root_reference.data, op.entry_point.nested_references.data
        export = entry[0].data if entry else None
        if exe not in exports or export not in exports[exe]:
            known = ", ".join(f"@{e}::@{x}" for e in sorted(exports) for x in sorted(exports[e])) or "none"
            raise error_at_op(op, f"'flow.dispatch' names @{exe}::@{export}, which the module does not define "
                                  f"(defined entry points: {known})")
