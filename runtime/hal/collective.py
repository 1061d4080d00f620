"""Collective operations: their packed description and what they compute.

``CollectiveOp`` is ``iree_hal_collective_op_t`` (runtime/src/iree/hal/command_buffer.h):
kind, reduction and element type packed into a uint32 (low byte first). ``compute`` is the
reference semantics every channel provider follows (IREE's header comments, NCCL's
collectives): given each rank's send elements it returns each rank's received elements,
reducing in rank order (``((r0 op r1) op r2) ...``, the order numpy reproduces).

Element counts, as in ``iree_hal_command_buffer_collective``: all_reduce, broadcast and reduce
count the whole buffer; all_gather counts one rank's contribution (recv holds n times it);
reduce_scatter counts one rank's result block (send holds n blocks); all_to_all counts the
whole send buffer, split in n equal blocks; send_recv's ``param`` packs the target rank in its
low 16 bits and the source rank in the high 16 (0xFFFF = none: nothing sent / zeros received).
"""
import enum

import numpy as np

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.record import Record


class CollectiveKind(enum.IntEnum):
    """``iree_hal_collective_kind_e``."""

    ALL_GATHER = 0
    ALL_REDUCE = 1
    ALL_TO_ALL = 2
    BROADCAST = 3
    REDUCE = 4
    REDUCE_SCATTER = 5
    SEND = 6
    RECV = 7
    SEND_RECV = 8


class CollectiveReduction(enum.IntEnum):
    """``iree_hal_collective_reduction_e``."""

    NONE = 0
    SUM = 1
    PRODUCT = 2
    MINIMUM = 3
    MAXIMUM = 4
    AVERAGE = 5


class CollectiveElementType(enum.IntEnum):
    """``iree_hal_collective_element_type_e``."""

    SINT_8 = 0
    UINT_8 = 1
    SINT_16 = 2
    UINT_16 = 3
    SINT_32 = 4
    UINT_32 = 5
    SINT_64 = 6
    UINT_64 = 7
    FLOAT_16 = 8
    FLOAT_32 = 9
    FLOAT_64 = 10
    BFLOAT_16 = 11


#: numpy storage dtype of each element type (bf16 is stored as its uint16 bits).
DTYPES = {
    CollectiveElementType.SINT_8: np.int8, CollectiveElementType.UINT_8: np.uint8,
    CollectiveElementType.SINT_16: np.int16, CollectiveElementType.UINT_16: np.uint16,
    CollectiveElementType.SINT_32: np.int32, CollectiveElementType.UINT_32: np.uint32,
    CollectiveElementType.SINT_64: np.int64, CollectiveElementType.UINT_64: np.uint64,
    CollectiveElementType.FLOAT_16: np.float16, CollectiveElementType.FLOAT_32: np.float32,
    CollectiveElementType.FLOAT_64: np.float64, CollectiveElementType.BFLOAT_16: np.uint16,
}
#: IREE's spelling of each element type in collective ops (``si8`` ... ``bf16``).
SHORT_NAMES = dict(zip(CollectiveElementType, ("si8", "ui8", "si16", "ui16", "si32", "ui32", "si64",
                                                "ui64", "f16", "f32", "f64", "bf16")))
_NO_RANK = 0xFFFF


class CollectiveOp(Record):
    """One collective: ``kind``, ``reduction`` and ``element_type`` (the enums above)."""

    __slots__ = ("kind", "reduction", "element_type")

    @classmethod
    def unpack(cls, packed, where="collective"):
        """Decode the uint32 form; ``InvalidArgumentError`` naming a bad field."""
        packed = int(packed) & 0xFFFFFFFF
        fields = (("kind", CollectiveKind, packed & 0xFF),
                  ("reduction", CollectiveReduction, (packed >> 8) & 0xFF),
                  ("element type", CollectiveElementType, (packed >> 16) & 0xFF))
        values = []
        for name, enum_type, raw in fields:
            try:
                values.append(enum_type(raw))
            except ValueError:
                raise InvalidArgumentError(
                    f"{where}: op 0x{packed:08x} has {name} {raw}, expected one of "
                    + ", ".join(f"{e.value}={e.name.lower()}" for e in enum_type)) from None
        op = cls(*values)
        reduces = op.kind in (CollectiveKind.ALL_REDUCE, CollectiveKind.REDUCE,
                              CollectiveKind.REDUCE_SCATTER)
        if reduces and op.reduction == CollectiveReduction.NONE:
            raise InvalidArgumentError(f"{where}: {op.kind.name.lower()} needs a reduction "
                                       "(sum, product, minimum, maximum or average)")
        return op

    def pack(self):
        return int(self.kind) | int(self.reduction) << 8 | int(self.element_type) << 16

    @property
    def dtype(self):
        return np.dtype(DTYPES[self.element_type])

    @property
    def element_size(self):
        return self.dtype.itemsize

    def describe(self):
        """``all_reduce with sum : f32`` (IREE's ``#stream.collective`` text), for errors and
        traces."""
        kind = self.kind.name.lower()
        reduction = "" if self.reduction == CollectiveReduction.NONE else \
            f" with {self.reduction.name.lower()}"
        return f"{kind}{reduction} : {SHORT_NAMES[self.element_type]}"

    def byte_lengths(self, count, ranks):
        """``(send bytes, recv bytes)`` a rank's buffers need for ``count`` elements."""
        size, k = self.element_size, self.kind
        if k == CollectiveKind.ALL_GATHER:
            return count * size, ranks * count * size
        if k == CollectiveKind.REDUCE_SCATTER:
            return ranks * count * size, count * size
        return count * size, count * size


