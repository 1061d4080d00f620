"""bf16, f8 and i4 at the Python API and the CLI: ml_dtypes arrays in and out, plain integer
arrays for i4 with a range check, clear errors for the wrong dtype."""
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import rt
from rt.runtime.errors import InvalidArgumentError

SOURCE = """
func.func @scale_bf16(%x: tensor<?xbf16>, %y: tensor<?xbf16>) -> tensor<?xbf16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xbf16>
  %e = tensor.empty(%n) : tensor<?xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%x, %y : tensor<?xbf16>, tensor<?xbf16>) outs(%e : tensor<?xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %m = arith.mulf %a, %b : bf16
    linalg.yield %m : bf16
  } -> tensor<?xbf16>
  return %r : tensor<?xbf16>
}
func.func @to_f8(%x: tensor<5xf32>) -> tensor<5xf8E4M3FN> {
  %t = arith.truncf %x : tensor<5xf32> to tensor<5xf8E4M3FN>
  return %t : tensor<5xf8E4M3FN>
}
func.func @negate_i4(%x: tensor<?x3xi4>) -> tensor<?x3xi4> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3xi4>
  %e = tensor.empty(%n) : tensor<?x3xi4>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x3xi4>) outs(%e : tensor<?x3xi4>) {
  ^bb0(%a: i4, %o: i4):
    %z = arith.constant 0 : i4
    %m = arith.subi %z, %a : i4
    linalg.yield %m : i4
  } -> tensor<?x3xi4>
  return %r : tensor<?x3xi4>
}
func.func @double_bf16(%x: bf16) -> (bf16, tensor<2xbf16>) {
  %y = arith.addf %x, %x : bf16
  %s = tensor.splat %y : tensor<2xbf16>
  return %y, %s : bf16, tensor<2xbf16>
}
"""

DEVICES = [("llvm-cpu", "local-task://llvm-cpu"), ("vmvx", "local-sync://vmvx")]


@pytest.fixture(scope="module", params=DEVICES, ids=[d for d, _ in DEVICES])
def module(request):
    target, uri = request.param
    with rt.load(rt.compile(SOURCE, devices=[target]), devices=[uri]) as m:
        yield m


def test_bf16_in_and_out(module):
    x = np.array([1.5, 3.0, -0.1, 1e38], ml_dtypes.bfloat16)
    y = np.array([1.5, 1.0 / 3, 10.0, 10.0], ml_dtypes.bfloat16)
    got = module.scale_bf16(x, y)
    assert got.dtype == ml_dtypes.bfloat16
    with np.errstate(over="ignore"):
        want = (x.astype(np.float32) * y.astype(np.float32)).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))


def test_f8_result(module):
    got = module.to_f8(np.array([448, 464, 465, -0.0, 0.3], np.float32))
    assert got.dtype == ml_dtypes.float8_e4m3fn
    assert got.view(np.uint8).tolist() == [0x7E, 0x7E, 0x7F, 0x80, 0x2A]


def test_bf16_scalar_arguments_are_rounded_at_entry(module):
    # 1 + 2^-8 is a tie between 1 and 1 + 2^-7: nearest even is 1.0, so 2.0 comes back.
    y, s = module.double_bf16(1.00390625)
    assert y == 2.0 and s.dtype == ml_dtypes.bfloat16 and s.astype(np.float32).tolist() == [2.0, 2.0]
    y, _ = module.double_bf16(1.01171875)  # rounds up to 1 + 2^-6
    assert y == 2.03125


def test_i4_arrays_and_plain_integers(module):
    x = np.array([[1, -8, 7], [0, 3, -1], [5, 6, -7]], ml_dtypes.int4)  # 9 elements: 4.5 bytes
    got = module.negate_i4(x)
    assert got.dtype == ml_dtypes.int4 and got.shape == (3, 3)
    assert got.astype(np.int8).tolist() == [[-1, -8, -7], [0, -3, 1], [-5, -6, 7]]
    plain = module.negate_i4(np.array([[2, -3, 4]], np.int32))
    assert plain.astype(np.int8).tolist() == [[-2, 3, -4]]


def test_bad_inputs_name_the_argument_and_the_type(module):
    with pytest.raises(InvalidArgumentError, match=r"input 0 of @negate_i4: expected tensor<\?x3xi4>, "
                                                   r"got values out of range of i4 \(-8\.\.7\)"):
        module.negate_i4(np.array([[1, 2, 8]], np.int8))
    with pytest.raises(InvalidArgumentError, match=r"input 0 of @scale_bf16: expected tensor<\?xbf16>, "
                                                   r"got 2xf32"):
        module.scale_bf16(np.ones(2, np.float32), np.ones(2, ml_dtypes.bfloat16))
    with pytest.raises(InvalidArgumentError, match=r"input 0 of @negate_i4: expected tensor<\?x3xi4>, "
                                                   r"got 1x3xf32"):
        module.negate_i4(np.ones((1, 3), np.float32))


def test_cli_inputs_and_outputs_like_iree_run_module(tmp_path):
    source = tmp_path / "m.mlir"
    source.write_text(SOURCE)
    run = [sys.executable, "-m", "rt", "run", str(source), "--device=local-sync://vmvx"]
    out = subprocess.run(run + ["--function=scale_bf16", "--input=3xbf16=1.5,3,-0.1", "--input=3xbf16=2"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "3xbf16=3 6 -0.200195"
    npy = tmp_path / "y.npy"
    out = subprocess.run(run + ["--function=negate_i4", "--input=2x3xi4=[1 2 3][-8 7 0]", f"--output=@{npy}"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert np.load(npy).astype(np.int8).tolist() == [[-1, -2, -3], [-8, -7, 0]]
    out = subprocess.run(run + ["--function=negate_i4", "--input=1x3xi4=1,2,9"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode != 0 and "out of range of i4 (-8..7)" in out.stderr
