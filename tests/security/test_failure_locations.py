"""``rt run`` / ``rt benchmark`` name the failing dispatch's source location (issue 13, defect 8):
the HAL records the call site of each dispatch (the compiler keeps the dispatch's source
location from flow to hal), and a failure names it."""
import re
import subprocess
import sys

import pytest

PROGRAM = """func.func @f(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %s = arith.addi %a, %b : tensor<4xi32>
  %q = arith.divsi %s, %b : tensor<4xi32>
  %r = arith.muli %q, %q : tensor<4xi32>
  return %r : tensor<4xi32>
}
"""


@pytest.mark.parametrize("command", ["run", "benchmark"])
@pytest.mark.parametrize("device", ["local-sync://vmvx", "local-task://vmvx", "local-sync://llvm-cpu",
                                    "local-task://llvm-cpu"])
def test_failing_dispatch_is_located(tmp_path, command, device):
    src = tmp_path / "div.mlir"
    src.write_text(PROGRAM)
    out = subprocess.run([sys.executable, "-m", "rt", command, str(src), "--function=f",
                          "--input=4xi32=1,2,3,4", "--input=4xi32=1,0,1,1", f"--device={device}"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert "integer division by zero" in out.stderr
    # The three ops fuse into one dispatch, located at its root op.
    assert re.search(rf"recorded at {re.escape(str(src))}:[234]:8 in @f\)", out.stderr), out.stderr
    assert out.stderr.count("\n") == 1  # one line, as every rt error
