"""``iree_linalg_ext.fft`` on dynamically shaped tensors (helpers/linalg_ext/fft.py): the stages of
a radix-2 FFT over run-time batch and length match numpy on both devices; empty tensors pass; a
length the stage cannot split fails the call with a located message."""
import numpy as np
import pytest

import rt

DEVICES = ["local-task://llvm-cpu", "local-sync://vmvx"]

#: three stages of IREE's FFT (m = 2, 4, 8) on bit-reversed input, no coefficient tensors
FFT_8 = """
func.func @main(%re: tensor<?x?xf32>, %im: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %s1 = arith.constant 1 : index
  %s2 = arith.constant 2 : index
  %s3 = arith.constant 3 : index
  %a:2 = iree_linalg_ext.fft ins(%s1 : index) outs(%re, %im : tensor<?x?xf32>, tensor<?x?xf32>) : tensor<?x?xf32>, tensor<?x?xf32>
  %b:2 = iree_linalg_ext.fft ins(%s2 : index) outs(%a#0, %a#1 : tensor<?x?xf32>, tensor<?x?xf32>) : tensor<?x?xf32>, tensor<?x?xf32>
  %c:2 = iree_linalg_ext.fft ins(%s3 : index) outs(%b#0, %b#1 : tensor<?x?xf32>, tensor<?x?xf32>) : tensor<?x?xf32>, tensor<?x?xf32>
  return %c#0, %c#1 : tensor<?x?xf32>, tensor<?x?xf32>
}
"""
BIT_REVERSED_8 = [0, 4, 2, 6, 1, 5, 3, 7]


@pytest.fixture(scope="module", params=DEVICES)
def module(request):
    return rt.load(rt.compile(FFT_8, devices=[request.param.split("://")[1]]), devices=[request.param])


def test_dynamic_batch_and_length_match_numpy(module):
    rng = np.random.default_rng(0)
    for batch in (3, 1):
        x = (rng.standard_normal((batch, 8)) + 1j * rng.standard_normal((batch, 8))).astype(np.complex64)
        shuffled = x[:, BIT_REVERSED_8]
        re, im = (np.asarray(v) for v in module.main(np.ascontiguousarray(shuffled.real),
                                                    np.ascontiguousarray(shuffled.imag)))
        want = np.fft.fft(x.astype(np.complex128), axis=-1)
        np.testing.assert_allclose(re, want.real, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(im, want.imag, rtol=1e-5, atol=1e-5)


def test_empty_tensors(module):
    re, im = module.main(np.zeros((0, 8), np.float32), np.zeros((0, 8), np.float32))
    assert np.asarray(re).shape == (0, 8) and np.asarray(im).shape == (0, 8)


def test_a_length_the_stage_cannot_split_fails_the_call(module):
    with pytest.raises(rt.RtError, match="stage 2 needs an innermost dim that is a multiple of 4"):
        module.main(np.zeros((2, 6), np.float32), np.zeros((2, 6), np.float32))
