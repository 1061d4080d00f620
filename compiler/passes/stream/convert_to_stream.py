"""``iree-stream-convert-to-stream``: tensors on the host become sized stream resources.

Input: the flow form (hal.tensor.import/export, flow.tensor.*, flow.dispatch, flow.executable,
util.global tensors, splat arith.constant). Output: every host tensor value is a
``!stream.resource<*>`` plus an index byte size from ``stream.tensor.sizeof``; ops become
``stream.tensor.*`` (keeping the tensor as an *encoding*) or ``stream.async.transfer``; each op
carries the affinity it runs on (``stream.affinity`` attr, then the function's, then the module's
``stream.affinity.default``; a value moved by ``flow.tensor.transfer`` makes its consumers run on
the transfer's target). ``flow.executable`` becomes ``stream.executable`` whose functions take
``!stream.binding`` and open each one with ``stream.binding.subspan``. Tensor globals become
resource globals (immutable: ``constant``, mutable: ``variable``) set by a ``util.initializer``;
one initialized with ``#flow.parameter.named`` (or the ``#stream.parameter.named`` that
``iree-compile --compile-to=input`` prints) gets a ``stream.tensor.constant`` of
``#stream.parameter.named`` (loaded at run time, see :mod:`.parameters`).
``check.*`` ops on tensors receive exported ``!hal.buffer_view`` values. Channels and
collectives become ``stream.channel.*`` and ``stream.async.collective`` (:mod:`.collective_conversion`).
IREE's coarse-fences ABI (``hal.tensor.import wait(%f)``, ``hal.tensor.barrier ... => %f``) is
kept with host fence operations (:mod:`.coarse_fences`).

Example::

    %0 = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<10xf32>
    %1 = flow.dispatch @ex::@fn[%c10](%0) : (tensor<10xf32>) -> tensor<10xf32>
    %2 = hal.tensor.export %1 : tensor<10xf32> -> !hal.buffer_view
    // ->
    %s = stream.tensor.sizeof tensor<10xf32> : index
    %r = stream.tensor.import %arg0 : !hal.buffer_view -> tensor<10xf32> in !stream.resource<external>{%s}
    %t = stream.async.transfer %r : !stream.resource<external>{%s} -> !stream.resource<*>{%s}
    %s1 = stream.tensor.sizeof tensor<10xf32> : index
    %d = stream.tensor.dispatch @ex::@fn[%c10](%t) : (tensor<10xf32> in !stream.resource<*>{%s}) -> tensor<10xf32> in !stream.resource<*>{%s1}
    %e = stream.async.transfer %d : !stream.resource<*>{%s1} -> !stream.resource<external>{%s1}
    %2 = stream.tensor.export %e : tensor<10xf32> in !stream.resource<external>{%s1} -> !hal.buffer_view

Tensors crossing private function calls travel as resource, size and dynamic dims
(:mod:`.call_conversion`), and so do tensors carried by ``scf.if``/``scf.for``/``scf.while`` and
``cf.br``/``cf.cond_br`` (:mod:`.control_flow_conversion`); ``tensor.dim`` folds to those dims.

Errors: CompileError at the op for public functions still taking tensors, other region ops
carrying tensors, or ops rt cannot convert. Source followed: IREE ``Stream/Transforms/ConvertToStream.cpp`` and the
``FlowToStream``/``HALToStream``/``UtilToStream`` patterns.
"""
import dataclasses

from xdsl.dialects import arith, cf, func, scf, tensor
from xdsl.dialects.builtin import ArrayAttr, SymbolRefAttr, TensorType
from xdsl.ir import Block, Region
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import check, flow, hal, stream, util
from rt.compiler.dialects.stream_types import index_array
from rt.compiler.frontend import error_at_op, is_splat, splat_value
from rt.compiler.op_handlers import OpHandlers, handles
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream.call_conversion import (
    convert_call,
    convert_dim,
    convert_return,
    expand_arguments,
    expand_block_arguments,
    finish_signature,
)
from rt.compiler.helpers.stream.control_flow_conversion import (
    carries_tensors,
    convert_branch,
    convert_condition,
    convert_for,
    convert_if,
    convert_while,
    convert_yield,
    erase_arguments,
)
from rt.compiler.dialects._parameters import NamedParameterBase
from rt.compiler.helpers.stream.coarse_fences import await_fence, signal_before_return
from rt.compiler.helpers.stream.collective_conversion import HANDLERS as COLLECTIVE_HANDLERS
from rt.compiler.helpers.stream.collective_conversion import retype_channels
from rt.compiler.helpers.stream.executable_conversion import convert_executable
from rt.compiler.helpers.stream.parameters import parameter_value
from rt.compiler.helpers.stream.resources import INDEX, affinity_of, host_callables

