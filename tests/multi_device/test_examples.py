"""examples/multi_device: the tensor-parallel MLP over 4 simulated devices and the 2-stage
pipeline equal the single-device results (exactly: the inputs are small integers) in
deterministic mode, and the worked example of docs/MULTI_DEVICE.md reports what it says."""
import os

import numpy as np
import pytest

import rt

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "multi_device")


def _read(name):
    with open(os.path.join(EXAMPLES, name), encoding="utf-8") as f:
        return f.read()


def _ints(rng, shape):
    return rng.integers(-2, 3, shape).astype(np.float32)


def test_tensor_parallel_mlp_equals_the_single_device_mlp():
    text = _read("tp_mlp.mlir")
    sharded = rt.compile(text, devices=["llvm-cpu"])
    single = rt.compile(text.replace("shape = 4", "shape = 1").replace("64x32xf32", "64x128xf32")
                        .replace("<32xf32>", "<128xf32>").replace("32x16xf32", "128x16xf32")
                        .replace("8x32xf32", "8x128xf32"), devices=["llvm-cpu"])
    rng = np.random.default_rng(0)
    x, w1, b1 = _ints(rng, (8, 64)), _ints(rng, (64, 128)), _ints(rng, 128)
    w2, b2 = _ints(rng, (128, 16)), _ints(rng, 16)
    shards = [[x, w1[:, 32 * r:32 * r + 32], b1[32 * r:32 * r + 32], w2[32 * r:32 * r + 32], b2]
              for r in range(4)]
    with rt.load(sharded, topology=os.path.join(EXAMPLES, "tp4.yaml"), ranks=4, deterministic=True) as m:
        ys = m.mlp.spmd(shards)
        report = m.report()
    with rt.load(single, deterministic=True) as m:
        y1 = m.mlp(x, w1, b1, w2, b2)
    np.testing.assert_array_equal(y1, np.maximum(x @ w1 + b1, 0) @ w2 + b2)
    for y in ys:
        np.testing.assert_array_equal(y, y1)
    # docs/MULTI_DEVICE.md §6: six ring steps of 2 + 128 B / 50 GB/s each.
    assert report["topology"] == "four-gpus" and report["makespan_us"] == pytest.approx(12.436, abs=1e-3)
    assert report["links"]["gpu0-gpu1"] == {"bytes": 768, "busy_us": pytest.approx(6 * (2 + 128 / 50e3), abs=1e-3)}


def test_two_stage_pipeline_equals_one_device():
    vmfb = rt.compile(_read("pipeline.mlir"), devices=["stage0=llvm-cpu", "stage1=llvm-cpu"])
    rng = np.random.default_rng(1)
    x0, x1, w1, w2 = _ints(rng, (16, 64)), _ints(rng, (16, 64)), _ints(rng, (64, 64)), _ints(rng, (64, 32))
    with rt.load(vmfb, topology=os.path.join(EXAMPLES, "pipeline2.yaml"), deterministic=True) as m:
        y0, y1 = m.pipeline(x0, x1, w1, w2)
        report = m.report()
    device = rt.hal.create_device("local-sync://llvm-cpu")
    try:
        with rt.load(vmfb, devices=[device, device]) as m:
            z0, z1 = m.pipeline(x0, x1, w1, w2)
    finally:
        device.release()
    np.testing.assert_array_equal(y0, z0)
    np.testing.assert_array_equal(y1, z1)
    np.testing.assert_array_equal(y0, np.maximum(x0 @ w1, 0) @ w2)
    assert report["devices"]["stage0"]["busy_us"] > 0 and report["devices"]["stage1"]["busy_us"] > 0
    # Two activations (16x64 f32) and the weights (64x32 f32) cross, two results come back.
    assert report["links"]["stage0-stage1"]["bytes"] == 2 * 4096 + 8192 + 2 * 2048
