"""The ``io_parameters`` VM native module: loads a module's parameters into device buffers.

Import name and calling convention are IREE's (``runtime/src/iree/modules/io/parameters``):

====================  =================  ======================================================
import                cconv              arguments -> results
====================  =================  ======================================================
io_parameters.load    0rIrrrIiirrr_r     device, queue_affinity, wait_fence, signal_fence,
                                         source_scope (buffer or null), target_queue_affinity,
                                         memory_types, buffer_usage, key_table, key_data, spans
                                         -> list of buffers, one per span
====================  =================  ======================================================

``key_table`` holds one ``{u32 offset, u32 length}`` per parameter into ``key_data``; ``spans``
one ``{u64 parameter_offset, u64 buffer_offset, u64 length}``. The load waits for
``wait_fence``, makes each buffer and signals ``signal_fence``. A parameter stored as data in an
``.irpa`` (held in rt's private copy of the file, ``rt.runtime.io.file_snapshot``, so a later
change to the file never reaches it) becomes the buffer without a further copy when the module
marks it immutable (``SHARING_IMMUTABLE`` usage, constant globals) and its address is 64-byte
aligned; otherwise, and for splats, ``.safetensors`` tensors and mutable globals, the bytes are
copied into a new device buffer.

Checks (each error names the parameter, the file and what the module expects): the scope and
key exist (rt.runtime.io.parameter_index); the span fits the parameter's bytes; a
``.safetensors`` tensor has the element type and shape of the global (from the module's
``rt.parameters`` attribute, docs/compiled_module_abi.md).
"""
import re
import struct

import numpy as np

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.hal.buffer import BufferUsage
from rt.runtime.io.parameter_index import ParameterIndex, parameter_name
from rt.runtime.vm import NativeModule, VMList, native_function

_STRING = struct.Struct("<II")
_SPAN = struct.Struct("<QQQ")
_ALIGNMENT = 64
_INT = re.compile(r"(s|u)?i(\d+)")


def _bytes(value, what):
    if value is None:
        return None
    view = getattr(value, "view", None)
    try:
        return bytes(memoryview(view if view is not None and not callable(view) else value).cast("B"))
    except TypeError:
        raise InvalidArgumentError(f"io_parameters.load: {what} must be a buffer, got {type(value).__name__}") from None


def _same_element(found, expected):
    """Whether a file's element type fits the module's: equal, or integers of one width where
    either side is signless (MLIR ``i8`` takes signed and unsigned bytes alike)."""
    if found == expected:
        return True
    a, b = _INT.fullmatch(found or ""), _INT.fullmatch(expected or "")
    return bool(a and b and a.group(2) == b.group(2) and not (a.group(1) and b.group(1)))


def _shape_text(shape, element):
    return "tensor<" + "".join(f"{d}x" for d in shape) + f"{element}>"


class IoParametersModule(NativeModule):
    """``io_parameters`` over a :class:`ParameterIndex`.

    expected: ``{(scope, key): {"type": "tensor<4xf32>", "element": "f32", "shape": [4]}}``, the
    parameters the module declares (its ``rt.parameters`` attribute); used to check and name them.
    """

    name = "io_parameters"
    version = 0

    def __init__(self, index=None, expected=None):
        self.index = index if index is not None else ParameterIndex()
        self.expected = dict(expected or {})

    @native_function("load", "0rIrrrIiirrr_r")
    def load(self, device, queue_affinity, wait_fence, signal_fence, source_scope, target_queue_affinity,
             memory_types, buffer_usage, key_table, key_data, spans):
        if wait_fence is not None:
            wait_fence.wait()
        scope = (_bytes(source_scope, "source_scope") or b"").decode("utf-8", "replace")
        table, keys, span_bytes = _bytes(key_table, "key_table"), _bytes(key_data, "key_data"), _bytes(spans, "spans")
        if len(span_bytes) % _SPAN.size or len(table) < len(span_bytes) // _SPAN.size * _STRING.size:
            raise InvalidArgumentError("io_parameters.load: key_table and spans must hold one entry per parameter")
        buffers = VMList(element_type="ref")
        try:
            for i in range(len(span_bytes) // _SPAN.size):
                offset, length = _STRING.unpack_from(table, i * _STRING.size)
                if offset + length > len(keys):
                    raise InvalidArgumentError(f"io_parameters.load: key {i} lies outside key_data")
                key = keys[offset:offset + length].decode("utf-8", "replace")
                buffers.append(self._load_one(device, scope, key, *_SPAN.unpack_from(span_bytes, i * _SPAN.size),
                                              BufferUsage(buffer_usage)))
        except BaseException as e:
            if signal_fence is not None:
                signal_fence.fail(e)
            raise
        if signal_fence is not None:
            signal_fence.signal()
        return buffers

    def _load_one(self, device, scope, key, parameter_offset, buffer_offset, length, usage):
        want = self.expected.get((scope, key), {})
        entry, source = self.index.lookup(scope, key, want.get("type", f"{length} bytes"))
        name = parameter_name(scope, key)
        if hasattr(entry, "shape") and want:
            if not _same_element(entry.element, want["element"]) or list(entry.shape) != list(want["shape"]):
                raise InvalidArgumentError(
                    f"parameter {name} in {source} is {_shape_text(entry.shape, entry.element)} ({entry.kind}) "
                    f"but the module expects {want['type']}")
        if buffer_offset != 0 or parameter_offset + length > entry.length or (
                parameter_offset == 0 and length != entry.length):
            where = f" at offset {parameter_offset}" if parameter_offset else ""
            raise InvalidArgumentError(
                f"parameter {name} in {source} holds {entry.length} bytes but the module expects "
                f"{want.get('type', 'a tensor')} of {length} bytes{where}")
        return _buffer(device, entry, parameter_offset, length, usage)


def _buffer(device, entry, offset, length, usage):
    """A device buffer holding ``length`` bytes of ``entry`` from ``offset``."""
    from rt.runtime.hal.host_upload import upload
    from rt.runtime.hal.element_type import ElementType

    splat = getattr(entry, "splat", None)
    if splat is not None:
        data = np.frombuffer(splat.pattern, np.uint8)
        data = np.tile(data, length // len(splat.pattern) + 1)[:length]
    elif getattr(entry, "data", None) is not None:
        data = np.frombuffer(entry.data, np.uint8, count=length, offset=offset)
        immutable = usage & BufferUsage.SHARING_IMMUTABLE
        if not (immutable and data.ctypes.data % _ALIGNMENT == 0 and data.flags.writeable):
            data = data.copy()
    else:
        data = entry.read()[offset:offset + length].copy()
    return upload(device, data, ElementType.INT_8).buffer


