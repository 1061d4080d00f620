"""Hand-built ``.vmfb`` modules following docs/compiled_module_abi.md, for tests and examples.

They exercise the runtime API without the compiler (built with rt.runtime.vm.ModuleBuilder):

* ``basic_module()`` -- device ``__device_0`` (llvm-cpu) bound in ``__init``;
  ``identity(%x: tensor<?x4xf32>) -> tensor<?x4xf32>`` returns its argument view;
  ``reshape(%x: tensor<2x3xf32>) -> tensor<3x2xf32>`` returns a new view of the same buffer;
  ``add_i32(%a: i32, %b: i32) -> i32``; ``scale(%x: f32, %n: index) -> (f32, index)`` gives
  ``(x * 2, n + 1)``; ``is_positive(%x: f64) -> i1``; ``device_count() -> i32``.
* ``check_module()`` -- calls the ``check`` module: ``expect_eq(%a, %b: tensor<?xf32>)``,
  ``expect_almost_eq(%a, %b: tensor<?xf32>)`` (atol 1e-3, rtol 0), ``expect_true(%x: i32)``,
  ``expect_all_true(%x: tensor<?xi32>)``; instructions carry ``check_test.mlir`` locations.
* ``add_module(backend="vmvx")`` -- ``add(%a: tensor<?xf32>, %b: tensor<?xf32>) ->
  tensor<?xf32>``: allocates the result, records one dispatch of an elementwise add executable
  (vmvx ``add_dispatch_0`` or llvm-cpu ``add_f32``; ceil(n / 64) workgroups), submits it with
  a signal fence and awaits it, as compiled programs do.
"""
import json

from rt.devices.llvm_cpu.abi import FORMAT as LLVM_CPU_FORMAT
from rt.devices.vmvx import testing as vmvx_testing
from rt.runtime.hal import BufferUsage, ElementType, MemoryType
from rt.runtime.hal.module import HalModule
from rt.runtime.modules.check import CheckModule
from rt.runtime.vm import ModuleBuilder

F32 = int(ElementType.FLOAT_32)
DENSE = 1


def tensor(name, shape, dtype):
    """An ``rt.abi`` ARG entry for ``tensor<shape x dtype>`` (None = dynamic dim)."""
    dims = "x".join(["?" if d is None else str(d) for d in shape] + [dtype])
    return {"name": name, "type": f"tensor<{dims}>", "kind": "tensor", "shape": list(shape),
            "dtype": dtype, "encoding": None}


def scalar(name, dtype):
    """An ``rt.abi`` ARG entry for a scalar of ``dtype`` (``index``, ``i32``, ``f32``...)."""
    return {"name": name, "type": dtype, "kind": "scalar", "dtype": dtype}


def reflection(declaration, args, results, source):
    """The reflection dict of an export: declaration, ``rt.abi`` JSON, source location."""
    return {"iree.abi.declaration": declaration,
            "rt.abi": json.dumps({"args": args, "results": results}), "rt.source": source}


def devices_attribute(*backends):
    """The ``rt.devices`` module attribute for one device per backend (llvm-cpu, vmvx)."""
    formats = {"llvm-cpu": LLVM_CPU_FORMAT, "vmvx": vmvx_testing.FORMAT}
    return json.dumps([{"name": f"__device_{i}", "targets": [{"backend": b, "format": formats[b],
                                                               "config": {}}]}
                       for i, b in enumerate(backends)])


def _hal(mb, *names):
    return {n: mb.import_function("hal." + n, HalModule.exports[n][1].text) for n in names}


def _const(fb, type_, value):
    r = fb.reg(type_)
    getattr(fb, f"const_{type_}")(r, value)
    return r


def _init_device(mb, hal):
    dev = mb.global_("__device_0", "ref")
    fb = mb.function("__init", "0v_v", export=True)
    d = fb.reg("ref")
    fb.call_import(hal["devices.get"], [_const(fb, "i32", 0)], [d])
    fb.global_store_ref(d, dev)
    return fb, dev


