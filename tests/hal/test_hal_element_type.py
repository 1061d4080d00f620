"""Element types: IREE codes and numpy mapping; buffer views."""
import ml_dtypes
import numpy as np
import pytest

from rt.runtime import hal
from rt.runtime.errors import InvalidArgumentError, UnimplementedError
from rt.runtime.hal.element_type import (
    element_byte_size,
    element_type_name,
    pack_sub_byte,
    packed_byte_count,
    unpack_sub_byte,
)


@pytest.mark.parametrize("name,code", [
    ("FLOAT_32", 0x21000020), ("FLOAT_16", 0x21000010), ("BFLOAT_16", 0x22000010),
    ("SINT_32", 0x11000020), ("UINT_8", 0x12000008), ("INT_64", 0x10000040),
    ("BOOL_8", 0x13000008), ("COMPLEX_FLOAT_64", 0x23000040), ("INT_4", 0x10000004),
    ("OPAQUE_8", 0x00000008), ("SINT_4", 0x11000004), ("UINT_4", 0x12000004),
    ("INT_2", 0x10000002), ("FLOAT_8_E5M2", 0x24000008), ("FLOAT_8_E4M3_FN", 0x25000008),
    ("FLOAT_8_E5M2_FNUZ", 0x26000008), ("FLOAT_8_E4M3_FNUZ", 0x27000008),
    ("FLOAT_8_E8M0_FNU", 0x28000008),
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


@pytest.mark.parametrize("name,dtype,mlir", [
    ("BFLOAT_16", ml_dtypes.bfloat16, "bf16"), ("FLOAT_8_E5M2", ml_dtypes.float8_e5m2, "f8E5M2"),
    ("FLOAT_8_E4M3_FN", ml_dtypes.float8_e4m3fn, "f8E4M3FN"),
    ("FLOAT_8_E5M2_FNUZ", ml_dtypes.float8_e5m2fnuz, "f8E5M2FNUZ"),
    ("FLOAT_8_E4M3_FNUZ", ml_dtypes.float8_e4m3fnuz, "f8E4M3FNUZ"),
    ("FLOAT_8_E8M0_FNU", ml_dtypes.float8_e8m0fnu, "f8E8M0FNU"),
    ("INT_4", ml_dtypes.int4, "i4"), ("UINT_4", ml_dtypes.uint4, "ui4"), ("INT_2", ml_dtypes.int2, "i2"),
])
def test_ml_dtypes_roundtrip(name, dtype, mlir):
    assert hal.element_type_to_dtype(hal.ElementType[name]) == np.dtype(dtype)
    assert hal.dtype_to_element_type(dtype) == hal.ElementType[name]
    assert element_type_name(hal.ElementType[name]) == mlir


def test_sub_byte_packing_follows_iree():
    """Two i4 per byte, element 0 in the low nibble, the odd tail zero-padded; sizes rounded up
    (iree_hal_element_packed_byte_count)."""
    values = np.array([1, -8, 7, -1, 3], ml_dtypes.int4)
    packed = pack_sub_byte(values, hal.ElementType.INT_4)
    assert packed.tolist() == [0x81, 0xF7, 0x03]
    assert packed_byte_count(hal.ElementType.INT_4, 5) == 3
    assert packed_byte_count(hal.ElementType.INT_2, 5) == 2
    assert packed_byte_count(hal.ElementType.FLOAT_32, 5) == 20
    back = unpack_sub_byte(packed, hal.ElementType.INT_4, (5,))
    assert back.dtype == ml_dtypes.int4 and back.astype(np.int8).tolist() == [1, -8, 7, -1, 3]
    unsigned = unpack_sub_byte(packed, hal.ElementType.UINT_4, (5,))
    assert unsigned.astype(np.int8).tolist() == [1, 8, 7, 15, 3]
    two = pack_sub_byte(np.array([1, 2, 3, 0, 1], ml_dtypes.uint2), hal.ElementType.UINT_2)
    assert two.tolist() == [0b00111001, 0b01]


@pytest.fixture
def host_device():
    device = hal.create_device("local-sync://vmvx")
    yield device
    device.release()


def test_buffer_view_of_sub_byte_and_small_float_arrays(host_device):
    i4 = np.arange(-8, 7, dtype=np.int8).astype(ml_dtypes.int4).reshape(3, 5)
    view = hal.BufferView.from_numpy(host_device, i4)
    assert view.element_type == hal.ElementType.INT_4 and view.byte_length == 8
    assert view.buffer.byte_length == 8
    np.testing.assert_array_equal(view.to_numpy().astype(np.int8), i4.astype(np.int8))
    bf16 = np.array([[1.5, -2.0], [np.inf, 3.0e38]], ml_dtypes.bfloat16)
    view = hal.BufferView.from_numpy(host_device, bf16)
    assert view.element_type == hal.ElementType.BFLOAT_16 and view.byte_length == 8
    assert view.to_numpy().view(np.uint16).tolist() == bf16.view(np.uint16).tolist()


def test_errors():
    with pytest.raises(UnimplementedError, match=r"dtype object has no HAL element type"):
        hal.dtype_to_element_type(object)
    with pytest.raises(InvalidArgumentError, match=r"0x12345678 is not an iree_hal_element_type_t"):
        hal.element_type_to_dtype(0x12345678)
