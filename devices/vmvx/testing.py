"""Ready-made vmvx executables for tests (the HAL conformance suite uses them).

Each builder returns an executable variant ``(format, data, metadata)`` as the HAL's executable
cache takes it: ``data`` is a ``.vmfb`` built with rt's VM builder whose single export follows
the vmvx dispatch ABI (see rt.devices.vmvx.executable). Parallel to rt.devices.llvm_cpu.testing.

* ``elementwise_add_f32(tile=64)``: ``out[i] = lhs[i] + rhs[i]``; bindings lhs, rhs (ro), out
  (rw) of f32; constant 0 = element count n; workgroup x covers [x * tile, (x + 1) * tile) ∩ [0, n),
  so dispatch ``ceil(n / tile)`` workgroups.
* ``mmt4d_f32(m0, n0, k0)``: bindings lhs [M, K, m0, k0], rhs [N, K, n0, k0] (ro), out
  [M, N, m0, n0] (rw) of f32; constants M, N, K; workgroup (x, y) computes out tile (y, x), so
  dispatch (N, M, 1) workgroups.
* ``empty(binding_count=0, constant_count=0)``: an export that returns immediately.
* ``failing(message)``: an export whose every workgroup executes ``vm.fail`` with ``message``.
"""
from rt.devices.vmvx.executable import ENTRY_CCONV, FORMAT
from rt.devices.vmvx.loader import ABI
from rt.devices.vmvx.module import BINARY_CCONV, MMT4D_CCONV
from rt.runtime.vm import ModuleBuilder

METADATA = {"abi": ABI}


def _reflection(bindings, constants, access=None, workgroup_size=(1, 1, 1)):
    refl = {"binding_count": str(bindings), "constant_count": str(constants),
            "workgroup_size": ",".join(map(str, workgroup_size))}
    if access:
        refl["binding_access"] = ",".join(access)
    return refl


class _Entry:
    """A dispatch function under construction with small helpers over its FunctionBuilder."""

    def __init__(self, mb, name, reflection):
        self.fb = mb.function(name, ENTRY_CCONV, export=True, reflection=reflection)
        self.constants, self.bindings, *ids = self.fb.args
        self.workgroup_id, self.workgroup_count = ids[:3], ids[3:]

    def i64(self, value=None):
        r = self.fb.reg("i64")
        if value is not None:
            self.fb.const_i64(r, value)
        return r

    def constant(self, index):
        """Push constant ``index`` (uint32) zero-extended to an i64 register."""
        raw, wide = self.fb.reg("i32"), self.i64()
        self.fb.buffer_load_i32(raw, self.constants, self.i64(4 * index))
        self.fb.ext_i32_i64_u(wide, raw)
        return wide

    def binding(self, index):
        idx, ref = self.fb.reg("i32"), self.fb.reg("ref")
        self.fb.const_i32(idx, index)
        self.fb.list_get_ref(ref, self.bindings, idx)
        return ref

    def id64(self, dim):
        r = self.i64()
        self.fb.ext_i32_i64_u(r, self.workgroup_id[dim])
        return r

    def mul(self, a, b):
        r = self.i64()
        self.fb.mul_i64(r, a, b)
        return r


def elementwise_add_f32(tile=64):
    """Variant of ``out = lhs + rhs`` over n f32 elements, ``tile`` elements per workgroup."""
    mb = ModuleBuilder("vmvx_add")
    add = mb.import_function("vmvx.add.2d.f32", BINARY_CCONV)
    e = _Entry(mb, "add_dispatch_0", _reflection(3, 1, ("ro", "ro", "rw"), (tile, 1, 1)))
    fb = e.fb
    n = e.constant(0)
    start = e.mul(e.id64(0), e.i64(tile))
    left, size = e.i64(), e.i64()
    fb.sub_i64(left, n, start)
    fb.min_i64_s(size, left, e.i64(tile))
    lhs, rhs, out = e.binding(0), e.binding(1), e.binding(2)
    positive, done, work = fb.reg("i32"), fb.label("done"), fb.label("work")
    fb.cmp_gt_i64_s(positive, size, e.i64(0))
    fb.cond_br(positive, work, done)
    fb.bind(work)
    one, tile_r = e.i64(1), e.i64(tile)
    fb.call_import(add, [lhs, start, tile_r, one, rhs, start, tile_r, one, out, start, tile_r, one,
                         one, size], [])
    fb.bind(done)
    fb.return_([])
    return FORMAT, mb.build(), dict(METADATA)


def mmt4d_f32(m0=4, n0=4, k0=1):
    """Variant computing one [m0, n0] output tile of an f32 mmt4d per workgroup."""
    mb = ModuleBuilder("vmvx_mmt4d")
    mmt4d = mb.import_function("vmvx.mmt4d.f32f32f32", MMT4D_CCONV)
    e = _Entry(mb, "mmt4d_dispatch_0", _reflection(3, 3, ("ro", "ro", "rw")))
    fb = e.fb
    n_outer, k_outer = e.constant(1), e.constant(2)
    n, m = e.id64(0), e.id64(1)
    lhs_tile = e.mul(k_outer, e.i64(m0 * k0))
    rhs_tile = e.mul(k_outer, e.i64(n0 * k0))
    out_off = e.i64()
    fb.add_i64(out_off, e.mul(m, n_outer), n)
    out_off = e.mul(out_off, e.i64(m0 * n0))
    one = e.i64(1)
    tm0, tn0, tk0, flags = (fb.reg("i32") for _ in range(4))
    fb.const_i32(tm0, m0)
    fb.const_i32(tn0, n0)
    fb.const_i32(tk0, k0)
    fb.const_i32(flags, 0)
    fb.call_import(mmt4d, [e.binding(0), e.mul(m, lhs_tile), lhs_tile,
                           e.binding(1), e.mul(n, rhs_tile), rhs_tile,
                           e.binding(2), out_off, e.i64(m0 * n0),
                           one, one, k_outer, tm0, tn0, tk0, flags], [])
    fb.return_([])
    return FORMAT, mb.build(), dict(METADATA, tile=(m0, n0, k0))


def empty(binding_count=0, constant_count=0):
    """Variant whose export ``empty_dispatch_0`` does nothing."""
    mb = ModuleBuilder("vmvx_empty")
    e = _Entry(mb, "empty_dispatch_0", _reflection(binding_count, constant_count))
    e.fb.return_([])
    return FORMAT, mb.build(), dict(METADATA)


def failing(message="vmvx testing: this dispatch always fails"):
    """Variant whose export ``fail_dispatch_0`` traps with ``message`` in every workgroup."""
    mb = ModuleBuilder("vmvx_fail")
    e = _Entry(mb, "fail_dispatch_0", _reflection(0, 0))
    status = e.fb.reg("i32")
    e.fb.const_i32(status, 13)
    e.fb.fail(status, message)
    return FORMAT, mb.build(), dict(METADATA)
