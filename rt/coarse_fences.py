"""Calling functions of IREE's coarse-fences ABI from Python (``iree.abi.model = "coarse-fences"``).

IREE's ONNX and torch importers emit ``@f$async(inputs..., %wait: !hal.fence, %signal: !hal.fence)``
(inputs are read once ``%wait`` is reached; ``%signal`` is signaled when the results are ready)
next to a synchronous ``@f``. Their ``rt.abi`` marks the two fences (kind ``fence``). A
:class:`rt.loaded_module.LoadedFunction` of such a function takes either

* the inputs only: rt passes a null wait fence (inputs are ready) and a new signal fence on
  the function's device, waits for it after the call and returns the results, so
  ``m["f$async"](x)`` is called like any other function; or
* the inputs and both fences (``rt.runtime.hal.Fence`` or None), the async form: the caller
  owns the fences (``m["f$async"](x, wait, signal)``) and may wait on ``signal`` itself; a
  None wait fence is reached, for a None signal fence rt makes one (IREE's null fence).

Source followed: IREE ``compiler/plugins/input/Torch/InputConversion/FuncConversion.cpp`` (the
ABI) and IREE's Python runtime (``iree.runtime.FunctionInvoker``: fences made for the caller).
"""
from rt.runtime.errors import InvalidArgumentError
from rt.runtime.hal.fence import Fence


def fence_positions(abi):
    """Indexes of the ``fence`` arguments of ``abi`` (a FunctionABI)."""
    return [k for k, arg in enumerate(abi.args) if arg.kind == "fence"]


def complete_arguments(abi, args, device):
    """(arguments with the fences filled in, the signal fence rt must wait for or None).

    ``args`` without fences get a null wait fence and a new signal fence on ``device``; with
    fences they are checked to be Fence or None. InvalidArgumentError names the function.
    """
    positions = fence_positions(abi)
    if not positions:
        return list(args), None
    if len(args) == len(abi.args):
        args = list(args)
        for k in positions:
            if args[k] is not None and not isinstance(args[k], Fence):
                raise InvalidArgumentError(f"input {k} of @{abi.name} is a !hal.fence ({abi.args[k].name or 'fence'}); "
                                           f"pass an rt.runtime.hal.Fence or None, got {type(args[k]).__name__}")
        if args[positions[-1]] is None:
            args[positions[-1]] = _new_fence(device)
        return args, None
    if len(args) != len(abi.args) - len(positions):
        inputs = len(abi.args) - len(positions)
        raise InvalidArgumentError(f"@{abi.name} takes {inputs} input(s) (rt makes its wait and signal fences) or "
                                   f"{len(abi.args)} with the fences, got {len(args)}")
    out, given = [], iter(args)
    signal = _new_fence(device)
    fences = iter([None, signal])
    for k in range(len(abi.args)):
        out.append(next(fences, None) if k in positions else next(given))
    return out, signal


def _new_fence(device):
    fence = Fence()
    fence.insert(device.create_semaphore(0), 1)
    return fence
