"""Materialize encodings inside a dispatch: encoded tensors become packed tensors.

Runs on a hal-level dispatch function before it is lowered to Kernel IR (IREE's
MaterializeDeviceEncoding / MaterializeEncodingIntoPackUnPack). Every encoded tensor takes
the packed form of its layout (``rt.compiler.targets.encoding.EncodingInfo``): the layout
resolved on the binding it is loaded from or stored to, else the target's resolver applied to
the op's encoding. Rewrites:

- ``hal.interface.binding.subspan`` of ``tensor<?x?xf32, #enc>`` -> of the packed tensor
  ``tensor<?x?x16x1xf32>`` (outer dims ``ceildiv(dim, tile)``); whole loads / stores follow;
- ``iree_encoding.set_encoding`` -> ``linalg.pack`` with padding value 0 into a packed empty;
- ``iree_encoding.unset_encoding`` -> ``linalg.unpack`` into an empty of the result dims
  (dropping the padding);
- ``tensor.empty`` / ``linalg.fill`` on encoded tensors -> on the packed tensor;
- a contraction on encoded operands (``linalg.matmul``, ``matvec``, ``vecmat``) ->
  ``linalg.mmt4d`` (LHS [M1, K1, M0, K0], RHS [N1, K1, N0, K0], result [M1, N1, M0, N0]); a
  zero fill of an empty init is folded away (the Mmt4d then overwrites its output:
  ``accumulate = False``); ``batch_matmul`` / ``batch_matvec`` -> ``linalg.batch_mmt4d``
  (leading batch dim, fill kept). In the dispatch holding the contraction every encoded
  binding and empty takes this mmt4d form -- a matvec's vector and result get unit N1/N0
  dims, a vecmat's unit M1/M0 (``rt.compiler.targets.encoding.mmt4d_packed_shape``), the
  same bytes as the packed form the pack / unpack dispatches use;
- a convolution whose filter is encoded (``op_type = conv``) -> a ``linalg.generic`` over the
  packed filter (``packed_conv.py``); its input and output stay plain;
- an elementwise ``linalg.generic`` on encoded tensors (an epilogue that
  iree-dispatch-creation-propagate-encodings moved onto a packed matmul result) -> the same
  body over the packed tiles: encoded operands with identity maps, plain operands read at
  ``(d1 * M0 + d3, d2 * N0 + d4)``-style packed indices;
- a matmul whose LHS is another matmul's packed RESULT (propagated: K0 = that N0) while its
  RHS was packed with K0 = 1 -> linalg.mmt4d reading the RHS bytes ``[N1, K, N0]`` as
  ``[N1, K / K0, N0, K0]`` (collapse, expand and a transpose the lowering folds into a
  strided view).

Example (LHS pack, AVX-512)::

    %s = hal.interface.binding.subspan ... : !flow.dispatch.tensor<writeonly:tensor<?x?xf32, #enc>>{%m, %k}
    %e = iree_encoding.set_encoding %x : tensor<?x?xf32> -> tensor<?x?xf32, #enc>
    flow.dispatch.tensor.store %e, %s, ...
    // ->
    %m1 = arith.ceildivui %m, %c16 : index
    %s = hal.interface.binding.subspan ... : !flow.dispatch.tensor<writeonly:tensor<?x?x16x1xf32>>{%m1, %k}
    %p = linalg.pack %x padding_value(%zero : f32) outer_dims_perm = [0, 1] inner_dims_pos = [0, 1]
        inner_tiles = [16, 1] into %empty : tensor<?x?xf32> -> tensor<?x?x16x1xf32>
    flow.dispatch.tensor.store %p, %s, ...

Errors: CompileError located at the op for partial loads/stores of encoded bindings, binding
layouts that disagree with the target's resolver, and ops on encoded tensors other than the
above.
"""
import dataclasses

