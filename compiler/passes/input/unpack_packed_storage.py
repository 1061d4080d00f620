"""``rt-unpack-packed-storage``: i1 tensors with ``#iree_encoding.packed_storage`` held one per byte.

IREE stores ``tensor<8xi1, #iree_encoding.packed_storage>`` eight elements to a byte (element
``k`` at bit ``k % 8`` of byte ``k / 8``, the last byte zero-padded); a plain i1 takes a byte.
Inside a program the packing is visible only through ``flow.tensor.bitcast``, so rt keeps such
tensors in byte storage and converts where they are bitcast:

* the encoding is dropped from every type and constant (i2/i4 stay packed: their width packs
  them);
* a bitcast *to* a packed i1 tensor becomes a bitcast to ``tensor<Bxi8>`` (when the source is
  not already that), an unpacking ``linalg.generic`` (``bits[b, k] = trunci(byte[b] >> k)``)
  and a reshape to the result's shape;
* a bitcast *from* one becomes a reshape to ``tensor<Bx8xi1>`` (zero-padded), a packing
  ``linalg.generic`` (``byte[b] |= extui(bits[b, k]) << k``) and a bitcast of the bytes.

Example::

    %b = flow.tensor.bitcast %x : tensor<1xi8> -> tensor<8xi1, #iree_encoding.packed_storage>
    // ->
    %e = tensor.empty() : tensor<1x8xi1>
    %g = linalg.generic {...} ins(%x : tensor<1xi8>) outs(%e : tensor<1x8xi1>) {...}
    %b = tensor.collapse_shape %g [[0, 1]] : tensor<1x8xi1> into tensor<8xi1>

Errors: CompileError at the op for a packed tensor in the signature of a public function (its
callers would see the bytes), and for a bitcast of one with dynamic dims.
Source followed: IREE ``Dialect/Encoding/IR/EncodingAttrs.td`` (PackedStorageAttr) and
``Utils/ElementPackingUtils.cpp`` (which types are stored packed, and how many bytes they take).
"""
import dataclasses

from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseIntOrFPElementsAttr, FunctionType, IntegerType, TensorType
from xdsl.dialects.func import FuncOp

from rt.compiler.dialects import util
from rt.compiler.dialects.flow_tensor_shape import TensorBitCastOp
from rt.compiler.dialects.flow_types import static_storage_bits
from rt.compiler.dialects.iree_encoding import PackedStorageAttr
from rt.compiler.frontend import ElementsAttr, elements_to_numpy, error_at_op, make_elements, parse_module
from rt.compiler.passes.base import Pass

_FUNCTIONS = (FuncOp, util.FuncOp)


@dataclasses.dataclass(frozen=True)
class UnpackPackedStoragePass(Pass):
    """Hold packed i1 tensors one per byte; bitcasts to and from them unpack and pack bits."""

    name = "rt-unpack-packed-storage"

    def run(self, module, ctx):
        ops = list(module.walk())
        if not any(_mentions_packed(op) for op in ops):
            return
        for op in ops:
            if isinstance(op, _FUNCTIONS) and _is_public(op) and _mentions_packed_i1(op.properties["function_type"]):
                raise error_at_op(op, f"public function @{op.sym_name.data} takes or returns a tensor with "
                                      "#iree_encoding.packed_storage; rt does not pass packed i1 tensors across "
                                      "the ABI: bitcast it to an i8 tensor inside the function")
        casts = [(op, op.source.type, op.result.type) for op in ops if isinstance(op, TensorBitCastOp)
                 and (_is_packed_i1(op.source.type) or _is_packed_i1(op.result.type))]
        for op, source, result in casts:
            _rewrite_bitcast(op, source, result, ctx)
        for op in module.walk():
            _strip_op(op)


def _is_public(op):
    visibility = op.properties.get("sym_visibility") or op.attributes.get("sym_visibility")
    return visibility is None or visibility.data == "public"


def _mentions_packed_i1(type_):
    if isinstance(type_, FunctionType):
        return any(_mentions_packed_i1(t) for t in (*type_.inputs.data, *type_.outputs.data))
    return _is_packed_i1(type_)


