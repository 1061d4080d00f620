"""Microkernel aliasing (issue 13, defect 6): an output that partially overlaps an input, or that
writes an element twice, is refused before anything is computed, for every kernel."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from rt.devices.vmvx import _ukernels as uk
from rt.runtime.errors import InvalidArgumentError

from vmvx_views import wrap

DIVSI = uk.BINARY_I32_OPS.index("divs")
UNARY_ABS = uk.UNARY_F32_OPS.index("abs")


def test_division_whose_output_aliases_its_divisor_is_refused_not_sigfpe():
    """The crafted case from the issue, run in a subprocess: it used to die of SIGFPE.

    out = rhs shifted by one element: computing element 0 (0 / 1 = 0) would store the 0 into the
    divisor of element 1 after the divisor check had passed.
    """
    script = textwrap.dedent(f"""
        import numpy as np
        from rt.devices.vmvx import _ukernels as uk
        from rt.runtime.errors import InvalidArgumentError
        lhs = uk.BindingBuffer.wrap(np.zeros(8, np.int32).view(np.uint8), True, "lhs")
        buf = uk.BindingBuffer.wrap(np.ones(9, np.int32).view(np.uint8), True, "divisor")
        try:
            uk.binary_2d(True, {DIVSI}, lhs, 0, 8, 1, buf, 0, 8, 1, buf, 1, 8, 1, 1, 8)
        except InvalidArgumentError as e:
            print("refused:", e)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, (out.returncode, out.stderr)
    assert "refused: vmvx.divs.2d.i32: output 'out' overlaps input 'rhs'" in out.stdout


def test_identical_view_in_place_is_allowed():
    a = np.arange(1, 13, dtype=np.int32)
    b = np.full(12, 3, np.int32)
    bb = wrap(b)
    uk.binary_2d(True, DIVSI, wrap(a), 0, 4, 1, bb, 0, 4, 1, bb, 0, 4, 1, 3, 4)
    np.testing.assert_array_equal(b, np.arange(1, 13) // 3)


@pytest.mark.parametrize("out_offset", [1, 3, 11])
def test_partial_overlap_refused_for_elementwise(out_offset):
    data = np.arange(24, dtype=np.float32)
    buf = wrap(data)
    before = data.copy()
    with pytest.raises(InvalidArgumentError, match="output 'out' overlaps input 'in'"):
        uk.unary_2d(False, 0, buf, 0, 4, 1, buf, out_offset, 4, 1, 3, 4)
    np.testing.assert_array_equal(data, before)


def test_output_writing_an_element_twice_refused():
    out = np.zeros(8, np.float32)
    with pytest.raises(InvalidArgumentError, match="writes some elements twice"):
        uk.unary_2d(False, 1, wrap(np.ones(8, np.float32)), 0, 4, 1, wrap(out), 0, 0, 1, 2, 4)
    with pytest.raises(InvalidArgumentError, match="writes some elements twice"):
        uk.fill_2d(4, 7, wrap(out), 0, 2, 1, 2, 4)  # rows overlap: stride0 2 < row length 4
    np.testing.assert_array_equal(out, 0)


def test_matmul_output_overlapping_an_operand_refused():
    buf = np.ones(64, np.float32)
    with pytest.raises(InvalidArgumentError, match="vmvx.matmul.f32f32f32: output 'out' overlaps input 'lhs'"):
        uk.matmul(0, wrap(buf), 0, 4, 1, wrap(np.ones(16, np.float32)), 0, 4, 1, wrap(buf), 8, 4, 1,
                  4, 4, 4, 0)
    # The identical view is refused too: a matmul reads every lhs element many times.
    b = wrap(buf)
    with pytest.raises(InvalidArgumentError, match="overlaps input 'lhs'"):
        uk.matmul(0, b, 0, 4, 1, wrap(np.ones(16, np.float32)), 0, 4, 1, b, 0, 4, 1, 4, 4, 4, 0)


def test_mmt4d_pack_unpack_and_reduce_refuse_overlap():
    buf = wrap(np.zeros(256, np.float32))
    with pytest.raises(InvalidArgumentError, match="vmvx.mmt4d.f32f32f32: output 'out' overlaps input 'rhs'"):
        uk.mmt4d(0, wrap(np.ones(64, np.float32)), 0, 2, buf, 0, 2, buf, 1, 4, 1, 1, 1, 2, 2, 1, 0)
    with pytest.raises(InvalidArgumentError, match="vmvx.pack.x32: output 'out' overlaps input 'in'"):
        uk.pack(4, buf, 0, 4, buf, 8, 16, 4, 4, 1, 1, 4, 4, 0, 0)
    with pytest.raises(InvalidArgumentError, match="vmvx.unpack.x32: output 'out' overlaps input 'in'"):
        uk.unpack(4, buf, 0, 16, buf, 8, 4, 1, 1, 4, 4, 4, 4, 0)
    with pytest.raises(InvalidArgumentError, match="output 'out' overlaps input 'in'"):
        uk.reduce_2d(False, 0, buf, 0, 4, 1, buf, 2, 1, 4, 4, 0)


def test_disjoint_views_of_one_buffer_are_fine():
    data = np.arange(16, dtype=np.float32)
    buf = wrap(data)
    uk.copy_2d(4, buf, 0, 4, 1, buf, 8, 4, 1, 2, 4)
    np.testing.assert_array_equal(data[8:], np.arange(8))


def test_column_blocks_of_the_same_rows_do_not_alias():
    """A concat along the last dimension writes columns 3..5 of rows it reads columns 0..2 of:
    the byte ranges interleave but no element is shared, so the kernel runs."""
    data = np.arange(18, dtype=np.float32).reshape(3, 6) - 9
    buf = wrap(data.reshape(-1))
    uk.unary_2d(False, UNARY_ABS, buf, 0, 6, 1, buf, 3, 6, 1, 3, 3)
    np.testing.assert_array_equal(data[:, 3:], np.abs(data[:, :3]))
    # columns 2..4 share column 2 with the input's 0..2: refused, nothing written
    before = data.copy()
    with pytest.raises(InvalidArgumentError, match="output 'out' overlaps input 'in'"):
        uk.unary_2d(False, UNARY_ABS, buf, 0, 6, 1, buf, 2, 6, 1, 3, 3)
    np.testing.assert_array_equal(data, before)
    # a different row stride is not a column block of the same rows: refused
    with pytest.raises(InvalidArgumentError, match="output 'out' overlaps input 'in'"):
        uk.unary_2d(False, UNARY_ABS, buf, 0, 6, 1, buf, 3, 5, 1, 3, 2)
