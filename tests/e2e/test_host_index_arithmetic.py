"""``affine.apply`` and ``affine.min`` on host ``index`` scalars (IREE's importers leave them
between dispatches) run in the VM: floordiv toward negative infinity, non-negative mod,
ceildiv rounding up, as MLIR defines them."""
import pytest

import rt

SOURCE = """
func.func @index_math(%i: index, %n: index) -> (index, index) {
  %a = affine.apply affine_map<(d0)[s0] -> (d0 * 4 + s0 floordiv 3 - (d0 mod 5) + s0 ceildiv 4)>(%i)[%n]
  %m = affine.min affine_map<(d0)[s0] -> (d0 + 2, s0, 7)>(%i)[%n]
  return %a, %m : index, index
}
"""


@pytest.mark.parametrize("device", ["llvm-cpu", "vmvx"])
def test_affine_apply_and_min_on_host_scalars(device):
    module = rt.load(rt.compile(SOURCE, devices=[device]), devices=[f"local-sync://{device}"])
    for i, n in [(3, 10), (-7, -5), (0, 0), (12, 100), (-1, 1)]:
        want = (i * 4 + n // 3 - i % 5 - (-n // 4), min(i + 2, n, 7))
        assert tuple(module.index_math(i, n)) == want, (i, n)
