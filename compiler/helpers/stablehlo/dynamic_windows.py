"""JAX's ``@stablehlo.dynamic_reduce_window`` as a windowed ``linalg.generic`` (not a pass).

``jnp.cumsum``/``cumprod``/``cummax`` along a symbolic dim (``jax.export``) is a reduce_window
whose window is as long as the dim, so JAX writes it as the custom call
``@stablehlo.dynamic_reduce_window(%x, %init, %window_dimensions, %window_strides,
%base_dilations, %window_dilations, %padding) {called_computations = [@reducer]}``, the window
parameters as integer tensors and the reduction body as a function. It becomes what a static
``reduce_window`` becomes (``windows.convert_reduce_window``): ``tensor.pad`` of the operand with
the init value, then a ``linalg.generic`` over (output dims, window dims) reducing into the
filled output; window sizes, padding and the output sizes are ``index`` values computed on the
host. Strides and dilations must be constants (they enter the indexing maps); base dilation
must be 1.

Source followed: the StableHLO spec (``reduce_window``), JAX's ``jax._src.lax.windowed_reductions``
(the custom call's operand order).
"""
from xdsl.dialects import arith as xarith
from xdsl.dialects import cf, func, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, ModuleOp, TensorType
from xdsl.ir import Block, Region
from xdsl.ir.affine import AffineExpr

from rt.compiler.dialects import arith
from rt.compiler.dialects.linalg import FillOp
from rt.compiler.frontend import error_at_op
from rt.compiler.helpers.stablehlo.builders import affine_maps, generic
from rt.compiler.helpers.stablehlo.elementwise import element_type
from rt.compiler.helpers.stablehlo.regions import region_function
from rt.compiler.helpers.stablehlo.shapes import index_constant, shape_elements


def _reducer(op):
    """The body block of the function named by ``called_computations``."""
    called = op.attributes.get("called_computations")
    refs = getattr(called, "data", ())
    module = op.parent_op()
    while module is not None and not isinstance(module, ModuleOp):
        module = module.parent_op()
    name = refs[0].root_reference.data if refs else None
    for candidate in (module.walk() if module is not None else ()):
        if isinstance(candidate, func.FuncOp) and candidate.sym_name.data == name:
            return candidate.body.blocks[0]
    raise error_at_op(op, f"'{op.name}' @stablehlo.dynamic_reduce_window needs called_computations naming its "
                          f"reducer function; found {called}")


def _constants(op, b, value, what, rank):
    """The integers of ``value`` when its shape arithmetic folds to constants."""
    values = shape_elements(b, value, op)
    known = ([v.owner.value.value.data for v in values]
             if all(isinstance(v.owner, xarith.ConstantOp) for v in values) else None)
    if known is None or len(known) not in (1, rank):
        raise error_at_op(op, f"'{op.name}' @stablehlo.dynamic_reduce_window: {what} must be a constant of {rank} "
                              f"integers (they enter the indexing maps); got {value.type}")
    return known * rank if len(known) == 1 else known


def _index_op(b, cls, lhs, rhs):
    return b.add(cls.build(operands=[lhs, rhs], result_types=[IndexType()]))


def convert_dynamic_reduce_window(op, b):
    """The ops replacing the custom call ``op`` (one operand); returns its result value."""
    if len(op.inputs) != 7 or len(op.outputs) != 1:
        raise error_at_op(op, f"'{op.name}' @stablehlo.dynamic_reduce_window takes (operand, init, window_dimensions, "
                              "window_strides, base_dilations, window_dilations, padding) and one result")
    x, init, window, strides, base, dilations, padding = op.inputs
    type_ = op.outputs[0].type
    rank = x.type.get_num_dims()
    strides = _constants(op, b, strides, "window_strides", rank)
    dilations = _constants(op, b, dilations, "window_dilations", rank)
    if any(v != 1 for v in _constants(op, b, base, "base_dilations", rank)):
        raise error_at_op(op, f"'{op.name}' @stablehlo.dynamic_reduce_window with base dilations is not supported by rt")
    sizes = shape_elements(b, window, op)
    pads = shape_elements(b, padding, op)
    if len(sizes) != rank or len(pads) != 2 * rank:
        raise error_at_op(op, f"'{op.name}': window_dimensions and padding do not fit {x.type}")
    lows, highs = pads[0::2], pads[1::2]
    zero = index_constant(b, 0)
    for edge in pads:  # StableHLO allows negative padding; rt's pad does not
        ok = b.add(arith.CmpIOp(edge, zero, "sge"))
        b.add(cf.AssertOp(ok, "stablehlo.dynamic_reduce_window: negative padding is not supported by rt"))
    element = element_type(type_)
    init_scalar = b.add(tensor.ExtractOp(init, [], element))
    block = Block(arg_types=[IndexType()] * rank)
    block.add_op(tensor.YieldOp(init_scalar))
    padded_type = TensorType(element, [DYNAMIC_INDEX] * rank)
    padded = b.add(tensor.PadOp(x, lows, highs, Region(block), [DYNAMIC_INDEX] * rank, [DYNAMIC_INDEX] * rank,
                                padded_type))
    out_sizes = []
    for i in range(rank):
        extent = b.add(tensor.DimOp(padded, index_constant(b, i)))
        span = _index_op(b, xarith.AddiOp, _index_op(b, xarith.MuliOp, _index_op(b, xarith.SubiOp, sizes[i],
                                                                                   index_constant(b, 1)),
                                                     index_constant(b, dilations[i])), index_constant(b, 1))
        steps = _index_op(b, arith.DivSIOp, _index_op(b, xarith.SubiOp, extent, span), index_constant(b, strides[i]))
        out_sizes.append(_index_op(b, xarith.AddiOp, steps, index_constant(b, 1)))
    out = b.add(FillOp([init_scalar], [b.add(tensor.EmptyOp(
        [s for s, static in zip(out_sizes, type_.get_shape()) if static == DYNAMIC_INDEX], type_))], [type_]))
    window_type = TensorType(element, [DYNAMIC_INDEX] * rank)
    window_tensor = b.add(tensor.EmptyOp(sizes, window_type))
    d = AffineExpr.dimension
    maps = affine_maps(2 * rank, [d(i) * strides[i] + d(rank + i) * dilations[i] for i in range(rank)],
                       [d(rank + i) for i in range(rank)], [d(i) for i in range(rank)])
    reduce = region_function(op, _reducer(op))
    return generic(b, [padded, window_tensor], [out], maps, ["parallel"] * rank + ["reduction"] * rank, [type_],
                   lambda s, args: reduce(s, [args[2], args[0]]))

