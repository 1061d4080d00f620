"""The vmvx matmul microkernel and dispatch bytecode storing into its bindings directly."""
import numpy as np
import pytest

from rt.devices.vmvx import LOADER, _ukernels as uk
from rt.devices.vmvx.executable import ENTRY_CCONV, FORMAT
from rt.runtime.errors import DeviceError, InvalidArgumentError
from rt.runtime.vm import ModuleBuilder, VMBuffer
from vmvx_views import strided, wrap


@pytest.mark.parametrize("type_index,dtype", [(0, np.float32), (1, np.int32)])
@pytest.mark.parametrize("accumulate", [False, True])
def test_matmul_strided_views_match_numpy(type_index, dtype, accumulate):
    rng = np.random.default_rng(3)
    m, n, k = 7, 5, 6
    a = (rng.standard_normal(40 + m * k * 2) * 8).astype(dtype)
    b = (rng.standard_normal(k * n + 3) * 8).astype(dtype)
    o = (rng.standard_normal(m * n * 2) * 8).astype(dtype)
    # lhs transposed with a row gap, rhs dense at offset 3, out with padded rows
    av, bv, ov = (2, 1, m + 3), (3, n, 1), (0, 2 * n, 1)
    want = strided(o, *ov, m, n).astype(np.float64) * accumulate + \
        strided(a, *av, m, k).astype(np.float64) @ strided(b, *bv, k, n).astype(np.float64)
    uk.matmul(type_index, wrap(a, False), *av, wrap(b, False), *bv, wrap(o), *ov, m, n, k,
              uk.FLAG_ACCUMULATE if accumulate else 0)
    got = strided(o, *ov, m, n)
    if dtype == np.float32:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    else:
        np.testing.assert_array_equal(got, want.astype(np.int64).astype(np.int32))


def test_matmul_checks_views_and_flags_before_writing():
    o = np.zeros(4, np.float32)
    with pytest.raises(InvalidArgumentError, match="vmvx.matmul.f32f32f32: operand 'lhs' is out of bounds"):
        uk.matmul(0, wrap(np.zeros(3, np.float32)), 0, 2, 1, wrap(np.zeros(4, np.float32)), 0, 2, 1,
                  wrap(o), 0, 2, 1, 2, 2, 2, 0)
    with pytest.raises(InvalidArgumentError, match="unknown flags 0x4"):
        uk.matmul(0, wrap(o), 0, 2, 1, wrap(o), 0, 2, 1, wrap(o), 0, 2, 1, 2, 2, 2, 4)
    with pytest.raises(InvalidArgumentError, match="writes to ro, which is bound read-only"):
        uk.matmul(1, wrap(o), 0, 2, 1, wrap(o), 0, 2, 1, VMBuffer(o, "ro"), 0, 2, 1, 2, 2, 2, 0)


def _store_kernel():
    """out[x] = x for each workgroup x, with buffer.store.i32 on binding 0; keeps it in a global."""
    mb = ModuleBuilder("st")
    kept = mb.global_("kept", "ref")
    fb = mb.function("store_dispatch_0", ENTRY_CCONV, export=True,
                     reflection={"binding_count": "1", "constant_count": "0", "binding_access": "rw"})
    _, bindings, x = fb.args[:3]
    idx, buf, off, four, wide = fb.reg("i32"), fb.reg("ref"), fb.reg("i64"), fb.reg("i64"), fb.reg("i64")
    fb.const_i32(idx, 0)
    fb.list_get_ref(buf, bindings, idx)
    fb.ext_i32_i64_u(wide, x)
    fb.const_i64(four, 4)
    fb.mul_i64(off, wide, four)
    fb.buffer_store_i32(buf, off, x)
    fb.global_store_ref(buf, kept)
    fb.return_([])
    return FORMAT, mb.build(), {}


def test_dispatch_bytecode_stores_into_bindings_and_bindings_die_with_the_dispatch():
    exe = LOADER.load(*_store_kernel())
    out = np.full(4, -1, np.int32)
    exe.dispatch(0, (3, 1, 1), [], [out.ctypes.data], [out.nbytes])
    assert out.tolist() == [0, 1, 2, -1]
    with pytest.raises(DeviceError, match=r"workgroup \(4, 0, 0\).*out of bounds of a 16-byte buffer binding 0"):
        exe.dispatch(0, (5, 1, 1), [], [out.ctypes.data], [out.nbytes])
    kept = exe._functions()[0].state.global_value("ref", 0)
    assert kept.released and len(kept) == 0
