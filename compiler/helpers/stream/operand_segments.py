"""Read and replace one variadic operand group of an op with ``operandSegmentSizes``.

Stream ops such as ``stream.cmd.execute`` (resources, sizes, awaits) and ``stream.cmd.dispatch``
(workload, uniform operands, resources, sizes, offsets, lengths) keep several variadic operand
groups in one operand list, split by the ``operandSegmentSizes`` property. The passes that
change one group in place (the await list, the uniform operands) go through these helpers so
the segment sizes always match the operands.

Source followed: MLIR's ``AttrSizedOperandSegments`` trait (``MutableOperandRange`` assign).
"""
from xdsl.dialects.builtin import DenseArrayBase, i32

SEGMENTS = "operandSegmentSizes"


def operand_groups(op):
    """``{group name: [values]}`` of ``op``, in declaration order."""
    names = [name for name, _ in type(op).get_irdl_definition().operands]
    sizes = list(op.properties[SEGMENTS].get_values())
    groups, pos = {}, 0
    for name, size in zip(names, sizes):
        groups[name] = list(op.operands[pos:pos + size])
        pos += size
    return groups


def set_operand_groups(op, **replacements):
    """Replace the named operand groups of ``op`` by new value lists (other groups unchanged)."""
    groups = operand_groups(op)
    unknown = set(replacements) - set(groups)
    if unknown:
        raise KeyError(f"'{op.name}' has no operand group(s) {', '.join(sorted(unknown))}")
    groups.update({name: list(values) for name, values in replacements.items()})
    op.operands = [value for values in groups.values() for value in values]
    op.properties[SEGMENTS] = DenseArrayBase.from_list(i32, [len(values) for values in groups.values()])
