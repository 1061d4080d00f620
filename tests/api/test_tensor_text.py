"""IREE's textual tensor syntax: --input specs, printed results, .npy outputs."""
import ml_dtypes
import numpy as np
import pytest

from rt.abi import ArgType
from rt.runtime.errors import InvalidArgumentError, NotFoundError
from rt.tensor_text import NpyReader, format_scalar, format_tensor, parse_input, write_output

F32_SCALAR = ArgType("scalar", "x", "f32", element="f32")
I32_SCALAR = ArgType("scalar", "n", "i32", element="i32")
F32_TENSOR = ArgType("tensor", "t", "tensor<f32>", (), "f32")


@pytest.mark.parametrize("spec, expected", [
    ("2x3xf32=1,2,3,4,5,6", np.arange(1, 7, dtype=np.float32).reshape(2, 3)),
    ("2x3xf32=[1 2 3][4 5 6]", np.arange(1, 7, dtype=np.float32).reshape(2, 3)),
    ("4xf32=0.5", np.full(4, 0.5, np.float32)),
    ("2x2xi32", np.zeros((2, 2), np.int32)),
    ("3xi8=-1 0x10 127", np.array([-1, 16, 127], np.int8)),
    ("2xi1=true 0", np.array([True, False])),
    ("4xindex=1,2,3,4", np.arange(1, 5, dtype=np.int64)),
    ("2xf16=inf -2.5", np.array([np.inf, -2.5], np.float16)),
])
def test_tensor_specs(spec, expected):
    value = parse_input(spec)
    assert value.dtype == expected.dtype
    np.testing.assert_array_equal(value, expected)


def test_scalar_specs_follow_the_argument():
    assert parse_input("i32=4") == 4 and parse_input("f32=2.5") == 2.5
    assert parse_input("2.5") == 2.5 and parse_input("-7") == -7
    assert parse_input("3", F32_SCALAR) == 3.0 and isinstance(parse_input("3", F32_SCALAR), float)
    assert parse_input("12", I32_SCALAR) == 12
    rank0 = parse_input("f32=1.5", F32_TENSOR)
    assert isinstance(rank0, np.ndarray) and rank0.shape == () and rank0 == 1.5


@pytest.mark.parametrize("spec, message", [
    ("", r"--input= is empty"),
    ("2x3xf32=1,2", r"2 values for a 6-element tensor"),
    ("2xq7=1", r"'2xq7' is not SHAPExTYPE or TYPE"),
    ("2xi8=300", r"does not fit i8"),
    ("i32=1.5", r"'1.5' is not a valid i32 value"),
    ("1.5x", r"is not SHAPExTYPE"),
])
def test_bad_specs(spec, message):
    with pytest.raises(InvalidArgumentError, match=message):
        parse_input(spec)


def test_npy_inputs_at_reads_the_first_plus_the_next_array(tmp_path):
    path = tmp_path / "in.npy"
    with open(path, "wb") as f:
        np.save(f, np.arange(3, dtype=np.float32))
        np.save(f, np.eye(2, dtype=np.int32))
    reader = NpyReader()
    try:
        np.testing.assert_array_equal(parse_input(f"@{path}", npy=reader), [0, 1, 2])
        np.testing.assert_array_equal(parse_input(f"@{path}", npy=reader), [0, 1, 2])
        np.testing.assert_array_equal(parse_input(f"+{path}", npy=reader), np.eye(2))
        with pytest.raises(InvalidArgumentError, match=r"has no more arrays"):
            parse_input(f"+{path}", npy=reader)
    finally:
        reader.close()
    with pytest.raises(NotFoundError, match=r"does not exist"):
        parse_input(f"@{tmp_path}/missing.npy")


def test_raw_binary_inputs(tmp_path):
    path = tmp_path / "x.bin"
    np.arange(4, dtype=np.float32).tofile(path)
    np.testing.assert_array_equal(parse_input(f"2x2xf32=@{path}"), [[0, 1], [2, 3]])
    reader = NpyReader()
    try:
        np.testing.assert_array_equal(parse_input(f"3xf32=@{path}", npy=reader), [0, 1, 2])
        with pytest.raises(InvalidArgumentError, match=r"has 4 bytes after offset 12; needs 8"):
            parse_input(f"2xf32=+{path}", npy=reader)
    finally:
        reader.close()