from xdsl.dialects import arith, tensor
from xdsl.dialects.linalg import ops as xlinalg
from xdsl.dialects.builtin import (DYNAMIC_INDEX, AffineMapAttr, ArrayAttr, DenseArrayBase, FloatAttr, IndexType,
                                   IntegerAttr, TensorType, i64)
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp, TransposeOp
from xdsl.ir.affine import AffineExpr, AffineMap

from rt.compiler.dialects.flow import DispatchTensorLoadOp, DispatchTensorStoreOp
from rt.compiler.dialects.flow_types import DispatchTensorType
from rt.compiler.dialects.hal import InterfaceBindingSubspanOp
from rt.compiler.dialects.iree_encoding import EncodingAttr, SetEncodingOp, UnsetEncodingOp
from rt.compiler.dialects.linalg import BatchMmt4DOp, Mmt4DOp, PackOp, UnPackOp
from rt.compiler.dialects.linalg_named import NAMED_OP_CLASSES
from rt.compiler.codegen.lowering.packed_conv import packed_conv
from rt.compiler.helpers.dispatch import op_kinds as kinds
from rt.compiler.frontend import error_at_op
from rt.compiler.op_handlers import OpHandlers, handles
from rt.compiler.targets.encoding import contraction, encoding_info, mmt4d_packed_shape, resolved_info
from rt.runtime.errors import CompileError, UnimplementedError
from rt.compiler.targets.encoding_conv import PACKED_CONV_OPS

INDEX = IndexType()
#: contractions whose encoded form materializes as linalg.mmt4d / batch_mmt4d.
CONTRACTIONS = (NAMED_OP_CLASSES["matmul"], xlinalg.MatmulOp, NAMED_OP_CLASSES["batch_matmul"],
                NAMED_OP_CLASSES["matvec"], NAMED_OP_CLASSES["vecmat"], NAMED_OP_CLASSES["batch_matvec"])


def _encoding(type_):
    bound = type_.bound_type if isinstance(type_, DispatchTensorType) else type_
    if isinstance(bound, TensorType) and isinstance(bound.encoding, EncodingAttr):
        return bound.encoding
    return None


def has_encodings(func_op):
    """Whether any value of ``func_op`` has an encoded tensor type."""
    return any(_encoding(r.type) is not None for op in func_op.walk() for r in op.results)


