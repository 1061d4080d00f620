"""IREE's coarse-fences ABI (``iree.abi.model = "coarse-fences"``), as its ONNX and torch
importers emit it: hand-written programs in that form compiled by rt and called on both devices
through rt.load (with and without explicit fences) and ``rt run``; results against numpy."""
import functools
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import rt
from rt.runtime.hal.fence import Fence

HERE = pathlib.Path(__file__).resolve().parent / "coarse_fences"
DEVICES = {"llvm-cpu": "local-task://llvm-cpu", "vmvx": "local-sync://vmvx"}
W = np.array([[1.0, -1.0, 0.5], [2.0, 0.0, -0.5], [0.0, 1.0, 1.0], [-1.0, 3.0, 2.0]], np.float32)
B = np.array([0.5, -0.5, 1.0], np.float32)


@functools.lru_cache(maxsize=None)
def _compiled(name, target):
    return rt.compile(str(HERE / name), devices=[target])


def _load(name, target):
    return rt.load(_compiled(name, target), devices=[DEVICES[target]])


def _fence(device, reached):
    fence, semaphore = Fence(), device.create_semaphore(0)
    fence.insert(semaphore, 1)
    if reached:
        semaphore.signal(1)
    return fence


@pytest.mark.parametrize("target", sorted(DEVICES))
def test_sync_wrapper_and_async_function(target):
    x = np.array([[1.0, 2.0, -3.0, 0.5], [-1.0, 0.0, 4.0, 2.0]], np.float32)
    want = np.maximum(x @ W + B, 0)
    with _load("affine_relu.mlir", target) as m:
        assert m.functions == ["affine_relu", "affine_relu$async"]
        assert m["affine_relu$async"].declaration == ("func @affine_relu$async(%arg0: tensor<2x4xf32>, "
                                                      "%arg1: !hal.fence, %arg2: !hal.fence) -> tensor<2x3xf32>")
        np.testing.assert_allclose(m.affine_relu(x), want, rtol=1e-6)
        np.testing.assert_allclose(m["affine_relu$async"](x), want, rtol=1e-6)
        wait, signal = _fence(m.devices[0], True), _fence(m.devices[0], False)
        np.testing.assert_allclose(m["affine_relu$async"](x, wait, signal), want, rtol=1e-6)
        assert signal.is_reached
        np.testing.assert_allclose(m["affine_relu$async"](x, None, None), want, rtol=1e-6)
        with pytest.raises(rt.InvalidArgumentError, match=r"input 0 of @affine_relu\$async: expected tensor<2x4xf32>"):
            m["affine_relu$async"](np.ones((3, 4), np.float32))
        with pytest.raises(rt.InvalidArgumentError, match=r"takes 1 input\(s\) \(rt makes its wait and signal fences\) "
                                                          r"or 3 with the fences, got 2"):
            m["affine_relu$async"](x, wait)
        with pytest.raises(rt.InvalidArgumentError, match=r"input 2 of @affine_relu\$async is a !hal.fence"):
            m["affine_relu$async"](x, None, 7)


@pytest.mark.parametrize("target", sorted(DEVICES))
def test_dynamic_inputs_two_results_and_pass_through(target):
    x = np.arange(15, dtype=np.int32).reshape(5, 3) - 4
    s = np.array([1, -2, 3], np.int32)
    with _load("two_in_two_out.mlir", target) as m:
        scaled, total = m["scale_and_sum$async"](x, s)
        np.testing.assert_array_equal(scaled, x * s)
        np.testing.assert_array_equal(total, (x * s).sum(axis=1))
        signal = _fence(m.devices[0], False)
        np.testing.assert_array_equal(m["identity$async"](x, None, signal), x)
        assert signal.is_reached


def test_a_wait_fence_that_failed_fails_the_call():
    with _load("affine_relu.mlir", "vmvx") as m:
        device = m.devices[0]
        wait, semaphore = Fence(), device.create_semaphore(0)
        wait.insert(semaphore, 1)
        semaphore.fail("the producer failed")
        with pytest.raises(rt.RtError, match="the producer failed"):
            m["affine_relu$async"](np.ones((2, 4), np.float32), wait, _fence(device, False))


def test_rt_run_makes_the_fences(tmp_path):
    (tmp_path / "m.vmfb").write_bytes(_compiled("affine_relu.mlir", "vmvx"))
    out = subprocess.run([sys.executable, "-m", "rt", "run", str(tmp_path / "m.vmfb"), "--function=affine_relu$async",
                          "--input=2x4xf32=1,0,0,0,0,1,0,0", "--device=local-sync://vmvx"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["EXEC @affine_relu$async", "result[0]: hal.buffer_view",
                                       "2x3xf32=[1.5 0 1.5][2.5 0 0.5]"]


def test_barrier_outside_the_returning_block_is_a_located_error():
    text = (HERE / "affine_relu.mlir").read_text().replace(
        "  %5 = hal.tensor.barrier join(%4 : tensor<2x3xf32>) => %arg2 : !hal.fence\n",
        "  %t = util.unfoldable_constant true\n  %5 = scf.if %t -> (tensor<2x3xf32>) {\n"
        "    %bar = hal.tensor.barrier join(%4 : tensor<2x3xf32>) => %arg2 : !hal.fence\n"
        "    scf.yield %bar : tensor<2x3xf32>\n  } else {\n    scf.yield %4 : tensor<2x3xf32>\n  }\n")
    with pytest.raises(rt.CompileError, match="hal.tensor.barrier must be in the block that returns"):
        rt.compile(text)
