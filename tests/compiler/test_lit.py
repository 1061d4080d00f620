"""Runs the lit suite (tests/lit: .mlir + filecheck) and asserts every test passes."""
import os
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_lit_suite_passes():
    lit = shutil.which("lit")
    cmd = [lit] if lit else [sys.executable, "-m", "lit"]
    proc = subprocess.run(cmd + ["-q", "-j", "2", os.path.join(ROOT, "tests", "lit")], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Failed" not in proc.stdout
