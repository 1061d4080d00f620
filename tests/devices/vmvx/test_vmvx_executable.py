"""vmvx executables end to end: testing variants through LOADER, the VM and the microkernels."""
import numpy as np
import pytest

from rt.devices.vmvx import LOADER, VmvxModule, testing
from rt.runtime.errors import DeviceError, InvalidArgumentError, ModuleFormatError, UnimplementedError
from rt.runtime.hal.executable_library import ExportInfo
from rt.runtime.vm import ModuleBuilder


def _ptrs(*arrays):
    return [a.ctypes.data for a in arrays], [a.nbytes for a in arrays]


def test_loader_identity_and_support_queries():
    assert LOADER.name == "vmvx" and LOADER.formats == ("vmvx-bytecode",)
    assert LOADER.unsupported_reason("vmvx-bytecode", {}) is None
    assert "not one of" in LOADER.unsupported_reason("llvm-cpu-object-x86_64", {})
    assert "ABI 'v9'" in LOADER.unsupported_reason("vmvx-bytecode", {"abi": "v9"})
    assert LOADER.unsupported_reason("vmvx-bytecode", None) is None
    with pytest.raises(UnimplementedError, match="ABI 'v9'"):
        LOADER.load("vmvx-bytecode", testing.empty()[1], {"abi": "v9"})
    with pytest.raises(InvalidArgumentError, match="format 'elf'"):
        LOADER.load("elf", b"", {})