def _mentions_packed(op):
    types = [v.type for v in op.results] + [a.type for r in op.regions for b in r.blocks for a in b.args]
    types += [op.properties[k] for k in ("function_type", "type") if k in op.properties]
    return any(_is_packed(t) or isinstance(t, FunctionType) and _strip(t) != t for t in types)


def _strip_op(op):
    for value in op.results:
        value._type = _strip(value.type)
    for region in op.regions:
        for block in region.blocks:
            for arg in block.args:
                arg._type = _strip(arg.type)
    for table in (op.properties, op.attributes):
        for key, attr in list(table.items()):
            table[key] = _strip_attr(attr)


def _rewrite_bitcast(op, source, result, ctx):
    """Replace bitcast ``op`` from ``source`` to ``result`` (one a packed i1 tensor type) by
    pack / bitcast / unpack steps."""
    if op.source_dims or op.result_dims or DYNAMIC_INDEX in (*source.get_shape(), *result.get_shape()):
        raise error_at_op(op, f"flow.tensor.bitcast of packed i1 tensors needs static shapes ({source} -> {result})")
    value = op.source
    if _is_packed_i1(source):
        value = _inline(op, ctx, _pack_source(source.get_shape(), _nbytes(source)), value)
    if _is_packed_i1(result):
        nbytes = _nbytes(result)
        if value.type != TensorType(IntegerType(8), [nbytes]):
            value = _insert_bitcast(op, value, TensorType(IntegerType(8), [nbytes]))
        value = _inline(op, ctx, _unpack_source(nbytes, result.get_shape()), value)
    elif value.type != _strip(result):
        value = _insert_bitcast(op, value, result)
    op.result.replace_all_uses_with(value)
    op.detach()
    op.erase()


def _nbytes(type_):
    """Bytes ``type_`` occupies (packed i1: eight elements to a byte, rounded up)."""
    return (static_storage_bits(type_, []) + 7) // 8


def _insert_bitcast(op, value, type_):
    cast = TensorBitCastOp.build(operands=[value, [], []], result_types=[_strip(type_)])
    cast.location = op.location
    op.parent_block().insert_op_before(cast, op)
    return cast.result


def _inline(op, ctx, source, value):
    """Insert the body of the one-argument function in ``source`` before ``op``, applied to ``value``."""
    func = parse_module(source, "<rt-unpack-packed-storage>", ctx).body.block.first_op
    block = func.body.block
    block.args[0].replace_all_uses_with(value)
    ret = block.last_op
    out = ret.operands[0]
    ret.detach()
    ret.erase()
    for inner in list(block.ops):
        inner.detach()
        for nested in inner.walk():
            nested.location = op.location
        op.parent_block().insert_op_before(inner, op)
    return out


def _is_packed(type_):
    return isinstance(type_, TensorType) and isinstance(type_.encoding, PackedStorageAttr)


def _is_packed_i1(type_):
    return _is_packed(type_) and type_.element_type == IntegerType(1)


def _strip(type_):
    """``type_`` without the packed_storage encoding (inside function types too)."""
    if _is_packed(type_):
        return TensorType(type_.element_type, type_.get_shape())
    if isinstance(type_, FunctionType):
        return FunctionType.from_lists([_strip(t) for t in type_.inputs.data], [_strip(t) for t in type_.outputs.data])
    return type_


def _strip_attr(attr):
    if isinstance(attr, (ElementsAttr, DenseIntOrFPElementsAttr)) and _is_packed(attr.type):
        return make_elements(_strip(attr.type), elements_to_numpy(attr))
    return _strip(attr)


def _shape(shape):
    return "x".join(str(d) for d in shape) + "x" if shape else ""


def _reshape(value, source, target):
    """Text turning ``%value : tensor<{source}xi1>`` (1-D of n, or rank r) into ``target`` shape."""
    if list(source) == list(target):
        return value, ""
    if len(source) == 1 and target:
        groups = list(range(len(target)))
        return "%shaped", (f"  %shaped = tensor.expand_shape {value} [{groups}] output_shape {list(target)} : "
                           f"tensor<{_shape(source)}i1> into tensor<{_shape(target)}i1>\n")
    groups = list(range(len(source)))
    return "%shaped", (f"  %shaped = tensor.collapse_shape {value} [{groups if source else ''}] : "
                       f"tensor<{_shape(source)}i1> into tensor<{_shape(target)}i1>\n")


