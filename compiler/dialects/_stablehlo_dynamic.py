"""StableHLO's dynamic-shape ops, as ``jax.export`` writes them for symbolic dimensions.

A program exported with ``jax.export.symbolic_shape("b, ...")`` computes its shapes at run time:
``get_dimension_size`` reads a dimension into a ``tensor<i32>``, shape arithmetic runs on those
0-d and 1-d integer tensors, and the dynamic ops below take the resulting shape tensors as
operands. ``passes/input/stablehlo_legalize_shape_computations.py`` turns every one of them into
tensor/linalg ops on ``index`` sizes before the rest of the StableHLO conversion runs.

Ops (StableHLO spec names): ``get_dimension_size``, ``dynamic_broadcast_in_dim``,
``dynamic_iota``, ``dynamic_reshape``, ``real_dynamic_slice``, ``dynamic_pad``,
``dynamic_gather``. Each reads the generic form and the pretty form JAX prints
(``stablehlo.dynamic_iota %shape, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>``); the clause
keywords are in ``_stablehlo_forms.KEYWORDS``.

Source followed: the StableHLO specification (openxla/stablehlo ``docs/spec.md``: "Dynamism")
and ``StablehloOps.td`` for the printed forms.
"""
from xdsl.irdl import irdl_op_definition

from rt.compiler.dialects._stablehlo_forms import Generic


@irdl_op_definition
class GetDimensionSizeOp(Generic):
    """``stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x8xf32>) -> tensor<i32>``
    (attribute ``dimension``): the size of one dimension of ``x``."""

    name = "stablehlo.get_dimension_size"


@irdl_op_definition
class DynamicBroadcastInDimOp(Generic):
    """``stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [0] : (tensor<?xf32>, tensor<2xi32>)
    -> tensor<?x4xf32>``: ``broadcast_in_dim`` to the sizes in ``shape`` (1-d integer tensor);
    optional ``known_expanding_dimensions`` / ``known_nonexpanding_dimensions``."""

    name = "stablehlo.dynamic_broadcast_in_dim"


@irdl_op_definition
class DynamicIotaOp(Generic):
    """``stablehlo.dynamic_iota %shape, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>``
    (attribute ``iota_dimension``): ``iota`` of the sizes in ``shape``."""

    name = "stablehlo.dynamic_iota"


@irdl_op_definition
class DynamicReshapeOp(Generic):
    """``stablehlo.dynamic_reshape %x, %shape : (tensor<?x4xf32>, tensor<1xi32>) -> tensor<?xf32>``:
    ``reshape`` to the sizes in ``shape`` (same element count, row-major order)."""

    name = "stablehlo.dynamic_reshape"


@irdl_op_definition
class RealDynamicSliceOp(Generic):
    """``stablehlo.real_dynamic_slice %x, %start, %limit, %strides``: ``slice`` whose start, limit
    and stride per dim are 1-d integer tensors."""

    name = "stablehlo.real_dynamic_slice"


@irdl_op_definition
class DynamicPadOp(Generic):
    """``stablehlo.dynamic_pad %x, %value, %low, %high, %interior``: ``pad`` whose edge and interior
    paddings are 1-d integer tensors."""

    name = "stablehlo.dynamic_pad"


@irdl_op_definition
class DynamicGatherOp(Generic):
    """``"stablehlo.dynamic_gather"(%x, %start_indices, %slice_sizes) {dimension_numbers = ...}``:
    ``gather`` whose ``slice_sizes`` is a 1-d integer tensor."""

    name = "stablehlo.dynamic_gather"


DYNAMIC_OPS = [GetDimensionSizeOp, DynamicBroadcastInDimOp, DynamicIotaOp, DynamicReshapeOp, RealDynamicSliceOp,
               DynamicPadOp, DynamicGatherOp]
