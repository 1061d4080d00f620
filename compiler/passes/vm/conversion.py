"""``iree-vm-conversion``: hal-level module -> ``.vmfb`` bytes (conversion, ordinals, emission).

Input: a module after the hal phase: ``util.global`` (device globals keep their
``#hal.device.target`` initial value), ``util.initializer``, ``util.func``/``func.func`` over
scalars and HAL handles, hal executables with serialized binaries, check ops on buffer views.
Output: the module holds one ``vm.module @name data(dense<"0x.."> : vector<Nxi8>)`` whose bytes
(carried in the IR, see rt.compiler.dialects.hal_blobs) are the ``.vmfb``:

* globals in declaration order (ordinals per register bank), functions in declaration order
  after the initializers; every ``util.initializer`` becomes ``__init_<k>`` and an exported
  ``__init`` (cconv ``0v_v``) calls them in order (device globals first, as the hal phase
  emits them);
* public functions are exported with cconv from their signature (index -> I, i1..i32 -> i,
  f16/f32 -> f, f64 -> F, handles -> r) and reflection ``iree.abi.declaration`` / ``rt.abi``
  (from the function's ``iree.reflection`` dictionary or ``rt.abi`` attribute) and ``rt.source``;
* module attributes ``rt.devices``: JSON list of the device globals and their targets, and
  ``rt.parameters`` (when the module reads parameters): JSON list of their scopes, keys and types
  (docs/compiled_module_abi.md); executables are embedded with their backend metadata.

Example::

    util.func public @answer() -> i32 { %c = arith.constant 42 : i32  util.return %c : i32 }
    // ->
    vm.module @module data(dense<"0x5254564D...."> : vector<412xi8>)
    // module module version 0 ...
    //   [0] @answer 0v_i (exported as answer) registers i=1 f=0 r=0 ...
    //         0: const.i32 %i0, 42
    //         3: return (%i0)

Source followed: IREE ``Dialect/VM/Transforms/Conversion.cpp``, ``OrdinalAllocation.cpp`` and
``Target/Bytecode/BytecodeModuleTarget.cpp``.
"""
import dataclasses
import json

from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, StringAttr

from rt.compiler.dialects import util
from rt.compiler.dialects.hal import DeviceTargetAttr, ExecutableOp
from rt.compiler.dialects.vm import ModuleOp as VMModuleOp
from rt.compiler.frontend.diagnostics import error_at_op, op_location
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.hal.target_devices import from_attr
from rt.compiler.helpers.vm.function_emitter import FunctionEmitter
from rt.compiler.helpers.vm.module_emitter import ModuleEmitter
from rt.compiler.helpers.vm.registers import cconv_of
from rt.runtime.errors import CompileError, RtError

_FUNCTIONS = (util.FuncOp, func.FuncOp)


def _serialized_format(target):
    """The format the target's backend serializes executables in (IREE spells some targets'
    formats differently, e.g. ``vmvx-bytecode-fb``); the IR's format for unknown backends."""
    from rt.compiler.targets import BACKENDS, get_backend

    name = target.backend.data
    return get_backend(name).format if name in BACKENDS else target.format.data


def _devices_attribute(module):
    devices = []
    for op in module.body.block.ops:
        if isinstance(op, util.GlobalOp) and isinstance(op.properties.get("initial_value"), DeviceTargetAttr):
            targets = [{"backend": t.backend.data, "format": _serialized_format(t), "config": from_attr(t.configuration)}
                       for t in op.initial_value.executable_targets.data]
            devices.append({"name": op.sym_name.data, "targets": targets})
    return json.dumps(devices, sort_keys=True, default=str)


def _reflection(func):
    refl = {}
    table = func.attributes.get("iree.reflection")
    if isinstance(table, DictionaryAttr):
        for key, value in table.data.items():
            if isinstance(value, StringAttr):
                refl[key] = value.data
    abi = func.attributes.get("rt.abi")
    if isinstance(abi, StringAttr):
        refl["rt.abi"] = abi.data
    where = op_location(func)
    if where is not None:
        refl["rt.source"] = f"{where[0]}:{where[1]}:{where[2]}"
    return refl


