"""Every vmvx microkernel checks its views before touching memory: clear errors, no OOB access."""
import numpy as np
import pytest

from rt.devices.vmvx import _ukernels as uk
from rt.runtime.errors import InvalidArgumentError
from rt.runtime.vm import VMBuffer
from vmvx_views import wrap


def _bufs(n=16, dtype=np.float32):
    a, b, o = np.ones(n, dtype), np.ones(n, dtype), np.zeros(n, dtype)
    return a, b, o, wrap(a, False, "binding 0"), wrap(b, False, "binding 1"), wrap(o, True, "binding 2")


def test_out_of_bounds_read_names_kernel_operand_and_binding():
    _, _, o, A, B, O = _bufs()
    with pytest.raises(InvalidArgumentError) as e:
        uk.binary_2d(False, 0, A, 0, 4, 1, B, 1, 4, 1, O, 0, 4, 1, 4, 4)
    msg = str(e.value)
    assert "vmvx.add.2d.f32" in msg and "'rhs'" in msg and "binding 1" in msg
    assert "touches elements [1, 16]" in msg and "holds 16 elements (64 bytes)" in msg
    np.testing.assert_array_equal(o, 0)


@pytest.mark.parametrize("layout,fragment", [
    ((0, 5, 1), "touches elements [0, 18]"),       # padded rows run past the end
    ((0, 1, 5), "touches elements [0, 18]"),       # transposed
    ((16, 0, 0), "element offset 16"),             # offset at the end
    ((3, -1, 1), "touches elements [0, 6]"),       # fine: negative stride staying inside
    ((2, -1, 1), "touches elements [-1, 5]"),      # negative stride before the start
    ((-1, 4, 1), "element offset -1 must be >= 0"),
])
def test_out_of_bounds_views_of_unary_kernels(layout, fragment):
    _, _, o, A, _, O = _bufs()
    if fragment.startswith("touches elements [0, 6]"):
        uk.unary_2d(False, 1, A, *layout, O, 0, 4, 1, 4, 4)
        np.testing.assert_array_equal(o, -1)
        return
    with pytest.raises(InvalidArgumentError, match=r"vmvx\.neg\.2d\.f32: operand 'in'") as e:
        uk.unary_2d(False, 1, A, *layout, O, 0, 4, 1, 4, 4)
    assert fragment in str(e.value)
    np.testing.assert_array_equal(o, 0)


def test_write_to_read_only_binding_is_rejected():
    _, _, _, A, B, _ = _bufs()
    with pytest.raises(InvalidArgumentError, match="writes to binding 1, which is bound read-only"):
        uk.copy_2d(4, A, 0, 4, 1, B, 0, 4, 1, 4, 4)


def test_misaligned_view_is_rejected():
    raw = np.zeros(68, np.uint8)
    buf = VMBuffer.from_address(raw.ctypes.data + 1, 64, True, "binding 3", raw)
    with pytest.raises(InvalidArgumentError, match="not aligned to its 4-byte elements"):
        uk.fill_2d(4, 1, buf, 0, 4, 1, 4, 4)
    uk.fill_2d(1, 9, buf, 0, 4, 1, 4, 4)
    np.testing.assert_array_equal(raw[1:17], 9)


def test_sizes_and_strides_beyond_31_bits_are_rejected_without_overflow():
    _, _, _, A, _, O = _bufs()
    with pytest.raises(InvalidArgumentError, match=r"sizes \(1, 4294967297\) must be in \[0, 2\^31\)"):
        uk.unary_2d(False, 0, A, 0, 0, 0, O, 0, 0, 1, 1, 2**32 + 1)
    with pytest.raises(InvalidArgumentError, match="strides"):
        uk.unary_2d(False, 0, A, 0, 2**40, 1, O, 0, 4, 1, 2, 2)
    with pytest.raises(InvalidArgumentError, match="element offset"):
        uk.unary_2d(False, 0, A, 2**62, 4, 1, O, 0, 4, 1, 2, 2)


def test_operands_must_be_buffers():
    _, _, _, A, _, O = _bufs()
    with pytest.raises(InvalidArgumentError, match=r"operand 'in' must be a vmvx buffer \(VMBuffer\), got null"):
        uk.unary_2d(False, 0, None, 0, 4, 1, O, 0, 4, 1, 4, 4)
    with pytest.raises(InvalidArgumentError, match=r"operand 'lhs' must be a vmvx buffer \(VMBuffer\), got bytes"):
        uk.mmt4d(0, b"abc", 0, 1, A, 0, 1, O, 0, 1, 1, 1, 1, 1, 1, 1, 0)


