"""The vmvx module's ``buffer.alloc``: workgroup scratch buffers for compiled kernels."""
import pytest

from rt.devices.vmvx import VmvxModule
from rt.devices.vmvx.module import ALLOC_CCONV, SCRATCH_LIMIT
from rt.runtime.errors import InvalidArgumentError, ResourceExhaustedError


def test_alloc_returns_a_zeroed_writable_buffer_of_the_length():
    fn, sig = VmvxModule().lookup_function("buffer.alloc")
    assert sig.text == ALLOC_CCONV
    buf = fn(24)
    assert len(buf) == 24 and buf.writable and bytes(buf.view) == bytes(24)
    buf.view[3] = 7
    assert fn(24).view[3] == 0 and len(fn(0)) == 0


def test_alloc_rejects_negative_and_oversized_requests():
    module = VmvxModule()
    with pytest.raises(InvalidArgumentError, match="negative length -1"):
        module.buffer_alloc(-1)
    with pytest.raises(ResourceExhaustedError, match=rf"more than the {SCRATCH_LIMIT}-byte limit "
                                                     rf"\({SCRATCH_LIMIT + 1} bytes requested"):
        module.buffer_alloc(SCRATCH_LIMIT + 1)
