"""The walk behind ``lower_dispatch_function``: a symbol for every SSA value of the dispatch.

``Lowering.visit`` records what each op computes: sizes (index math on push constants),
scalars, views of bindings and of rodata (dense tensor constants), empties, splats, and
tensors placed later (linalg results, tensor.pad / concat / insert_slice, slices of computed
tensors); ``finish`` gives every stored value its destination (``placement.Placement``).
Anything else is a located CompileError naming the op.
"""
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, func, tensor
from xdsl.dialects.linalg.ops import TransposeOp

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu import sizes as sz
from rt.compiler.codegen.lowering import attention
from rt.compiler.codegen.lowering import symbols as sym
from rt.compiler.codegen.lowering.placement import (Concat, Empty, InsertSlice, Pad, Placement,
                                                    Relayout, Result, Slice, Splat, slice_view)
from rt.compiler.codegen.lowering.scalars import PASS_THROUGH
from rt.compiler.codegen.lowering.structured import structured
from rt.compiler.dialects import flow, hal
from rt.compiler.dialects._linalg_ext_attention import AttentionOp, OnlineAttentionOp
from rt.compiler.dialects.linalg import Mmt4DOp, PackOp, UnPackOp
from rt.compiler.frontend import elements_to_numpy, error_at_op, is_splat, splat_value
from rt.compiler.op_handlers import OpHandlers, handles
from rt.runtime.hal.element_type import ElementType, pack_sub_byte
from rt.runtime.small_float import FORMATS as SMALL_FLOATS

_ACCESS = {"readonly": "ro", "writeonly": "wo", "readwrite": "rw"}
_DYNAMIC = -(1 << 63)
#: Ops whose result is their operand as far as the lowering is concerned.
_FORWARDING = PASS_THROUGH + (tensor.CastOp,)


@dataclass
class Subspan:
    """A binding as the dispatch sees it: whole-tensor View plus access mode."""

    view: kir.View
    access: str


class ScalarValue:
    """A scalar computed from push constants that is not a Size (a bitcast, a shifted i64...);
    bodies recompute it with ``scalars.scalar_program``."""


_SUB_BYTE = {"i2": ElementType.INT_2, "i4": ElementType.INT_4}


def _extent(offset, shape):
    """``(offset, element count)`` of a subspan's tensor of ``shape`` at element ``offset``."""
    count = 1
    for size in shape:
        count = sym.fold("mul", count, size)
    return (offset, count)


def _merge_access(old, access):
    """The access of a binding seen through subspans of ``old`` and ``access`` ("ro"/"wo"/"rw")."""
    return access if old in (None, access) else "rw"


def _storage_bytes(array, element_type):
    """Little-endian bytes of ``array`` as a binding of ``element_type`` stores them (narrow
    floats as their bits, sub-byte integers packed as IREE packs them)."""
    if element_type in kir.SUB_BYTE_INTS:
        return pack_sub_byte(np.asarray(array).astype(np.int8), _SUB_BYTE[element_type]).tobytes()
    if element_type in kir.PACKED:  # f4E2M1FN: its 4-bit patterns, packed like i4
        return pack_sub_byte(np.asarray(array).astype(SMALL_FLOATS[element_type].dtype), ElementType.INT_4).tobytes()
    if element_type in SMALL_FLOATS:
        return np.ascontiguousarray(array).astype(SMALL_FLOATS[element_type].dtype).tobytes()
    dtype = {"f16": "<f2", "f32": "<f4", "f64": "<f8", "i1": "u1", "i8": "i1", "i16": "<i2",
             "i32": "<i4", "i64": "<i8"}[element_type]
    return np.ascontiguousarray(array).astype(dtype).tobytes()