def _module_name(module):
    name = module.properties.get("sym_name") or module.attributes.get("sym_name")
    text = name.data if isinstance(name, StringAttr) else "module"
    return "".join(c if c.isalnum() or c == "_" else "_" for c in text) or "module"


@dataclasses.dataclass(frozen=True)
class ConversionPass(Pass):
    """Convert the hal-level module to VM bytecode and keep it as a ``vm.module`` op."""

    name = "iree-vm-conversion"

    def run(self, module, ctx):
        from rt.runtime.vm import ModuleBuilder

        name = _module_name(module)
        attributes = {"rt.devices": _devices_attribute(module)}
        if "rt.parameters" in module.attributes:
            attributes["rt.parameters"] = module.attributes["rt.parameters"].data
        mb = ModuleBuilder(name, attributes=attributes)
        emitter = ModuleEmitter(module, mb)
        functions, initializers = [], []
        for op in module.body.block.ops:
            if isinstance(op, util.GlobalOp):
                emitter.declare_global(op)
            elif isinstance(op, _FUNCTIONS):
                if op.body.blocks:
                    functions.append(op)
                    emitter.declare_function(op.sym_name.data, op.sym_name.data)
            elif isinstance(op, util.InitializerOp):
                initializers.append(op)
            elif not isinstance(op, ExecutableOp):
                raise error_at_op(op, f"'{op.name}' cannot be converted to the VM; at module level the vm "
                                      "phase takes util.global, util.initializer, util.func, func.func and "
                                      "hal.executable")
        try:
            for k, init in enumerate(initializers):
                fb = mb.function(f"__init_{k}", "0v_v")
                FunctionEmitter(emitter, fb, init).emit_function(init.body, [])
            if initializers:
                fb = mb.function("__init", "0v_v", export=True)
                for k in range(len(initializers)):
                    fb.call(f"__init_{k}", [], [])
                fb.return_([])
            for function in functions:
                self._function(mb, emitter, function)
            data = mb.build()
        except RtError as exc:
            if getattr(exc, "file", None) is not None:
                raise
            raise error_at_op(module, f"iree-vm-conversion: {exc}") from None
        block = module.body.block
        for op in list(block.ops):
            op.detach()
        block.add_op(VMModuleOp.create_module(name, data))

    @staticmethod
    def _function(mb, emitter, func):
        fname = func.sym_name.data
        cconv = cconv_of(func.function_type)
        if cconv is None:
            raise error_at_op(func, f"@{fname} has a signature {func.function_type} with types the VM "
                                    "cannot pass; public functions take and return !hal.buffer_view, "
                                    "index, iN, f32 or f64 after the abi/hal phases")
        visibility = func.sym_visibility.data if func.sym_visibility is not None else "public"
        export = visibility == "public"
        try:
            fb = mb.function(fname, cconv, export=export, reflection=_reflection(func) if export else None)
            FunctionEmitter(emitter, fb, func).emit_function(func.body, list(fb.args))
        except RtError as exc:
            if getattr(exc, "file", None) is not None:
                raise
            raise error_at_op(func, f"iree-vm-conversion of @{fname}: {exc}") from None


def vmfb_bytes(module):
    """The ``.vmfb`` bytes of a module after iree-vm-conversion (CompileError when it was not run)."""
    ops = [op for op in module.body.block.ops if isinstance(op, VMModuleOp)]
    if len(ops) != 1:
        raise error_at_op(module, "the module has no converted vm.module; run iree-vm-conversion first")
    try:
        return ops[0].vmfb()
    except CompileError as exc:
        raise error_at_op(ops[0], exc.message) from None


__all__ = ["ConversionPass", "vmfb_bytes"]
