"""Fixtures of the multi-device tests (issue 5): the examples/multi_device programs, compiled once.

``compiled(name, devices=None)`` compiles ``examples/multi_device/<name>.mlir`` (with
``rt.compile``'s ``devices`` flags, e.g. ``["a=vmvx", "b=llvm-cpu"]``) and caches the bytes
for the session; ``examples_dir`` is that folder.
"""
import pathlib

import numpy as np
import pytest

import rt

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "multi_device"
_CACHE = {}


@pytest.fixture(scope="session")
def examples_dir():
    return EXAMPLES


@pytest.fixture(scope="session")
def compiled():
    def get(name, devices=None):
        key = (name, tuple(devices or ()))
        if key not in _CACHE:
            _CACHE[key] = rt.compile(EXAMPLES / f"{name}.mlir", devices=devices)
        return _CACHE[key]

    return get


@pytest.fixture(scope="session")
def split_inputs():
    """(x 60x100, w 100x36, bias 36) f32 and numpy's relu(relu(x) @ w + bias)."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((60, 100), np.float32)
    w = rng.standard_normal((100, 36), np.float32)
    bias = rng.standard_normal(36, np.float32)
    expected = np.maximum(np.maximum(x, 0) @ w + bias, 0)
    return (x, w, bias), expected
