"""IREE's coarse-fences ABI in convert-to-stream: the fences of ``hal.tensor.import wait(..)``
and ``hal.tensor.barrier``, kept with host fence operations.

Functions that IREE's ONNX and torch importers emit (``iree.abi.model = "coarse-fences"``) take
a wait fence and a signal fence: inputs are imported with ``hal.tensor.import wait(%wait) =>``
and results pass a ``hal.tensor.barrier join(...) => %signal`` before they are exported.
rt keeps their meaning on the host:

* an import waits for its fence first (``hal.fence.await``, infinite timeout; a null fence is
  already reached), so no input is read before the caller says it is ready;
* a barrier signals its fence (``hal.fence.signal``) right before the function returns, after
  the results' exports, which wait for the work producing them (rt's exports are synchronous),
  so a caller awaiting the fence sees finished results.

IREE does the same on the device timeline (``stream.timepoint.import`` / ``chain_external``);
rt's host waits give the same results with less overlap between caller and callee.
Source followed: IREE ``Dialect/Stream/Conversion/HALToStream/Patterns.cpp``
(ConvertTensorImportOp, ConvertTensorBarrierOp).
"""
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IntegerAttr, StringAttr, i32
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import util
from rt.compiler.dialects.hal_ops import FenceAwaitOp, FenceSignalOp
from rt.compiler.frontend import error_at_op


def await_fence(op, fence):
    """Wait on the host for ``fence`` right before ``op``."""
    timeout = arith.ConstantOp(IntegerAttr(-1, i32))
    wait = FenceAwaitOp.build(operands=[[fence], timeout.result], result_types=[i32],
                              properties={"flags": StringAttr("None")})
    for new in (timeout, wait):
        new.location = op.location
    Rewriter.insert_op([timeout, wait], InsertPoint.before(op))


def signal_before_return(op, fence):
    """Signal ``fence`` right before the return that ends ``op``'s block."""
    terminator = op.parent_block().last_op
    if not isinstance(terminator, (util.ReturnOp, func.ReturnOp)):
        raise error_at_op(op, "hal.tensor.barrier must be in the block that returns from the function; rt signals "
                              "its fence when the function returns")
    signal = FenceSignalOp.build(operands=[fence])
    signal.location = op.location
    Rewriter.insert_op(signal, InsertPoint.before(terminator))
