"""The bytes a simulated dispatch moves (rt.runtime.sim.costs.dispatch_bytes): the lesser of its
bindings' lengths and the compiler's count, so a binding into a shared transient slab is not
costed as the whole slab."""
from types import SimpleNamespace

import pytest

from rt.runtime.sim.commands import Dispatch
from rt.runtime.sim.costs import dispatch_bytes
from rt.runtime.sim.dispatch_classes import ClassCost, KernelCosts

SLAB = 160 << 10  # one transient slab that every binding of the dispatch views


def _dispatch(binding_bytes, costs):
    executable = SimpleNamespace(costs=costs)
    return Dispatch(0, "f_dispatch_4_transpose_64x64_f32", executable, 0, (1, 1, 1), binding_bytes)


@pytest.mark.parametrize("bindings, costs, expected", [
    ((SLAB, SLAB), {0: {"flops": 0, "bytes": 2 * 64 * 64 * 4}}, 2 * 64 * 64 * 4),  # slab: the count
    ((16384, 16384), {0: {"flops": 0, "bytes": 3 * 16384}}, 2 * 16384),  # own buffers: the bindings
    ((SLAB, 4096), {0: {"flops": 10}}, SLAB + 4096),  # no byte count (dynamic sizes): the bindings
    ((SLAB, 4096), {}, SLAB + 4096),  # no cost metadata at all
])
def test_dispatch_bytes_is_the_lesser_bound(bindings, costs, expected):
    assert dispatch_bytes(_dispatch(bindings, costs)) == expected


def test_slab_binding_costs_the_tensor_not_the_slab():
    """A 64x64 f32 transpose (16 KiB in, 16 KiB out) bound into a 160 KiB slab, elementwise
    class 2 µs + bytes / 25 GB/s: 2 + 32768 / 25e3 µs, not 2 + 2 * 163840 / 25e3."""
    kernels = KernelCosts((("elementwise", ClassCost(2.0, 25.0)),))
    record = _dispatch((SLAB, SLAB), {0: {"flops": 0, "bytes": 32768}})
    us = kernels.dispatch_us(record.name, 0, dispatch_bytes(record))
    assert us == pytest.approx(2.0 + 32768 / 25e3)
