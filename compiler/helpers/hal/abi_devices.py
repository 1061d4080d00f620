"""Which device each tensor argument and result of an export lives on, for the ``rt.abi`` reflection.

docs/compiled_module_abi.md: a tensor argument is a buffer view on the device its
``stream.tensor.import`` runs on, a tensor result one on the device of its
``stream.tensor.export``. In a module with several device globals, iree-hal-convert-to-hal
records that device's ordinal (its index among the device globals, the order of ``rt.devices``
and of ``hal.devices.get``) as ``"device"`` in every tensor entry of the function's ``rt.abi``
JSON, so that ``rt.load`` uploads each input to the device the function imports it on (a
function with ``stream.affinity = #hal.device.affinity<@dev_b>`` takes its inputs on @dev_b).

Example (devices @dev_a, @dev_b)::

    %0 = stream.tensor.import on(#hal.device.affinity<@dev_b>) %x : !hal.buffer_view -> ...
    // rt.abi {"args": [{"name": "x", ...}]}  ->  {"args": [{"name": "x", ..., "device": 1}]}

Source followed: IREE ``Bindings/Native/Transforms/WrapEntryPoints.cpp`` (``iree.abi.affinity``
on arguments and results).
"""
import json

from xdsl.dialects import func as func_dialect
from xdsl.dialects.builtin import DictionaryAttr, StringAttr

from rt.compiler.dialects import stream, util

from rt.compiler.helpers.hal.affinity import op_device


def _ordinal(op, conv, ordinals):
    return ordinals[op_device(op, conv.module, conv.devices)]


def _arg_devices(func, conv, ordinals):
    devices = {}
    for index, arg in enumerate(func.body.blocks[0].args):
        for use in arg.uses:
            if isinstance(use.operation, stream.TensorImportOp):
                devices[index] = _ordinal(use.operation, conv, ordinals)
                break
    return devices


def _result_devices(func, conv, ordinals):
    devices = {}
    for block in func.body.blocks:
        last = block.last_op
        if not isinstance(last, (util.ReturnOp, func_dialect.ReturnOp)):
            continue
        for index, value in enumerate(last.operands):
            owner = value.owner
            if isinstance(owner, stream.TensorExportOp) and index not in devices:
                devices[index] = _ordinal(owner, conv, ordinals)
    return devices


def _annotate(entries, devices):
    for index, entry in enumerate(entries):
        if isinstance(entry, dict) and entry.get("kind") == "tensor":
            entry["device"] = devices.get(index, 0)


def record_abi_devices(module, conv):
    """Add ``"device"`` to the tensor entries of every ``rt.abi`` (modules with 2+ devices)."""
    if len(conv.devices) < 2:
        return
    ordinals = {name: i for i, name in enumerate(conv.devices)}
    for func in module.body.block.ops:
        table = func.attributes.get("iree.reflection")
        if not isinstance(func, (util.FuncOp, func_dialect.FuncOp)) or not isinstance(table, DictionaryAttr):
            continue
        text = table.data.get("rt.abi")
        if not isinstance(text, StringAttr) or not func.body.blocks:
            continue
        abi = json.loads(text.data)
        _annotate(abi.get("args", []), _arg_devices(func, conv, ordinals))
        _annotate(abi.get("results", []), _result_devices(func, conv, ordinals))
        func.attributes["iree.reflection"] = DictionaryAttr(
            {**table.data, "rt.abi": StringAttr(json.dumps(abi, separators=(",", ":")))})
