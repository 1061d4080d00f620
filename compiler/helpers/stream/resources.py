"""Shared facts for the stream passes: affinities, host callables, index/byte-width helpers.

* :func:`affinity_of` — the affinity an op runs on: its own ``affinity``/``stream.affinity``,
  then the enclosing function's ``stream.affinity``, then the module's
  ``stream.affinity.default`` (None when nothing says: the single/default device).
* :func:`host_callables` — util.func / func.func / util.initializer ops outside executables.
* :func:`index_constant` / :func:`element_byte_width`.

Source followed: IREE ``Stream/IR/StreamInterfaces`` (AffinityOpInterface) and
``IREE::Stream::AffinityAttr::lookup``.
"""
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
)

from rt.compiler.dialects import util
from rt.runtime.errors import UnimplementedError
from rt.runtime.small_float import FORMATS as SMALL_FLOATS

INDEX = IndexType()
#: the ops that hold host code: functions and initializers
CALLABLES = (util.FuncOp, func.FuncOp, util.InitializerOp)


def index_constant(value):
    """A new ``arith.constant <value> : index`` op (not inserted)."""
    return arith.ConstantOp(IntegerAttr(int(value), INDEX))


def element_byte_width(element_type, where):
    """Storage bytes of one element: sub-byte ints widen to whole bytes (i1 -> 1, i4 -> 1, i17 -> 4).

    Raises UnimplementedError (naming ``where``) for types with no storage layout in rt.
    """
    if isinstance(element_type, IntegerType):
        bits = element_type.width.data
        for width in (8, 16, 32, 64):
            if bits <= width:
                return width // 8
    elif isinstance(element_type, IndexType):
        return 8
    elif isinstance(element_type, (Float16Type, BFloat16Type)):
        return 2
    elif str(element_type) in SMALL_FLOATS:
        return max(1, SMALL_FLOATS[str(element_type)].bits // 8)
    elif isinstance(element_type, Float32Type):
        return 4
    elif isinstance(element_type, Float64Type):
        return 8
    raise UnimplementedError(f"{where}: element type {element_type} has no storage layout in rt; "
                             f"supported: i1..i64, index, f16, bf16, f32, f64, f8E5M2, f8E4M3FN, f8E5M2FNUZ, "
                             f"f8E4M3FNUZ, f8E8M0FNU, f4E2M1FN")


def affinity_of(op):
    """The affinity attribute ``op`` runs on, or None for the default device."""
    own = op.properties.get("affinity") or op.attributes.get("stream.affinity")
    if own is not None:
        return own
    parent = op.parent_op()
    while parent is not None:
        aff = parent.attributes.get("stream.affinity")
        if aff is not None:
            return aff
        if isinstance(parent, ModuleOp):
            return parent.attributes.get("stream.affinity.default")
        parent = parent.parent_op()
    return None


def host_callables(module):
    """Top-level util.func / func.func / util.initializer ops that have bodies."""
    return [op for op in module.body.block.ops
            if isinstance(op, CALLABLES) and op.regions and op.regions[0].blocks]