def send_recv_ranks(param):
    """``(target, source)`` from a send_recv ``param`` (None for 0xFFFF / -1)."""
    param = int(param) & 0xFFFFFFFF
    target, source = param & 0xFFFF, param >> 16
    return (None if target == _NO_RANK else target), (None if source == _NO_RANK else source)


def bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(values):
    bits = values.astype(np.float32).view(np.uint32)
    rounded = bits + 0x7FFF + ((bits >> 16) & 1)
    nan = np.isnan(values)
    out = (rounded >> 16).astype(np.uint16)
    out[nan] = 0x7FC0
    return out


def _reduce(op, arrays):
    """Reduce ``arrays`` (one per rank, equal shapes) in rank order."""
    bf16 = op.element_type == CollectiveElementType.BFLOAT_16
    if bf16:
        arrays = [bf16_to_f32(a) for a in arrays]
    r = op.reduction
    if r == CollectiveReduction.MINIMUM or r == CollectiveReduction.MAXIMUM:
        fn = np.minimum if r == CollectiveReduction.MINIMUM else np.maximum
        out = arrays[0].copy()
        for a in arrays[1:]:
            fn(out, a, out=out)
    else:
        fn = np.multiply if r == CollectiveReduction.PRODUCT else np.add
        out = arrays[0].copy()
        with np.errstate(over="ignore", invalid="ignore"):
            for a in arrays[1:]:
                fn(out, a, out=out)
            if r == CollectiveReduction.AVERAGE:
                if out.dtype.kind == "f":
                    out = (out / len(arrays)).astype(out.dtype)
                else:
                    out = (np.sign(out) * (np.abs(out) // len(arrays))).astype(out.dtype)
    return f32_to_bf16(out) if bf16 else out


def compute(op, count, sends, params=None):
    """Each rank's received elements for ``op`` over ``count`` elements.

    sends: one 1-D array per rank (``op.dtype``; None where the rank sends nothing).
    params: per rank, the op's ``param`` (send_recv pairs, broadcast/reduce roots).
    Returns one array per rank (None where the rank receives nothing; ranks receiving the same
    elements share one array: copy it into the rank's buffer, never write to it). Raises
    ``InvalidArgumentError`` for sizes the kind cannot split (all_to_all over n ranks).
    """
    n = len(sends)
    k = op.kind
    if k == CollectiveKind.ALL_REDUCE:
        return [_reduce(op, sends)] * n
    if k == CollectiveKind.ALL_GATHER:
        return [np.concatenate(sends)] * n
    if k == CollectiveKind.REDUCE_SCATTER:
        result = _reduce(op, sends)
        return [result[r * count:(r + 1) * count] for r in range(n)]
    if k == CollectiveKind.ALL_TO_ALL:
        if count % n:
            raise InvalidArgumentError(f"all_to_all of {count} elements over {n} ranks: the "
                                       f"count must be a multiple of the rank count")
        block = count // n
        return [np.concatenate([sends[s][r * block:(r + 1) * block] for s in range(n)])
                for r in range(n)]
    if k == CollectiveKind.BROADCAST:
        root = params[0] if params else 0
        return [None if r == root else sends[root].copy() for r in range(n)]
    if k == CollectiveKind.REDUCE:
        root = params[0] if params else 0
        result = _reduce(op, sends)
        return [result if r == root else None for r in range(n)]
    if k == CollectiveKind.SEND_RECV:
        pairs = [send_recv_ranks(p) for p in params]
        out = []
        for r, (_, source) in enumerate(pairs):
            if source is None:
                out.append(np.zeros(count, op.dtype))
            elif not 0 <= source < n or pairs[source][0] != r:
                raise InvalidArgumentError(
                    f"send_recv: rank {r} receives from rank {source}, which sends to "
                    f"{'rank ' + str(pairs[source][0]) if 0 <= source < n else 'no such rank'}; "
                    "every receive needs the matching send")
            else:
                out.append(sends[source].copy())  # a rank's recv may be its send
        return out
    raise InvalidArgumentError(f"collective {k.name.lower()} is not supported (point-to-point "
                               "send and recv: use send_recv, which every rank joins)")


def run_collective(channel, op, param, send, recv, count):
    """Execute a recorded collective command: ``op`` packed, ``send`` / ``recv`` writable
    byte views of the ranges (the replay loop's, no copies), handed to ``channel.collective``
    as ``op.dtype`` arrays."""
    op = CollectiveOp.unpack(op)
    channel.collective(op, param, np.frombuffer(send, op.dtype), np.frombuffer(recv, op.dtype), count)
