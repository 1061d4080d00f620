"""``python -m rt keygen | sign | run --untrusted``: safe mode from the command line."""
import hashlib
import subprocess
import sys

import pytest

import rt
from rt.runtime.vm import Module

from test_safe_mode import MATMUL

INPUTS = ("--input=2x3xf32=0,1,2,3,4,5", "--input=3x2xf32=0,1,2,3,4,5")
EXPECTED = "2x2xf32=[10 13][28 40]\n"


def rt_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "rt", *map(str, args)], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    (root / "mm.vmfb").write_bytes(rt.compile(MATMUL, devices=["llvm-cpu"]))
    return root


def test_untrusted_run_refused_then_allowed_by_hash(module):
    out = rt_cli("run", module / "mm.vmfb", "--function=mm", "--untrusted", *INPUTS)
    assert out.returncode == 1
    assert "rt run: module 'module' (loaded with trusted=False) creates executable" in out.stderr
    digests = [hashlib.sha256(e.data).hexdigest() for e in Module.load(module / "mm.vmfb").executables]
    assert any(d in out.stderr for d in digests)
    out = rt_cli("run", module / "mm.vmfb", "--function=mm", "--untrusted",
                 *(f"--allow-executable={d}" for d in digests), *INPUTS)
    assert out.returncode == 0, out.stderr
    assert out.stdout.endswith(EXPECTED)


def test_keygen_sign_and_run_with_trusted_key(module):
    pytest.importorskip("cryptography", reason="pip install -e '.[test]' installs it")
    out = rt_cli("keygen", "-o", module / "app")
    assert out.returncode == 0, out.stderr
    assert (module / "app.key").stat().st_mode & 0o777 == 0o600
    out = rt_cli("sign", module / "mm.vmfb", "--key", module / "app.key", "-o", module / "mm.signed.vmfb")
    assert out.returncode == 0, out.stderr
    out = rt_cli("dump", module / "mm.signed.vmfb")
    assert "signature: ed25519 by public key" in out.stdout and "sha256 " in out.stdout
    out = rt_cli("run", module / "mm.signed.vmfb", "--function=mm", "--untrusted",
                 f"--trusted-key={module / 'app.pub'}", *INPUTS)
    assert out.returncode == 0, out.stderr
    assert out.stdout.endswith(EXPECTED)


def test_safe_mode_flags_need_untrusted(module):
    out = rt_cli("run", module / "mm.vmfb", "--function=mm", "--allow-executable=" + "0" * 64, *INPUTS)
    assert out.returncode == 1
    assert "--allow-executable and --trusted-key apply to --untrusted" in out.stderr


def test_sign_rejects_non_modules_and_bad_keys(module, tmp_path):
    pytest.importorskip("cryptography", reason="pip install -e '.[test]' installs it")
    (tmp_path / "junk.vmfb").write_bytes(b"not a module")
    (tmp_path / "bad.key").write_bytes(b"-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n")
    out = rt_cli("sign", tmp_path / "junk.vmfb", "--key", tmp_path / "bad.key")
    assert out.returncode == 1 and "not a .vmfb" in out.stderr
    out = rt_cli("sign", module / "mm.vmfb", "--key", tmp_path / "bad.key", "-o", tmp_path / "x.vmfb")
    assert out.returncode == 1 and "private key is not an unencrypted PEM Ed25519 key" in out.stderr
