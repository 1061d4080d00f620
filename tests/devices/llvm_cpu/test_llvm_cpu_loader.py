"""The llvm-cpu loader: formats, metadata, CPU features, imports, corrupted objects, lifetime."""
import gc
import hashlib
import sys

import numpy as np
import pytest
from llvmlite import ir

from llvm_cpu_helpers import bindings, build, load
from rt.compiler.codegen.llvm_cpu.interface import F32, I32, KernelInterface
from rt.devices.llvm_cpu import FORMAT, LOADER, abi, testing
from rt.devices.llvm_cpu.cpu_features import host_cpu_features, known_cpu_features
from rt.devices.llvm_cpu.library import LlvmCpuExecutableLibrary
from rt.runtime.errors import (InvalidArgumentError, ModuleFormatError, RtError,
                               UnimplementedError)
from rt.runtime.hal.executable_library import ExecutableLibrary, ExportInfo
from rt.runtime.hal.executable_loader import ExecutableLoader


# A real x86 feature this host lacks (AMX on most hosts; whichever LLVM knows and the host
# has not elsewhere), or None on a host that has them all.
ABSENT = next(iter(sorted(known_cpu_features() - host_cpu_features(),
                          key=lambda f: (not f.startswith("amx"), f))), None)
needs_absent = pytest.mark.skipif(ABSENT is None, reason="this host has every CPU feature LLVM knows")


def _resealed(data, metadata):
    """Metadata whose sha256 matches ``data`` (simulates a producer that wrote bad bytes)."""
    return dict(metadata, sha256=hashlib.sha256(bytes(data)).hexdigest())


def test_loader_identity():
    assert isinstance(LOADER, ExecutableLoader)
    assert LOADER.name == "llvm-cpu"
    assert LOADER.formats == ("llvm-cpu-object-x86_64",) == (FORMAT,)


def test_conformance_executable_exports():
    lib = load(testing.conformance_executable())
    assert isinstance(lib, ExecutableLibrary) and isinstance(lib, LlvmCpuExecutableLibrary)
    assert lib.format == FORMAT
    assert lib.exports == (
        ExportInfo("empty", 0, 0, (1, 1, 1)),
        ExportInfo("add_f32", 3, 1, (1, 1, 1)),
        ExportInfo("fail_at", 0, 4, (1, 1, 1)),
        ExportInfo("mmt4d_f32", 3, 4, (1, 1, 1)),
    )
    a = np.arange(5, dtype=np.float32)
    out = np.zeros(5, np.float32)
    ptrs, lens = bindings(a, a, out)
    lib.dispatch(1, (1, 1, 1), [5], ptrs, lens)
    np.testing.assert_array_equal(out, 2 * a)


def test_metadata_written_by_codegen():
    obj = testing.empty_executable()
    md = obj.metadata
    assert md["abi_version"] == abi.ABI_VERSION
    assert md["exports"] == ["empty"]
    assert md["sha256"] == hashlib.sha256(obj.data).hexdigest()
    assert md["cpu_features"].startswith("+") and "+sse2" in md["cpu_features"].split(",")


def test_wrong_format_rejected():
    obj = testing.empty_executable()
    assert "'vmvx-bytecode' is not one of" in LOADER.unsupported_reason("vmvx-bytecode", {})
    with pytest.raises(InvalidArgumentError, match="format 'vmvx-bytecode' is not one of"):
        LOADER.load("vmvx-bytecode", obj.data, obj.metadata)


@pytest.mark.parametrize("metadata,expected", [
    ({"cpu_features": "+sse2"}, None),
    ({}, None),
    (None, None),
    pytest.param({"cpu_features": f"+{ABSENT},+sse2"},
                 f"requires CPU features +{ABSENT} which this host lacks", marks=needs_absent),
    ({"cpu_features": "+rt-fake-feature"}, "requires CPU features +rt-fake-feature"),
    ({"cpu_features": "avx2"}, "malformed: CPU feature entry 'avx2' must look like"),
    ({"cpu_features": 7}, "malformed: CPU features must be a string"),
    ({"abi_version": 3}, "ABI version 3; this runtime speaks version 0"),
    (["not", "a", "dict"], "metadata must be a dict, got list"),
])
def test_unsupported_reason(metadata, expected):
    reason = LOADER.unsupported_reason(FORMAT, metadata)
    if expected is None:
        assert reason is None
    else:
        assert expected in reason