def basic_module():
    """The ``basic`` module (see the module docstring); returns .vmfb bytes."""
    mb = ModuleBuilder("basic", attributes={"rt.devices": devices_attribute("llvm-cpu")})
    hal = _hal(mb, "devices.get", "devices.count", "buffer_view.buffer", "buffer_view.create")
    fb, _ = _init_device(mb, hal)
    fb.return_([])

    x = tensor("x", (None, 4), "f32")
    fb = mb.function("identity", "0r_r", export=True, reflection=reflection(
        "func @identity(%x: tensor<?x4xf32>) -> tensor<?x4xf32>", [x], [x], "basic.mlir:1:1"))
    fb.return_([fb.args[0]])

    fb = mb.function("reshape", "0r_r", export=True, reflection=reflection(
        "func @reshape(%x: tensor<2x3xf32>) -> tensor<3x2xf32>", [tensor("x", (2, 3), "f32")],
        [tensor("", (3, 2), "f32")], "basic.mlir:5:1"))
    buf, view = fb.reg("ref"), fb.reg("ref")
    fb.call_import(hal["buffer_view.buffer"], [fb.args[0]], [buf])
    fb.call_variadic(hal["buffer_view.create"], [2],
                     [buf, _const(fb, "i64", 0), _const(fb, "i64", 24), _const(fb, "i32", F32),
                      _const(fb, "i32", DENSE), _const(fb, "i64", 3), _const(fb, "i64", 2)], [view])
    fb.return_([view])

    fb = mb.function("add_i32", "0ii_i", export=True, reflection=reflection(
        "func @add_i32(%a: i32, %b: i32) -> i32", [scalar("a", "i32"), scalar("b", "i32")],
        [scalar("", "i32")], "basic.mlir:9:1"))
    r = fb.reg("i32")
    fb.add_i32(r, *fb.args)
    fb.return_([r])

    fb = mb.function("scale", "0fI_fI", export=True, reflection=reflection(
        "func @scale(%x: f32, %n: index) -> (f32, index)", [scalar("x", "f32"), scalar("n", "index")],
        [scalar("", "f32"), scalar("", "index")], "basic.mlir:13:1"))
    xs, n = fb.args
    y, m = fb.reg("f32"), fb.reg("i64")
    fb.mul_f32(y, xs, _const(fb, "f32", 2.0))
    fb.add_i64(m, n, _const(fb, "i64", 1))
    fb.return_([y, m])

    fb = mb.function("is_positive", "0F_i", export=True, reflection=reflection(
        "func @is_positive(%x: f64) -> i1", [scalar("x", "f64")], [scalar("", "i1")], "basic.mlir:17:1"))
    r = fb.reg("i32")
    fb.cmp_gt_f64_o(r, fb.args[0], _const(fb, "f64", 0.0))
    fb.return_([r])

    fb = mb.function("device_count", "0v_i", export=True, reflection=reflection(
        "func @device_count() -> i32", [], [scalar("", "i32")], "basic.mlir:21:1"))
    r = fb.reg("i32")
    fb.call_import(hal["devices.count"], [], [r])
    fb.return_([r])
    return mb.build()


def check_module():
    """The ``checks`` module (see the module docstring); returns .vmfb bytes."""
    mb = ModuleBuilder("checks", attributes={"rt.devices": devices_attribute("llvm-cpu")})
    hal = _hal(mb, "devices.get")
    check = {n: mb.import_function("check." + n, CheckModule.exports[n][1].text)
             for n in ("expect_true", "expect_eq", "expect_almost_eq", "expect_all_true")}
    fb, dev = _init_device(mb, hal)
    fb.return_([])
    v = tensor("a", (None,), "f32")
    for line, name in ((3, "expect_eq"), (7, "expect_almost_eq")):
        fb = mb.function(name, "0rr_v", export=True, reflection=reflection(
            f"func @{name}(%a: tensor<?xf32>, %b: tensor<?xf32>)", [v, dict(v, name="b")], [],
            f"check_test.mlir:{line}:1"))
        d = fb.reg("ref")
        fb.global_load_ref(d, dev)
        fb.loc("check_test.mlir", line + 1, 3)
        extra = [_const(fb, "f32", 1e-3), _const(fb, "f32", 0.0)] if name == "expect_almost_eq" else []
        fb.call_import(check[name], [d, *fb.args, *extra], [])
        fb.return_([])
    fb = mb.function("expect_true", "0i_v", export=True, reflection=reflection(
        "func @expect_true(%x: i32)", [scalar("x", "i32")], [], "check_test.mlir:11:1"))
    fb.loc("check_test.mlir", 12, 3)
    fb.call_import(check["expect_true"], [fb.args[0]], [])
    fb.return_([])
    fb = mb.function("expect_all_true", "0r_v", export=True, reflection=reflection(
        "func @expect_all_true(%x: tensor<?xi32>)", [tensor("x", (None,), "i32")], [],
        "check_test.mlir:15:1"))
    d = fb.reg("ref")
    fb.global_load_ref(d, dev)
    fb.loc("check_test.mlir", 16, 3)
    fb.call_import(check["expect_all_true"], [d, fb.args[0]], [])
    fb.return_([])
    return mb.build()


