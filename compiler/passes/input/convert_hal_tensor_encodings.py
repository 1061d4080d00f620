"""``rt-convert-hal-tensor-encodings``: ``hal.tensor.import``/``export`` whose buffer view holds
another element type than the tensor (IREE's ``target_encoding``, printed ``T as U``) become a
plain import/export of the buffer's type and an elementwise conversion.

IREE's importers write this form when they narrow f64 data (``--iree-input-demote-f64-to-f32``)::

    %t = hal.tensor.import %bv : !hal.buffer_view -> tensor<3xf64> as tensor<3xf32>
    // ->
    %w = hal.tensor.import %bv : !hal.buffer_view -> tensor<3xf64>
    %t = arith.truncf %w : tensor<3xf64> to tensor<3xf32>

    %bv = hal.tensor.export %t : tensor<3xf64> as tensor<3xf32> -> !hal.buffer_view
    // ->
    %w = arith.extf %t : tensor<3xf32> to tensor<3xf64>
    %bv = hal.tensor.export %w : tensor<3xf64> -> !hal.buffer_view

So the caller passes and receives the buffer's element type (f64) and the program computes in
the tensor's (f32): floats are rounded to nearest even (``truncf``) or widened (``extf``),
integers truncated or sign-extended. The shapes must be equal; a float <-> integer alias is a
located error. Source followed: IREE ``HALOps.td`` (``hal.tensor.import`` ``target_encoding``).
"""
from xdsl.dialects.builtin import AnyFloat, IntegerType, TensorType
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import arith, hal
from rt.compiler.frontend import error_at_op
from rt.compiler.passes.base import Pass


def _conversion(op, source, target):
    """The cast op class taking tensors of ``source`` to ``target`` (equal shapes)."""
    if not (isinstance(source, TensorType) and isinstance(target, TensorType)
            and source.get_shape() == target.get_shape()):
        raise error_at_op(op, f"'{op.name}': buffer type {source} and tensor type {target} must be "
                              f"tensors of one shape")
    a, b = source.element_type, target.element_type
    if isinstance(a, AnyFloat) and isinstance(b, AnyFloat):
        return arith.TruncFOp if a.bitwidth > b.bitwidth else arith.ExtFOp
    if isinstance(a, IntegerType) and isinstance(b, IntegerType):
        return arith.TruncIOp if a.width.data > b.width.data else arith.ExtSIOp
    raise error_at_op(op, f"'{op.name}': cannot convert {a} to {b}; expected floats or integers on "
                          f"both sides")


_ENCODINGS = ("target_encoding", "source_encoding")


def _without_encoding(op):
    return {k: v for k, v in op.properties.items() if k not in _ENCODINGS}


def _drop_encoding(op):
    for key in _ENCODINGS:
        op.properties.pop(key, None)


def convert_import(op):
    """Replace aliased ``hal.tensor.import`` ``op`` by a plain import and its conversion."""
    buffer_type, tensor_type = op.encoding, op.result.type
    if buffer_type == tensor_type:
        _drop_encoding(op)
        return
    cast = _conversion(op, buffer_type, tensor_type)
    plain = hal.TensorImportOp.create(operands=list(op.operands), result_types=[buffer_type],
                                      properties=_without_encoding(op), attributes=dict(op.attributes))
    converted = cast.create(operands=[plain.result], result_types=[tensor_type])
    Rewriter.insert_op([plain, converted], InsertPoint.before(op))
    op.result.replace_all_uses_with(converted.results[0])
    op.detach()
    op.erase()


def convert_export(op):
    """Replace aliased ``hal.tensor.export`` ``op`` by the conversion and a plain export."""
    buffer_type, tensor_type = op.encoding, op.source.type
    if buffer_type == tensor_type:
        _drop_encoding(op)
        return
    cast = _conversion(op, tensor_type, buffer_type)
    converted = cast.create(operands=[op.source], result_types=[buffer_type])
    plain = hal.TensorExportOp.create(operands=[converted.results[0], *op.source_dims],
                                      result_types=[op.result.type], properties=_without_encoding(op),
                                      attributes=dict(op.attributes))
    Rewriter.insert_op([converted, plain], InsertPoint.before(op))
    op.result.replace_all_uses_with(plain.result)
    op.detach()
    op.erase()


class ConvertHalTensorEncodingsPass(Pass):
    """Rewrite every aliased ``hal.tensor.import``/``export`` (see the module docstring)."""

    name = "rt-convert-hal-tensor-encodings"

    def run(self, module, ctx):
        for op in list(module.walk()):
            if isinstance(op, hal.TensorImportOp) and op.encoding is not None:
                convert_import(op)
            elif isinstance(op, hal.TensorExportOp) and op.encoding is not None:
                convert_export(op)
