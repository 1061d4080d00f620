"""``rt.abi`` reflection for functions that are already in ABI form (``iree.abi.stub``).

IREE's importers emit their entry points already wrapped: ``!hal.buffer_view`` arguments
imported inside the body (``hal.tensor.import``), results exported (``hal.tensor.export``), and
for the coarse-fences ABI (``iree.abi.model = "coarse-fences"``) a wait and a signal
``!hal.fence``. iree-abi-wrap-entry-points leaves such functions as they are; this module
derives their ``rt.abi`` (docs/compiled_module_abi.md) so ``rt.load`` can check and convert
arguments: each buffer view takes the tensor type of the import that reads it (directly, or in
the function it is passed to through ``util.call``, as the synchronous wrapper does), each
result the type of the export that makes it, fences are ``{"kind": "fence"}``; a buffer view
whose type cannot be found is ``{"kind": "ref"}`` (passed unchecked).

Source followed: IREE ``Bindings/Native/Transforms/WrapEntryPoints.cpp`` (reflection) and
``compiler/plugins/input/Torch/InputConversion/FuncConversion.cpp`` (the stubs it reads).
"""
import json

from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType

from rt.compiler.dialects import hal, util
from rt.compiler.dialects.hal_types import BufferViewType, FenceType

_CALLS = (util.CallOp, func.CallOp)
_FUNCTIONS = (util.FuncOp, func.FuncOp)
_RETURNS = (util.ReturnOp, func.ReturnOp)


def _functions(module):
    return {op.sym_name.data: op for op in module.body.block.ops if isinstance(op, _FUNCTIONS)}


def _arg_tensor(functions, fn, index, depth=0):
    """The tensor type a buffer-view argument ``index`` of ``fn`` is imported as, or None."""
    if depth > 8 or not fn.body.blocks:
        return None
    arg = fn.body.blocks[0].args[index]
    for use in arg.uses:
        op = use.operation
        if isinstance(op, hal.TensorImportOp) and isinstance(op.results[0].type, TensorType):
            return op.results[0].type
        if isinstance(op, _CALLS) and op.callee.root_reference.data in functions:
            found = _arg_tensor(functions, functions[op.callee.root_reference.data], use.index, depth + 1)
            if found is not None:
                return found
    return None


def _result_tensor(functions, value, depth=0):
    """The tensor type a returned buffer view was exported from, or None."""
    op = getattr(value, "op", None)
    if op is None or depth > 8:
        return None
    if isinstance(op, hal.TensorExportOp):
        return op.operands[0].type
    if isinstance(op, _CALLS) and op.callee.root_reference.data in functions:
        callee = functions[op.callee.root_reference.data]
        for ret in (o for o in callee.walk() if isinstance(o, _RETURNS)):
            found = _result_tensor(functions, ret.operands[value.index], depth + 1)
            if found is not None:
                return found
    return None


def stub_abi(module, fn, arg_info):
    """(rt.abi JSON text, declaration) for the stub ``fn``.

    ``arg_info(name, type)`` makes one ARG entry (the wrapper pass's, shared).
    """
    functions = _functions(module)
    inputs, outputs = fn.function_type.inputs.data, fn.function_type.outputs.data
    block = fn.body.blocks[0] if fn.body.blocks else None
    args, shown = [], []
    for i, type_ in enumerate(inputs):
        name = (block.args[i].name_hint if block is not None else None) or f"arg{i}"
        if isinstance(type_, FenceType):
            args.append({"name": name, "kind": "fence"})
            shown.append(f"%{name}: !hal.fence")
            continue
        if isinstance(type_, BufferViewType):
            type_ = _arg_tensor(functions, fn, i) if block is not None else None
            if type_ is None:
                args.append({"name": name, "kind": "ref"})
                shown.append(f"%{name}: !hal.buffer_view")
                continue
        args.append(arg_info(name, type_))
        shown.append(f"%{name}: {type_}")
    results = []
    returns = [op for op in fn.walk() if isinstance(op, _RETURNS)]
    for r, type_ in enumerate(outputs):
        if isinstance(type_, BufferViewType):
            found = {_result_tensor(functions, ret.operands[r]) for ret in returns}
            if len(found) != 1 or None in found:
                results.append({"name": f"output{r}", "kind": "ref", "type": "!hal.buffer_view"})
                continue
            type_ = found.pop()
        results.append(arg_info(f"output{r}", type_))
    result_text = ", ".join(str(x) for x in (r.get("type") for r in results))
    declaration = f"func @{fn.sym_name.data}({', '.join(shown)})"
    if results:
        declaration += f" -> {result_text}" if len(results) == 1 else f" -> ({result_text})"
    return json.dumps({"args": args, "results": results}, separators=(",", ":")), declaration
