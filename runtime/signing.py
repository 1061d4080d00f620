"""Module signatures: Ed25519 keys, signing a ``.vmfb`` and verifying its signature.

A signed module carries a trailer (layout in ``rt.runtime.vm.format``) with the signer's
public key and an Ed25519 signature over a context string plus every byte of the module
before the trailer, so changing any byte of the module (bytecode, executables, manifest)
invalidates it. An app that loads modules in safe mode (``rt.load(..., trusted=False,
trusted_keys=[...])``) accepts native executables from a module whose signature one of its
keys verifies (``rt.runtime.trust``).

Ed25519 (RFC 8032) comes from the ``cryptography`` package, imported only when a key is
generated or read or a signature is made or checked: running modules never needs it.

Errors: ``UnimplementedError`` when ``cryptography`` is not installed, ``InvalidArgumentError``
for an unreadable key, ``ModuleFormatError`` for data that is not a .vmfb.
"""
import os

from rt.runtime.errors import InvalidArgumentError, ModuleFormatError, UnimplementedError
from rt.runtime.vm.format import (FLAG_SIGNED, MAGIC, SIGNATURE_CONTEXT, append_signature,
                                  read_module, set_flags, split_signature)


def _ed25519():
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:
        raise UnimplementedError("module signatures need the 'cryptography' package: "
                                 "pip install 'rt[sign]'") from None
    return ed25519


def _serialization():
    _ed25519()
    from cryptography.hazmat.primitives import serialization

    return serialization


def generate_key():
    """A new Ed25519 key pair as ``(private PEM bytes, public PEM bytes)``."""
    serialization = _serialization()
    key = _ed25519().Ed25519PrivateKey.generate()
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return private, public


def _read(key, what):
    if isinstance(key, (str, os.PathLike)):
        try:
            with open(key, "rb") as f:
                return f.read()
        except OSError as e:
            raise InvalidArgumentError(f"cannot read {what} {os.fspath(key)!r}: {e.strerror}") from None
    if isinstance(key, (bytes, bytearray, memoryview)):
        return bytes(key)
    raise InvalidArgumentError(f"{what} must be a path, PEM bytes or 32 raw bytes, got "
                               f"{type(key).__name__}")


def public_key_bytes(key):
    """The 32 raw bytes of an Ed25519 public key given as a path, PEM bytes or raw bytes."""
    data = _read(key, "public key")
    if len(data) == 32 and not data.startswith(b"-----"):
        return data
    serialization = _serialization()
    try:
        loaded = serialization.load_pem_public_key(data)
    except ValueError as e:
        raise InvalidArgumentError(f"public key is not a PEM Ed25519 key: {e}") from None
    if not isinstance(loaded, _ed25519().Ed25519PublicKey):
        raise InvalidArgumentError(f"public key is a {type(loaded).__name__}, expected Ed25519")
    return loaded.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def _private_key(key):
    data = _read(key, "private key")
    ed25519 = _ed25519()
    if len(data) == 32 and not data.startswith(b"-----"):
        return ed25519.Ed25519PrivateKey.from_private_bytes(data)
    try:
        loaded = _serialization().load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as e:
        raise InvalidArgumentError(f"private key is not an unencrypted PEM Ed25519 key: {e}") from None
    if not isinstance(loaded, ed25519.Ed25519PrivateKey):
        raise InvalidArgumentError(f"private key is a {type(loaded).__name__}, expected Ed25519")
    return loaded


def sign_module(data, private_key):
    """Return ``data`` (a .vmfb, signed or not) signed with ``private_key`` (path, PEM or raw).

    The module is checked first (ModuleFormatError if it is not a valid container); an
    existing signature is replaced.
    """
    if bytes(memoryview(data).cast("B")[:8]) != MAGIC:
        raise ModuleFormatError("not a .vmfb: cannot sign it")
    read_module(data)
    body, _ = split_signature(data)
    flags = int.from_bytes(bytes(body[12:16]), "little")
    signed = set_flags(body, flags | FLAG_SIGNED)
    key = _private_key(private_key)
    signature = key.sign(SIGNATURE_CONTEXT + signed)
    public = key.public_key().public_bytes(*_raw_public_format())
    return append_signature(signed, public, signature)


def _raw_public_format():
    serialization = _serialization()
    return serialization.Encoding.Raw, serialization.PublicFormat.Raw


def verify(signature, public_keys):
    """The first of ``public_keys`` (32 raw bytes each) that verifies ``signature``, or None.

    signature: a ``ModuleSignature`` (``Module.signature``).
    """
    ed25519 = _ed25519()
    from cryptography.exceptions import InvalidSignature

    for raw in public_keys:
        try:
            ed25519.Ed25519PublicKey.from_public_bytes(raw).verify(signature.signature,
                                                                   signature.message)
            return raw
        except InvalidSignature:
            continue
    return None
