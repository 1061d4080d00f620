"""Shared ``DenseArrayBase`` values of integer arrays (xDSL 0.74.0 builds a new one per call).

Every op with variadic operand segments gets an ``operandSegmentSizes`` array when it is
built, and slice ops their static offsets/sizes/strides; ``DenseArrayBase.from_list`` packs
and re-verifies each one (~50 µs, a quarter of building such an op), although a compile uses a
few dozen distinct arrays. :func:`install` (called by ``make_context``; idempotent) makes
``from_list`` return one shared attribute per (integer element type, values) from a bounded
cache. Attributes are immutable, so sharing is invisible; float arrays (where ``-0.0 == 0.0``
would merge) and non-int elements go to xDSL's builder unchanged.

It also makes ``get_values`` unpack an attribute's bytes once and keep the tuple on the
attribute: xDSL reads the ``operandSegmentSizes`` array on every access to a named operand of
a segmented op (``linalg`` ``inputs``/``outputs``, dispatch tensor loads and stores), ~4% of a
compile before.
"""
import functools

from xdsl.dialects.builtin import DenseArrayBase, IntegerType

_XDSL_FROM_LIST = DenseArrayBase.from_list
_XDSL_GET_VALUES = DenseArrayBase.get_values


@functools.lru_cache(maxsize=4096)
def _shared(data_type, data):
    return _XDSL_FROM_LIST(data_type, data)


def from_list(data_type, data):
    """``DenseArrayBase.from_list(data_type, data)``, shared for integer types and int values."""
    if isinstance(data_type, IntegerType):
        values = tuple(data)
        if all(type(v) is int for v in values):
            return _shared(data_type, values)
    return _XDSL_FROM_LIST(data_type, data)


def get_values(self):
    """``DenseArrayBase.get_values()``, unpacked once per attribute (an immutable tuple, kept
    beside the attribute's fields: equality and hashing read only the fields)."""
    values = self.__dict__.get("_rt_values")
    if values is None:
        values = _XDSL_GET_VALUES(self)
        object.__setattr__(self, "_rt_values", values)
    return values


def install():
    """Route ``DenseArrayBase.from_list`` through the cache and memoize ``get_values`` (once
    per process)."""
    if DenseArrayBase.__dict__["from_list"].__func__ is not from_list:
        DenseArrayBase.from_list = staticmethod(from_list)
    if DenseArrayBase.get_values is not get_values:
        DenseArrayBase.get_values = get_values
