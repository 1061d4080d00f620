"""Safe mode (issue 13, defect 1): rt.load(..., trusted=False) refuses native executables unless
their sha256 is allow-listed or the module carries a signature a trusted key verifies."""
import hashlib
import struct

import numpy as np
import pytest

import rt
from rt.runtime.errors import InvalidArgumentError, ModuleFormatError, PermissionDeniedError
from rt.runtime.signing import generate_key, sign_module  # cryptography is imported lazily
from rt.runtime.vm import Module
from rt.runtime.vm.format import reseal

MATMUL = """
func.func @mm(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %z = tensor.empty() : tensor<2x2xf32>
  %c0 = arith.constant 0.0 : f32
  %f = linalg.fill ins(%c0 : f32) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
"""
A = np.arange(6, dtype=np.float32).reshape(2, 3)
B = np.arange(6, dtype=np.float32).reshape(3, 2)


@pytest.fixture(scope="module")
def native():
    return rt.compile(MATMUL, devices=["llvm-cpu"])


@pytest.fixture(scope="module")
def portable():
    return rt.compile(MATMUL, devices=["vmvx"])


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    # In the test extra; a venv made before it was added skips instead of failing.
    pytest.importorskip("cryptography", reason="pip install -e '.[test]' installs it")
    root = tmp_path_factory.mktemp("keys")
    for name in ("app", "other"):
        private, public = generate_key()
        (root / f"{name}.key").write_bytes(private)
        (root / f"{name}.pub").write_bytes(public)
    return root


def _native_digests(vmfb):
    m = Module.from_bytes(vmfb)
    return [hashlib.sha256(e.data).hexdigest() for e in m.executables if e.format != "vmvx-bytecode"]


def test_trusted_by_default_runs_native_code(native):
    with rt.load(native) as m:
        np.testing.assert_allclose(m.mm(A, B), A @ B)


def test_untrusted_refuses_native_executable_naming_its_hash(native):
    digest = _native_digests(native)[0]
    with pytest.raises(PermissionDeniedError, match=f"format 'llvm-cpu-object-x86_64', which runs "
                                                    f"native code; it is refused because its sha256 {digest}"):
        rt.load(native, trusted=False)


def test_untrusted_runs_vmvx(portable):
    with rt.load(portable, trusted=False) as m:
        np.testing.assert_allclose(m.mm(A, B), A @ B)


def test_allow_list_by_sha256(native):
    with rt.load(native, trusted=False, allowed_executables=_native_digests(native)) as m:
        np.testing.assert_allclose(m.mm(A, B), A @ B)
    with pytest.raises(PermissionDeniedError, match="not on the allow-list"):
        rt.load(native, trusted=False, allowed_executables=["0" * 64])


def test_allow_list_entries_must_be_digests(native):
    with pytest.raises(InvalidArgumentError, match="is not a sha256 hex digest"):
        rt.load(native, trusted=False, allowed_executables=["abc"])
    with pytest.raises(InvalidArgumentError, match="apply to safe mode; pass trusted=False"):
        rt.load(native, allowed_executables=_native_digests(native))


def test_signed_module_accepted_with_the_signers_key(native, keys):
    signed = sign_module(native, keys / "app.key")
    assert Module.from_bytes(signed).signature is not None
    with rt.load(signed, trusted=False, trusted_keys=[keys / "app.pub"]) as m:
        np.testing.assert_allclose(m.mm(A, B), A @ B)
    with rt.load(signed) as m:  # the trailer is ignored by a trusting app
        np.testing.assert_allclose(m.mm(A, B), A @ B)


def test_signature_by_another_key_refused(native, keys):
    signed = sign_module(native, keys / "other.key")
    with pytest.raises(PermissionDeniedError, match="carries a signature that none of the 1 trusted key"):
        rt.load(signed, trusted=False, trusted_keys=[keys / "app.pub"])


def test_unsigned_module_with_keys_still_needs_allowing(native, keys):
    with pytest.raises(PermissionDeniedError, match="not signed by a trusted key"):
        rt.load(native, trusted=False, trusted_keys=[keys / "app.pub"])


def test_altered_signed_module_refused(native, keys):
    """Changing any byte after signing (and fixing the CRC, as an attacker would) breaks it."""
    signed = bytearray(sign_module(native, keys / "app.key"))
    exe = Module.from_bytes(bytes(signed)).executables[0]
    start = bytes(signed).index(bytes(exe.data))
    signed[start + 100] ^= 0xFF
    fsize = struct.unpack_from("<Q", signed, 40)[0]
    body = reseal(bytes(signed[:fsize]))
    tampered = body + bytes(signed[fsize:])
    with pytest.raises(PermissionDeniedError, match="none of the 1 trusted key"):
        rt.load(tampered, trusted=False, trusted_keys=[keys / "app.pub"])


def test_truncated_signature_trailer_rejected(native, keys):
    signed = sign_module(native, keys / "app.key")
    with pytest.raises(ModuleFormatError, match="signature trailer"):
        Module.from_bytes(signed[:-1])


def test_resigning_replaces_the_signature(native, keys):
    twice = sign_module(sign_module(native, keys / "other.key"), keys / "app.key")
    assert len(twice) == len(sign_module(native, keys / "app.key"))
    with rt.load(twice, trusted=False, trusted_keys=[keys / "app.pub"]) as m:
        np.testing.assert_allclose(m.mm(A, B), A @ B)


def test_raw_public_key_bytes_accepted(native, keys):
    from rt.runtime.signing import public_key_bytes

    raw = public_key_bytes(keys / "app.pub")
    assert len(raw) == 32
    signed = sign_module(native, keys / "app.key")
    with rt.load(signed, trusted=False, trusted_keys=[raw]) as m:
        np.testing.assert_allclose(m.mm(A, B), A @ B)
