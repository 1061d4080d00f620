"""Scalar ops of a dispatch function as kernel_ir.ScalarOps, inside bodies and outside them.

``scalar_op`` converts one arith/math/linalg.index op of a linalg body. ``scalar_program``
turns a scalar SSA value computed *outside* every body -- from ``arith.constant`` and
``hal.interface.constant.load`` through arith/math ops, as IREE's materialize-interfaces
leaves them (``%c = hal.interface.constant.load ordinal(0) : i32``, ``%f = arith.bitcast %c
: i32 to f32``) -- into a short program of ScalarOps that a body can run (a push constant
read is the ScalarOp ``hal.interface.constant.load`` with attr ``ordinal``). So fill values,
pad values and captured scalars may be dynamic. Exact semantics are kept (sign- vs
zero-extension, bitcasts), unlike kernel_ir Sizes which are unsigned index arithmetic.

Source: MLIR arith/math op semantics; IREE's ``hal.interface.constant.load``.
"""
from dataclasses import replace

from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import BlockArgument

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.lowering.symbols import CMPF_PREDICATES, CMPI_PREDICATES, type_name
from rt.compiler.frontend import error_at_op

#: Ops whose result is their first operand (IREE annotations on index values).
PASS_THROUGH = ("flow.dispatch.workload.ordinal",)


def attr_value(attr):
    """Python value of a scalar FloatAttr / IntegerAttr, else None."""
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, IntegerAttr):
        return int(attr.value.data)
    return None


def scalar_op(op, operand_ids):
    """kernel_ir.ScalarOp for xDSL scalar ``op`` whose operands have ids ``operand_ids``."""
    attrs = {}
    if op.name == "arith.constant":
        value = attr_value(op.value)
        if value is None:
            raise error_at_op(op, "only scalar constants are supported here")
        attrs["value"] = value
    elif op.name == "arith.cmpf":
        attrs["predicate"] = CMPF_PREDICATES[op.predicate.value.data]
    elif op.name == "arith.cmpi":
        attrs["predicate"] = CMPI_PREDICATES[op.predicate.value.data]
    elif op.name == "linalg.index":
        attrs["dim"] = op.dim.value.data
    elif op.name == "hal.interface.constant.load":
        attrs["ordinal"] = op.ordinal.value.data
    if len(op.results) != 1:
        raise error_at_op(op, f"'{op.name}' with {len(op.results)} results is not supported "
                              f"on scalars in a dispatch")
    return kir.ScalarOp(op.name, tuple(operand_ids), type_name(op.results[0].type, op),
                        tuple(sorted(attrs.items())))


def scalar_program(value, user):
    """ScalarOps computing scalar ``value`` (defined outside any body); the last one is it.

    Operand ids are local to the program (0 = its first op). Raises CompileError at ``user``
    when ``value`` depends on something else than constants and push constants.
    """
    ops, ids = [], {}

    def visit(v):
        while not isinstance(v, BlockArgument) and v.owner.name in PASS_THROUGH:
            v = v.owner.operands[0]
        if v in ids:
            return ids[v]
        op = v.owner
        if isinstance(v, BlockArgument) or hasattr(v.type, "get_shape") or not (
                op.name.startswith(("arith.", "math.")) or op.name == "hal.interface.constant.load"):
            raise error_at_op(user, "uses a scalar the dispatch lowering cannot compute: only "
                                    "constants, push constants and arith/math ops on them are "
                                    "supported")
        operand_ids = [visit(o) for o in op.operands]
        ops.append(scalar_op(op, operand_ids))
        ids[v] = len(ops) - 1
        return ids[v]

    visit(value)
    return ops


def splice(program, base):
    """``program`` with local ids shifted by ``base`` (to append it to a body whose next id is
    ``base``)."""
    return [replace(s, operands=tuple(o + base for o in s.operands)) for s in program]
