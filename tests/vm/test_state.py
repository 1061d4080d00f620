"""Globals, rodata buffers (bounds-checked loads), lists and trace."""
import struct

import numpy as np
import pytest

from rt.runtime.errors import VMTrapError
from rt.runtime.vm import ModuleBuilder, VMList

from vm_helpers import load


def test_globals_all_banks_persist_across_calls():
    mb = ModuleBuilder("g")
    gi = mb.global_("count", "i64", initial=10)
    gf = mb.global_("scale", "f32", initial=0.5)
    gr = mb.global_("obj", "ref")
    fb = mb.function("bump", "0r_Ifr", export=True)
    (obj,) = fb.args
    v, one, s, old = fb.reg("i64"), fb.reg("i64"), fb.reg("f32"), fb.reg("ref")
    fb.global_load_i64(v, gi)
    fb.const_i64(one, 1)
    fb.add_i64(v, v, one)
    fb.global_store_i64(v, gi)
    fb.global_load_f32(s, gf)
    fb.add_f32(s, s, s)
    fb.global_store_f32(s, gf)
    fb.global_load_ref(old, gr)
    fb.global_store_ref(obj, gr)
    fb.return_([v, s, old])
    f = load(mb).lookup_function("g.bump")
    assert f("a") == (11, 1.0, None)
    assert f("b") == (12, 2.0, "a")


def test_rodata_loads_and_bounds():
    payload = struct.pack("<bBhiqfd", -2, 250, -300, -70000, -(1 << 40), 1.5, 2.25)
    mb = ModuleBuilder("ro")
    ro = mb.rodata("blob", payload, alignment=16)
    fb = mb.function("read", "0I_iiiiIfFI", export=True)
    (off,) = fb.args
    buf = fb.reg("ref")
    fb.const_ref_rodata(buf, ro)
    regs = [fb.reg(t) for t in ("i32", "i32", "i32", "i32", "i64", "f32", "f64", "i64")]
    offs = [fb.reg("i64") for _ in range(7)]
    for r, k in zip(offs, [0, 1, 2, 4, 8, 16, 20]):
        fb.const_i64(r, k)
    fb.buffer_load_i8_s(regs[0], buf, offs[0])
    fb.buffer_load_i8_u(regs[1], buf, offs[1])
    fb.buffer_load_i16_s(regs[2], buf, offs[2])
    fb.buffer_load_i32(regs[3], buf, offs[3])
    fb.buffer_load_i64(regs[4], buf, offs[4])
    fb.buffer_load_f32(regs[5], buf, offs[5])
    fb.buffer_load_f64(regs[6], buf, offs[6])
    fb.buffer_load_i64(regs[7], buf, off)
    fb.return_(regs)
    f = load(mb).lookup_function("ro.read")
    assert f(20) == (-2, 250, -300, -70000, -(1 << 40), 1.5, 2.25, struct.unpack("<q", payload[20:28])[0])
    with pytest.raises(VMTrapError, match=r"8 bytes at offset 21 are out of bounds of a 28-byte buffer"):
        f(21)
    with pytest.raises(VMTrapError, match="out of bounds"):
        f(-1)


def test_list_ops_and_traps():
    mb = ModuleBuilder("l")
    fb = mb.function("f", "0ri_rif", export=True)
    inp, k = fb.args
    lst, n, cap, v, x, got = fb.reg("ref"), fb.reg("i32"), fb.reg("i32"), fb.reg("i32"), fb.reg("f32"), fb.reg("i32")
    fb.const_i32(cap, 4)
    fb.list_alloc(lst, "i32", cap)
    fb.list_resize(lst, cap)
    fb.const_i32(v, 77)
    fb.list_set_i32(lst, k, v)
    fb.list_size(n, lst)
    fb.list_get_f32(x, inp, k)
    fb.list_get_i32(got, lst, k)
    fb.add_i32(n, n, got)
    fb.return_([lst, n, x])
    f = load(mb).lookup_function("l.f")
    out = f([1.5, 2.5, 3.5, 4.5], 2)
    assert out == ([0, 0, 77, 0], 81, 3.5)
    with pytest.raises(VMTrapError, match=r"list.set.i32: index 4 out of bounds for a list of size 4"):
        f([1.0] * 8, 4)
    with pytest.raises(VMTrapError, match=r"list.get.f32: element 1 is a str, not a float"):
        f([1.0, "x"], 1)
    with pytest.raises(VMTrapError, match=r"expected a list, got null"):
        f(None, 0)


def test_vmlist_python_side():
    lst = VMList([1, 2], element_type="i32")
    lst.append(-1)
    assert lst == [1, 2, -1] and len(lst) == 3 and lst.element_type == "i32"
    with pytest.raises(Exception, match="element must be an int"):
        lst.append("x")


def test_trace_sink():
    mb = ModuleBuilder("tr")
    fb = mb.function("f", "0iFr_v", export=True)
    a, b, c = fb.args
    fb.trace("step", [a, b, c])
    fb.return_([])
    events = []
    ctx = load(mb, trace_sink=lambda name, values: events.append((name, values)))
    f = ctx.lookup_function("tr.f")
    f(3, 0.25, "obj")
    ctx.trace_sink = None
    f(4, 0.5, None)
    assert events == [("step", (3, 0.25, "obj"))]


def test_executable_segment_is_zero_copy_view(tmp_path):
    data = np.arange(64, dtype=np.float32).tobytes()
    mb = ModuleBuilder("ex")
    mb.executable("dispatch_0", "vmvx-bytecode", data, metadata={"exports": ["d"]})
    fb = mb.function("f", "0v_v", export=True)
    fb.return_([])
    path = tmp_path / "ex.vmfb"
    path.write_bytes(mb.build())
    from rt.runtime.vm import Module

    m = Module.load(path)
    (e,) = m.executables
    assert (e.name, e.format, e.metadata) == ("dispatch_0", "vmvx-bytecode", {"exports": ["d"]})
    arr = np.frombuffer(e.data, dtype=np.float32)
    assert arr[5] == 5.0 and arr.flags.writeable is False
    offset, size = m.segments[m.rodata_segments[e.rodata]]
    assert offset % 64 == 0 and size == 256