@pytest.mark.parametrize("n,tile", [(1000, 64), (64, 64), (1, 8), (4099, 512)])
def test_elementwise_add_runs_every_workgroup(n, tile):
    exe = LOADER.load(*testing.elementwise_add_f32(tile))
    assert exe.format == "vmvx-bytecode"
    assert exe.exports == (ExportInfo("add_dispatch_0", 3, 1, (tile, 1, 1)),)
    a = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    b = np.arange(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    exe.dispatch(0, (-(-n // tile), 1, 1), [n], *_ptrs(a, b, out))
    np.testing.assert_array_equal(out, a + b)


@pytest.mark.parametrize("tile", [(4, 4, 1), (3, 5, 2), (16, 16, 1)])
def test_mmt4d_tile_per_workgroup_matches_numpy(tile):
    m0, n0, k0 = tile
    M, N, K = 3, 2, 5
    rng = np.random.default_rng(7)
    lhs = rng.uniform(-1, 1, (M, K, m0, k0)).astype(np.float32)
    rhs = rng.uniform(-1, 1, (N, K, n0, k0)).astype(np.float32)
    out = np.zeros((M, N, m0, n0), np.float32)
    exe = LOADER.load(*testing.mmt4d_f32(*tile))
    exe.dispatch(0, (N, M, 1), [M, N, K], *_ptrs(lhs, rhs, out))
    want = np.einsum("mkac,nkbc->mnab", lhs.astype(np.float64), rhs.astype(np.float64))
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_empty_kernel_accepts_its_bindings_and_zero_workgroups():
    exe = LOADER.load(*testing.empty(binding_count=2, constant_count=3))
    assert exe.exports[0] == ExportInfo("empty_dispatch_0", 2, 3, (1, 1, 1))
    buf = np.zeros(4, np.uint8)
    exe.dispatch(0, (3, 2, 2), [1, 2, 3], *_ptrs(buf, buf))
    exe.dispatch(0, (0, 5, 5), [1, 2, 3], *_ptrs(buf, buf))
    np.testing.assert_array_equal(buf, 0)


def test_failing_kernel_reports_export_workgroup_and_message():
    exe = LOADER.load(*testing.failing("boom from vmvx"))
    with pytest.raises(DeviceError) as e:
        exe.dispatch(0, (2, 2, 1), [], [], [])
    msg = str(e.value)
    assert "fail_dispatch_0" in msg and "workgroup (0, 0, 0) of (2, 2, 1)" in msg
    assert "boom from vmvx" in msg


def test_out_of_bounds_binding_becomes_device_error_naming_kernel_and_binding():
    exe = LOADER.load(*testing.elementwise_add_f32(64))
    a, b, out = np.ones(100, np.float32), np.ones(100, np.float32), np.zeros(50, np.float32)
    with pytest.raises(DeviceError) as e:
        exe.dispatch(0, (2, 1, 1), [100], *_ptrs(a, b, out))
    msg = str(e.value)
    assert "add_dispatch_0: workgroup (0, 0, 0)" in msg
    assert "vmvx.add.2d.f32: operand 'out' is out of bounds of binding 2" in msg
    np.testing.assert_array_equal(out, 0)


def test_read_only_binding_cannot_be_written():
    mb = ModuleBuilder("ro_write")
    fill = mb.import_function("vmvx.fill.2d.x32", "0irIIIII_v")
    fb = mb.function("fill_dispatch_0", "0rriiiiii_v", export=True,
                     reflection={"binding_count": "1", "constant_count": "0", "binding_access": "ro"})
    value, idx, ref = fb.reg("i32"), fb.reg("i32"), fb.reg("ref")
    zero, one = fb.reg("i64"), fb.reg("i64")
    fb.const_i32(value, 5)
    fb.const_i32(idx, 0)
    fb.const_i64(zero, 0)
    fb.const_i64(one, 1)
    fb.list_get_ref(ref, fb.args[1], idx)
    fb.call_import(fill, [value, ref, zero, one, one, one, one], [])
    fb.return_([])
    exe = LOADER.load("vmvx-bytecode", mb.build(), {})
    buf = np.zeros(4, np.int32)
    with pytest.raises(DeviceError, match="binding 0, which is bound read-only"):
        exe.dispatch(0, (1, 1, 1), [], *_ptrs(buf))
    np.testing.assert_array_equal(buf, 0)


def test_dispatch_argument_validation():
    exe = LOADER.load(*testing.elementwise_add_f32(64))
    a = np.zeros(4, np.float32)
    with pytest.raises(InvalidArgumentError, match=r"export ordinal 1 is not in \[0, 1\)"):
        exe.dispatch(1, (1, 1, 1), [4], *_ptrs(a, a, a))
    with pytest.raises(InvalidArgumentError, match="0 push constants given, the export takes 1"):
        exe.dispatch(0, (1, 1, 1), [], *_ptrs(a, a, a))
    with pytest.raises(InvalidArgumentError, match="takes 3"):
        exe.dispatch(0, (1, 1, 1), [4], *_ptrs(a, a))
    with pytest.raises(InvalidArgumentError, match=r"workgroup count \(1, -1, 1\) has a negative"):
        exe.dispatch(0, (1, -1, 1), [4], *_ptrs(a, a, a))
    with pytest.raises(InvalidArgumentError, match="push constant 0 4294967296 does not fit"):
        exe.dispatch(0, (1, 1, 1), [2**32], *_ptrs(a, a, a))


def _module_with(cconv="0rriiiiii_v", reflection=None, imports=()):
    mb = ModuleBuilder("bad")
    for name, cc in imports:
        mb.import_function(name, cc)
    fb = mb.function("d", cconv, export=True,
                     reflection=reflection if reflection is not None else {"binding_count": "0", "constant_count": "0"})
    fb.return_([])
    return mb.build()


@pytest.mark.parametrize("data,fragment", [
    (_module_with(cconv="0rri_v"), "calling convention '0rri_v'"),
    (_module_with(reflection={}), "needs binding_count and constant_count"),
    (_module_with(reflection={"binding_count": "1", "constant_count": "0", "binding_access": "wo"}), "binding_access"),
    (_module_with(reflection={"binding_count": "0", "constant_count": "0", "workgroup_size": "0,1,1"}), "workgroup_size"),
    (_module_with(imports=[("vmvx.nope.2d.f32", "0r_v")]), "import 'vmvx.nope.2d.f32'"),
    (_module_with(imports=[("vmvx.add.2d.f32", "0r_v")]), "expected cconv '0rIIIrIIIrIIIII_v'"),
    (_module_with(imports=[("hal.buffer.length", "0r_I")]), "import 'hal.buffer.length'"),
    (b"\x00" * 40, ""),
])
def test_malformed_executables_are_rejected_at_load(data, fragment):
    with pytest.raises(ModuleFormatError, match=fragment or None):
        LOADER.load("vmvx-bytecode", data, {})


def test_module_exports_every_kernel_with_iree_style_names():
    names = set(VmvxModule.exports)
    for name in ("add.2d.f32", "add.2d.i32", "divs.2d.i32", "shru.2d.i32", "exp.2d.f32",
                 "ctlz.2d.i32", "copy.2d.x8", "copy.2d.x64", "fill.2d.x32", "reduce.sum.2d.f32",
                 "reduce.min.2d.i32", "mmt4d.f32f32f32", "mmt4d.i8i8i32", "pack.x32", "unpack.x8"):
        assert name in names
    assert VmvxModule.exports["mmt4d.i8i8i32"][1].text == "0rIIrIIrIIIIIiiii_v"