def _needs_features(features):
    return build(lambda lb: _emit_empty(lb), required_features=features)


def _emit_empty(lb, name="empty"):
    fn = lb.declare_export(name)
    ir.IRBuilder(fn.append_basic_block()).ret(I32(0))
    lb.add_export(fn, 0, 0)


@pytest.mark.parametrize("features, missing", [
    pytest.param(f"+{ABSENT}", ABSENT, marks=needs_absent),
    ("+sse2,+rt-fake-feature", "rt-fake-feature")])
def test_missing_cpu_features_rejected_from_metadata_and_descriptor(features, missing):
    obj = _needs_features(features)
    with pytest.raises(UnimplementedError, match=rf"requires CPU features \+{missing}"):
        LOADER.load(obj.format, obj.data, obj.metadata)
    # Without the metadata hint the descriptor's feature string still stops it.
    md = {k: v for k, v in obj.metadata.items() if k != "cpu_features"}
    with pytest.raises(UnimplementedError, match=r"library 'lib' requires CPU features \+"):
        LOADER.load(obj.format, obj.data, md)


def test_unknown_external_symbol_rejected_before_mapping():
    def emit(lb):
        fn = lb.declare_export("calls_unknown")
        ext = ir.Function(lb.module, ir.FunctionType(I32, [I32]), "rt_no_such_function")
        b = ir.IRBuilder(fn.append_basic_block())
        b.ret(b.call(ext, [I32(1)]))
        lb.add_export(fn, 0, 0)

    obj = build(emit)
    with pytest.raises(ModuleFormatError, match="imports symbols the runtime does not provide: "
                                                "rt_no_such_function"):
        LOADER.load(obj.format, obj.data, obj.metadata)


def test_allowed_libm_import_resolves():
    def emit(lb):
        fn = lb.declare_export("call_expf")
        expf = ir.Function(lb.module, ir.FunctionType(F32, [F32]), "expf")
        b = ir.IRBuilder(fn.append_basic_block())
        k = KernelInterface(b, fn)
        p = k.binding(0)
        b.store(b.call(expf, [b.load(p, typ=F32)]), p)
        b.ret(I32(0))
        lb.add_export(fn, 1, 0)

    obj = build(emit)
    lib = load(obj)
    x = np.array([1.5], np.float32)
    lib.dispatch(0, (1, 1, 1), [], *bindings(x))
    assert x[0] == np.float32(np.exp(np.float32(1.5)))


def test_malformed_metadata_features_rejected():
    obj = testing.empty_executable()
    with pytest.raises(ModuleFormatError, match="cpu_features is malformed"):
        LOADER.load(obj.format, obj.data, dict(obj.metadata, cpu_features="sse2"))