_CHECK_CONST_OPS = (check.ExpectEqConstOp, check.ExpectAlmostEqConstOp)

@dataclasses.dataclass
class _Res:
    """A converted tensor: its resource value, byte size, encoding dims and affinity."""

    resource: object
    size: object
    dims: list
    affinity: object


@dataclasses.dataclass(frozen=True)
class ConvertToStreamPass(Pass):
    """flow/hal tensor ops -> stream.tensor/async ops on sized resources."""

    name = "iree-stream-convert-to-stream"

    def run(self, module, ctx):
        retype_channels(module)
        self._convert_globals(module)
        for op in list(module.body.block.ops):
            if isinstance(op, flow.ExecutableOp):
                convert_executable(op)
        for callable_op in host_callables(module):
            _Converter(module).run(callable_op)

    def _convert_globals(self, module):
        """Constant tensor globals become resources; their values are uploaded by an
        initializer placed right after each run of consecutive initialized globals, so it runs
        before any initializer that follows (and may read) them."""
        runs, run = [], []
        for op in list(module.body.block.ops):
            if not isinstance(op, util.GlobalOp):
                if run:
                    runs.append(run)
                    run = []
                continue
            if not isinstance(op.type, TensorType):
                continue
            lifetime = "variable" if op.is_mutable is not None else "constant"
            props = dict(op.properties)
            props["type"] = stream.ResourceType(lifetime)
            value = props.pop("initial_value", None)
            if isinstance(value, NamedParameterBase):
                value = parameter_value(module, op, value)
            new = util.GlobalOp.create(properties=props, attributes=dict(op.attributes))
            Rewriter.replace_op(op, new)
            if value is not None:
                run.append((new, op.type, value, lifetime))
        if run:
            runs.append(run)
        for run in runs:
            self._initializer(module, run)

    @staticmethod
    def _initializer(module, init_ops):
        block = Block()
        for glob, tensor_type, value, lifetime in init_ops:
            aff = module.attributes.get("stream.affinity.default")
            props = {"result_encoding": tensor_type, "value": value} | ({"affinity": aff} if aff is not None else {})
            const = stream.TensorConstantOp.build(operands=[[]], result_types=[stream.ResourceType(lifetime)],
                                                  properties=props)
            store = util.GlobalStoreOp.build(operands=[const.result],
                                             properties={"global": SymbolRefAttr(glob.sym_name.data)})
            block.add_ops([const, store])
        block.add_op(util.ReturnOp.build(operands=[[]]))
        init = util.InitializerOp.build(regions=[Region(block)])
        Rewriter.insert_op(init, InsertPoint.after(init_ops[-1][0]))


