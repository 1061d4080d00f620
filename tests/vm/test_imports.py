"""Imports: native modules, variadic spans, cconv mismatch, missing/optional imports, __init,
module-to-module imports, exception propagation with the VM stack."""
import pytest

from rt.runtime.errors import InvalidArgumentError, NotFoundError, VMTrapError
from rt.runtime.vm import Context, Instance, Module, ModuleBuilder, NativeModule, native_function

from vm_helpers import load


class Hal(NativeModule):
    name = "hal"

    def __init__(self):
        self.calls = []

    @native_function("buffer_view.create", "0rIIiiCID_r")
    def buffer_view_create(self, buffer, offset, length, element_type, encoding_type, shape):
        self.calls.append((buffer, offset, length, element_type, encoding_type, shape))
        return ("bv", tuple(shape))

    @native_function("pair", "0CiFD_iF")
    def pair(self, items):
        return len(items), sum(f for _, f in items)

    @native_function("boom", "0i_v")
    def boom(self, x):
        raise KeyError(f"no buffer {x}")

    @native_function("bad_result", "0v_i")
    def bad_result(self):
        return "not an int"


def caller_module():
    mb = ModuleBuilder("app")
    create = mb.import_function("hal.buffer_view.create", "0rIIiiCID_r")
    fb = mb.function("make", "0rI_r", export=True)
    buf, n = fb.args
    off, et, enc, d1, out = fb.reg("i64"), fb.reg("i32"), fb.reg("i32"), fb.reg("i64"), fb.reg("ref")
    fb.const_i64(off, 16)
    fb.const_i32(et, 0x20000020)
    fb.const_i32(enc, 1)
    fb.const_i64(d1, 7)
    fb.call_variadic(create, [2], [buf, off, n, et, enc, n, d1], [out])
    fb.return_([out])
    return mb


def test_native_call_with_variadic_span():
    hal = Hal()
    f = load(caller_module(), hal).lookup_function("app.make")
    token = object()
    assert f(token, 12) == ("bv", (12, 7))
    assert hal.calls == [(token, 16, 12, 0x20000020, 1, [12, 7])]


def test_multi_letter_span_arrives_as_tuples():
    mb = ModuleBuilder("app")
    pair = mb.import_function("hal.pair", "0CiFD_iF")
    fb = mb.function("f", "0iF_iF", export=True)
    a, x = fb.args
    n, s = fb.reg("i32"), fb.reg("f64")
    fb.call_variadic(pair, [3], [a, x, a, x, a, x], [n, s])
    fb.return_([n, s])
    assert load(mb, Hal()).lookup_function("app.f")(1, 0.5) == (3, 1.5)


def test_cconv_mismatch_names_both_signatures():
    mb = ModuleBuilder("app")
    mb.import_function("hal.buffer_view.create", "0rIIiiCiD_r")
    fb = mb.function("f", "0v_v", export=True)
    fb.return_([])
    with pytest.raises(InvalidArgumentError, match=r"expected cconv 0rIIiiCiD_r, but hal provides buffer_view.create with cconv 0rIIiiCID_r"):
        load(mb, Hal())


def test_missing_import_module_and_function():
    with pytest.raises(NotFoundError, match=r"imports hal.buffer_view.create .* no module named 'hal'"):
        load(caller_module())
    mb = ModuleBuilder("app")
    mb.import_function("hal.nope", "0v_v")
    fb = mb.function("f", "0v_v", export=True)
    fb.return_([])
    with pytest.raises(NotFoundError, match=r"module 'hal' has no function 'nope'"):
        load(mb, Hal())


def test_optional_import_absent_traps_only_when_called():
    mb = ModuleBuilder("app")
    opt = mb.import_function("ext.maybe", "0v_i", optional=True)
    fb = mb.function("f", "0i_i", export=True)
    (x,) = fb.args
    skip, call = fb.label(), fb.label()
    fb.cond_br(x, skip, call)
    fb.bind(call)
    fb.call_import(opt, [], [x])
    fb.bind(skip)
    fb.return_([x])
    f = load(mb).lookup_function("app.f")
    assert f(5) == 5
    with pytest.raises(VMTrapError, match=r"import ext.maybe \(0v_i\), which is optional and not provided"):
        f(0)


def test_native_exception_keeps_type_and_gets_vm_stack():
    mb = ModuleBuilder("app")
    boom = mb.import_function("hal.boom", "0i_v")
    fb = mb.function("f", "0i_v", export=True)
    fb.loc("app.mlir", 5, 7)
    fb.call_import(boom, list(fb.args), [])
    fb.return_([])
    with pytest.raises(KeyError) as info:
        load(mb, Hal()).lookup_function("app.f")(42)
    assert info.value.vm_stack == ("app.mlir:5:7 in @f",)
    assert any("app.mlir:5:7 in @f" in n for n in info.value.__notes__)


def test_bad_native_result_is_a_trap():
    mb = ModuleBuilder("app")
    bad = mb.import_function("hal.bad_result", "0v_i")
    fb = mb.function("f", "0v_i", export=True)
    r = fb.reg("i32")
    fb.call_import(bad, [], [r])
    fb.return_([r])
    with pytest.raises(VMTrapError, match=r"import hal.bad_result: expected an i32 result"):
        load(mb, Hal()).lookup_function("app.f")()


def test_bytecode_to_bytecode_import_and_init():
    lib = ModuleBuilder("lib")
    g = lib.global_("base", "i32")
    init = lib.function("__init", "0v_v", export=True)
    v = init.reg("i32")
    init.const_i32(v, 100)
    init.global_store_i32(v, g)
    init.return_([])
    add = lib.function("add_base", "0i_i", export=True)
    (x,) = add.args
    b = add.reg("i32")
    add.global_load_i32(b, g)
    add.add_i32(x, x, b)
    add.return_([x])
    app = ModuleBuilder("app")
    imp = app.import_function("lib.add_base", "0i_i")
    fb = app.function("f", "0i_i", export=True)
    (y,) = fb.args
    fb.call_import(imp, [y], [y])
    fb.return_([y])
    ctx = Context(Instance(), [Module.from_bytes(lib.build()), Module.from_bytes(app.build())])
    assert ctx.lookup_function("app.f")(5) == 105
    assert ctx.module_state("lib").global_value("i32", 0) == 100


def test_native_module_definition_errors():
    with pytest.raises(InvalidArgumentError, match="calling convention"):
        native_function("x", "rr_r")
    with pytest.raises(NotFoundError, match="has no function 'nope'"):
        Hal().lookup_function("nope")
    with pytest.raises(NotFoundError, match="no function 'app.nope'|no exported function 'nope'"):
        load(caller_module(), Hal()).lookup_function("app.nope")
