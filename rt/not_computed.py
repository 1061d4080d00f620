"""``NotComputed``: the result (or input) of a dry run, a tensor with a shape and no values.

``rt.load(..., dry_run=True)`` (docs/MULTI_DEVICE.md §8) simulates shapes, allocations,
transfers and collectives without executing kernels, so a function returns ``NotComputed``
placeholders where it would return numpy arrays; ``rt run --dry-run`` prints them as
``4x8xf32=<not computed>``. A placeholder may be passed back as an input of a dry-run call
(its buffer is imported without memory). Reading its values (``np.asarray``, saving it with
``--output=@y.npy``) raises ``InvalidArgumentError``.
"""
import numpy as np

from rt.abi import dtype_name
from rt.runtime.errors import InvalidArgumentError


class NotComputed:
    """A tensor of ``shape`` (tuple of ints) and ``dtype`` (numpy dtype) whose values a dry run
    did not compute. ``nbytes``, ``ndim`` and ``size`` as numpy's."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        if any(d < 0 for d in self.shape):
            raise InvalidArgumentError(f"NotComputed: negative dimension in shape {self.shape}")

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    def __array__(self, dtype=None, copy=None):
        raise InvalidArgumentError(f"{self} has no values: it comes from a dry run "
                                   "(rt.load(..., dry_run=True) / --dry-run), which executes no "
                                   "kernels; run without the dry run to compute it")

    def __eq__(self, other):
        return (isinstance(other, NotComputed) and self.shape == other.shape
                and self.dtype == other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __str__(self):
        return "x".join([str(d) for d in self.shape] + [dtype_name(self.dtype)]) + "=<not computed>"

    def __repr__(self):
        return f"rt.NotComputed({self.shape}, {dtype_name(self.dtype)})"