def _add_executable(backend, tile):
    """(format, data, metadata) of an elementwise f32 add export taking bindings [lhs, rhs, out]
    and push constant n, correct for any workgroup count (llvm-cpu) or ceil(n / tile) (vmvx)."""
    if backend == "vmvx":
        return vmvx_testing.elementwise_add_f32(tile)
    from rt.devices.llvm_cpu import testing as llvm_cpu_testing

    obj = llvm_cpu_testing.elementwise_add_executable()
    return obj.format, obj.data, obj.metadata


def add_module(backend="vmvx", tile=64):
    """The ``adder`` module: ``@add`` dispatching an elementwise add on ``backend``; .vmfb bytes."""
    mb = ModuleBuilder("adder", attributes={"rt.devices": devices_attribute(backend)})
    hal = _hal(mb, "devices.get", "executable.create", "buffer_view.dim", "buffer_view.buffer",
               "buffer_view.create", "device.allocator", "allocator.allocate", "command_buffer.create",
               "command_buffer.dispatch", "command_buffer.finalize", "fence.create",
               "device.queue.execute", "fence.await")
    fmt, data, metadata = _add_executable(backend, tile)
    fmt_ro = mb.rodata("format", fmt.encode())
    data_ro = mb.executable("add_dispatch_0", fmt, data, metadata)
    exe = mb.global_("__executable_0", "ref")
    fb, dev = _init_device(mb, hal)
    d, fr, dr, null, e = (fb.reg("ref") for _ in range(5))
    fb.global_load_ref(d, dev)
    fb.const_ref_rodata(fr, fmt_ro)
    fb.const_ref_rodata(dr, data_ro)
    fb.const_ref_zero(null)
    fb.call_import(hal["executable.create"], [d, _const(fb, "i64", -1), fr, dr, null], [e])
    fb.global_store_ref(e, exe)
    fb.return_([])

    v = tensor("a", (None,), "f32")
    fb = mb.function("add", "0rr_r", export=True, reflection=reflection(
        "func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32>", [v, dict(v, name="b")],
        [tensor("", (None,), "f32")], "add.mlir:1:1"))
    fb.loc("add.mlir", 2, 8)
    a, b = fb.args
    d, e, alloc, out, cb, fence, null, view = (fb.reg("ref") for _ in range(8))
    bufs = [fb.reg("ref"), fb.reg("ref")]
    n, size, groups64, zero64, minus1 = (fb.reg("i64") for _ in range(5))
    groups, n32, status = fb.reg("i32"), fb.reg("i32"), fb.reg("i32")
    fb.global_load_ref(d, dev)
    fb.global_load_ref(e, exe)
    fb.const_ref_zero(null)
    fb.const_i64(zero64, 0)
    fb.const_i64(minus1, -1)
    fb.call_import(hal["buffer_view.dim"], [a, _const(fb, "i32", 0)], [n])
    for src, buf in zip((a, b), bufs):
        fb.call_import(hal["buffer_view.buffer"], [src], [buf])
    fb.mul_i64(size, n, _const(fb, "i64", 4))
    fb.call_import(hal["device.allocator"], [d], [alloc])
    fb.call_import(hal["allocator.allocate"], [alloc, minus1, _const(fb, "i32", int(MemoryType.DEVICE_LOCAL)),
                                               _const(fb, "i32", int(BufferUsage.DEFAULT)), size], [out])
    fb.call_import(hal["command_buffer.create"], [d, _const(fb, "i32", 1), _const(fb, "i32", 3), minus1,
                                                  _const(fb, "i32", 0)], [cb])
    fb.ceildiv_i64_s(groups64, n, _const(fb, "i64", tile))
    fb.trunc_i64_i32(groups, groups64)
    fb.trunc_i64_i32(n32, n)
    one, zero = _const(fb, "i32", 1), _const(fb, "i32", 0)
    bindings = []
    for buf in (*bufs, out):
        bindings += [zero, zero, buf, zero64, size]
    fb.loc("add.mlir", 3, 8)
    fb.call_variadic(hal["command_buffer.dispatch"], [1, 3],
                     [cb, e, zero64, groups, one, one, zero64, n32, *bindings], [])
    fb.call_import(hal["command_buffer.finalize"], [cb], [])
    fb.call_import(hal["fence.create"], [d, zero64], [fence])
    fb.call_import(hal["device.queue.execute"], [d, minus1, null, fence, cb, zero64], [])
    fb.call_variadic(hal["fence.await"], [1], [_const(fb, "i32", -1), zero64, fence], [status])
    fb.call_variadic(hal["buffer_view.create"], [1],
                     [out, zero64, size, _const(fb, "i32", F32), _const(fb, "i32", DENSE), n], [view])
    fb.return_([view])
    return mb.build()
