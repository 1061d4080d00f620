"""``iree-stream-pack-dispatch-operands``: dispatch operands become i32 push-constant words.

Input: ``stream.cmd.dispatch`` uniform operands of index, integer or float type and the
matching arguments of the ``stream.executable`` functions. Output: every non-binding function
argument is ``i32`` and every dispatch operand is ``i32``, converted once per value right after
the value's definition (so equal operands stay equal SSA values for
iree-stream-fold-uniform-operands, the job IREE gives CSE):

* ``index`` -> ``arith.index_cast`` to i32 (rt passes index operands as signed 32-bit push
  constants; a constant index outside [-2^31, 2^31) is a CompileError), back with
  ``arith.index_cast``;
* ``f32`` / ``f16`` / ``bf16`` -> bitcast to the same-width integer, widened to i32, and back;
* ``i1``..``i31`` -> ``arith.extui`` to i32, back with ``arith.trunci``;
* ``i64`` / ``f64`` (and ``i33``..``i63``) -> two words, low then high
  (``trunci(x)``, ``trunci(x >> 32)``), rebuilt as ``extui(lo) | (extui(hi) << 32)``.

Constant operands are converted at compile time (``arith.constant 64 : i32``) so
iree-stream-fold-uniform-operands can inline them. ``stream.alignment`` / ``stream.values``
argument attributes move to the op that rebuilds the original value.

Example::

    func.func @fn(%b: !stream.binding, %n: index, %s: f32)
    stream.cmd.dispatch @ex::@fn[%w](%n0, %x : index, f32) {...}
    // ->
    func.func @fn(%b: !stream.binding, %n32: i32, %s32: i32) {
      %n = arith.index_cast %n32 : i32 to index
      %s = arith.bitcast %s32 : i32 to f32
    %0 = arith.index_cast %n0 : index to i32
    %1 = arith.bitcast %x : f32 to i32
    stream.cmd.dispatch @ex::@fn[%w](%0, %1 : i32, i32) {...}

Source followed: IREE ``Dialect/Stream/Transforms/PackDispatchOperands.cpp`` (index bits 32).
"""
import dataclasses
import struct

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    BFloat16Type,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    i32,
    i64,
)
from xdsl.ir import Block
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.frontend import error_at_op
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream import dispatch_sites
from rt.compiler.helpers.stream.operand_segments import set_operand_groups

_MOVED_ATTRS = ("stream.alignment", "stream.values")
_FLOAT_WIDTHS = {Float16Type: 16, BFloat16Type: 16, Float32Type: 32, Float64Type: 64}


def _width(type_):
    """Bit width of a packable scalar type, or None."""
    if isinstance(type_, IndexType):
        return 32
    if isinstance(type_, IntegerType):
        return type_.width.data
    return _FLOAT_WIDTHS.get(type(type_))


def _words(type_):
    width = _width(type_)
    return None if width is None else (2 if width > 32 else 1)


@dataclasses.dataclass(frozen=True)
class PackDispatchOperandsPass(Pass):
    """Index/int/float dispatch operands -> i32 words (functions and dispatch sites)."""

    name = "iree-stream-pack-dispatch-operands"

    def run(self, module, ctx):
        cache = {}
        for entry in dispatch_sites.collect(module, self.name):
            for site in entry.sites:
                _pack_site(site, entry, cache, self.name)
            _unpack_function(entry, self.name)


def _pack_site(site, entry, cache, pass_name):
    if all(v.type == i32 for v in site.uniform_operands):
        return
    execute = dispatch_sites.enclosing_execute(site, pass_name)
    words = []
    for i, value in enumerate(site.uniform_operands):
        if _words(value.type) is None:
            raise error_at_op(site, f"{pass_name}: operand {i} of stream.cmd.dispatch {entry.symbol} has type "
                                    f"{value.type}; dispatch operands must be index, integer or float scalars")
        if value.type == i32:
            words.append(value)
            continue
        if dispatch_sites.defined_inside(value, execute):
            raise error_at_op(site, f"{pass_name}: operand {i} of stream.cmd.dispatch {entry.symbol} is defined "
                                    "inside the stream.cmd.execute region; operands must come from outside it")
        if value not in cache:
            cache[value] = _pack_after_definition(value, _constant_bits(value, site, i, entry, pass_name))
        words.extend(cache[value])
    set_operand_groups(site, uniform_operands=words)


def _pack_after_definition(value, constant):
    """The i32 words of ``value``, computed right after its definition (one set per value)."""
    owner = value.owner
    point = [InsertPoint.at_start(owner) if isinstance(owner, Block) else InsertPoint.after(owner)]

    def insert(op):
        Rewriter.insert_op(op, point[0])
        point[0] = InsertPoint.after(op)
        return op.results[0]

    if constant is not None:
        return [insert(_i32_constant(w)) for w in constant]
    return _pack_value(value, insert)


