"""Elementwise, exp and mmt4d kernels checked against numpy on every x86-64 level the host runs."""
import numpy as np
import pytest

from llvm_cpu_helpers import bindings, build, load
from rt.compiler.codegen.llvm_cpu.elementwise import BINARY_OPS, UNARY_OPS, emit_elementwise
from rt.compiler.codegen.llvm_cpu.mmt4d import FLAG_ACCUMULATE, emit_mmt4d
from rt.devices.llvm_cpu import testing
from rt.runtime.errors import DeviceError, InvalidArgumentError

CPUS = ["host", "x86-64-v3", "x86-64"]
SIZES = [1, 3, 15, 16, 17, 63, 1000, 4099]
NUMPY_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
                "max": np.maximum, "min": np.minimum}
NUMPY_UNARY = {"neg": np.negative, "abs": np.abs, "sqrt": np.sqrt}


def _all_ops(lb):
    for op in sorted(BINARY_OPS) + sorted(UNARY_OPS):
        emit_elementwise(lb, op, op)


_LIBS = {}


def elementwise_library(cpu):
    if cpu not in _LIBS:
        _LIBS[cpu] = load(build(_all_ops, cpu=cpu, name=f"ew_{cpu}"))
    return _LIBS[cpu]


def _ordinal(lib, name):
    return [e.name for e in lib.exports].index(name)


@pytest.mark.parametrize("cpu", CPUS)
@pytest.mark.parametrize("op", sorted(NUMPY_BINARY))
def test_binary_matches_numpy_with_tails(cpu, op):
    lib = elementwise_library(cpu)
    rng = np.random.default_rng(1)
    for n in SIZES:
        a = rng.standard_normal(n).astype(np.float32)
        c = rng.standard_normal(n).astype(np.float32) + 0.5
        if n > 3:
            a[2], c[3] = np.nan, np.inf
        out = np.full(n, 7.0, np.float32)
        ptrs, lens = bindings(a, c, out)
        for grid in ((1, 1, 1), (3, 1, 1), (n + 5, 1, 1)):
            out[:] = 7.0
            lib.dispatch(_ordinal(lib, op), grid, [n], ptrs, lens, threads=2)
            with np.errstate(all="ignore"):
                want = NUMPY_BINARY[op](a, c)
            np.testing.assert_array_equal(out, want, err_msg=f"{op} n={n} grid={grid}")


@pytest.mark.parametrize("cpu", CPUS)
@pytest.mark.parametrize("op", sorted(NUMPY_UNARY))
def test_unary_matches_numpy(cpu, op):
    lib = elementwise_library(cpu)
    a = np.random.default_rng(2).standard_normal(1001).astype(np.float32) * 10
    a[:4] = [np.nan, -np.inf, np.inf, -0.0]
    out = np.empty_like(a)
    ptrs, lens = bindings(a, out)
    lib.dispatch(_ordinal(lib, op), (4, 1, 1), [a.size], ptrs, lens)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(out, NUMPY_UNARY[op](a))


def _ulp_distance(x, y):
    xi = x.view(np.int32).astype(np.int64)
    yi = y.view(np.int32).astype(np.int64)
    xi = np.where(xi < 0, -(xi & 0x7FFFFFFF), xi)
    yi = np.where(yi < 0, -(yi & 0x7FFFFFFF), yi)
    return np.abs(xi - yi)


@pytest.mark.parametrize("cpu", CPUS)
def test_exp_accuracy_and_special_values(cpu):
    lib = elementwise_library(cpu)
    sweep = np.linspace(-110.0, 95.0, 200001, dtype=np.float32)
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 88.72, 88.73, -87.3, -103.9,
                        -104.5, 1e-30, -1e-30], np.float32)
    a = np.concatenate([special, sweep])
    out = np.empty_like(a)
    ptrs, lens = bindings(a, out)
    lib.dispatch(_ordinal(lib, "exp"), (7, 1, 1), [a.size], ptrs, lens, threads=2)
    with np.errstate(all="ignore"):
        want = np.exp(a.astype(np.float64)).astype(np.float32)
    assert np.isnan(out[0])
    np.testing.assert_array_equal(out[1:5], [np.inf, 0.0, 1.0, 1.0])
    finite = ~np.isnan(a)
    assert _ulp_distance(out[finite], want[finite]).max() <= 2
    # exp(88.73) overflows in f32; exp(-104.5) underflows to 0.
    assert out[6] == np.inf and out[9] == 0.0


def test_output_may_alias_input():
    lib = elementwise_library("host")
    a = np.arange(100, dtype=np.float32)
    c = np.ones(100, np.float32)
    ptrs, lens = bindings(a, c, a)
    lib.dispatch(_ordinal(lib, "add"), (2, 1, 1), [100], ptrs, lens)
    np.testing.assert_array_equal(a, np.arange(100, dtype=np.float32) + 1)


