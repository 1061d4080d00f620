"""``iree_linalg_ext``: IREE's structured ops that linalg cannot express.

The op classes live in modules so that the families can grow apart: :mod:`_linalg_ext_ops`
(sort, scatter, gather, topk, scan, arg_compare, map_load/map_store, winograd),
:mod:`_linalg_ext_attention` (attention, online_attention), :mod:`_linalg_ext_fft` (fft) and
:mod:`_linalg_ext_quant` (quantize_affine, dequantize_affine). This module only assembles the dialect.

Source followed: IREE ``compiler/src/iree/compiler/Dialect/LinalgExt/IR/LinalgExtOps.td``.
"""
from xdsl.ir import Dialect

from rt.compiler.dialects import _linalg_ext_attention, _linalg_ext_fft, _linalg_ext_ops, _linalg_ext_quant


def build_dialect():
    """The ``iree_linalg_ext`` Dialect: every op and attribute of the op modules."""
    return Dialect(
        "iree_linalg_ext",
        list(_linalg_ext_ops.OPS) + list(_linalg_ext_attention.OPS) + list(_linalg_ext_fft.OPS)
        + list(_linalg_ext_quant.OPS),
        list(_linalg_ext_ops.ATTRIBUTES) + list(_linalg_ext_attention.ATTRIBUTES),
    )
