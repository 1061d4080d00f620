"""The dispatch ABI seen from inside a kernel: LLVM types and accessors.

What IREE's ``hal.interface.workgroup.id/count``, ``hal.interface.constant.load`` and
``hal.interface.binding.subspan`` lower to in the LLVMCPU backend (ConvertToLLVM's
HALDispatchABI): loads from the dispatch and workgroup state structs of
``rt.devices.llvm_cpu.abi``.
"""
from llvmlite import ir

from rt.devices.llvm_cpu import abi

I32 = ir.IntType(32)
I64 = ir.IntType(64)
F32 = ir.FloatType()
PTR = ir.PointerType()
_KIND_TYPES = {"u32": I32, "u64": I64, "ptr": PTR}

#: The export signature: i32 (ptr dispatch_state, ptr workgroup_state).
DISPATCH_FN_TYPE = ir.FunctionType(I32, [PTR, PTR])


def struct_type(struct):
    """The LLVM literal struct type of an ``abi.Struct`` (arrays for ``count`` > 1)."""
    members = []
    for f in struct.fields:
        t = _KIND_TYPES[f.kind]
        members.append(ir.ArrayType(t, f.count) if f.count > 1 else t)
    return ir.LiteralStructType(members)


DISPATCH_STATE_TYPE = struct_type(abi.DISPATCH_STATE_V0)
WORKGROUP_STATE_TYPE = struct_type(abi.WORKGROUP_STATE_V0)
EXPORT_ATTRS_TYPE = struct_type(abi.EXPORT_ATTRS_V0)
LIBRARY_TYPE = struct_type(abi.LIBRARY_V0)


def declare_export(module, name):
    """Add an export with the dispatch signature to ``module``; returns the ``ir.Function``.

    Both state pointers are marked noalias, captures(none), nonnull; the function is nounwind (the
    loader rejects objects with unwind tables).
    """
    fn = ir.Function(module, DISPATCH_FN_TYPE, name)
    fn.attributes.add("nounwind")
    for arg in fn.args:
        for attr in ("noalias", "captures(none)", "nonnull", "noundef"):
            arg.add_attribute(attr)
    fn.args[0].name, fn.args[1].name = "dispatch_state", "workgroup_state"
    return fn


class KernelInterface:
    """Reads a dispatch's state inside an export ``fn`` with ``builder``.

    All accessors return i64 values (zero-extended) except ``binding`` (a ptr).
    """

    def __init__(self, builder, fn):
        self.b = builder
        self.dispatch_state, self.workgroup_state = fn.args

    def _field(self, struct, struct_ty, base, name, index=None, ty=I32):
        b = self.b
        indices = [I32(0), I32(struct.index(name))]
        if index is not None:
            indices.append(I32(index))
        ptr = b.gep(base, indices, inbounds=True, source_etype=struct_ty)
        return b.load(ptr, typ=ty)

    def workgroup_id(self, dim):
        """Workgroup id along ``dim`` (0 = x), as i64."""
        v = self._field(abi.WORKGROUP_STATE_V0, WORKGROUP_STATE_TYPE, self.workgroup_state,
                        "workgroup_id", dim)
        return self.b.zext(v, I64)

    def workgroup_count(self, dim):
        """Workgroup count along ``dim`` (0 = x), as i64."""
        v = self._field(abi.DISPATCH_STATE_V0, DISPATCH_STATE_TYPE, self.dispatch_state,
                        "workgroup_count", dim)
        return self.b.zext(v, I64)

    def worker_id(self):
        """Id of the thread running this workgroup (0 = the dispatching thread), as i64."""
        v = self._field(abi.WORKGROUP_STATE_V0, WORKGROUP_STATE_TYPE, self.workgroup_state,
                        "worker_id")
        return self.b.zext(v, I64)

    def _table_entry(self, field, index, ty):
        table = self._field(abi.DISPATCH_STATE_V0, DISPATCH_STATE_TYPE, self.dispatch_state,
                            field, ty=PTR)
        ptr = self.b.gep(table, [I64(index)], inbounds=True, source_etype=ty)
        return self.b.load(ptr, typ=ty)

    def constant(self, index):
        """Push constant ``index`` (uint32), zero-extended to i64."""
        return self.b.zext(self._table_entry("constants", index, I32), I64)

    def binding(self, index):
        """Base pointer of binding ``index``."""
        return self._table_entry("binding_ptrs", index, PTR)

    def binding_length(self, index):
        """Byte length of binding ``index``, as i64."""
        return self._table_entry("binding_lengths", index, I64)