class _Converter:
    """Walks one callable in order, replacing tensor values by resources: an op by the
    ``@handles`` method of its class, else by its ``collective_conversion.HANDLERS`` entry."""

    handler = OpHandlers()

    def __init__(self, module):
        self.module = module
        self.map = {}
        self.dead = []
        self.old_block_args = []

    def run(self, callable_op):
        old_args = expand_arguments(self, callable_op)
        for region in callable_op.regions:
            self.convert_region(region)
        for op in reversed(self.dead):
            Rewriter.erase_op(op)
        erase_arguments(self.old_block_args, lambda arg, user: error_at_op(
            user, f"'{user.name}' uses a tensor block argument that iree-stream-convert-to-stream cannot convert"))
        finish_signature(callable_op, old_args)

    def convert_region(self, region):
        """Convert every op of ``region``; tensor arguments of non-entry blocks are expanded first."""
        for block in list(region.blocks)[1:]:
            self.old_block_args += expand_block_arguments(self, block, affinity_of(region.parent_op()))
        for block in region.blocks:
            for op in list(block.ops):
                self.convert(op)

    # -- helpers -----------------------------------------------------------------------------
    def _before(self, anchor, *ops):
        for op in ops:
            op.location = anchor.location
        Rewriter.insert_op(list(ops), InsertPoint.before(anchor))
        return ops[-1]

    def _sizeof(self, anchor, tensor_type, dims, aff):
        props = {"encoding": tensor_type} | ({"affinity": aff} if aff is not None else {})
        op = stream.TensorSizeOfOp.build(operands=[dims], result_types=[INDEX], properties=props)
        return self._before(anchor, op).storage_size

    def lookup(self, op, value):
        res = self.map.get(value)
        if res is None:
            raise error_at_op(op, f"operand of type {value.type} was not produced by an op "
                              f"iree-stream-convert-to-stream can convert")
        return res

    def _transfer(self, anchor, res, lifetime, aff):
        props = {} if aff is None else {"source_affinity": aff, "result_affinity": aff}
        op = stream.AsyncTransferOp.build(operands=[res.resource, res.size, res.size],
                                          result_types=[stream.ResourceType(lifetime)], properties=props)
        return self._before(anchor, op).result

    def _affinity(self, op, operands=()):
        if op.properties.get("affinity") is not None or op.attributes.get("stream.affinity") is not None:
            return affinity_of(op)
        for value in operands:
            res = self.map.get(value)
            if res is not None and res.affinity is not None:
                return res.affinity
        return affinity_of(op)

    def bind(self, value, resource, size, dims, aff):
        self.map[value] = _Res(resource, size, list(dims), aff)

    # -- per-op conversion -------------------------------------------------------------------
    def convert(self, op):
        handler = self.handler(op)
        if handler is not None:
            handler(op)
            return
        collective = COLLECTIVE_HANDLERS.get(op)
        if collective is not None:
            collective(self, op)
            return
        if op.regions and not carries_tensors(op):
            for region in op.regions:
                self.convert_region(region)
            return
        tensors = [v for v in list(op.operands) + list(op.results) if isinstance(v.type, TensorType)]
        if not tensors and not op.regions:
            return
        if op.dialect_name() == "check":  # every check op reads its tensors as buffer views
            self._check(op)
            return
        raise error_at_op(op, f"'{op.name}' on tensors cannot be converted to the stream dialect; expected flow.*, "
                          f"hal.tensor.*, util.global.*, splat arith.constant or check.* ops at this point")

    @handles(util.ReturnOp, func.ReturnOp)
    def _return(self, op):
        convert_return(self, op)

    @handles(util.CallOp, func.CallOp)
    def _call(self, op):
        convert_call(self, op)

    @handles(scf.IfOp)
    def _scf_if(self, op):
        convert_if(self, op)

    @handles(scf.ForOp)
    def _scf_for(self, op):
        convert_for(self, op)

    @handles(scf.WhileOp)
    def _scf_while(self, op):
        convert_while(self, op)

    @handles(scf.YieldOp)
    def _scf_yield(self, op):
        convert_yield(self, op)

    @handles(scf.ConditionOp)
    def _scf_condition(self, op):
        convert_condition(self, op)

    @handles(cf.BranchOp, cf.ConditionalBranchOp)
    def _branch(self, op):
        convert_branch(self, op)

    @handles(tensor.DimOp)
    def _tensor_dim(self, op):
        convert_dim(self, op)

    @handles(hal.TensorImportOp)
    def _hal_tensor_import(self, op):
        if op.wait_fence is not None:
            await_fence(op, op.wait_fence)
        aff = self._affinity(op)
        tensor_type, dims = op.result.type, list(op.target_dims)
        size = self._sizeof(op, tensor_type, dims, aff)
        props = {"result_encoding": tensor_type} | ({"affinity": aff} if aff is not None else {})
        imp = self._before(op, stream.TensorImportOp.build(operands=[op.source, dims, size],
                                                           result_types=[stream.ResourceType("external")],
                                                           properties=props))
        res = _Res(imp.result, size, dims, aff)
        self.bind(op.result, self._transfer(op, res, "*", aff), size, dims, aff)
        self.dead.append(op)

    @handles(hal.TensorBarrierOp)
    def _hal_tensor_barrier(self, op):
        for source, result in zip(op.sources, op.results_):
            res = self.lookup(op, source)
            self.bind(result, res.resource, res.size, res.dims, res.affinity)
        signal_before_return(op, op.signal_fence)
        self.dead.append(op)

    @handles(hal.TensorExportOp)
    def _hal_tensor_export(self, op):
        res = self.lookup(op, op.source)
        aff = self._affinity(op, [op.source])
        self._export(op, op.source.type, res, aff, replace=op.result)
        self.dead.append(op)

    def _export(self, anchor, tensor_type, res, aff, replace=None):
        external = self._transfer(anchor, res, "external", aff)
        props = {"source_encoding": tensor_type} | ({"affinity": aff} if aff is not None else {})
        from rt.compiler.dialects.hal_types import BufferViewType

        exp = self._before(anchor, stream.TensorExportOp.build(operands=[external, res.dims, res.size],
                                                               result_types=[BufferViewType()], properties=props))
        if replace is not None:
            replace.replace_all_uses_with(exp.result)
        return exp.result

    def _check(self, op):
        if isinstance(op, _CHECK_CONST_OPS):
            op = self._expand_check_const(op)
        for i, value in enumerate(list(op.operands)):
            if isinstance(value.type, TensorType):
                res = self.lookup(op, value)
                op.operands[i] = self._export(op, value.type, res, res.affinity)

    @handles(flow.TensorTraceOp)
    def _flow_tensor_trace(self, op):
        """flow.tensor.trace -> hal.buffer_view.trace on each tensor exported as a buffer view."""
        from rt.compiler.dialects.hal_ops import BufferViewTraceOp

        views = []
        for value in op.values:
            res = self.lookup(op, value)
            views.append(self._export(op, value.type, res, res.affinity))
        trace = self._before(op, BufferViewTraceOp.build(operands=[views], properties={"key": op.key}))
        trace.location = op.location
        self.dead.append(op)

    def _expand_check_const(self, op):
        """check.expect_*_const(%x, value) -> check.expect_*(%x, %constant) on a materialized constant."""
        from rt.compiler.dialects.arith import ConstantOp

        const = self._before(op, ConstantOp.create(result_types=[op.value.get_type()],
                                                   properties={"value": op.value}))
        pair = check.ExpectEqOp if isinstance(op, check.ExpectEqConstOp) else check.ExpectAlmostEqOp
        props = {k: v for k, v in op.properties.items() if k != "value"}
        new = pair.create(operands=[op.lhs, const.result], properties=props, attributes=dict(op.attributes))
        new.location = const.location = op.location
        Rewriter.replace_op(op, new)
        self._arith_constant(const)
        return new

    @handles(arith.ConstantOp)
    def _arith_constant(self, op):
        if not isinstance(op.result.type, TensorType):
            return
        self._constant(op, op.value)

    @handles(util.UnfoldableConstantOp)
    def _util_unfoldable_constant(self, op):
        if isinstance(op.result.type, TensorType):
            self._constant(op, op.value)

    @handles(flow.TensorConstantOp)
    def _flow_tensor_constant(self, op):
        self._constant(op, op.value)

    def _constant(self, op, value):
        aff = self._affinity(op)
        tensor_type = op.results[0].type
        size = self._sizeof(op, tensor_type, [], aff)
        props = {"result_encoding": tensor_type} | ({"affinity": aff} if aff is not None else {})
        if is_splat(value):
            scalar = self._before(op, arith.ConstantOp(_scalar_attr(splat_value(value), tensor_type.element_type)))
            new = stream.TensorSplatOp.build(operands=[scalar.result, [], size], result_types=[stream.ResourceType()],
                                             properties=props)
            self._before(op, new)
            self.bind(op.results[0], new.result, size, [], aff)
        else:
            new = stream.TensorConstantOp.build(operands=[[]], result_types=[stream.ResourceType("constant")],
                                                properties=props | {"value": value})
            self._before(op, new)
            res = _Res(new.result, size, [], aff)
            self.bind(op.results[0], self._transfer(op, res, "*", aff), size, [], aff)
        self.dead.append(op)

    @handles(util.GlobalLoadOp)
    def _util_global_load(self, op):
        if not isinstance(op.result.type, TensorType):
            return
        glob = _find_global(self.module, op)
        aff = self._affinity(op)
        load = self._before(op, util.GlobalLoadOp.build(result_types=[glob.type], properties=dict(op.properties)))
        size = self._sizeof(op, op.result.type, [], aff)
        res = _Res(load.result, size, [], aff)
        self.bind(op.result, self._transfer(op, res, "*", aff), size, [], aff)
        self.dead.append(op)

    @handles(util.GlobalStoreOp)
    def _util_global_store(self, op):
        if not isinstance(op.value.type, TensorType):
            return
        glob = _find_global(self.module, op)
        res = self.lookup(op, op.value)
        value = self._transfer(op, res, glob.type.lifetime.data, res.affinity)
        self._before(op, util.GlobalStoreOp.build(operands=[value], properties=dict(op.properties)))
        self.dead.append(op)

    @handles(flow.TensorTransferOp)
    def _flow_tensor_transfer(self, op):
        res = self.lookup(op, op.operand)
        props = {"result_affinity": op.target} | ({"source_affinity": res.affinity} if res.affinity else {})
        new = self._before(op, stream.AsyncTransferOp.build(operands=[res.resource, res.size, res.size],
                                                            result_types=[stream.ResourceType()], properties=props))
        self.bind(op.result, new.result, res.size, res.dims, op.target)
        self.dead.append(op)

    @handles(flow.TensorReshapeOp)
    def _flow_tensor_reshape(self, op):
        self._clone(op, op.source, list(op.source_dims), list(op.result_dims))

    @handles(flow.TensorBitCastOp)
    def _flow_tensor_bitcast(self, op):
        self._clone(op, op.source, list(op.source_dims), list(op.result_dims))

    @handles(flow.TensorTieShapeOp)
    def _flow_tensor_tie_shape(self, op):
        res = self.lookup(op, op.operand)
        self.bind(op.result, res.resource, res.size, list(op.dynamic_dims), res.affinity)
        self.dead.append(op)

    @handles(flow.TensorCloneOp)
    def _flow_tensor_clone(self, op):
        self._clone(op, op.operand, list(op.result_dims), list(op.result_dims))

    def _clone(self, op, source, source_dims, result_dims):
        res = self.lookup(op, source)
        aff = self._affinity(op, [source])
        size = self._sizeof(op, op.result.type, result_dims, aff)
        props = {"source_encoding": source.type, "result_encoding": op.result.type}
        props |= {"affinity": aff} if aff is not None else {}
        new = self._before(op, stream.TensorCloneOp.build(
            operands=[res.resource, source_dims, res.size, result_dims, size], result_types=[stream.ResourceType()],
            properties=props))
        self.bind(op.result, new.result, size, result_dims, aff)
        self.dead.append(op)

    @handles(flow.TensorEmptyOp)
    def _flow_tensor_empty(self, op):
        aff = self._affinity(op)
        dims = list(op.result_dims)
        size = self._sizeof(op, op.result.type, dims, aff)
        props = {"result_encoding": op.result.type} | ({"affinity": aff} if aff is not None else {})
        new = self._before(op, stream.TensorEmptyOp.build(operands=[dims, size], result_types=[stream.ResourceType()],
                                                          properties=props))
        self.bind(op.result, new.result, size, dims, aff)
        self.dead.append(op)

    @handles(flow.TensorAllocaOp)
    def _flow_tensor_alloca(self, op):
        aff = self._affinity(op)
        dims = list(op.result_dims)
        size = self._sizeof(op, op.result.type, dims, aff)
        new = self._before(op, stream.AsyncAllocaOp.build(operands=[size], result_types=[stream.ResourceType()],
                                                          properties={"affinity": aff} if aff is not None else {}))
        self.bind(op.result, new.result, size, dims, aff)
        self.dead.append(op)

    @handles(flow.TensorSplatOp)
    def _flow_tensor_splat(self, op):
        aff = self._affinity(op)
        dims = list(op.result_dims)
        size = self._sizeof(op, op.result.type, dims, aff)
        props = {"result_encoding": op.result.type} | ({"affinity": aff} if aff is not None else {})
        new = self._before(op, stream.TensorSplatOp.build(operands=[op.value, dims, size],
                                                          result_types=[stream.ResourceType()], properties=props))
        self.bind(op.result, new.result, size, dims, aff)
        self.dead.append(op)

    @handles(flow.TensorSliceOp)
    def _flow_tensor_slice(self, op):
        res = self.lookup(op, op.source)
        aff = self._affinity(op, [op.source])
        dims = list(op.result_dims)
        size = self._sizeof(op, op.result.type, dims, aff)
        props = {"source_encoding": op.source.type, "result_encoding": op.result.type}
        props |= {"affinity": aff} if aff is not None else {}
        new = self._before(op, stream.TensorSliceOp.build(
            operands=[res.resource, list(op.source_dims), res.size, list(op.start_indices), list(op.lengths), dims,
                      size], result_types=[stream.ResourceType()], properties=props))
        self.bind(op.result, new.result, size, dims, aff)
        self.dead.append(op)

    @handles(flow.TensorUpdateOp)
    def _flow_tensor_update(self, op):
        target, update = self.lookup(op, op.target), self.lookup(op, op.update)
        aff = self._affinity(op, [op.target])
        props = {"update_encoding": op.update.type, "target_encoding": op.target.type}
        props |= {"affinity": aff} if aff is not None else {}
        new = self._before(op, stream.TensorUpdateOp.build(
            operands=[update.resource, list(op.update_dims), update.size, target.resource, list(op.target_dims),
                      target.size, list(op.start_indices)], result_types=[stream.ResourceType()], properties=props))
        self.bind(op.result, new.result, target.size, target.dims, aff)
        self.dead.append(op)

    @handles(flow.TensorLoadOp)
    def _flow_tensor_load(self, op):
        res = self.lookup(op, op.source)
        staging = self._transfer(op, res, "staging", res.affinity)
        new = self._before(op, stream.TensorLoadOp.build(
            operands=[staging, list(op.source_dims), res.size, list(op.indices)], result_types=[op.result.type],
            properties={"source_encoding": op.source.type}))
        op.result.replace_all_uses_with(new.result)
        self.dead.append(op)

    @handles(flow.TensorStoreOp)
    def _flow_tensor_store(self, op):
        res = self.lookup(op, op.target)
        staging = self._transfer(op, res, "staging", res.affinity)
        new = self._before(op, stream.TensorStoreOp.build(
            operands=[op.value, staging, list(op.target_dims), res.size, list(op.indices)],
            result_types=[stream.ResourceType("staging")], properties={"target_encoding": op.target.type}))
        back = _Res(new.result, res.size, res.dims, res.affinity)
        self.bind(op.result, self._transfer(op, back, "*", res.affinity), res.size, res.dims, res.affinity)
        self.dead.append(op)

    @handles(util.OptimizationBarrierOp)
    def _util_optimization_barrier(self, op):
        if not any(isinstance(v.type, TensorType) for v in op.operands):
            return
        values = [self.lookup(op, v).resource if isinstance(v.type, TensorType) else v for v in op.operands]
        new = self._before(op, util.OptimizationBarrierOp.build(operands=[values],
                                                                result_types=[[v.type for v in values]]))
        for old, value, result in zip(op.operands, op.results, new.results):
            if isinstance(old.type, TensorType):
                res = self.map[old]
                self.bind(value, result, res.size, res.dims, res.affinity)
            else:
                value.replace_all_uses_with(result)
        self.dead.append(op)

    @handles(flow.DispatchOp)
    def _flow_dispatch(self, op):
        aff = self._affinity(op, list(op.arguments))
        from rt.compiler.dialects.flow_types import split_dims

        arg_dims = split_dims([a.type for a in op.arguments], list(op.argument_dims))
        operands, sizes, encs, enc_dims = [], [], [], []
        for value, dims in zip(op.arguments, arg_dims):
            if isinstance(value.type, TensorType):
                res = self.lookup(op, value)
                operands.append(res.resource)
                sizes.append(res.size)
                enc_dims.extend(dims)
            else:
                operands.append(value)
            encs.append(value.type)
        res_dims = split_dims([r.type for r in op.results], list(op.result_dims))
        tied = op.tied_operand_indices()
        rsizes, rdims = [], []
        for i, (result, dims) in enumerate(zip(op.results, res_dims)):
            if tied[i] >= 0:
                rsizes.append(self.map[op.arguments[tied[i]]].size)
            else:
                rsizes.append(self._sizeof(op, result.type, dims, aff))
            rdims.extend(dims)
        props = {"entry_points": ArrayAttr([op.entry_point]), "operand_encodings": ArrayAttr(encs),
                 "result_encodings": ArrayAttr([r.type for r in op.results])}
        props |= {"affinity": aff} if aff is not None else {}
        if any(t >= 0 for t in tied):
            props["tied_operands"] = index_array(tied)
        new = self._before(op, stream.TensorDispatchOp.build(
            operands=[list(op.workload), operands, sizes, enc_dims, rsizes, rdims],
            result_types=[[stream.ResourceType()] * len(op.results)], properties=props))
        new.location = op.location  # a failed dispatch names its source op (rt run, issue 13)
        for result, value, size, dims in zip(op.results, new.results, rsizes, res_dims):
            self.bind(result, value, size, dims, aff)
        self.dead.append(op)


def _find_global(module, user):
    """The util.global ``user`` (a util.global.load/store) names; a CompileError at ``user`` if none."""
    name = user.global_name.root_reference.data
    for op in module.body.block.ops:
        if isinstance(op, util.GlobalOp) and op.sym_name.data == name:
            return op
    raise error_at_op(user, f"'{user.name}' names @{name}, which is not a util.global of this module (declare it "
                            f"at module level: util.global or ml_program.global)")


def _scalar_attr(value, element_type):
    from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType

    if isinstance(element_type, IntegerType) or element_type == INDEX:
        return IntegerAttr(int(value), element_type)
    return FloatAttr(float(value), element_type)