def _unpack_source(nbytes, shape):
    """A function ``(tensor<Bxi8>) -> tensor<shape x i1>`` unpacking bits, element k at bit k."""
    count = _product(shape)
    text = (f"func.func private @unpack(%bytes: tensor<{nbytes}xi8>) -> tensor<{_shape(shape)}i1> {{\n"
            f"  %e = tensor.empty() : tensor<{nbytes}x8xi1>\n"
            f"  %bits = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], "
            f"iterator_types = [\"parallel\", \"parallel\"]}} ins(%bytes : tensor<{nbytes}xi8>) "
            f"outs(%e : tensor<{nbytes}x8xi1>) {{\n"
            f"  ^bb0(%in: i8, %out: i1):\n"
            f"    %k = linalg.index 1 : index\n"
            f"    %k8 = arith.index_cast %k : index to i8\n"
            f"    %s = arith.shrui %in, %k8 : i8\n"
            f"    %b = arith.trunci %s : i8 to i1\n"
            f"    linalg.yield %b : i1\n"
            f"  }} -> tensor<{nbytes}x8xi1>\n"
            f"  %flat = tensor.collapse_shape %bits [[0, 1]] : tensor<{nbytes}x8xi1> into tensor<{8 * nbytes}xi1>\n")
    value = "%flat"
    if count != 8 * nbytes:
        text += (f"  %head = tensor.extract_slice %flat[0] [{count}] [1] : tensor<{8 * nbytes}xi1> "
                 f"to tensor<{count}xi1>\n")
        value = "%head"
    value, reshape = _reshape(value, [count], shape)
    return text + reshape + f"  return {value} : tensor<{_shape(shape)}i1>\n}}\n"


def _pack_source(shape, nbytes):
    """A function ``(tensor<shape x i1>) -> tensor<Bxi8>`` packing elements, element k to bit k."""
    count = _product(shape)
    value, text = _reshape("%src", shape, [count])
    if count != 8 * nbytes:
        text += (f"  %false = arith.constant dense<false> : tensor<{8 * nbytes}xi1>\n"
                 f"  %padded = tensor.insert_slice {value} into %false[0] [{count}] [1] : "
                 f"tensor<{count}xi1> into tensor<{8 * nbytes}xi1>\n")
        value = "%padded"
    return (f"func.func private @pack(%src: tensor<{_shape(shape)}i1>) -> tensor<{nbytes}xi8> {{\n" + text +
            f"  %grid = tensor.expand_shape {value} [[0, 1]] output_shape [{nbytes}, 8] : "
            f"tensor<{8 * nbytes}xi1> into tensor<{nbytes}x8xi1>\n"
            f"  %zero = arith.constant 0 : i8\n"
            f"  %e = tensor.empty() : tensor<{nbytes}xi8>\n"
            f"  %init = linalg.fill ins(%zero : i8) outs(%e : tensor<{nbytes}xi8>) -> tensor<{nbytes}xi8>\n"
            f"  %bytes = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], "
            f"iterator_types = [\"parallel\", \"reduction\"]}} ins(%grid : tensor<{nbytes}x8xi1>) "
            f"outs(%init : tensor<{nbytes}xi8>) {{\n"
            f"  ^bb0(%in: i1, %out: i8):\n"
            f"    %k = linalg.index 1 : index\n"
            f"    %k8 = arith.index_cast %k : index to i8\n"
            f"    %w = arith.extui %in : i1 to i8\n"
            f"    %s = arith.shli %w, %k8 : i8\n"
            f"    %o = arith.ori %out, %s : i8\n"
            f"    linalg.yield %o : i8\n"
            f"  }} -> tensor<{nbytes}xi8>\n"
            f"  return %bytes : tensor<{nbytes}xi8>\n}}\n")


def _product(shape):
    out = 1
    for d in shape:
        out *= d
    return out
