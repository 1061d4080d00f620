"""``iree-abi-wrap-entry-points``: public functions take and return ``!hal.buffer_view``.

Input: a module whose public ``func.func`` / ``util.func`` functions take and return ranked
tensors and scalars (index, integers, floats). Output: every top-level function is a
``util.func``; each public one keeps its name and visibility but now takes ``!hal.buffer_view``
for every tensor argument and returns ``!hal.buffer_view`` for every tensor result (scalars
stay scalars). The body is the original one, wrapped: each tensor argument is imported with
``hal.tensor.import`` (dynamic dims read with ``hal.buffer_view.dim``), each tensor result is
exported with ``hal.tensor.export`` (dynamic dims from ``tensor.dim``, folded by later passes).
Functions with no tensors at all (e2e tests) are wrapped the same way. The wrapper carries
``iree.abi.stub`` and ``iree.reflection = {iree.abi.declaration, rt.abi, rt.source}`` as
described in docs/compiled_module_abi.md. A public function that other functions call keeps a
private unwrapped copy ``@_name`` for those callers. Private functions become private
``util.func`` (``func.call`` -> ``util.call``, ``func.return`` -> ``util.return``).

Example::

    func.func @foo(%lhs: tensor<?x4xf32>) -> tensor<?x4xf32> { ... return %r : tensor<?x4xf32> }
    // ->
    util.func public @foo(%lhs: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub,
        iree.reflection = {iree.abi.declaration = "func @foo(%lhs: tensor<?x4xf32>) -> tensor<?x4xf32>",
                           rt.abi = "{...}", rt.source = "foo.mlir:1:1"}} {
      %0 = hal.buffer_view.dim<%lhs : !hal.buffer_view>[0] : index
      %1 = hal.tensor.import %lhs "input0" : !hal.buffer_view -> tensor<?x4xf32>{%0}
      ...
      %c0 = arith.constant 0 : index
      %d = tensor.dim %r, %c0 : tensor<?x4xf32>
      %2 = hal.tensor.export %r "output0" : tensor<?x4xf32>{%d} -> !hal.buffer_view
      util.return %2 : !hal.buffer_view
    }

Functions already in ABI form (``iree.abi.stub``, e.g. the ``f$async`` / ``f`` pairs of IREE's
coarse-fences ABI that its ONNX and torch importers emit) are not wrapped again; they get
``rt.abi`` reflection derived from their imports and exports (:mod:`.stub_reflection`).

Errors: an argument or result that is neither a ranked tensor nor a scalar (index, iN, fN)
is a CompileError at the function.

Source followed: IREE ``compiler/src/iree/compiler/Bindings/Native/Transforms/WrapEntryPoints.cpp``
and ``iree-import-public`` (func.func -> util.func).
"""
import dataclasses
import json

from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DictionaryAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Region
from xdsl.rewriter import Rewriter

from rt.compiler.dialects import hal, util
from rt.compiler.dialects.hal_types import BufferViewType
from rt.compiler.frontend.diagnostics import error_at_op, op_location
from rt.compiler.helpers.abi.stub_reflection import stub_abi
from rt.compiler.passes.base import Pass

INDEX = IndexType()
REFLECTION_KEYS = ("iree.abi.declaration", "rt.abi", "rt.source")


def _is_scalar(type_):
    return isinstance(type_, (IndexType, IntegerType)) or getattr(type_, "name", "") in ("f16", "bf16", "f32", "f64")


def _arg_info(name, type_):
    """One ARG entry of the ``rt.abi`` JSON (docs/compiled_module_abi.md)."""
    if isinstance(type_, TensorType):
        encoding = None if isinstance(type_.encoding, NoneAttr) else str(type_.encoding)
        return {"name": name, "type": str(type_), "kind": "tensor",
                "shape": [None if d == DYNAMIC_INDEX else d for d in type_.get_shape()],
                "dtype": str(type_.element_type),
                "encoding": encoding}
    return {"name": name, "type": str(type_), "kind": "scalar", "dtype": str(type_)}