def test_bad_op_index_width_and_flags():
    _, _, _, A, B, O = _bufs()
    with pytest.raises(InvalidArgumentError, match=r"op index 7 is not in \[0, 7\)"):
        uk.binary_2d(False, 7, A, 0, 4, 1, B, 0, 4, 1, O, 0, 4, 1, 4, 4)
    with pytest.raises(InvalidArgumentError, match="element width 3 bytes is not one of 1, 2, 4, 8"):
        uk.copy_2d(3, A, 0, 4, 1, O, 0, 4, 1, 4, 4)
    with pytest.raises(InvalidArgumentError, match="vmvx.mmt4d.f32f32f32: unknown flags 0x2"):
        uk.mmt4d(0, A, 0, 1, B, 0, 1, O, 0, 1, 1, 1, 1, 1, 1, 1, 2)
    with pytest.raises(InvalidArgumentError, match="vmvx.pack.x32: unknown flags 0x1"):
        uk.pack(4, A, 0, 4, O, 0, 16, 4, 4, 1, 1, 4, 4, 0, 1)
    with pytest.raises(InvalidArgumentError, match="vmvx.reduce.sum.2d.f32: unknown flags"):
        uk.reduce_2d(False, 0, A, 0, 4, 1, O, 0, 1, 4, 4, 4)


def test_mmt4d_checks_the_whole_tiled_operand():
    lhs, rhs, out = np.ones(2 * 3 * 4 * 2, np.float32), np.ones(16, np.float32), np.zeros(64, np.float32)
    L, R, O = wrap(lhs, False, "binding 0"), wrap(rhs, False, "binding 1"), wrap(out, True, "binding 2")
    # M=2, K=3, M0=4, K0=2 needs 48 lhs elements: fits. N=1, N0=4: rhs needs 24 > 16.
    with pytest.raises(InvalidArgumentError, match=r"vmvx\.mmt4d\.f32f32f32: operand 'rhs' is out of bounds of binding 1"):
        uk.mmt4d(0, L, 0, 24, R, 0, 24, O, 0, 16, 2, 1, 3, 4, 4, 2, 0)
    with pytest.raises(InvalidArgumentError, match=r"dimensions must be >= 0"):
        uk.mmt4d(0, L, 0, 24, R, 0, 24, O, 0, 16, 2, 1, 3, -4, 4, 2, 0)
    with pytest.raises(InvalidArgumentError, match=r"K \* M0 \* K0 = 65536 \* 65536 exceeds"):
        uk.mmt4d(0, L, 0, 24, R, 0, 24, O, 0, 16, 1, 1, 65536, 256, 1, 256, 0)
    np.testing.assert_array_equal(out, 0)


def test_pack_grid_must_cover_the_source():
    src, out = np.ones(25, np.float32), np.zeros(64, np.float32)
    with pytest.raises(InvalidArgumentError, match=r"packed grid 2x2 of 2x2 tiles .* does not cover the 5x5"):
        uk.pack(4, wrap(src), 0, 5, wrap(out), 0, 8, 5, 5, 2, 2, 2, 2, 0, 0)
    with pytest.raises(InvalidArgumentError, match=r"vmvx\.unpack\.x32: .*does not cover"):
        uk.unpack(4, wrap(out), 0, 8, wrap(src), 0, 5, 2, 2, 2, 2, 5, 5, 0)
    with pytest.raises(InvalidArgumentError, match=r"vmvx\.pack\.x32: operand 'out' is out of bounds"):
        uk.pack(4, wrap(src), 0, 5, wrap(out), 0, 30, 5, 5, 3, 3, 2, 2, 0, 0)


def test_binding_buffer_is_the_vm_buffer_and_construction_errors():
    assert uk.BindingBuffer is VMBuffer
    with pytest.raises(InvalidArgumentError, match="NULL address with length 8"):
        VMBuffer.from_address(0, 8)
    with pytest.raises(InvalidArgumentError, match="length must be >= 0"):
        VMBuffer.from_address(4096, -1)
    with pytest.raises(InvalidArgumentError, match="does not export a writable C-contiguous buffer"):
        uk.BindingBuffer.wrap(b"abcd", True, "binding 0")
    ro = uk.BindingBuffer.wrap(b"abcd", False, "binding 0")
    assert (ro.length, ro.writable, ro.name) == (4, False, "binding 0")
    empty = VMBuffer.from_address(0, 0, True, "binding 5")
    uk.fill_2d(4, 1, empty, 0, 0, 1, 0, 7)  # an empty view touches nothing
    with pytest.raises(InvalidArgumentError, match="holds 0 elements"):
        uk.fill_2d(4, 1, empty, 0, 0, 1, 1, 1)
