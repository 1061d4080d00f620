"""Fixtures of the IREE-tool fidelity tests: small modules built here (rt.testing) and a runner
of ``python -m rt`` as a subprocess."""
import subprocess
import sys

import pytest

from rt import testing


@pytest.fixture(scope="package")
def modules(tmp_path_factory):
    """A folder with ``basic.vmfb`` (identity, scale, add_i32, ...) and ``add.vmfb`` (4xf32 add)."""
    root = tmp_path_factory.mktemp("tool_modules")
    (root / "basic.vmfb").write_bytes(testing.basic_module())
    (root / "add.vmfb").write_bytes(testing.add_module())
    return root


def _rt_cli(*args, cwd=None, **kwargs):
    return subprocess.run([sys.executable, "-m", "rt", *map(str, args)], capture_output=True, text=True,
                          timeout=180, cwd=cwd, **kwargs)


@pytest.fixture(scope="package")
def rt_cli():
    """``rt_cli(*ARGS, cwd=None)``: ``python -m rt ARGS`` -> CompletedProcess (text stdout/stderr)."""
    return _rt_cli