def _declaration(name, arg_names, inputs, outputs):
    args = ", ".join(f"%{n}: {t}" for n, t in zip(arg_names, inputs))
    if len(outputs) == 1:
        results = f" -> {outputs[0]}"
    elif outputs:
        results = " -> (" + ", ".join(map(str, outputs)) + ")"
    else:
        results = ""
    return f"func @{name}({args}){results}"


def _arg_names(block, count):
    names = []
    for i in range(count):
        hint = block.args[i].name_hint if block is not None else None
        names.append(hint if hint else f"arg{i}")
    return names


def _to_util_func(op, visibility):
    """A util.func with ``op``'s name, type, attributes and (moved) body; returns it."""
    region = Region()
    op.body.move_blocks(region)
    attrs = {k: v for k, v in op.attributes.items() if k not in ("sym_visibility",)}
    new = util.FuncOp.build(
        properties={"sym_name": op.sym_name, "function_type": op.function_type,
                    "sym_visibility": StringAttr(visibility)},
        regions=[region], attributes=attrs)
    new.location = op.location
    return new


def _convert_terminators_and_calls(fn):
    for op in list(fn.walk()):
        if isinstance(op, func.ReturnOp):
            new = util.ReturnOp.build(operands=[list(op.arguments)])
        elif isinstance(op, func.CallOp):
            new = util.CallOp.build(operands=[list(op.arguments)], result_types=[[r.type for r in op.results]],
                                    properties={"callee": op.callee})
        else:
            continue
        new.location = op.location
        Rewriter.replace_op(op, new)


def _check_signature(fn):
    types = fn.function_type
    for kind, items in (("argument", types.inputs.data), ("result", types.outputs.data)):
        for i, t in enumerate(items):
            if not isinstance(t, TensorType) and not _is_scalar(t):
                raise error_at_op(fn, f"{kind} {i} of @{fn.sym_name.data} has type {t}; public functions take and "
                                      "return ranked tensors or scalars (index, iN, fN)")


def _wrap(fn):
    """Rewrite the util.func ``fn`` in place into its buffer-view wrapper."""
    inputs, outputs = fn.function_type.inputs.data, fn.function_type.outputs.data
    block = fn.body.blocks[0] if fn.body.blocks else None
    arg_names = _arg_names(block, len(inputs))
    abi = {"args": [_arg_info(n, t) for n, t in zip(arg_names, inputs)],
           "results": [_arg_info(f"output{i}", t) for i, t in enumerate(outputs)]}
    where = op_location(fn)
    reflection = {
        "iree.abi.declaration": StringAttr(_declaration(fn.sym_name.data, arg_names, inputs, outputs)),
        "rt.abi": StringAttr(json.dumps(abi, separators=(",", ":"))),
        "rt.source": StringAttr(f"{where[0]}:{where[1]}:{where[2]}" if where else "<unknown>"),
    }
    bv = BufferViewType()
    new_inputs = [bv if isinstance(t, TensorType) else t for t in inputs]
    new_outputs = [bv if isinstance(t, TensorType) else t for t in outputs]
    fn.properties["function_type"] = FunctionType.from_lists(new_inputs, new_outputs)
    fn.attributes["iree.abi.stub"] = UnitAttr()
    fn.attributes["iree.reflection"] = DictionaryAttr(reflection)
    if block is None:
        return
    first = block.first_op
    for i, arg in enumerate(list(block.args)):
        if not isinstance(arg.type, TensorType):
            continue
        tensor_type = arg.type
        uses = list(arg.uses)
        dims = []
        for d, size in enumerate(tensor_type.get_shape()):
            if size == DYNAMIC_INDEX:
                dims.append(hal.BufferViewDimOp.build(operands=[arg], result_types=[INDEX],
                                                      properties={"index": IntegerAttr(d, INDEX)}))
        imported = hal.TensorImportOp.build(operands=[arg, [d.result for d in dims], []], result_types=[tensor_type],
                                            properties={"name": StringAttr(f"input{i}")})
        for new in (*dims, imported):
            new.location = fn.location
            if first is not None:
                block.insert_op_before(new, first)
            else:
                block.add_op(new)
        for use in uses:
            use.operation.operands[use.index] = imported.result
        Rewriter.replace_value_with_new_type(arg, bv)
    for ret in [op for op in fn.walk() if isinstance(op, util.ReturnOp)]:
        values = []
        for r, value in enumerate(ret.values):
            if not isinstance(value.type, TensorType):
                values.append(value)
                continue
            new_ops, dims = [], []
            for d, size in enumerate(value.type.get_shape()):
                if size == DYNAMIC_INDEX:
                    index = arith.ConstantOp(IntegerAttr(d, INDEX))
                    dim = tensor.DimOp(value, index)
                    new_ops += [index, dim]
                    dims.append(dim.result)
            exported = hal.TensorExportOp.build(operands=[value, dims], result_types=[bv],
                                                properties={"name": StringAttr(f"output{r}")})
            new_ops.append(exported)
            for new in new_ops:
                new.location = ret.location
                ret.parent_block().insert_op_before(new, ret)
            values.append(exported.result)
        new_ret = util.ReturnOp.build(operands=[values])
        new_ret.location = ret.location
        Rewriter.replace_op(ret, new_ret)


