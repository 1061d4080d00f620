"""Small dispatches run on the calling thread alone (issue 22).

The compiler records each export's flops and bytes (rt.compiler.codegen.cost) in the
executable's ``costs`` metadata; the llvm-cpu loader turns them into an estimated single-thread
time (``loader.work_estimate_ns``) and the launcher runs a dispatch under its serial threshold
without waking the pool. Which thread ran a workgroup is read from the ``record`` export's
output (worker id per workgroup), not from timings.
"""
import numpy as np
import pytest

import rt
from llvm_cpu_helpers import bindings, build, emit_record
from rt.devices.llvm_cpu import LOADER, _launcher, loader
from rt.runtime.errors import InvalidArgumentError
from rt.runtime.vm import Module

ELEMENTWISE = """
func.func @add(%a: tensor<8x24xf32>, %b: tensor<8x24xf32>) -> tensor<8x24xf32> {
  %e = tensor.empty() : tensor<8x24xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x24xf32>, tensor<8x24xf32>) outs(%e : tensor<8x24xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x24xf32>
  return %r : tensor<8x24xf32>
}
"""


def _record(costs):
    obj = build(emit_record, name="record")
    metadata = dict(obj.metadata)
    if costs is not None:
        metadata["costs"] = {"record": costs}
    return LOADER.load(obj.format, obj.data, metadata)


def test_compiler_records_flops_and_bytes_of_each_export():
    vmfb = rt.compile(ELEMENTWISE, devices=["llvm-cpu"])
    costs = [e.metadata["costs"] for e in Module.from_bytes(vmfb).executables]
    # one add per element; a, b read and the result written: 3 x 8 x 24 f32
    assert costs == [{next(iter(costs[0])): {"flops": 8 * 24, "bytes": 3 * 8 * 24 * 4}}]


@pytest.mark.parametrize("cost, want", [
    ({"flops": 6400, "bytes": 3200}, 6400 // loader.SERIAL_FLOPS_PER_NS + 3200 // loader.SERIAL_BYTES_PER_NS),
    ({"flops": 0, "bytes": 1}, 1),
    (None, 0), ({"flops": 10}, 0), ({"flops": "10", "bytes": 4}, 0), ({"flops": -1, "bytes": 4}, 0),
])
def test_work_estimate(cost, want):
    assert loader.work_estimate_ns(cost) == want


def test_small_dispatch_stays_on_the_calling_thread():
    record = _record({"flops": 0, "bytes": 4 * 256})
    out = np.zeros(256, np.int32)
    record.dispatch(0, (256, 1, 1), [], *bindings(out), threads=4)
    assert np.all(out == 1)  # every workgroup ran once, all on worker 0


@pytest.mark.parametrize("costs", [None, {"flops": 1 << 40, "bytes": 1 << 40}])
def test_unknown_or_large_work_may_use_the_pool(costs):
    record = _record(costs)
    out = np.zeros(256, np.int32)
    for _ in range(3):
        record.dispatch(0, (256, 1, 1), [], *bindings(out), threads=4)
    assert np.all(out & 0xFFFFF == 3)
    assert (out >> 20).max() < 4


def test_threshold_zero_splits_small_dispatches_too():
    record = _record({"flops": 0, "bytes": 4 * 256})
    previous = _launcher.set_serial_threshold(0)
    try:
        assert previous == _launcher.DEFAULT_SERIAL_THRESHOLD_NS
        out = np.zeros(256, np.int32)
        record.dispatch(0, (256, 1, 1), [], *bindings(out), threads=2)
        assert np.all(out & 0xFFFFF == 1) and (out >> 20).max() < 2
    finally:
        _launcher.set_serial_threshold(previous)


def test_work_estimates_must_match_the_exports():
    with pytest.raises(InvalidArgumentError, match="differ in length"):
        _launcher.Launcher(None, ["record"], [1], [1], [0], [(1, 1, 1)], (), [1, 2])
    with pytest.raises(InvalidArgumentError, match="work estimate"):
        _launcher.Launcher(None, ["record"], [1], [1], [0], [(1, 1, 1)], (), [-5])
