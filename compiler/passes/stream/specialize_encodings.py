"""``iree-stream-specialize-encodings``: resolve every encoding per device.

Input: the stream form right after ``iree-stream-convert-to-stream``, where encoded tensors
(``tensor<?x?xf32, #iree_encoding.encoding<..., user_indexing_maps = [...]>>``) still say only
which contraction operand they are. Output: every encoding on a host ``stream.tensor.*`` op
is resolved by the encoding resolver of the device the op runs on (see
``rt.compiler.targets.encoding``), and so are the encodings of the ``stream.binding.subspan``
types of every executable it dispatches; an executable dispatched from devices whose layouts
differ is duplicated (``@ex``, ``@ex_1``, ...) so each copy has one layout. Encodings inside
dispatch bodies on other ops (set_encoding, the contraction) keep their op-level form; the
dispatch lowering materializes them against the binding layouts.

Example (seed 001, the AVX-512 device)::

    %s = stream.tensor.sizeof on(#hal.device.affinity<@dev>) tensor<?x?xf32, #encoding>{%d0, %d1} : index
    // ->
    %s = stream.tensor.sizeof on(#hal.device.affinity<@dev>) tensor<?x?xf32,
        #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32],
          layouts = [#iree_cpu.cpu_encoding_layout<configuration = {encoding_info = {
            innerDimsPos = [0, 1], innerTileSizes = [16, 1], outerDimsPerm = [0, 1]}}>]>>{%d0, %d1} : index

Errors: CompileError at the op when its device cannot be determined, its device's targets
resolve one encoding to different layouts, or no resolver knows the encoding.

Source followed: IREE ``Stream/Transforms/SpecializeEncodings.cpp``.
"""
import dataclasses

from xdsl.dialects.builtin import ArrayAttr, StringAttr, SymbolRefAttr, TensorType
from xdsl.dialects.func import FuncOp

from rt.compiler.dialects import stream
from rt.compiler.dialects.flow_types import DispatchTensorType
from rt.compiler.dialects.iree_encoding import EncodingAttr
from rt.compiler.dialects.stream_types import BindingType, ResourceType
from rt.compiler.frontend import error_at_op
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.hal.affinity import device_globals, op_device
from rt.compiler.targets.encoding import resolve
from rt.runtime.errors import CompileError, UnimplementedError

_ENCODING_PROPERTIES = ("encoding", "result_encoding", "source_encoding", "target_encoding", "update_encoding")
#: the ``stream.tensor.*`` ops
_TENSOR_OPS = tuple(stream.TENSOR_OPS)


def _unresolved(type_):
    return (isinstance(type_, TensorType) and isinstance(type_.encoding, EncodingAttr)
            and not type_.encoding.layouts.data)


class _Resolver:
    """Resolved encodings per (device, encoding), memoized."""

    def __init__(self, devices):
        self.devices = devices
        self.cache = {}

    def encoding(self, device, encoding, op):
        key = (device, encoding)
        if key not in self.cache:
            layouts = []
            try:
                for target in self.devices[device].executable_targets.data:
                    layout = resolve(target, encoding).layouts.data[0]
                    if layout not in layouts:
                        layouts.append(layout)
            except (CompileError, UnimplementedError) as exc:
                raise error_at_op(op, f"cannot resolve {encoding} on device @{device}: {exc}") from None
            if len(layouts) != 1:
                raise error_at_op(op, f"device @{device} has {len(layouts)} executable targets that "
                                      f"resolve {encoding} to different layouts; give it one target")
            self.cache[key] = encoding.with_layouts(layouts)
        return self.cache[key]

    def type(self, device, type_, op):
        if not _unresolved(type_):
            return type_
        return TensorType(type_.element_type, type_.get_shape(), self.encoding(device, type_.encoding, op))


def _binding_types(op):
    """Per binding argument of the dispatched function (operands then untied results), the
    tensor type the dispatch passes through it."""
    types = [enc for value, enc in zip(op.mixed_operands, op.operand_encodings.data)
             if isinstance(value.type, ResourceType)]
    tied = [t.value.data for t in op.tied_operands.data] if op.tied_operands is not None else []
    for i, enc in enumerate(op.result_encodings.data):
        if not tied or tied[i] < 0:
            types.append(enc)
    return types