def _callees(module):
    return {op.callee.root_reference.data for op in module.walk() if isinstance(op, (func.CallOp, util.CallOp))}


@dataclasses.dataclass(frozen=True)
class WrapEntryPointsPass(Pass):
    """Public functions -> util.func wrappers over !hal.buffer_view with ABI reflection."""

    name = "iree-abi-wrap-entry-points"

    def run(self, module, ctx):
        called = _callees(module)
        for op in list(module.body.block.ops):
            if not isinstance(op, (func.FuncOp, util.FuncOp)):
                continue
            if "iree.abi.stub" in op.attributes:
                self._reflect_stub(module, op)
                continue
            visibility = op.sym_visibility.data if op.sym_visibility is not None else "public"
            public = visibility == "public" and bool(op.body.blocks)
            if public:
                _check_signature(op)
            if isinstance(op, func.FuncOp):
                new = _to_util_func(op, visibility)
                Rewriter.replace_op(op, new, [])
                op = new
            _convert_terminators_and_calls(op)
            if not public:
                continue
            name = op.sym_name.data
            if name in called:
                self._keep_private_copy(module, op, name)
            _wrap(op)

    @staticmethod
    def _reflect_stub(module, fn):
        """Give a function already in ABI form the rt.abi reflection of its imports and exports."""
        reflection = dict(fn.attributes["iree.reflection"].data) if "iree.reflection" in fn.attributes else {}
        if "rt.abi" in reflection or fn.sym_visibility is not None and fn.sym_visibility.data != "public":
            return
        found = stub_abi(module, fn, _arg_info)
        where = op_location(fn)
        reflection.setdefault("iree.abi.declaration", StringAttr(found[1]))
        reflection["rt.abi"] = StringAttr(found[0])
        reflection.setdefault("rt.source", StringAttr(f"{where[0]}:{where[1]}:{where[2]}" if where else "<unknown>"))
        fn.attributes["iree.reflection"] = DictionaryAttr(reflection)

    @staticmethod
    def _keep_private_copy(module, fn, name):
        copy = fn.clone()
        copy.properties["sym_name"] = StringAttr(f"_{name}")
        copy.properties["sym_visibility"] = StringAttr("private")
        module.body.block.insert_op_before(copy, fn)
        for op in module.walk():
            if isinstance(op, (func.CallOp, util.CallOp)) and op.callee.root_reference.data == name:
                op.properties["callee"] = type(op.callee)(f"_{name}")

