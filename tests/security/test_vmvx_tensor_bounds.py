"""vmvx checks every access against the accessed tensor's own range, not the whole binding
(issue 13, defect 5): when one binding holds several tensors (a transient slab), a kernel that
reads past its tensor -- a data-tiled matmul whose K disagrees with its operand, here crafted
in Kernel IR since the host's shape checks now refuse such programs first -- fails with an
error naming the dispatch and the tensor's range, instead of reading the neighbour."""
import numpy as np
import pytest

import rt
from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.targets import get_backend
from rt.devices.vmvx import LOADER
from rt.runtime.errors import DeviceError

#: Microkernels, then scalar bytecode only (buffer.load / buffer.store).
CONFIGS = ("", "no-ukernels")


def _exe(kernel, config):
    backend = get_backend("vmvx")
    fmt, data, metadata = backend.serialize("bounds", [kernel], backend.target_config(config))
    return LOADER.load(fmt, data, metadata)


def _run(exe, arrays, workgroups=(1, 1, 1), constants=()):
    exe.dispatch(0, workgroups, list(constants), [a.ctypes.data for a in arrays],
                 [a.nbytes for a in arrays])


def _copy_kernel(n, extent):
    """out[i] = 2 * src[i] for i < n; src is the first tensor of binding 0 (``extent``)."""
    g = kir.Generic((n,), ("parallel",), (kir.View(0, "f32", (n,), 0, extent=extent),),
                    (kir.View(1, "f32", (n,), 0, extent=(0, n)),),
                    ((kir.AffineExpr.dim(0),),) * 2,
                    (kir.ScalarOp("arith.addf", (0, 0), "f32"),), (2,), "elementwise")
    return kir.Kernel("twice", 2, 0, (g,), kir.Distribution(), ("ro", "wo"))


@pytest.mark.parametrize("config", CONFIGS)
def test_an_elementwise_read_past_its_tensor_in_a_slab_is_an_error(config):
    slab = np.arange(16, dtype=np.float32)  # tensor A = slab[:8], its neighbour B = slab[8:]
    out = np.full(12, -1, np.float32)
    with pytest.raises(DeviceError, match=r"vmvx dispatch twice: workgroup \(0, 0, 0\) .*"
                                          r"out of bounds of .*binding 0 bytes \[0, 32\)"):
        _run(_exe(_copy_kernel(12, (0, 8)), config), [slab, out])
    ok = np.zeros(8, np.float32)
    _run(_exe(_copy_kernel(8, (0, 8)), config), [slab, ok])
    np.testing.assert_array_equal(ok, 2 * slab[:8])


@pytest.mark.parametrize("config", CONFIGS)
def test_a_data_tiled_matmul_with_a_larger_k_than_its_lhs_is_an_error(config):
    """LHS [M1=1, K1=1, 4, 1] and RHS [N1=1, K1=1, 4, 1] sit side by side in binding 0; the
    kernel's K1 comes from a push constant (2), so its LHS rows would run into the RHS."""
    k1 = kir.Constant(0)
    lhs = kir.View(0, "f32", (1, k1, 4, 1), 0, extent=(0, 4))
    rhs = kir.View(0, "f32", (1, k1, 4, 1), 4, extent=(4, 4))
    out = kir.View(1, "f32", (1, 1, 4, 4), 0, extent=(0, 16))
    kernel = kir.Kernel("mm", 2, 1, (kir.Mmt4d(lhs, rhs, out),), kir.Distribution(), ("ro", "rw"))
    slab = np.arange(8, dtype=np.float32)
    result = np.zeros(16, np.float32)
    exe = _exe(kernel, config)
    with pytest.raises(DeviceError, match=r"vmvx dispatch mm: .*out of bounds of .*binding 0 bytes \[0, 16\)"):
        _run(exe, [slab, result], constants=[2])
    _run(exe, [slab, result], constants=[1])
    np.testing.assert_array_equal(result.reshape(4, 4), np.outer(slab[:4], slab[4:]))


def test_a_binding_smaller_than_its_tensor_is_an_error():
    """The subspan's range must lie inside the binding the dispatch was given."""
    with pytest.raises(DeviceError, match=r"a tensor of 48 bytes at byte offset 0 does not fit in the "
                                          r"32-byte buffer binding 0"):
        _run(_exe(_copy_kernel(12, (0, 12)), ""), [np.zeros(8, np.float32), np.zeros(12, np.float32)])


@pytest.mark.parametrize("device", ["vmvx", "llvm-cpu"])
def test_programs_whose_transients_share_a_slab_still_compute(device):
    """Compiled programs: every vmvx view now goes through its tensor's subspan; a chain of
    dispatches whose intermediates live in one transient slab gives numpy's values."""
    src = """
    func.func @chain(%a: tensor<6x5xf32>, %b: tensor<5x7xf32>) -> tensor<6x7xf32> {
      %z = tensor.empty() : tensor<6x7xf32>
      %c0 = arith.constant 0.0 : f32
      %f = linalg.fill ins(%c0 : f32) outs(%z : tensor<6x7xf32>) -> tensor<6x7xf32>
      %m = linalg.matmul ins(%a, %b : tensor<6x5xf32>, tensor<5x7xf32>) outs(%f : tensor<6x7xf32>) -> tensor<6x7xf32>
      %e = tensor.empty() : tensor<6x7xf32>
      %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                           iterator_types = ["parallel", "parallel"]}
          ins(%m : tensor<6x7xf32>) outs(%e : tensor<6x7xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = arith.mulf %x, %x : f32
          linalg.yield %y : f32
      } -> tensor<6x7xf32>
      return %r : tensor<6x7xf32>
    }
    """
    rng = np.random.default_rng(3)
    a = rng.standard_normal((6, 5)).astype(np.float32)
    b = rng.standard_normal((5, 7)).astype(np.float32)
    with rt.load(rt.compile(src, devices=[device])) as m:
        np.testing.assert_allclose(m.chain(a, b), (a @ b) ** 2, rtol=1e-5, atol=1e-5)
