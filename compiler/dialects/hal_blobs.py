"""Serialized bytes carried in the IR: executables and the finished module as ``dense`` attributes.

``hal.executable.binary`` and ``vm.module`` hold their bytes in a ``data`` attribute, as IREE's
``hal.executable.binary`` does: an rt ``ElementsAttr`` over a read-only numpy ``uint8`` array of
type ``vector<N x i8>`` (rt.compiler.frontend.elements), which keeps the bytes once in memory,
compares by content, and prints as MLIR's hex form ``dense<"0x7F454C46..."> : vector<Nxi8>``.
A dump of any pass therefore re-parses, in another process, into the same bytes: there is no
process-wide table to lose or to share between modules (the defect of xDSL's ``dense_resource``
blobs, docs/ARCHITECTURE.md §8).

Source followed: IREE ``HALOps.td`` (``hal.executable.binary`` ``data`` attribute).
"""
import numpy as np
from xdsl.dialects.builtin import VectorType, i8

from rt.runtime.errors import CompileError


def bytes_attr(data):
    """``data`` (bytes-like) as a ``dense<"0x..."> : vector<Nxi8>`` ElementsAttr (no copy of a bytes object)."""
    from rt.compiler.frontend.elements import ConstantPayload, ConstantPayloadAttr, ElementsAttr

    array = np.frombuffer(bytes(data), dtype=np.uint8)
    return ElementsAttr(VectorType(i8, [array.size]), ConstantPayloadAttr(ConstantPayload((array.size,), np.uint8, array=array)))


def attr_bytes(attr, where):
    """The bytes of a ``data`` attribute built by :func:`bytes_attr` or parsed from a dump;
    CompileError naming ``where`` for anything that is not a 1-D i8 dense constant."""
    from rt.compiler.frontend.elements import elements_to_numpy

    type_ = getattr(attr, "type", None)
    if not isinstance(type_, VectorType) or type_.get_element_type() != i8 or len(type_.get_shape()) != 1:
        raise CompileError(f"{where}: data must be a dense<...> : vector<Nxi8> attribute, got {attr}")
    return elements_to_numpy(attr).view(np.uint8).tobytes()
