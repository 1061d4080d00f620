"""MLIR types -> VM register types, and the register allocator of one function.

Type mapping (IREE's VM conversion, with rt's banks): ``index`` and ``i64`` -> ``i64``;
``i1``/``i8``/``i16``/``i32`` -> ``i32`` (i1 as 0/1); ``f32`` -> ``f32``; ``f64`` -> ``f64``;
``f16`` and ``bf16`` -> ``f32`` (holding a value exactly representable in the narrow type; see
rt.compiler.helpers.vm.half); HAL handles and ``!util.buffer`` -> ``ref``.
The f8 and f4 types have no host register type (they live only inside executables).

Allocation: every SSA value gets a register when it is defined; a value defined by an op of a
block and used only by later ops of that same block gives its register back after its last
use, so straight-line code reuses registers. Block arguments and values live across blocks or
nested regions keep theirs for the whole function (always safe for loops and joins).
"""
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type, IndexType, IntegerType

from rt.compiler.dialects import hal_types, util
from rt.compiler.dialects.hal_channel import ChannelType

#: Types held in ``ref`` registers: the HAL handles and ``!util.buffer``.
_REF_TYPES = (hal_types.AllocatorType, hal_types.BufferType, hal_types.BufferViewType, ChannelType,
              hal_types.CommandBufferType, hal_types.DeviceType, hal_types.ExecutableType, hal_types.FenceType,
              util.BufferType)
#: cconv letter of each register type
CCONV_LETTER = {"i32": "i", "i64": "I", "f32": "f", "f64": "F", "ref": "r"}


def vm_type(type_):
    """Register type name for an MLIR type, or None when the type has no host form."""
    if isinstance(type_, IndexType):
        return "i64"
    if isinstance(type_, IntegerType):
        width = type_.width.data
        if width == 64:
            return "i64"
        return "i32" if width <= 32 else None
    if isinstance(type_, (Float16Type, BFloat16Type, Float32Type)):
        return "f32"
    if isinstance(type_, Float64Type):
        return "f64"
    if isinstance(type_, _REF_TYPES):
        return "ref"
    return None


def cconv_of(function_type):
    """IREE cconv string (``0rr_r``, ``0v_v``) of an MLIR FunctionType; None when a type has no VM form."""
    letters = []
    for types in (function_type.inputs.data, function_type.outputs.data):
        part = ""
        for t in types:
            vt = vm_type(t)
            if vt is None:
                return None
            part += CCONV_LETTER[vt]
        letters.append(part or "v")
    return "0" + letters[0] + "_" + letters[1]


class RegisterAllocator:
    """Registers of one FunctionBuilder with per-type free lists (see module docstring)."""

    def __init__(self, fb):
        self.fb = fb
        self._free = {t: [] for t in CCONV_LETTER}
        self.values = {}
        self._last_use = {}

    def new(self, type_name):
        free = self._free[type_name]
        return free.pop() if free else self.fb.reg(type_name)

    def release(self, reg):
        self._free[reg.type].append(reg)

    def plan_block(self, block):
        """Record, for values local to ``block``, the op after which their register is free."""
        ops = list(block.ops)
        position = {id(op): i for i, op in enumerate(ops)}
        for op in ops:
            for result in op.results:
                users = [use.operation for use in result.uses]
                if users and all(u.parent_block() is block for u in users):
                    last = max(users, key=lambda u: position[id(u)])
                    self._last_use.setdefault(id(last), []).append(result)

    def bind(self, value, reg):
        self.values[value] = reg

    def define(self, value, type_name):
        reg = self.new(type_name)
        self.values[value] = reg
        return reg

    def after_op(self, op):
        """Free the registers of local values whose last use was ``op``."""
        for value in self._last_use.pop(id(op), ()):
            reg = self.values.get(value)
            if reg is not None:
                self.release(reg)
