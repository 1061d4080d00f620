"""The trust policy: which executables a module may load (safe mode).

rt's trust model is IREE's: a module is a program. Its host bytecode and vmvx executables
are interpreted by rt, verified before they run and bounds-checked while they run, so a
malformed or hostile one gets an ``RtError``; an llvm-cpu executable is native machine code
that runs in the process with the process's rights, so loading a module with llvm-cpu
executables means trusting whoever produced it. ``docs/SECURITY.md`` states the model.

``TrustPolicy`` is what ``rt.load(..., trusted=False)`` installs in the module's ``hal``
module: every ``hal.executable.create`` asks it first. In safe mode an executable whose format
runs native code (every format but ``PORTABLE_FORMATS``) is refused with
``PermissionDeniedError`` unless the sha256 of its bytes is on the app's allow-list or the
module carries a signature one of the app's public keys verifies (``rt.runtime.signing``).
The hash is computed from the bytes handed to the loader, never read from the module's
metadata.
"""
from rt.runtime.errors import InvalidArgumentError, PermissionDeniedError

#: Executable formats rt interprets (no native code from the module runs).
PORTABLE_FORMATS = frozenset({"vmvx-bytecode"})


def _digest(value):
    text = str(value).strip().lower()
    if len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
        raise InvalidArgumentError(f"allowed executable {value!r} is not a sha256 hex digest "
                                   f"(64 hex digits, as `python -m rt dump` prints them)")
    return text


class TrustPolicy:
    """Safe mode for one loaded module.

    allowed_executables: sha256 hex digests of native executables the app trusts.
    signer: the public key (32 raw bytes) that verified the module's signature, or None.
    module_name: for messages.
    """

    def __init__(self, allowed_executables=(), signer=None, module_name="module"):
        if isinstance(allowed_executables, (str, bytes)):
            allowed_executables = [allowed_executables]
        self.allowed = frozenset(_digest(d) for d in allowed_executables)
        self.signer = signer
        self.module_name = module_name

    def check_executable(self, format, data, name=None):
        """Return None if an executable of ``format`` with bytes ``data`` may load.

        Raises PermissionDeniedError naming the executable, its sha256 and the ways to allow it.
        """
        if format in PORTABLE_FORMATS or self.signer is not None:
            return
        import hashlib  # lazily: only safe mode digests executables (it costs a run's start ~3 ms)

        digest = hashlib.sha256(memoryview(data).cast("B")).hexdigest()
        if digest in self.allowed:
            return
        label = f"executable {name!r}" if name else "an executable"
        raise PermissionDeniedError(
            f"module '{self.module_name}' (loaded with trusted=False) creates {label} of format "
            f"{format!r}, which runs native code; it is refused because its sha256 {digest} is "
            f"not on the allow-list and the module is not signed by a trusted key. Allow it with "
            f"allowed_executables=['{digest}'] (--allow-executable={digest}), sign the module "
            f"(python -m rt sign) and pass the key (trusted_keys / --trusted-key), load it with "
            f"trusted=True if you trust its producer, or compile it for vmvx")


def policy_for(module, trusted=True, allowed_executables=(), trusted_keys=()):
    """The TrustPolicy ``rt.load`` installs for ``module`` (a vm Module), or None if trusted.

    trusted_keys: public keys (paths, PEM bytes or 32 raw bytes). A module that carries a
    signature is verified when keys are given: a signature none of them verifies raises
    PermissionDeniedError (the module was altered or signed by someone else).
    """
    if trusted:
        if allowed_executables or trusted_keys:
            raise InvalidArgumentError("allowed_executables and trusted_keys apply to safe mode; "
                                       "pass trusted=False with them")
        return None
    signer = None
    if trusted_keys:
        from rt.runtime import signing

        if isinstance(trusted_keys, (str, bytes)):
            trusted_keys = [trusted_keys]
        keys = [signing.public_key_bytes(k) for k in trusted_keys]
        if module.signature is not None:
            signer = signing.verify(module.signature, keys)
            if signer is None:
                raise PermissionDeniedError(
                    f"module '{module.name}' carries a signature that none of the "
                    f"{len(keys)} trusted key(s) verifies (altered after signing, or signed "
                    f"by another key: {module.signature.public_key.hex()})")
    return TrustPolicy(allowed_executables, signer, module.name)