def _encoded_bindings(func):
    """The binding block arguments of ``func`` in order, each with its subspans."""
    args = [a for a in func.body.block.args if isinstance(a.type, BindingType)]
    uses = {a: [] for a in args}
    for op in func.walk():
        if isinstance(op, stream.BindingSubspanOp) and op.binding in uses:
            uses[op.binding].append(op)
    return args, uses


@dataclasses.dataclass(frozen=True)
class SpecializeEncodingsPass(Pass):
    """Resolve encodings per device and specialize executables (see the module docstring)."""

    name = "iree-stream-specialize-encodings"

    def run(self, module, ctx):
        devices = device_globals(module)
        resolver = _Resolver(devices)
        executables = {op.sym_name.data: op for op in module.body.block.ops if isinstance(op, stream.ExecutableOp)}
        specialized = {}
        for op in list(module.walk()):
            if not isinstance(op, _TENSOR_OPS) or _inside_executable(op):
                continue
            encoded = [k for k in _ENCODING_PROPERTIES if _unresolved(op.properties.get(k))]
            dispatch = isinstance(op, stream.TensorDispatchOp) and any(
                _unresolved(t) for t in (*op.operand_encodings.data, *op.result_encodings.data))
            if not encoded and not dispatch:
                continue
            device = op_device(op, module, devices)
            for key in encoded:
                op.properties[key] = resolver.type(device, op.properties[key], op)
            if dispatch:
                op.properties["operand_encodings"] = ArrayAttr(
                    [resolver.type(device, t, op) for t in op.operand_encodings.data])
                op.properties["result_encodings"] = ArrayAttr(
                    [resolver.type(device, t, op) for t in op.result_encodings.data])
                self._specialize_dispatch(op, module, executables, specialized)

    def _specialize_dispatch(self, op, module, executables, specialized):
        bindings = tuple(_binding_types(op))
        entries = []
        for entry in op.entry_points.data:
            name = entry.root_reference.data
            exe = executables.get(name)
            if exe is None:
                raise error_at_op(op, f"dispatches @{name}, which is not a stream.executable of this module")
            key = (name, bindings)
            if key not in specialized:
                taken = [k for k in specialized if k[0] == name]
                target = exe if not taken else _clone_executable(exe, name, len(taken), module, executables)
                _set_binding_layouts(target, entry.nested_references.data[0].data, bindings, op)
                specialized[key] = target.sym_name.data
            entries.append(SymbolRefAttr(specialized[key], [entry.nested_references.data[0]]))
        op.properties["entry_points"] = ArrayAttr(entries)


def _inside_executable(op):
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, stream.ExecutableOp):
            return True
        parent = parent.parent_op()
    return False


def _clone_executable(exe, name, count, module, executables):
    new_name = f"{name}_{count}"
    while new_name in executables:
        count += 1
        new_name = f"{name}_{count}"
    clone = exe.clone()
    clone.properties["sym_name"] = StringAttr(new_name)
    module.body.block.insert_op_after(clone, exe)
    executables[new_name] = clone
    return clone


def _set_binding_layouts(exe, export, bindings, op):
    """Give the subspans of ``export``'s binding arguments the dispatch's resolved encodings."""
    funcs = [f for f in exe.walk() if isinstance(f, FuncOp) and f.sym_name.data == export]
    if not funcs:
        raise error_at_op(op, f"stream.executable @{exe.sym_name.data} has no function @{export}")
    args, uses = _encoded_bindings(funcs[0])
    if len(args) != len(bindings):
        raise error_at_op(op, f"dispatch passes {len(bindings)} resources but @{export} takes "
                              f"{len(args)} bindings")
    for arg, tensor in zip(args, bindings):
        for subspan in uses[arg]:
            old = subspan.result.type
            if not isinstance(old, DispatchTensorType) or not isinstance(old.bound_type.encoding, EncodingAttr):
                continue
            if not isinstance(tensor, TensorType) or not isinstance(tensor.encoding, EncodingAttr):
                raise error_at_op(subspan, f"binding is encoded ({old}) but the dispatch passes {tensor}")
            bound = TensorType(old.bound_type.element_type, old.bound_type.get_shape(), tensor.encoding)
            subspan.result._type = DispatchTensorType(old.access, bound)