def test_elementwise_rejects_short_binding():
    lib = elementwise_library("host")
    a, c, out = (np.zeros(8, np.float32) for _ in range(3))
    ptrs, lens = bindings(a, c, out)
    with pytest.raises(DeviceError, match=r"export 'add'.*returned 1 \(a binding is too small"):
        lib.dispatch(_ordinal(lib, "add"), (1, 1, 1), [9], ptrs, lens)
    np.testing.assert_array_equal(out, 0.0)


def test_elementwise_rejects_unknown_op_and_bad_unroll():
    with pytest.raises(InvalidArgumentError, match="'pow' is not one of"):
        build(lambda lb: emit_elementwise(lb, "p", "pow"))
    with pytest.raises(InvalidArgumentError, match="unroll must be >= 1"):
        build(lambda lb: emit_elementwise(lb, "a", "add", unroll=0))


def _mmt4d_reference(lhs, rhs):
    return np.einsum("mkac,nkbc->mnab", lhs.astype(np.float64), rhs.astype(np.float64))


MMT4D_CASES = [("host", (16, 16, 1)), ("x86-64-v3", (8, 8, 1)), ("x86-64", (8, 4, 1)),
               ("host", (4, 8, 2)), ("x86-64", (3, 5, 3))]


@pytest.mark.parametrize("cpu,tile", MMT4D_CASES)
def test_mmt4d_matches_numpy(cpu, tile):
    m0, n0, k0 = tile
    lib = load(build(lambda lb: emit_mmt4d(lb, "mmt4d", *tile), cpu=cpu))
    rng = np.random.default_rng(3)
    for m1, n1, k1 in ((1, 1, 1), (5, 3, 7), (3, 4, 0), (2, 9, 33)):
        lhs = rng.standard_normal((m1, k1, m0, k0)).astype(np.float32)
        rhs = rng.standard_normal((n1, k1, n0, k0)).astype(np.float32)
        init = rng.standard_normal((m1, n1, m0, n0)).astype(np.float32)
        want = _mmt4d_reference(lhs, rhs)
        for flags, base in ((0, 0.0), (FLAG_ACCUMULATE, init)):
            for grid, threads in (((1, 1, 1), 1), ((n1, m1, 1), 2), ((n1 + 2, m1 + 1, 1), 2)):
                out = init.copy()
                ptrs, lens = bindings(lhs, rhs, out)
                lib.dispatch(0, grid, [m1, n1, k1, flags], ptrs, lens, threads=threads)
                np.testing.assert_allclose(out, want + base, rtol=1e-5, atol=1e-4,
                                           err_msg=f"{tile} {m1}x{n1}x{k1} flags={flags}")


def test_mmt4d_testing_executable_default_tile():
    obj = testing.mmt4d_executable()
    lib = load(obj)
    m0, n0 = (16, 16) if "+avx512f" in obj.metadata["cpu_features"] else (8, 8)
    rng = np.random.default_rng(4)
    lhs = rng.standard_normal((4, 64, m0, 1)).astype(np.float32)
    rhs = rng.standard_normal((2, 64, n0, 1)).astype(np.float32)
    out = np.zeros((4, 2, m0, n0), np.float32)
    ptrs, lens = bindings(lhs, rhs, out)
    lib.dispatch(0, (2, 4, 1), [4, 2, 64, 0], ptrs, lens, threads=2)
    np.testing.assert_allclose(out, _mmt4d_reference(lhs, rhs), rtol=1e-5, atol=1e-4)


def test_mmt4d_bounds_and_flags_checked():
    lib = load(build(lambda lb: emit_mmt4d(lb, "mmt4d", 8, 8, 1)))
    lhs = np.zeros((2, 3, 8, 1), np.float32)
    rhs = np.zeros((2, 3, 8, 1), np.float32)
    out = np.full((2, 2, 8, 8), 5.0, np.float32)
    ptrs, lens = bindings(lhs, rhs, out)
    with pytest.raises(DeviceError, match=r"'mmt4d'.*returned 1 \(a binding is too small"):
        lib.dispatch(0, (1, 1, 1), [2, 2, 4, 0], ptrs, lens)
    with pytest.raises(DeviceError, match=r"returned 1"):
        lib.dispatch(0, (1, 1, 1), [2**31, 2**31, 2**31, 0], ptrs, lens)
    with pytest.raises(DeviceError, match=r"returned 2 \(a push constant is out of the range"):
        lib.dispatch(0, (1, 1, 1), [2, 2, 3, 6], ptrs, lens)
    np.testing.assert_array_equal(out, 5.0)


def test_mmt4d_rejects_bad_tiles():
    with pytest.raises(InvalidArgumentError, match="M0\\*N0 <= 1024"):
        build(lambda lb: emit_mmt4d(lb, "m", 64, 32, 1))
    with pytest.raises(InvalidArgumentError, match="sizes must be >= 1"):
        build(lambda lb: emit_mmt4d(lb, "m", 8, 0, 1))
