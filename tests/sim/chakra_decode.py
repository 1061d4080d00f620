"""Reading Chakra ``.et`` files in the tests, independently of rt's writer: protobuf message
classes built at run time from a descriptor of MLCommons' ``et_def.proto`` (the fields rt
writes), and Chakra's own stream framing (a varint length before each message)."""
import pytest

_FIELDS = {
    "AttributeProto": [("name", 1, "string"), ("int32_val", 7, "int32"), ("int64_val", 9, "int64"),
                       ("uint64_val", 13, "uint64"), ("bool_val", 27, "bool"),
                       ("string_val", 29, "string")],
    "GlobalMetadata": [("version", 1, "string"), ("attr", 2, "AttributeProto*")],
    "Node": [("id", 1, "uint64"), ("name", 2, "string"), ("type", 3, "int32"),
             ("ctrl_deps", 4, "uint64*"), ("data_deps", 5, "uint64*"),
             ("start_time_micros", 6, "uint64"), ("duration_micros", 7, "uint64"),
             ("attr", 10, "AttributeProto*")],
}


def message_classes():
    """``{name: class}`` for AttributeProto, GlobalMetadata and Node (skips without protobuf)."""
    pytest.importorskip("google.protobuf", reason="protobuf (the test extra) is not installed")
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    F = descriptor_pb2.FieldDescriptorProto
    types = {"string": F.TYPE_STRING, "int32": F.TYPE_INT32, "int64": F.TYPE_INT64,
             "uint64": F.TYPE_UINT64, "bool": F.TYPE_BOOL}
    file = descriptor_pb2.FileDescriptorProto(name="rt_test_et_def.proto",
                                              package="ChakraProtoMsg", syntax="proto3")
    for message, fields in _FIELDS.items():
        m = file.message_type.add(name=message)
        if message == "AttributeProto":
            m.oneof_decl.add(name="value")
        for name, number, kind in fields:
            repeated = kind.endswith("*")
            kind = kind.rstrip("*")
            f = m.field.add(name=name, number=number,
                            label=F.LABEL_REPEATED if repeated else F.LABEL_OPTIONAL)
            if kind in types:
                f.type = types[kind]
            else:
                f.type, f.type_name = F.TYPE_MESSAGE, f".ChakraProtoMsg.{kind}"
            if message == "AttributeProto" and number != 1:
                f.oneof_index = 0
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"ChakraProtoMsg.{name}"))
            for name in _FIELDS}


def _varint(data, pos):
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def read_et(path):
    """``(GlobalMetadata, [Node, ...])`` of one ``.et`` file."""
    classes = message_classes()
    with open(path, "rb") as f:
        data = f.read()
    messages, pos = [], 0
    while pos < len(data):
        size, pos = _varint(data, pos)
        messages.append(data[pos:pos + size])
        pos += size
    meta = classes["GlobalMetadata"]()
    meta.ParseFromString(messages[0])
    nodes = []
    for raw in messages[1:]:
        node = classes["Node"]()
        node.ParseFromString(raw)
        nodes.append(node)
    return meta, nodes


def attrs(message):
    """``{name: value}`` of a message's attributes (the oneof member that is set)."""
    return {a.name: getattr(a, a.WhichOneof("value")) for a in message.attr}
