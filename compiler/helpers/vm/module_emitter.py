"""Module-level state of the VM emission: imports, globals, rodata, executables, functions.

One ModuleEmitter wraps one rt.runtime.vm.ModuleBuilder while a module is converted; the
FunctionEmitters ask it for import refs (``hal.*`` cconvs from rt.runtime.hal.module's table,
``check.*`` from the check module), global refs by symbol, interned rodata (assert messages,
executable formats, constant buffers) and the embedded executables of ``hal.executable``
variants (bytes carried by their hal.executable.binary ops).
"""
from xdsl.dialects.builtin import StringAttr

from rt.compiler.dialects.hal import ExecutableBinaryOp, ExecutableOp, ExecutableVariantOp
from rt.compiler.dialects.hal_types import DeviceType
from rt.compiler.dialects.util import CompositeAttr
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.frontend.elements import storage_bytes
from rt.compiler.helpers.vm import half
from rt.compiler.helpers.vm.registers import vm_type
from rt.runtime.errors import RtError

CHECK_CCONVS = {"expect_true": "0i_v", "expect_false": "0i_v", "expect_all_true": "0rr_v",
                "expect_eq": "0rrr_v", "expect_almost_eq": "0rrrff_v"}


class ModuleEmitter:
    """Shared state for converting one builtin.module into a ModuleBuilder."""

    def __init__(self, module, builder):
        from rt.runtime.hal.module import HalModule

        self.module, self.mb = module, builder
        self._hal_exports = HalModule.exports
        self._globals, self._strings, self._executables = {}, {}, {}
        self._functions, self._constants = {}, 0
        self.devices = []

    # -- symbols ---------------------------------------------------------------------------------

    def declare_global(self, op):
        name = op.sym_name.data
        type_name = vm_type(op.type)
        if type_name is None:
            raise error_at_op(op, f"util.global @{name} of type {op.type} cannot be a VM global; "
                                  "expected index, iN, f32, f64 or a HAL handle")
        initial = None
        value = op.initial_value
        if type_name != "ref" and value is not None and hasattr(value, "value"):
            initial = value.value.data
            if type_name in ("i32", "i64"):
                initial = int(initial)
            else:
                initial = half.round_constant(initial, op.type)
        self._globals[name] = self.mb.global_(name, type_name, initial)
        if isinstance(op.type, DeviceType):
            self.devices.append(name)

    def global_ref(self, name, op):
        ref = self._globals.get(name)
        if ref is None:
            raise error_at_op(op, f"'{op.name}' names @{name}, which is not a util.global of this module")
        return ref

    def default_device(self, op):
        if not self.devices:
            raise error_at_op(op, f"'{op.name}' needs a device but the module has no device global")
        return self._globals[self.devices[0]]

    def declare_function(self, symbol, vm_name):
        self._functions[symbol] = vm_name

    def function_name(self, symbol, op):
        name = self._functions.get(symbol)
        if name is None:
            raise error_at_op(op, f"call to @{symbol}, which is not a function of this module")
        return name

    # -- imports ---------------------------------------------------------------------------------

    def hal_import(self, name):
        return self.mb.import_function("hal." + name, self._hal_exports[name][1].text)

    def check_import(self, name):
        return self.mb.import_function("check." + name, CHECK_CCONVS[name])

    def io_parameters_import(self, name):
        from rt.runtime.io.parameters_module import IoParametersModule

        return self.mb.import_function("io_parameters." + name, IoParametersModule.exports[name][1].text)

    # -- rodata ----------------------------------------------------------------------------------

    def string_rodata(self, text):
        ref = self._strings.get(text)
        if ref is None:
            ref = self.mb.rodata(f"_str_{len(self._strings)}", text.encode("utf-8"), alignment=1)
            self._strings[text] = ref
        return ref

    def table_rodata(self, data):
        """Rodata holding ``data`` (bytes of a table of u32/u64 entries), 8-byte aligned."""
        self._constants += 1
        return self.mb.rodata(f"_table_{self._constants}", bytes(data), alignment=8)

    def constant_rodata(self, op):
        value = op.value
        try:
            data = _constant_bytes(value)
        except (TypeError, ValueError, RtError) as exc:
            raise error_at_op(op, f"util.buffer.constant: cannot serialize {value}: {exc}") from None
        alignment = op.attributes.get("alignment") or op.properties.get("alignment")
        align = alignment.value.data if alignment is not None else 64
        name = op.name_hint.data if op.name_hint is not None else f"_const_{self._constants}"
        self._constants += 1
        return self.mb.rodata(_identifier(name), data, alignment=align)

    def executable_rodata(self, symref, op):
        """(format rodata, data rodata) of ``@exe::@variant``, embedding it on first use."""
        key = (symref.root_reference.data, tuple(r.data for r in symref.nested_references.data))
        if key not in self._executables:
            binary = self._find_binary(symref, op)
            data, metadata = binary.contents()
            name = _identifier("_".join([key[0], *key[1]]))
            data_ref = self.mb.executable(name, binary.format.data, data, metadata)
            fmt_ref = self.string_rodata(binary.format.data)
            self._executables[key] = (fmt_ref, data_ref)
        return self._executables[key]

    def _find_binary(self, symref, op):
        exe_name = symref.root_reference.data
        nested = [r.data for r in symref.nested_references.data]
        for exe in self.module.body.block.ops:
            if isinstance(exe, ExecutableOp) and exe.sym_name.data == exe_name:
                for variant in exe.body.block.ops:
                    if isinstance(variant, ExecutableVariantOp) and nested and variant.sym_name.data == nested[0]:
                        for binary in variant.body.block.ops:
                            if isinstance(binary, ExecutableBinaryOp):
                                return binary
        raise error_at_op(op, f"hal.executable.create names {symref}, which has no serialized "
                              "hal.executable.binary; run iree-hal-translate-executables first")


def _identifier(text):
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in text)
    return out if out and not out[0].isdigit() else "_" + out


def _constant_bytes(value):
    """Raw little-endian bytes of a constant attribute (dense/ElementsAttr/#util.composite, or a
    string as UTF-8)."""
    if isinstance(value, StringAttr):
        return value.data.encode("utf-8")
    if isinstance(value, CompositeAttr):
        data = b"".join(_constant_bytes(v) for v in value.values.data)
        total = value.total_length.value.data
        if len(data) > total:
            raise ValueError(f"its values take {len(data)} bytes but it declares {total}")
        return data + bytes(total - len(data))
    return storage_bytes(value)