class Lowering(Placement):
    """Symbol table and op emission for one dispatch function."""

    handler = OpHandlers()


    def __init__(self, func_op):
        self.func = func_op
        self.env = {}
        self.stores = []
        self.ops = []
        self.layout = None
        self.max_constant = -1
        self.subspans = {}
        self.placed = {}
        self.rodata = []
        self.scratch = []
        self.subviews = {}
        self.store_views = {}
        declared = set()
        for op in func_op.walk():
            if isinstance(op, (hal.InterfaceBindingSubspanOp, hal.InterfaceConstantLoadOp)):
                self.layout = self.layout or op.layout
            if isinstance(op, hal.InterfaceBindingSubspanOp):
                declared.add(op.binding.value.data)
        self._declared = declared

    # -- symbols -----------------------------------------------------------------------------
    def get(self, value, op):
        if value not in self.env:
            raise error_at_op(op, "uses a value the dispatch lowering cannot follow (defined by an "
                                  "unsupported op or outside the function)")
        return self.env[value]

    def size(self, value, op):
        s = self.get(value, op)
        if not sym.is_size(s):
            raise error_at_op(op, "expected an index value computed from constants and push "
                                  "constants")
        return s

    def _mixed(self, op, static, dynamic):
        it = iter(dynamic)
        return [self.size(next(it), op) if v == _DYNAMIC else v for v in static]

    def dims_of(self, value, op=None):
        """Sizes of a tensor value."""
        entry = self.env.get(value)
        if isinstance(entry, Subspan):
            return entry.view.shape
        if isinstance(entry, kir.View):
            return entry.shape
        if isinstance(entry, (Empty, Splat, Pad, Concat, Slice)):
            return entry.shape
        if isinstance(entry, InsertSlice):
            return self.dims_of(entry.dest, op)
        if isinstance(entry, Result):
            node = entry.node
            out = node.outputs[entry.index] if not isinstance(node, Relayout) else node.init
            return self.dims_of(out, op)
        shape = value.type.get_shape()
        if any(d < 0 for d in shape):
            raise error_at_op(op or self.func, "cannot tell the dynamic dims of a tensor value")
        return tuple(shape)

    def visit(self, op):
        """Record what ``op`` computes; raises CompileError for unsupported ops."""
        if isinstance(op, func.ReturnOp):
            return
        visitor = self.handler(op)
        if visitor is not None:
            return visitor(op)
        # every linalg op without a handler is a structured op (or a relayout) to compute
        if op.dialect_name() == "linalg":
            return self._linalg(op)
        if isinstance(op, _FORWARDING):
            self.env[op.results[0]] = self.get(op.operands[0], op)
            return
        # any scalar arith/math op: a Size when it is index math on Sizes, else a body's business
        if len(op.results) == 1 and not hasattr(op.results[0].type, "get_shape") and (
                op.dialect_name() in ("arith", "math")):
            operands = [self.env.get(v) for v in op.operands]
            value = sym.index_value(op, operands) if all(sym.is_size(o) for o in operands) else None
            self.env[op.results[0]] = value if value is not None else ScalarValue()
            return
        raise error_at_op(op, f"'{op.name}' is not supported inside a dispatch by rt's dispatch "
                              f"lowering")

    @handles(arith.ConstantOp)
    def _arith_constant(self, op):
        ty = op.results[0].type
        if hasattr(ty, "get_shape"):
            return self._dense_constant(op)
        value = op.value.value.data
        tname = sym.type_name(ty, op)
        if tname.startswith("i") or tname == "index":
            self.env[op.results[0]] = int(value)
        else:
            self.env[op.results[0]] = sym.ScalarConst(float(value), tname)

    def _dense_constant(self, op):
        ty = op.results[0].type
        etype = sym.type_name(ty.element_type, op)
        shape = tuple(ty.get_shape())
        if is_splat(op.value):
            value = splat_value(op.value).item()
            value = float(value) if kir.is_float(etype) else int(value)
            self.env[op.results[0]] = Splat(sym.ScalarConst(value, etype), etype, shape)
            return
        data = _storage_bytes(elements_to_numpy(op.value), etype)
        self.rodata.append(kir.Rodata(etype, data))
        ordinal = self.binding_count() + len(self.rodata) - 1
        self.env[op.results[0]] = kir.View(ordinal, etype, shape)

    @handles(hal.InterfaceConstantLoadOp)
    def _hal_interface_constant_load(self, op):
        ordinal = op.ordinal.value.data
        self.max_constant = max(self.max_constant, ordinal)
        self.env[op.results[0]] = kir.Constant(ordinal)

    @handles(hal.InterfaceBindingSubspanOp)
    def _hal_interface_binding_subspan(self, op):
        binding = op.binding.value.data
        ty = op.result.type
        if not hasattr(ty, "access"):
            raise error_at_op(op, "expected a !flow.dispatch.tensor<...> subspan")
        tensor = ty.bound_type
        etype = sym.type_name(tensor.element_type, op)
        if etype == "index":
            raise error_at_op(op, f"{tensor} in a dispatch: tensors of index elements are not "
                                  f"supported by rt's dispatch lowering; use i64 elements")
        dyn = iter(self.size(d, op) for d in op.dynamic_dims)
        shape = tuple(next(dyn) if d < 0 else d for d in tensor.get_shape())
        offset = 0
        if op.byte_offset:
            offset = self.size(op.byte_offset[0], op)
        if etype in kir.PACKED:  # packed: a byte offset is a whole number of elements
            self.subspans[binding] = _merge_access(self.subspans.get(binding), _ACCESS[ty.access.data])
            offset = sym.fold("mul", offset, 8 // kir.element_bits(etype))
            self.env[op.result] = Subspan(kir.View(binding, etype, shape, offset, extent=_extent(offset, shape)),
                                          _ACCESS[ty.access.data])
            return
        esize = kir.element_size(etype)
        if isinstance(offset, int):
            if offset % esize:
                raise error_at_op(op, f"byte offset {offset} is not a multiple of the element "
                                      f"size {esize}")
            offset //= esize
        else:
            offset = sym.fold("floordiv", offset, esize)
        access = _ACCESS[ty.access.data]
        self.subspans[binding] = _merge_access(self.subspans.get(binding), access)
        self.env[op.result] = Subspan(kir.View(binding, etype, shape, offset, extent=_extent(offset, shape)),
                                      access)

    def _slice_lists(self, op):
        return (self._mixed(op, op.static_offsets.get_values(), op.offsets),
                self._mixed(op, op.static_sizes.get_values(), op.sizes),
                self._mixed(op, op.static_strides.get_values(), op.strides))

    @handles(flow.DispatchTensorLoadOp)
    def _flow_dispatch_tensor_load(self, op):
        src = self.get(op.source, op)
        self.env[op.result] = slice_view(src.view, *self._slice_lists(op),
                                         op.result.type.get_shape(), op)

    @handles(flow.DispatchTensorStoreOp)
    def _flow_dispatch_tensor_store(self, op):
        dst = self.get(op.target, op)
        if dst.access == "ro":
            raise error_at_op(op, "stores into a readonly binding")
        view = slice_view(dst.view, *self._slice_lists(op), op.value.type.get_shape(), op)
        self.stores.append((op.value, view, op))

    @handles(tensor.EmptyOp)
    def _tensor_empty(self, op):
        shape = self._mixed(op, [d if d >= 0 else _DYNAMIC for d in op.tensor.type.get_shape()],
                            list(op.dynamic_sizes))
        self.env[op.tensor] = Empty(tuple(shape), sym.type_name(op.tensor.type.element_type, op))

    @handles(tensor.DimOp)
    def _tensor_dim(self, op):
        index = self.size(op.index, op)
        dims = self.dims_of(op.source, op)
        if not isinstance(index, int) or not 0 <= index < len(dims):
            raise error_at_op(op, f"tensor.dim index {index} is not a constant in [0, {len(dims)})")
        self.env[op.result] = dims[index]

    @handles(tensor.SplatOp)
    def _tensor_splat(self, op):
        ty = op.result.type
        shape = self._mixed(op, [d if d >= 0 else _DYNAMIC for d in ty.get_shape()],
                            list(op.dynamicSizes))
        value = self.get(op.input, op)
        self.env[op.result] = Splat(value if isinstance(value, sym.ScalarConst) else op.input,
                                    sym.type_name(ty.element_type, op), tuple(shape))

    @handles(tensor.ExtractSliceOp)
    def _tensor_extract_slice(self, op):
        src = self.get(op.source, op)
        lists = self._slice_lists(op)
        shape = op.result.type.get_shape()
        if isinstance(src, kir.View):
            self.env[op.result] = slice_view(src, *lists, shape, op)
            return
        result = tuple(lists[1][k] for k in _kept_dims(lists[1], len(shape)))
        self.env[op.result] = Slice(op, op.source, lists, result)

    @handles(tensor.InsertSliceOp)
    def _tensor_insert_slice(self, op):
        self.env[op.result] = InsertSlice(op, op.source, op.dest, *self._slice_lists(op))

    @handles(tensor.PadOp)
    def _tensor_pad(self, op):
        low = self._mixed(op, op.static_low.get_values(), op.low)
        high = self._mixed(op, op.static_high.get_values(), op.high)
        source_dims = self.dims_of(op.source, op)
        shape = tuple(sym.fold("add", sym.fold("add", s, lo), hi)
                      for s, lo, hi in zip(source_dims, low, high))
        (yielded,) = op.region.block.last_op.operands
        owner = getattr(yielded, "owner", None)
        if owner is not None and getattr(owner, "parent_block", lambda: None)() is op.region.block:
            if not isinstance(owner, arith.ConstantOp):
                raise error_at_op(op, "tensor.pad with a padding value computed from the "
                                      "indices is not supported; yield a constant or a value "
                                      "defined outside the region")
            value = owner.value.value.data
            etype = sym.type_name(yielded.type, op)
            pad = sym.ScalarConst(float(value) if kir.is_float(etype) else int(value), etype)
        elif yielded in op.region.block.args:
            raise error_at_op(op, "tensor.pad yields a block argument; expected a padding value")
        else:
            entry = self.get(yielded, op)
            pad = entry if isinstance(entry, sym.ScalarConst) else yielded
        etype = sym.type_name(op.result.type.element_type, op)
        self.env[op.result] = Pad(op, op.source, tuple(low), shape, etype, pad)

    @handles(tensor.ConcatOp)
    def _tensor_concat(self, op):
        dim = op.dim.value.data
        dims = [self.dims_of(v, op) for v in op.inputs]
        total = 0
        for d in dims:
            total = sym.fold("add", total, d[dim])
        shape = tuple(total if k == dim else dims[0][k] for k in range(len(dims[0])))
        self.env[op.result] = Concat(op, list(op.inputs), dim, shape)

    @handles(tensor.CollapseShapeOp)
    def _tensor_collapse_shape(self, op):
        self._reshape(op, op.src)

    @handles(tensor.ExpandShapeOp)
    def _tensor_expand_shape(self, op):
        self._reshape(op, op.src)

    def _reshape(self, op, source):
        src = self.get(source, op)
        ty = op.results[0].type
        if not isinstance(src, kir.View) or src.strides is not None:
            raise error_at_op(op, f"'{op.name}' inside a dispatch is supported on contiguous "
                                  f"loaded tensors only")
        groups = [[k.value.data for k in g.data] for g in op.reassociation.data]
        out = list(ty.get_shape())
        if isinstance(op, tensor.CollapseShapeOp):
            shape = []
            for g in groups:
                extent = 1
                for k in g:
                    extent = sym.fold("mul", extent, src.shape[k])
                shape.append(extent)
        else:
            dyn = iter(self.size(v, op) for v in op.dynamic_output_shape)
            shape = [next(dyn) if d < 0 else d for d in out]
        self.env[op.results[0]] = kir.View(src.binding, src.element_type, tuple(shape), src.offset,
                                           extent=src.extent)

    @handles(TransposeOp)
    def _linalg_transpose(self, op):
        """A transpose of a binding or rodata view is that view with permuted strides (no copy,
        as bufferization gives a transposed memref view); anything else is computed."""
        src = self.env.get(op.inputs[0])
        if not isinstance(src, kir.View):
            return self._linalg(op)
        perm = op.permutation.get_values()
        strides = sz.view_strides(src)
        shape = tuple(src.shape[p] for p in perm)
        permuted = tuple(strides[p] for p in perm)
        self.env[op.results[0]] = kir.View(src.binding, src.element_type, shape, src.offset,
                                           None if permuted == sz.contiguous_strides(shape) else permuted,
                                           src.extent)

    @handles(AttentionOp, OnlineAttentionOp)
    def _linalg_ext_attention(self, op):
        attention.record(self, op)

    def _linalg(self, op):
        if isinstance(op, (PackOp, UnPackOp)):
            node = Relayout(op, [op.source], op.dest)
        elif isinstance(op, Mmt4DOp):
            node = Relayout(op, list(op.inputs), op.outputs[0])
        else:
            node = structured(op, self.env, lambda v: self.dims_of(v, op))
        for i, result in enumerate(op.results):
            self.env[result] = Result(node, i)

    # -- interface ---------------------------------------------------------------------------
    def binding_count(self):
        declared = max(self._declared, default=-1) + 1
        if self.layout is not None and hasattr(self.layout, "bindings"):
            return max(len(self.layout.bindings.data), declared)
        return declared

    def constant_count(self):
        if self.layout is not None and hasattr(self.layout, "constants"):
            return max(self.layout.constants.value.data, self.max_constant + 1)
        return self.max_constant + 1

    def binding_access(self):
        return tuple(self.subspans.get(i, "rw") for i in range(self.binding_count()))


def _kept_dims(sizes, rank):
    """Indices of the slice dims a rank-reducing slice keeps (dropping leading unit dims)."""
    drop = len(sizes) - rank
    kept = []
    for k, s in enumerate(sizes):
        if drop and s == 1:
            drop -= 1
            continue
        kept.append(k)
    return kept