class _Materializer:

    handler = OpHandlers()

    def __init__(self, func_op, backend, config):
        self.func = func_op
        self.backend = backend
        self.config = config
        self.packed = {}
        self.dims = {}
        self.infos = {}
        self.replaced = []
        self.operand_encodings = {}
        for op in func_op.walk():
            if isinstance(op, CONTRACTIONS) and _encoding(op.results[0].type) is not None:
                encodings = [_encoding(v.type) for v in (*op.inputs, *op.outputs)]
                self.operand_encodings = {e.index: e for e in encodings if e is not None}
                break

    # -- helpers --------------------------------------------------------------------------
    def info(self, encoding, op, layout_from=None):
        """The EncodingInfo of ``encoding``: its resolved layout, else the target resolver's
        (which must agree with ``layout_from``, the layout of the binding it meets)."""
        try:
            if encoding.layouts.data:
                return resolved_info(encoding)
            own = encoding_info(self.backend.name, self.config, encoding)
        except (CompileError, UnimplementedError) as exc:
            raise error_at_op(op, f"cannot materialize {encoding} for {self.backend.name}: {exc}") from None
        if layout_from is not None and layout_from != own:
            raise error_at_op(op, f"binding layout {layout_from} differs from the {self.backend.name} "
                                  f"resolver's {own}; the executable was specialized for another target")
        return own

    def insert(self, op, before):
        op.location = before.location
        before.parent_block().insert_op_before(op, before)
        return op.results[0] if op.results else None

    def constant(self, value, before):
        return self.insert(arith.ConstantOp(IntegerAttr(value, INDEX)), before)

    def packed_type(self, element_type, dims, info, before, encoding=None):
        """(packed TensorType, its dynamic dim values) for a tensor of ``dims``; in a dispatch
        holding the contraction, the mmt4d form of the operand ``encoding`` names (the roles
        of its dims taken from the contraction's own operand encodings)."""
        def ceildiv(d, t):
            if isinstance(d, int):
                return -(-d // t)
            return d if t == 1 else self.insert(arith.CeilDivUIOp(d, self.constant(t, before)), before)

        user = self.operand_encodings.get(encoding.index) if encoding is not None else None
        if user is not None:
            shape = mmt4d_packed_shape(user, info, dims, ceildiv)
        else:
            shape = info.packed_shape(dims, ceildiv)
        static = [d if isinstance(d, int) else DYNAMIC_INDEX for d in shape]
        return TensorType(element_type, static), [d for d in shape if not isinstance(d, int)]

    def value_dims(self, value, op):
        """Every dim of tensor ``value`` as an int or an index SSA value."""
        shape = value.type.get_shape()
        dyn = self.dims.get(value)
        if dyn is None:
            owner = getattr(value, "op", None)
            if isinstance(owner, DispatchTensorLoadOp):
                sizes = iter(owner.sizes)
                full = [next(sizes) if s == DYNAMIC_INDEX else s for s in owner.static_sizes.get_values()]
                dyn = [d for d, s in zip(full, shape) if s == DYNAMIC_INDEX] if len(full) == len(shape) else None
            elif isinstance(owner, tensor.EmptyOp):
                dyn = list(owner.dynamic_sizes)
            elif isinstance(owner, UnsetEncodingOp):
                dyn = list(owner.result_dims)
            # a result of any linalg op with outputs has the dims of its output
            elif owner is not None and owner.dialect_name() == "linalg" and getattr(owner, "outputs", None):
                return self.value_dims(owner.outputs[value.index], op)
        if dyn is None:
            raise error_at_op(op, "cannot tell the dims of the tensor this op encodes; expected it to "
                                  "be loaded from a binding, a tensor.empty or a linalg result")
        it = iter(dyn)
        return [next(it) if s == DYNAMIC_INDEX else s for s in shape]

    def _whole(self, op, dims):
        shape = op.static_sizes.get_values()
        sizes = iter(op.sizes)
        offsets, strides = op.static_offsets.get_values(), op.static_strides.get_values()
        sized = [next(sizes) if s == DYNAMIC_INDEX else s for s in shape]
        if any(o != 0 for o in offsets) or any(s != 1 for s in strides) or sized != dims:
            raise error_at_op(op, "reads or writes part of an encoded binding; data-tiled bindings "
                                  "are loaded and stored whole")

    # -- rewrites -------------------------------------------------------------------------
    def run(self):
        for op in list(self.func.body.block.ops):
            handler = self.handler(op)
            encoded = any(_encoding(v.type) is not None for v in (*op.operands, *op.results))
            # set/unset_encoding (any iree_encoding op) are rewritten even where nothing is encoded
            if handler is not None and (encoded or op.dialect_name() == "iree_encoding"):
                handler(op)
            elif encoded:
                raise error_at_op(op, f"'{op.name}' on encoded tensors cannot be materialized; "
                                      f"data tiling supports set/unset_encoding, fill, contractions, convs and "
                                      f"elementwise generics")
        for op in reversed(self.replaced):
            op.parent_block().erase_op(op, safe_erase=False)

    @handles(InterfaceBindingSubspanOp)
    def _hal_interface_binding_subspan(self, op):
        bound = op.result.type.bound_type
        info = self.info(bound.encoding, op)
        dyn = iter(op.dynamic_dims)
        dims = [next(dyn) if s == DYNAMIC_INDEX else s for s in bound.get_shape()]
        packed, packed_dims = self.packed_type(bound.element_type, dims, info, op, bound.encoding)
        new = type(op).build(operands=[list(op.byte_offset), packed_dims],
                             result_types=[DispatchTensorType(op.result.type.access, packed)],
                             properties=dict(op.properties), attributes=dict(op.attributes))
        self.insert(new, op)
        self.packed[op.result] = new.result
        self.dims[new.result] = packed_dims
        self.dims[op.result] = dims
        self.infos[new.result] = info
        self.replaced.append(op)

    @handles(DispatchTensorLoadOp)
    def _flow_dispatch_tensor_load(self, op):
        source = self.packed.get(op.source)
        if source is None:
            raise error_at_op(op, "loads an encoded tensor from a binding that is not encoded")
        self._whole(op, self.dims[op.source])
        new = self.insert(DispatchTensorLoadOp.whole(source, self.dims[source]), op)
        self.packed[op.result] = new
        self.infos[new] = self.infos[source]
        self.replaced.append(op)

    @handles(DispatchTensorStoreOp)
    def _flow_dispatch_tensor_store(self, op):
        target = self.packed.get(op.target)
        value = self.packed.get(op.value)
        if target is None or value is None:
            raise error_at_op(op, "stores between encoded and plain tensors; expected matching encodings")
        self._whole(op, self.dims[op.target])
        if self.infos[value] != self.infos[target]:
            raise error_at_op(op, f"stores a tensor packed as {self.infos[value]} into a binding packed "
                                  f"as {self.infos[target]}")
        self.insert(DispatchTensorStoreOp.whole(value, target, self.dims[target]), op)
        self.replaced.append(op)

    def _layout_of_use(self, value):
        """The resolved layout of the binding ``value`` is stored to, if any."""
        for use in value.uses:
            if isinstance(use.operation, DispatchTensorStoreOp) and use.index == 0:
                encoding = _encoding(use.operation.target.type)
                if encoding is not None and encoding.layouts.data:
                    return resolved_info(encoding)
        return None

    @handles(SetEncodingOp)
    def _iree_encoding_set_encoding(self, op):
        encoding = op.result.type.encoding
        info = self.info(encoding, op, self._layout_of_use(op.result))
        dims = self.value_dims(op.source, op)
        element = op.result.type.element_type
        packed, packed_dims = self.packed_type(element, dims, info, op)
        empty = self.insert(tensor.EmptyOp(packed_dims, packed), op)
        zero = FloatAttr(0.0, element) if str(element).startswith(("f", "bf")) else IntegerAttr(0, element)
        pad = self.insert(arith.ConstantOp(zero), op)
        self._record(op.result, self.insert(_relayout(PackOp, op.source, empty, info, pad), op), info)
        self.replaced.append(op)

    @handles(UnsetEncodingOp)
    def _iree_encoding_unset_encoding(self, op):
        source = self.packed.get(op.source)
        if source is None:
            raise error_at_op(op, "unsets an encoding the dispatch did not materialize")
        info = self.infos[source]
        empty = self.insert(tensor.EmptyOp(list(op.result_dims), op.result.type), op)
        unpacked = self.insert(_relayout(UnPackOp, source, empty, info), op)
        op.result.replace_all_uses_with(unpacked)
        self.replaced.append(op)

    @handles(tensor.EmptyOp)
    def _tensor_empty(self, op):
        encoding = op.tensor.type.encoding
        info = self.info(encoding, op, self._layout_of_use(op.tensor))
        dyn = iter(op.dynamic_sizes)
        dims = [next(dyn) if s == DYNAMIC_INDEX else s for s in op.tensor.type.get_shape()]
        packed, packed_dims = self.packed_type(op.tensor.type.element_type, dims, info, op, encoding)
        self._record(op.tensor, self.insert(tensor.EmptyOp(packed_dims, packed), op), info)
        self.dims[self.packed[op.tensor]] = packed_dims
        self.replaced.append(op)

    @handles(xlinalg.FillOp)
    def _linalg_fill(self, op):
        init = self.packed.get(op.outputs[0])
        if init is None:
            raise error_at_op(op, "fills an encoded tensor the dispatch did not materialize")
        self._record(op.results[0], self.insert(type(op)([op.inputs[0]], [init], res=[init.type]), op),
                     self.infos[init])
        self.replaced.append(op)

    @handles(*(NAMED_OP_CLASSES[row] for row in ("matmul", "batch_matmul", "matvec", "vecmat", "batch_matvec")))
    def _contraction(self, op):
        lhs, rhs = (self.packed.get(v) for v in op.inputs)
        init = self.packed.get(op.outputs[0])
        if lhs is None or rhs is None or init is None:
            raise error_at_op(op, "mixes encoded and plain operands; data tiling needs all three encoded")
        info = self.infos[init]
        batched = contraction(op.results[0].type.encoding).batch is not None
        rhs = self._rhs_for_k_tile(op, self.infos[lhs], rhs)
        cls = BatchMmt4DOp if batched else Mmt4DOp
        fill = getattr(init, "op", None)
        if (not batched and isinstance(fill, xlinalg.FillOp) and _is_zero(fill.inputs[0])
                and isinstance(getattr(fill.outputs[0], "op", None), tensor.EmptyOp)):
            init = fill.outputs[0]
        new = cls([lhs, rhs], [init], result_types=[init.type], hidden_region=cls.get_hidden_region([lhs, rhs], [init]))
        self._record(op.results[0], self.insert(new, op), info)
        if fill is not None and init is not self.packed[op.outputs[0]] and not fill.results[0].uses:
            fill.parent_block().erase_op(fill)
        self.replaced.append(op)

    def _rhs_for_k_tile(self, op, lhs_info, rhs):
        """The packed RHS as mmt4d reads it with the LHS's K0: itself, or -- for an LHS that is
        another matmul's packed RESULT (propagated, K0 = its N0) against an RHS packed with
        K0 = 1 -- the same bytes ``[N1, K, N0]`` viewed as ``[N1, K / K0, N0, K0]``."""
        k0 = lhs_info.inner_tile_sizes[-1]
        rhs_k0 = self.infos[rhs].inner_tile_sizes[-1]
        if k0 == rhs_k0:
            return rhs
        n1, k, n0, one = rhs.type.get_shape()
        if rhs_k0 != 1 or k < 0 or k % k0:
            raise error_at_op(op, f"reads a propagated LHS with K0 = {k0} but its RHS is packed with "
                                  f"K0 = {rhs_k0}; propagated layouts need an RHS packed by K0 = 1 and "
                                  f"a static K that K0 divides (got K = {k})")
        element = rhs.type.element_type
        pack = getattr(rhs, "op", None)
        if isinstance(pack, PackOp) and not list(rhs.uses):
            # packed in this dispatch (an in-place RHS, form-dispatch-regions rule 5): pack
            # by K0 directly -- [N1, K / K0, N0, K0] is the same element order
            info = dataclasses.replace(self.infos[rhs], inner_tile_sizes=(n0, k0))
            packed = TensorType(element, [n1, k // k0, n0, k0])
            empty = self.insert(tensor.EmptyOp([], packed), op)
            self.replaced.append(pack)
            return self.insert(_relayout(PackOp, pack.source, empty, info, pack.padding_value), op)
        flat = self.insert(tensor.CollapseShapeOp.build(
            operands=[rhs], result_types=[TensorType(element, [n1, k, n0])],
            properties={"reassociation": _groups([[0], [1], [2, 3]])}), op)
        split = self.insert(tensor.ExpandShapeOp(flat, [], _groups([[0], [1, 2], [3]]), [n1, k // k0, k0, n0],
                                                 TensorType(element, [n1, k // k0, k0, n0])), op)
        init = self.insert(tensor.EmptyOp([], TensorType(element, [n1, k // k0, n0, k0])), op)
        return self.insert(TransposeOp(split, init, DenseArrayBase.from_list(i64, [0, 1, 3, 2]),
                                       TensorType(element, [n1, k // k0, n0, k0])), op)

    @handles(GenericOp)
    def _linalg_generic(self, op):
        """An elementwise generic on encoded tensors (an epilogue the propagation moved onto a
        packed result) -> the same body over the packed tiles."""
        init = self.packed.get(op.outputs[0]) if len(op.outputs) == 1 else None
        if init is None or not kinds.is_elementwise(op):
            raise error_at_op(op, "only an elementwise generic with one encoded output can run on packed tiles")
        info = self.infos[init]
        rank = len(op.outputs[0].type.get_shape())
        packed_rank = len(init.type.get_shape())
        plain = [None] * rank
        for j, d in enumerate(info.outer_dims_perm):
            plain[d] = AffineExpr.dimension(j)
        for q, (d, tile) in enumerate(zip(info.inner_dims_pos, info.inner_tile_sizes)):
            plain[d] = plain[d] * tile + AffineExpr.dimension(rank + q)
        identity = AffineMap.identity(packed_rank)
        inputs, maps = [], []
        for value, amap in zip(op.inputs, [m.data for m in op.indexing_maps.data]):
            packed = self.packed.get(value)
            if packed is not None:
                if self.infos[packed] != info or not amap.is_minor_identity() or amap.num_dims != rank:
                    raise error_at_op(op, "reads an encoded operand in another layout or through a "
                                          "non-identity map; expected the result's own packed tiles")
                inputs.append(packed)
                maps.append(identity)
            else:
                inputs.append(value)
                maps.append(amap.replace_dims_and_symbols(plain, [], packed_rank, 0))
        generic = type(op)(inputs, [init], op.regions[0].clone(), [AffineMapAttr(m) for m in maps + [identity]],
                           ArrayAttr([IteratorTypeAttr(IteratorType.PARALLEL)] * packed_rank), [init.type])
        self._record(op.results[0], self.insert(generic, op), info)
        self.replaced.append(op)


    @handles(*(NAMED_OP_CLASSES[name] for name in PACKED_CONV_OPS))
    def _convolution(self, op):
        packed = self.packed.get(op.inputs[1])
        if packed is None or _encoding(op.inputs[0].type) is not None or any(
                _encoding(v.type) is not None for v in (*op.outputs, *op.results)):
            raise error_at_op(op, "convolution data tiling packs the filter alone; expected a "
                                  "plain input and output and a filter loaded from an encoded binding")
        generic = self.insert(packed_conv(op, op.inputs[1].type.encoding, self.infos[packed], packed), op)
        op.results[0].replace_all_uses_with(generic)
        self.replaced.append(op)

    def _record(self, old, new, info):
        self.packed[old] = new
        self.infos[new] = info


def _groups(groups):
    return ArrayAttr([ArrayAttr([IntegerAttr(k, i64) for k in g]) for g in groups])


def _is_zero(value):
    owner = getattr(value, "op", None)
    if not isinstance(owner, arith.ConstantOp):
        return False
    attr = owner.value
    return isinstance(attr, (FloatAttr, IntegerAttr)) and attr.value.data == 0


def _relayout(cls, source, dest, info, pad=None):
    props = {"inner_dims_pos": DenseArrayBase.from_list(i64, list(info.inner_dims_pos)),
             "static_inner_tiles": DenseArrayBase.from_list(i64, list(info.inner_tile_sizes)),
             "outer_dims_perm": DenseArrayBase.from_list(i64, list(info.outer_dims_perm))}
    values = {"source": source, "dest": dest, "inner_tiles": [], "padding_value": [pad] if pad is not None else []}
    operands = [values[name] for name, _ in cls.get_irdl_definition().operands]
    return cls.build(operands=operands, result_types=[dest.type], properties=props)


def materialize_encodings(func_op, backend, config):
    """Rewrite ``func_op`` (a hal-level dispatch function) so no encoded tensor is left.

    backend: the TargetBackend (its name picks the resolver); config: its target config dict.
    Does nothing for functions without encodings. Raises CompileError located at the op.
    """
    if has_encodings(func_op):
        _Materializer(func_op, backend, config).run()