@pytest.mark.parametrize("builtin", [True, False])
def test_object_digest_is_sha256_with_or_without_the_builtin_hash(monkeypatch, builtin):
    from rt.devices.llvm_cpu import loader

    if not builtin:  # a CPython built without its own hashes: hashlib's is used for every size
        monkeypatch.setitem(sys.modules, "_sha256", None)
        monkeypatch.setitem(sys.modules, "_sha2", None)
    for size in (0, 5, loader._BUILTIN_SHA256_BYTES, loader._BUILTIN_SHA256_BYTES + 1):
        data = bytes(i * 7 % 251 for i in range(size))
        assert loader._sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_missing_or_wrong_sha256_rejected():
    obj = testing.empty_executable()
    with pytest.raises(ModuleFormatError, match="no 'sha256' digest"):
        LOADER.load(obj.format, obj.data, {"cpu_features": "+sse2"})
    corrupted = bytearray(obj.data)
    corrupted[len(corrupted) // 2] ^= 0x40
    with pytest.raises(ModuleFormatError, match="sha256 .* does not match"):
        LOADER.load(obj.format, bytes(corrupted), obj.metadata)


@pytest.mark.parametrize("cut", [0, 10, 63, 64, 200, -1])
def test_truncated_object_rejected(cut):
    data = testing.empty_executable().data
    data = data[:cut] if cut >= 0 else data[:len(data) - 1]
    with pytest.raises(ModuleFormatError, match="llvm-cpu object: "):
        LOADER.load(FORMAT, data, _resealed(data, testing.empty_executable().metadata))


def test_garbage_and_wrong_types_rejected():
    md = testing.empty_executable().metadata
    garbage = b"\x7fELF" + bytes(200)
    with pytest.raises(ModuleFormatError, match="class/data/version"):
        LOADER.load(FORMAT, garbage, _resealed(garbage, md))
    with pytest.raises(InvalidArgumentError, match="data must be bytes-like, got str"):
        LOADER.load(FORMAT, "not bytes", md)
    with pytest.raises(InvalidArgumentError, match="metadata must be a dict, got NoneType"):
        LOADER.load(FORMAT, testing.empty_executable().data, None)


def test_memoryview_and_bytearray_accepted():
    obj = testing.empty_executable()
    for data in (memoryview(obj.data), bytearray(obj.data)):
        lib = LOADER.load(obj.format, data, obj.metadata)
        assert [e.name for e in lib.exports] == ["empty"]


def test_object_without_library_query_rejected():
    from rt.compiler.codegen.llvm_cpu.library import LibraryBuilder
    from rt.compiler.codegen.llvm_cpu.target import cpu_target, emit_object
    lb = LibraryBuilder("no_query", cpu_target("host"))
    _emit_empty(lb)
    data = emit_object(lb.module, lb.target)
    md = {"sha256": hashlib.sha256(data).hexdigest()}
    with pytest.raises(ModuleFormatError, match="does not define the library query 'rt_library_query'"):
        LOADER.load(FORMAT, data, md)


def test_object_without_descriptor_rejected():
    from rt.compiler.codegen.llvm_cpu.interface import PTR
    from rt.compiler.codegen.llvm_cpu.target import cpu_target, emit_object
    module = ir.Module("future")
    query = ir.Function(module, ir.FunctionType(PTR, [I32]), abi.LIBRARY_QUERY_SYMBOL)
    query.attributes.add("nounwind")
    ir.IRBuilder(query.append_basic_block()).ret(ir.Constant(PTR, None))
    data = emit_object(module, cpu_target("host"))
    with pytest.raises(ModuleFormatError, match="no 48-byte data symbol 'rt_library_v0'"):
        LOADER.load(FORMAT, data, {"sha256": hashlib.sha256(data).hexdigest()})


def test_loading_never_calls_the_library_query():
    """A query that would crash the process is never run: the descriptor is read as data."""
    def crash_then_return(b, query):
        # Traps (SIGILL) for every version the runtime could ask for; returns the descriptor
        # only for a version no runtime uses, so that the descriptor stays in the object.
        trap = b.module.declare_intrinsic("llvm.trap", fnty=ir.FunctionType(ir.VoidType(), []))
        with b.if_then(b.icmp_unsigned("!=", query.args[0], I32(0xFFFFFFFF))):
            b.call(trap, [])
        b.ret(b.bitcast(query.module.get_global(abi.LIBRARY_DESCRIPTOR_SYMBOL), query.return_value.type))

    lb = _library_with_query(crash_then_return)
    lib = LOADER.load(FORMAT, lb.data, lb.metadata)
    assert [e.name for e in lib.exports] == ["empty"]
    lib.dispatch(0, (1, 1, 1), [], [], [])


def _library_with_query(body):
    """A one-export library whose rt_library_query body is replaced by ``body(builder, query)``."""
    from rt.compiler.codegen.llvm_cpu.library import LibraryBuilder
    from rt.compiler.codegen.llvm_cpu.target import cpu_target
    lb = LibraryBuilder("trap_query", cpu_target("host"))
    _emit_empty(lb)
    original = lb._emit_descriptor

    def emit(features):
        original(features)
        query = lb.module.get_global(abi.LIBRARY_QUERY_SYMBOL)
        query.blocks.clear()
        body(ir.IRBuilder(query.append_basic_block("trap")), query)

    lb._emit_descriptor = emit
    return lb.build()


def test_library_keeps_code_alive():
    obj = testing.elementwise_add_executable()
    lib = LOADER.load(obj.format, obj.data, obj.metadata)
    del obj
    for _ in range(3):
        gc.collect()
    a = np.ones(33, np.float32)
    out = np.zeros(33, np.float32)
    lib.dispatch(0, (2, 1, 1), [33], *bindings(a, a, out))
    np.testing.assert_array_equal(out, 2.0)


def test_many_libraries_load_independently():
    libs = [load(testing.failing_executable()) for _ in range(3)]
    for i, lib in enumerate(libs):
        with pytest.raises(RtError, match=f"returned {i + 5}"):
            lib.dispatch(0, (1, 1, 1), [0, 0, 0, i + 5], [], [])
