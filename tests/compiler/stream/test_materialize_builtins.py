"""64-bit splats and fills run as builtin dispatches (iree-stream-materialize-builtins) on every device.

Splats come from whole programs (``tensor.splat`` of a run-time i64/f64, static and dynamic
sizes); the in-place fill of a byte range is written at the ``stream.tensor`` level and compiled
from encode-host-tensors on. Results are compared with numpy.
"""
import numpy as np
import pytest

import rt
from rt.compiler.dialects import make_context
from rt.compiler.frontend import parse_module
from rt.compiler.passes import PassPipeline, pipeline
from rt.compiler.passes.vm.conversion import vmfb_bytes

DEVICES = {"llvm-cpu": "local-sync://llvm-cpu", "vmvx": "local-sync://vmvx"}

SPLATS = """
func.func @splat_f64(%v: f64, %n: index) -> tensor<?xf64> {
  %0 = tensor.splat %v[%n] : tensor<?xf64>
  return %0 : tensor<?xf64>
}
func.func @splat_i64(%v: i64) -> tensor<2x3xi64> {
  %0 = tensor.splat %v : tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}
"""

FILL_ROW = """
util.func public @fill_row(%view: !hal.buffer_view, %v: i64, %row: index) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %size = stream.tensor.sizeof tensor<4x3xi64> : index
  %imp = stream.tensor.import %view : !hal.buffer_view -> tensor<4x3xi64> in !stream.resource<external>{%size}
  %res = stream.async.transfer %imp : !stream.resource<external>{%size} -> !stream.resource<*>{%size}
  %copy = stream.async.clone %res : !stream.resource<*>{%size} -> !stream.resource<*>{%size}
  %fill = stream.tensor.fill %v, %copy[%row, %c0 for %c1, %c3] : i64 -> tensor<4x3xi64> in %copy as !stream.resource<*>{%size}
  %out = stream.async.transfer %fill : !stream.resource<*>{%size} -> !stream.resource<external>{%size}
  %exp = stream.tensor.export %out : tensor<4x3xi64> in !stream.resource<external>{%size} -> !hal.buffer_view
  util.return %exp : !hal.buffer_view
}
"""


def _from_encode_host_tensors(text, target):
    """Compile stream-level ``text`` with the target-device, stream (from encode-host-tensors), hal and vm passes."""
    ctx = make_context()
    module = parse_module(text, "fill_row.mlir", ctx)
    passes = pipeline.build_passes({"devices": [("__device_0", target)]})
    start = [p.name for p in passes].index("iree-stream-encode-host-tensors")
    passes = [p for p in passes[:start] if pipeline.phase_of(p.name) == "preprocessing"] + passes[start:]
    assert "iree-stream-materialize-builtins" in [p.name for p in passes]
    PassPipeline(passes).run(module, ctx)
    return vmfb_bytes(module)


@pytest.mark.parametrize("target", sorted(DEVICES))
def test_run_time_f64_and_i64_splats(target):
    module = rt.load(rt.compile(SPLATS, devices=[target]), devices=[DEVICES[target]])
    f = np.asarray(module.splat_f64(np.float64(-1.5e300), 5))
    np.testing.assert_array_equal(f, np.full(5, -1.5e300))
    assert f.dtype == np.float64
    i = np.asarray(module.splat_i64(np.int64(-9000000001)))
    np.testing.assert_array_equal(i, np.full((2, 3), -9000000001, dtype=np.int64))


@pytest.mark.parametrize("target", sorted(DEVICES))
def test_i64_fill_of_one_row_keeps_the_other_rows(target):
    module = rt.load(_from_encode_host_tensors(FILL_ROW, target), devices=[DEVICES[target]])
    a = np.arange(1, 13, dtype=np.int64).reshape(4, 3)
    result = np.asarray(module.fill_row(a, np.int64(-(2**40) - 7), 2))
    expected = a.copy()
    expected[2] = -(2**40) - 7
    np.testing.assert_array_equal(result, expected)
    np.testing.assert_array_equal(a, np.arange(1, 13, dtype=np.int64).reshape(4, 3))