def _constant_bits(value, site, index, entry, pass_name):
    """The i32 words of a constant operand, or None when ``value`` is not a constant."""
    op = value.owner
    if not isinstance(op, arith.ConstantOp):
        return None
    type_ = value.type
    data = op.value.value.data
    if isinstance(type_, IndexType):
        if not -(1 << 31) <= data < (1 << 31):
            raise error_at_op(site, f"{pass_name}: operand {index} of stream.cmd.dispatch {entry.symbol} is the "
                                    f"index {data}, which does not fit the signed 32-bit push constant rt passes "
                                    "index operands in (-2^31 <= value < 2^31)")
        return [data & 0xFFFFFFFF]
    if isinstance(type_, IntegerType):
        bits = data & ((1 << type_.width.data) - 1)
    elif isinstance(type_, Float64Type):
        bits = struct.unpack("<Q", struct.pack("<d", data))[0]
    elif isinstance(type_, Float32Type):
        bits = struct.unpack("<I", struct.pack("<f", data))[0]
    elif isinstance(type_, Float16Type):
        bits = struct.unpack("<H", struct.pack("<e", data))[0]
    else:
        return None
    return [bits & 0xFFFFFFFF, bits >> 32] if _width(type_) > 32 else [bits]


def _i32_constant(bits):
    signed = bits - (1 << 32) if bits >= (1 << 31) else bits
    return arith.ConstantOp(IntegerAttr(signed, i32))


def _pack_value(value, insert):
    type_ = value.type
    if isinstance(type_, IndexType):
        return [insert(arith.IndexCastOp(value, i32))]
    width = _width(type_)
    if not isinstance(type_, IntegerType):
        value = insert(arith.BitcastOp(value, IntegerType(width)))
    if width < 32:
        return [insert(arith.ExtUIOp(value, i32))]
    if width == 32:
        return [value]
    if width < 64:
        value = insert(arith.ExtUIOp(value, i64))
    shift = insert(arith.ConstantOp(IntegerAttr(32, i64)))
    return [insert(arith.TruncIOp(value, i32)), insert(arith.TruncIOp(insert(arith.ShRUIOp(value, shift)), i32))]


def _unpack_function(entry, pass_name):
    func = entry.func
    block = func.body.blocks[0]
    first = block.first_op
    for arg in entry.operand_args():
        type_ = arg.type
        if type_ == i32:
            continue
        if _words(type_) is None:
            raise error_at_op(func, f"{pass_name}: argument {arg.index} of @{func.sym_name.data} has type {type_}; "
                                    "dispatch operands must be index, integer or float scalars")
        attrs = dispatch_sites.arg_attr_list(func)[arg.index]
        new_ops = []

        def insert(op):
            block.insert_op_before(op, first)
            new_ops.append(op)
            return op.results[0]

        index = arg.index
        lo = dispatch_sites.insert_argument(func, index, i32)
        words = [lo]
        if _words(type_) == 2:
            words.append(dispatch_sites.insert_argument(func, index + 1, i32))
        value = _unpack_words(words, type_, insert)
        arg.replace_all_uses_with(value)
        moved = {k: v for k, v in attrs.data.items() if k in _MOVED_ATTRS}
        if moved:
            new_ops[-1].attributes.update(moved)
        kept = DictionaryAttr({k: v for k, v in attrs.data.items() if k not in _MOVED_ATTRS})
        dispatch_sites.erase_arguments(func, [arg])
        attr_list = dispatch_sites.arg_attr_list(func)
        attr_list[index] = kept
        dispatch_sites.store_signature(func, attr_list)


def _unpack_words(words, type_, insert):
    """Ops (via ``insert``) rebuilding a value of ``type_`` from its i32 ``words``."""
    if isinstance(type_, IndexType):
        return insert(arith.IndexCastOp(words[0], IndexType()))
    width = _width(type_)
    if len(words) == 2:
        lo = insert(arith.ExtUIOp(words[0], i64))
        hi = insert(arith.ExtUIOp(words[1], i64))
        shift = insert(arith.ConstantOp(IntegerAttr(32, i64)))
        value = insert(arith.OrIOp(lo, insert(arith.ShLIOp(hi, shift))))
        if width < 64:
            value = insert(arith.TruncIOp(value, IntegerType(width)))
    else:
        value = words[0]
        if width < 32:
            value = insert(arith.TruncIOp(value, IntegerType(width)))
    if not isinstance(type_, IntegerType):
        value = insert(arith.BitcastOp(value, type_))
    return value
