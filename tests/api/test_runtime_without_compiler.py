"""Tests that running a compiled module needs no compiler dependency (DESIGN §1): a process in
which importing xdsl fails can still load a .vmfb and get numpy results."""
import pathlib
import subprocess
import sys

import rt

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "matmul_f32.mlir"

SCRIPT = """
import sys
sys.modules["xdsl"] = None  # any import of xdsl now raises ImportError
import numpy as np
import rt
m = rt.load(sys.argv[1])
a = np.arange(6, dtype=np.float32).reshape(2, 3)
b = np.arange(12, dtype=np.float32).reshape(3, 4)
np.testing.assert_allclose(m.foo(a, b), a @ b, rtol=1e-6)
assert not any(name.startswith("rt.compiler") for name in sys.modules), "compiler imported"
print("ok")
"""


def test_a_compiled_module_runs_without_the_compiler(tmp_path):
    vmfb = tmp_path / "matmul.vmfb"
    vmfb.write_bytes(rt.compile(EXAMPLE, devices=["llvm-cpu"]))
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(vmfb)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
