"""Out-of-IR storage for serialized executables: content hash -> (bytes, metadata).

``hal.executable.binary`` ops carry only a ``sha256:<hex>`` handle; the bytes a backend
serialized (and the metadata dict the runtime loader checks) live here for the lifetime of the
process. Keys are content hashes, so two modules can never see each other's data under one
name (the failure mode of xDSL's process-wide ``dense_resource`` table); a handle whose data is
gone (IR text re-parsed in another process) is a located error, never wrong bytes.
"""
import hashlib

_BLOBS = {}


def store(data, metadata=None):
    """Keep ``data`` (bytes-like) and ``metadata`` (dict); returns the ``sha256:<hex>`` key."""
    data = bytes(data)
    key = "sha256:" + hashlib.sha256(data).hexdigest()
    _BLOBS[key] = (data, dict(metadata or {}))
    return key


def contains(key):
    return key in _BLOBS


def load(key):
    """``(data, metadata)`` stored under ``key``; KeyError when this process has no such blob."""
    data, metadata = _BLOBS[key]
    return data, dict(metadata)
