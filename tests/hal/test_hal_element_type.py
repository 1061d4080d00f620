"""Element types: IREE codes and numpy mapping; buffer views."""
import numpy as np
import pytest

from rt.runtime import hal
from rt.runtime.errors import InvalidArgumentError, UnimplementedError
from rt.runtime.hal.element_type import element_byte_size, element_type_name


@pytest.mark.parametrize("name,code", [
    ("FLOAT_32", 0x21000020), ("FLOAT_16", 0x21000010), ("BFLOAT_16", 0x22000010),
    ("SINT_32", 0x11000020), ("UINT_8", 0x12000008), ("INT_64", 0x10000040),
    ("BOOL_8", 0x13000008), ("COMPLEX_FLOAT_64", 0x23000040), ("INT_4", 0x10000004),
    ("OPAQUE_8", 0x00000008),
])
def test_codes_match_iree(name, code):
    assert hal.ElementType[name] == code


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int8, np.uint16,
                                   np.int32, np.uint64, np.bool_, np.complex64])
def test_dtype_roundtrip(dtype):
    assert hal.element_type_to_dtype(hal.dtype_to_element_type(dtype)) == np.dtype(dtype)


def test_signed_and_signless_map_to_the_same_dtype():
    assert hal.element_type_to_dtype(hal.ElementType.SINT_32) == np.int32
    assert hal.dtype_to_element_type(np.int32) == hal.ElementType.INT_32


def test_names_and_sizes():
    assert element_type_name(0x21000020) == "f32" and element_type_name(0x12345678) == "0x12345678"
    assert element_byte_size(hal.ElementType.INT_4) == 1 and element_byte_size(hal.ElementType.FLOAT_64) == 8


def test_errors():
    with pytest.raises(UnimplementedError, match=r"bf16 .* has no numpy dtype"):
        hal.element_type_to_dtype(hal.ElementType.BFLOAT_16)
    with pytest.raises(UnimplementedError, match=r"dtype object has no HAL element type"):
        hal.dtype_to_element_type(object)
    with pytest.raises(InvalidArgumentError, match=r"0x12345678 is not an iree_hal_element_type_t"):
        hal.element_type_to_dtype(0x12345678)