def test_formatting_like_iree_run_module():
    assert format_tensor(np.float32([[1, 2], [3, 4]])) == "2x2xf32=[1 2][3 4]"
    assert format_tensor(np.int32([1, 2, 3, 4])) == "4xi32=1 2 3 4"
    assert format_tensor(np.arange(8, dtype=np.int8).reshape(2, 2, 2)) == "2x2x2xi8=[[0 1][2 3]][[4 5][6 7]]"
    assert format_tensor(np.float32([0.0632146, 1.5e-7, np.inf, np.nan])) == "4xf32=0.0632146 1.5E-07 INF NAN"
    assert format_tensor(np.array(2.5, np.float64)) == "f64=2.5"
    assert format_tensor(np.array([True, False])) == "2xi1=1 0"
    assert format_tensor(np.arange(6, dtype=np.float32).reshape(2, 3), max_elements=4) == "2x3xf32=[0 1 2][3..."
    assert format_scalar(4, "i32") == "i32=4" and format_scalar(0.5, "f32") == "f32=0.5"


def test_outputs_write_and_append_npy(tmp_path):
    path = tmp_path / "y.npy"
    write_output(f"@{path}", np.float32([1, 2]))
    write_output(f"+{path}", np.int32([3]))
    with open(path, "rb") as f:
        np.testing.assert_array_equal(np.load(f), [1, 2])
        np.testing.assert_array_equal(np.load(f), [3])
    with pytest.raises(InvalidArgumentError, match=r"expected @FILE \(write\) or \+FILE \(append\)"):
        write_output("y.npy", np.zeros(1))
    with pytest.raises(InvalidArgumentError, match=r"cannot write"):
        write_output(f"@{tmp_path}/no/such/dir/y.npy", np.zeros(1))


@pytest.mark.parametrize("spec, dtype, values", [
    ("2x2xbf16=1,2.5,-3,1e30", ml_dtypes.bfloat16, [1, 2.5, -3, 1.0002555517425873e30]),
    ("3xf8E4M3FN=448 0.1 -0", ml_dtypes.float8_e4m3fn, [448, 0.1015625, -0.0]),
    ("2xf8E5M2=inf -2", ml_dtypes.float8_e5m2, [np.inf, -2]),
    ("2xf8E4M3FNUZ=240,1", ml_dtypes.float8_e4m3fnuz, [240, 1]),
    ("2xf8E5M2FNUZ=1,0.5", ml_dtypes.float8_e5m2fnuz, [1, 0.5]),
    ("2xf8E8M0FNU=1,4", ml_dtypes.float8_e8m0fnu, [1, 4]),
    ("5xi4=1,-8,7,0,3", ml_dtypes.int4, [1, -8, 7, 0, 3]),
    ("2xui4=15 0", ml_dtypes.uint4, [15, 0]),
])
def test_small_types_specs_use_ml_dtypes(spec, dtype, values):
    value = parse_input(spec)
    assert value.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(value.astype(np.float64).reshape(-1), np.array(values, np.float64))


def test_small_types_print_like_iree_run_module():
    assert format_tensor(np.array([[1, 2.5]], ml_dtypes.bfloat16), "bf16") == "1x2xbf16=[1 2.5]"
    assert format_tensor(np.array([448, -0.5], ml_dtypes.float8_e4m3fn)) == "2xf8E4M3FN=448 -0.5"
    assert format_tensor(np.array([-8, 7], ml_dtypes.int4)) == "2xi4=-8 7"


def test_sub_byte_specs_out_of_range_and_raw_files(tmp_path):
    with pytest.raises(InvalidArgumentError, match=r"out of range of i4 \(-8\.\.7\)"):
        parse_input("2xi4=8,1")
    with pytest.raises(InvalidArgumentError, match=r"out of range of ui4 \(0\.\.15\)"):
        parse_input("1xui4=-1")
    path = tmp_path / "x.bin"
    path.write_bytes(bytes([0x81, 0x07]))  # packed as a buffer holds it: low nibble first
    value = parse_input(f"3xi4=@{path}")
    assert value.dtype == ml_dtypes.int4 and value.astype(np.int8).tolist() == [1, -8, 7]
    with pytest.raises(InvalidArgumentError, match=r"has 2 bytes after offset 0; needs 3"):
        parse_input(f"5xi4=@{path}")


def test_npy_outputs_of_ml_dtypes_and_reading_them_back(tmp_path):
    bf16 = np.array([1.5, -2.0, np.inf], ml_dtypes.bfloat16)
    path = tmp_path / "b.npy"
    write_output(f"@{path}", bf16)
    raw = np.load(path)
    assert raw.dtype == np.dtype("V2")  # the bits, as iree-run-module saves bf16
    arg = ArgType("tensor", "x", "tensor<3xbf16>", (3,), "bf16")
    back = parse_input(f"@{path}", arg)
    assert back.dtype == ml_dtypes.bfloat16 and back.view(np.uint16).tolist() == bf16.view(np.uint16).tolist()
    write_output(f"@{path}", np.array([-8, 7], ml_dtypes.int4))
    assert np.load(path).dtype == np.int8 and np.load(path).tolist() == [-8, 7]
    write_output(f"@{path}", np.array([15, 0], ml_dtypes.uint4))
    assert np.load(path).dtype == np.uint8 and np.load(path).tolist() == [15, 0]
