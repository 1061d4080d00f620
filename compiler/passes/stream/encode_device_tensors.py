"""``iree-stream-encode-device-tensors``: bindings store odd-width integers in whole bytes, as the host does.

Input: ``stream.executable`` dispatch functions (after convert-to-stream). Output: every
``stream.binding.subspan`` whose ``!flow.dispatch.tensor`` element is an integer of a width that
is not 1, 2, 4, 8, 16, 32 or 64 bits (i3, i5..i7, i9..i15, i17..i31, i33..i63) is retyped to
the aligned width encode-host-tensors gives the host (i3 -> i8, i11 -> i16, i33 -> i64); i2 and
i4 stay packed (the code generators address them by bits). Loads from such a
binding then load the aligned type and narrow it with ``arith.trunci``; stores widen with
``arith.extui`` first. The conversions are elementwise ``linalg.generic`` ops (the form
convert-elementwise-to-linalg gives IREE's tensor-level ``arith.trunci``/``extui``, which
xDSL's arith ops do not accept on tensors). ``i1`` is left alone: rt's Kernel IR already stores
an i1 element in one byte (compiler/codegen/kernel_ir.py), the layout the host uses.

Example (the seeds' add, on i5)::

    %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<10xi5>>
    %3 = flow.dispatch.tensor.load %0, offsets = [0], sizes = [10], strides = [1] : !flow.dispatch.tensor<readonly:tensor<10xi5>> -> tensor<10xi5>
    // ->
    %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<10xi8>>
    %3 = flow.dispatch.tensor.load %0, ... : !flow.dispatch.tensor<readonly:tensor<10xi8>> -> tensor<10xi8>
    %e = tensor.empty() : tensor<10xi5>
    %4 = linalg.generic {...} ins(%3 : tensor<10xi8>) outs(%e : tensor<10xi5>) {
      ^bb0(%in: i8, %out: i5):
        %t = arith.trunci %in : i8 to i5
        linalg.yield %t : i5
    } -> tensor<10xi5>

Errors: none. Source followed: IREE ``Stream/Transforms/EncodeTensors.cpp``
(EncodeDeviceTensorsPass: EncodeBindingSubspanOp, EncodeDispatchTensorLoadOp/StoreOp).
"""
import dataclasses

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import flow, stream
from rt.compiler.dialects.flow_types import DispatchTensorType
from rt.compiler.passes.base import Pass
from rt.compiler.passes.input.convert_elementwise_to_linalg import convert_elementwise_op
from rt.compiler.helpers.stream.resources import element_byte_width


@dataclasses.dataclass(frozen=True)
class EncodeDeviceTensorsPass(Pass):
    """Align sub-byte / odd-width integer bindings to whole power-of-two bytes."""

    name = "iree-stream-encode-device-tensors"

    def run(self, module, ctx):
        for exe in [op for op in module.body.block.ops if isinstance(op, stream.ExecutableOp)]:
            for op in list(exe.walk()):
                if isinstance(op, stream.BindingSubspanOp) and isinstance(op.result.type, DispatchTensorType):
                    _encode_subspan(op)


def aligned_element_type(element_type):
    """The whole-byte storage type of an integer element (None when it is stored as is: i1,
    and i2 / i4, which stay packed as IREE's legalizeStorageElementType keeps them)."""
    if not isinstance(element_type, IntegerType) or element_type.width.data in (1, 2, 4):
        return None
    width = element_byte_width(element_type, "stream.binding.subspan") * 8
    if width == element_type.width.data:
        return None
    return IntegerType(width, element_type.signedness)


def _with_element(tensor_type, element_type):
    return TensorType(element_type, tensor_type.get_shape(), tensor_type.encoding)


def _encode_subspan(subspan):
    old = subspan.result.type
    aligned = aligned_element_type(old.bound_type.element_type)
    if aligned is None:
        return
    subspan.result._type = DispatchTensorType(old.access, _with_element(old.bound_type, aligned))
    for use in list(subspan.result.uses):
        op = use.operation
        if isinstance(op, flow.DispatchTensorLoadOp) and op.source is subspan.result:
            _encode_load(op, aligned)
        elif isinstance(op, flow.DispatchTensorStoreOp) and op.target is subspan.result:
            _encode_store(op, aligned)


def _encode_load(load, aligned):
    narrow = load.result.type
    uses = list(load.result.uses)
    load.result._type = _with_element(narrow, aligned)
    trunc = arith.TruncIOp(load.result, narrow)
    Rewriter.insert_op(trunc, InsertPoint.after(load))
    for use in uses:
        use.operation.operands[use.index] = trunc.result
    convert_elementwise_op(trunc)


def _encode_store(store, aligned):
    wide = arith.ExtUIOp(store.value, _with_element(store.value.type, aligned))
    Rewriter.insert_op(wide, InsertPoint.before(store))
    store.operands[0] = wide.result
    convert_elementwise_op(wide)
