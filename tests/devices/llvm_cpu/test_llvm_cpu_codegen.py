"""llvm-cpu code generation: targets, ABI types in LLVM, the library builder."""
import llvmlite.binding as llvm
import pytest
from llvmlite import ir

from llvm_cpu_helpers import build, load
from rt.compiler.codegen.llvm_cpu import interface
from rt.compiler.codegen.llvm_cpu.library import LibraryBuilder
from rt.compiler.codegen.llvm_cpu.mmt4d import default_tile
from rt.compiler.codegen.llvm_cpu.target import NAMED_CPUS, cpu_target
from rt.devices.llvm_cpu import abi
from rt.devices.llvm_cpu.cpu_features import host_cpu_features, parse_feature_list
from rt.runtime.errors import InvalidArgumentError


@pytest.mark.parametrize("name,vector_bytes,tile", [
    ("x86-64", 16, (8, 4, 1)), ("x86-64-v2", 16, (8, 4, 1)), ("x86-64-v3", 32, (6, 16, 1)),
    ("x86-64-v4", 64, (16, 16, 1)), ("znver4", 64, (16, 16, 1)), ("znver5", 64, (16, 16, 1)),
    ("znver3", 32, (6, 16, 1)), ("haswell", 32, (6, 16, 1)), ("alderlake", 32, (6, 16, 1)),
    ("skylake-avx512", 64, (8, 32, 1)), ("icelake-server", 64, (8, 32, 1)),
    ("sapphirerapids", 64, (8, 32, 1)), ("graniterapids", 64, (8, 32, 1)),
])
def test_named_targets(name, vector_bytes, tile):
    t = cpu_target(name)
    assert t.cpu == name and t.vector_bytes == vector_bytes and default_tile(t) == tile
    required, _ = parse_feature_list(t.required_features)
    assert "sse2" in required
    assert required == tuple(sorted(required))
    # Features LLVM never emits from plain IR are not required (znver4 lists rdpru, pku...).
    assert not {"rdpru", "pku", "mwaitx", "wbnoinvd", "xsave", "fsgsbase"} & set(required)


def test_x86_64_v3_required_features_exact():
    assert cpu_target("x86-64-v3").required_features == (
        "+avx,+avx2,+bmi,+bmi2,+cx16,+f16c,+fma,+lzcnt,+movbe,+popcnt,+sahf,+sse,+sse2,"
        "+sse3,+sse4.1,+sse4.2,+ssse3")


def test_host_target_and_extra_features():
    host = cpu_target("host")
    assert set(host.features) == set(host_cpu_features())
    t = cpu_target("x86-64", "+avx2,+fma")
    assert t.vector_bytes == 32 and "+avx2" in t.required_features
    t = cpu_target("x86-64-v4", "-avx512f")
    assert t.vector_bytes == 32 and "avx512f" not in t.features


@pytest.mark.parametrize("name,features,message", [
    ("pentium9", "", "CPU 'pentium9' is not known"),
    ("host", "+avx9000", r"unknown feature\(s\) \['avx9000'\]"),
    ("host", "avx2", "must look like '\\+name'"),
])
def test_bad_targets_rejected(name, features, message):
    with pytest.raises(InvalidArgumentError, match=message):
        cpu_target(name, features)


@pytest.mark.parametrize("struct", [abi.DISPATCH_STATE_V0, abi.WORKGROUP_STATE_V0,
                                    abi.EXPORT_ATTRS_V0, abi.LIBRARY_V0])
def test_llvm_struct_layout_matches_abi(struct):
    machine = cpu_target("x86-64").target_machine()
    data = machine.target_data
    module = ir.Module()
    ty = interface.struct_type(struct)
    g = ir.GlobalVariable(module, ty, "g")
    g.initializer = ir.Constant(ty, None)
    parsed = llvm.parse_assembly(str(module))
    parsed.data_layout = str(data)
    llvm_ty = parsed.get_global_variable("g").global_value_type
    assert data.get_abi_size(llvm_ty) == struct.size
    for i, f in enumerate(struct.fields):
        assert data.get_element_offset(llvm_ty, i) == struct.offset(f.name)


def _empty(lb, name):
    fn = lb.declare_export(name)
    ir.IRBuilder(fn.append_basic_block()).ret(interface.I32(0))
    return lb.add_export(fn, 0, 0, (4, 2, 1))


def test_builder_records_workgroup_size_and_order():
    lib = load(build(lambda lb: [_empty(lb, n) for n in ("b", "a", "c")]))
    assert [(e.name, e.workgroup_size) for e in lib.exports] == [
        ("b", (4, 2, 1)), ("a", (4, 2, 1)), ("c", (4, 2, 1))]


def test_library_without_exports():
    lib = load(build(lambda lb: None))
    assert lib.exports == ()
    with pytest.raises(InvalidArgumentError, match="this library has no exports"):
        lib.dispatch(0, (1, 1, 1), [], [], [])


def test_builder_rejects_bad_exports():
    lb = LibraryBuilder("x", cpu_target("x86-64"))
    _empty(lb, "k")
    with pytest.raises(InvalidArgumentError, match="symbol 'k' is already defined"):
        lb.declare_export("k")
    with pytest.raises(InvalidArgumentError, match="symbol 'rt_library_query' is already defined"):
        lb.declare_export(abi.LIBRARY_QUERY_SYMBOL)
    fn = lb.declare_export("m")
    with pytest.raises(InvalidArgumentError, match="65 bindings"):
        lb.add_export(fn, abi.MAX_BINDINGS + 1, 0)
    with pytest.raises(InvalidArgumentError, match="workgroup_size \\(0, 1, 1\\)"):
        lb.add_export(fn, 0, 0, (0, 1, 1))


@pytest.mark.parametrize("cpu", sorted(NAMED_CPUS))
def test_every_named_cpu_compiles_a_kernel(cpu):
    from rt.compiler.codegen.llvm_cpu.elementwise import emit_elementwise
    obj = build(lambda lb: emit_elementwise(lb, "exp", "exp"), cpu=cpu)
    assert obj.data[:4] == b"\x7fELF"
    assert obj.metadata["cpu"] == cpu
    assert obj.metadata["cpu_features"] == cpu_target(cpu).required_features
