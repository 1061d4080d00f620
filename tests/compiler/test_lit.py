"""Runs the lit suite (tests/lit: .mlir + filecheck) and asserts every test passes."""
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_lit_suite_passes():
    # lit from this interpreter's environment (not whichever `lit` is first on PATH): lit.cfg.py
    # then puts this interpreter's bin/ first on PATH, so RUN lines' `python -m rt` and
    # `filecheck` test this checkout even from a venv that is not activated.
    cmd = [sys.executable, "-c", "from lit.main import main; main()"]
    proc = subprocess.run(cmd + ["-q", "-j", "2", os.path.join(ROOT, "tests", "lit")], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Failed" not in proc.stdout
