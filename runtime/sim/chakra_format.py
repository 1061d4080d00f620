"""The bytes of a Chakra execution trace: protobuf messages of MLCommons' ``et_def.proto``.

A Chakra trace is one file per rank, ``PREFIX.{rank}.et``: a ``GlobalMetadata`` message, then
one ``Node`` message per node, each preceded by its length as a varint (protobuf's
length-delimited stream, as Chakra's ``protolib.encodeMessage`` writes it). The fields used
(package ``ChakraProtoMsg``, proto3):

* ``GlobalMetadata``: ``version`` (1, string), ``attr`` (2, repeated AttributeProto).
* ``Node``: ``id`` (1, uint64), ``name`` (2), ``type`` (3, NodeType), ``ctrl_deps`` (4) and
  ``data_deps`` (5) (repeated uint64, packed), ``start_time_micros`` (6), ``duration_micros``
  (7), ``attr`` (10, repeated AttributeProto).
* ``AttributeProto``: ``name`` (1) and one value of the ``value`` oneof: ``int32_val`` (7),
  ``int64_val`` (9), ``uint64_val`` (13), ``bool_val`` (27), ``string_val`` (29).

Written by hand rather than through the ``protobuf`` package: these few fields need only
varints and length-delimited fields (about fifty lines), and an export then needs no optional
dependency. Source: mlcommons/chakra ``schema/protobuf/et_def.proto`` and
``src/third_party/utils/protolib.py``; protobuf's wire format (developers.google.com/protocol-
buffers/docs/encoding).
"""
from dataclasses import dataclass, field

from rt.runtime.errors import InvalidArgumentError

#: ``NodeType`` values.
COMP_NODE, COMM_SEND_NODE, COMM_RECV_NODE, COMM_COLL_NODE = 4, 5, 6, 7
#: ``CollectiveCommType`` values.
ALL_REDUCE, REDUCE, ALL_GATHER, BROADCAST, ALL_TO_ALL, REDUCE_SCATTER = 0, 1, 2, 5, 6, 7
#: The schema version written into ``GlobalMetadata.version``.
SCHEMA_VERSION = "0.0.4"

_VARINT, _LENGTH = 0, 2
#: AttributeProto value field numbers by the kind a value is written as.
_VALUE_FIELDS = {"int32": 7, "int64": 9, "uint64": 13, "bool": 27, "string": 29}


@dataclass
class Attribute:
    """One ``AttributeProto``: ``kind`` is int32, int64, uint64, bool or string."""

    name: str
    kind: str
    value: object


@dataclass
class Node:
    """One ``Node``; times in whole µs (the schema's unit)."""

    id: int
    name: str
    type: int
    ctrl_deps: list = field(default_factory=list)
    data_deps: list = field(default_factory=list)
    start_time_micros: int = 0
    duration_micros: int = 0
    attr: list = field(default_factory=list)


def _varint(value):
    value &= (1 << 64) - 1  # negative int32/int64 values are 10-byte two's complement
    out = bytearray()
    while True:
        bits = value & 0x7F
        value >>= 7
        if value:
            out.append(0x80 | bits)
        else:
            out.append(bits)
            return bytes(out)


def _key(number, wire):
    return _varint(number << 3 | wire)


def _scalar(number, value):
    """A varint field, omitted at its default (proto3)."""
    return _key(number, _VARINT) + _varint(int(value)) if value else b""


def _bytes(number, payload):
    return _key(number, _LENGTH) + _varint(len(payload)) + payload


def _text(number, text):
    return _bytes(number, text.encode("utf-8")) if text else b""


def _packed(number, values):
    return _bytes(number, b"".join(_varint(v) for v in values)) if values else b""


def encode_attribute(attribute):
    """The ``AttributeProto`` bytes of ``attribute`` (its oneof value always written).

    Raises InvalidArgumentError for a kind the writer does not know."""
    number = _VALUE_FIELDS.get(attribute.kind)
    if number is None:
        raise InvalidArgumentError(f"chakra attribute {attribute.name!r}: kind "
                                   f"{attribute.kind!r}, expected one of {sorted(_VALUE_FIELDS)}")
    if attribute.kind == "string":
        value = _bytes(number, str(attribute.value).encode("utf-8"))
    else:
        value = _key(number, _VARINT) + _varint(int(attribute.value))
    return _text(1, attribute.name) + value


def encode_node(node):
    """The ``Node`` message bytes of ``node``."""
    return b"".join([
        _scalar(1, node.id), _text(2, node.name), _scalar(3, node.type),
        _packed(4, node.ctrl_deps), _packed(5, node.data_deps),
        _scalar(6, node.start_time_micros), _scalar(7, node.duration_micros),
        *(_bytes(10, encode_attribute(a)) for a in node.attr)])


def encode_metadata(attributes, version=SCHEMA_VERSION):
    """The ``GlobalMetadata`` message bytes."""
    return _text(1, version) + b"".join(_bytes(2, encode_attribute(a)) for a in attributes)


def delimited(message):
    """``message`` preceded by its length as a varint (one record of a ``.et`` file)."""
    return _varint(len(message)) + message
