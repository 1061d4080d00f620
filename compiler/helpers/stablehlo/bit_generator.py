"""``stablehlo.rng_bit_generator`` as XLA:CPU computes it (helper of the StableHLO input, not a pass).

The op becomes two ``linalg.generic``s: one computing each output element's random bits from the
state, one writing the updated state. Every output element runs the whole cipher for its block
and keeps its word (a block yields 4 (Philox) or 2 (ThreeFry) 32-bit words), so no
concatenation or reshape follows.

State (``initial_state``), read as XLA reads the ``tensor<2xui64>`` the spec and JAX use:
``key = state[0]`` (words ``k0`` = low 32 bits, ``k1`` = high), ``counter = state[1]``; the
output state is ``[state[0], state[1] + blocks]``. IREE's e2e tests also pass a
``tensor<4xi32>`` (IREE's own form, read as IREE's linalg conversion reads it): key words
``state[0]``, ``state[1]``, counter ``state[3] | state[2] << 32``, and the new counter's low and
high words written to ``state[2]`` and ``state[3]``.

Algorithms (Salmon et al., SC 2011, "Parallel random numbers: as easy as 1, 2, 3"):

* ``PHILOX`` and ``DEFAULT`` (XLA:CPU's default is Philox): Philox-4x32-10 on the 128-bit
  counter ``counter + block + (state[0] << 64)`` (a wrap of the low half carries, as in XLA);
  32-bit outputs take the 4 words of block ``i // 4`` in order, 64-bit outputs the pairs
  ``(w0 | w1 << 32, w2 | w3 << 32)``.
* ``THREE_FRY``: Threefry-2x32 with 20 rounds on ``counter + block``. 64-bit outputs: one
  block per element, ``w0 | w1 << 32``. 32-bit outputs: the first even dimension ``d`` (else
  the largest) is halved; element ``[.., 2j + t, ..]`` is word ``t`` of the block at
  ``[.., j, ..]`` (row-major over the halved shape).

Output elements are 32- or 64-bit integers (signed or unsigned), any static shape.
Errors: a located CompileError for another state type (``tensor<3xui64>`` included), another
output element type, or a dynamic shape. Checked bit for bit against ``jax.lax.rng_bit_generator``
on CPU (JAX 0.10.2) and against IREE's ``stablehlo_ops/philox.mlir`` / ``three_fry.mlir``.
"""
import math

from xdsl.dialects import arith as xarith
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir.affine import AffineExpr

from rt.compiler.dialects import arith
from rt.compiler.dialects.flow_tensor_shape import TensorBitCastOp
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.helpers.stablehlo.builders import affine_maps, dim_exprs, empty, generic, require_static
from rt.compiler.helpers.stablehlo.elementwise import constant, element_type

I32, I64 = IntegerType(32), IntegerType(64)
_PHILOX_MULTIPLIERS = (0xD2511F53, 0xCD9E8D57)
_PHILOX_KEY_STEPS = (0x9E3779B9, 0xBB67AE85)
_THREEFRY_ROTATIONS = (13, 15, 26, 6, 17, 29, 16, 24)
_THREEFRY_PARITY = 0x1BD11BDA


class _Ints:
    """Integer arithmetic on scalars inside a generic body, constants wrapped to their width."""

    def __init__(self, sink):
        self.s = sink

    def const(self, value, type_):
        width = type_.width.data
        value &= (1 << width) - 1
        return constant(self.s, value - (1 << width) if value >= 1 << (width - 1) else value, type_)

    def _bin(self, cls, a, b):
        return self.s.add(cls(a, b))

    def add(self, a, b):
        return self._bin(xarith.AddiOp, a, b)

    def mul(self, a, b):
        return self._bin(xarith.MuliOp, a, b)

    def xor(self, a, b):
        return self._bin(xarith.XOrIOp, a, b)

    def or_(self, a, b):
        return self._bin(xarith.OrIOp, a, b)

    def and_(self, a, value):
        return self._bin(xarith.AndIOp, a, self.const(value, a.type))

    def shl(self, a, bits):
        return self._bin(xarith.ShLIOp, a, self.const(bits, a.type))

    def shr(self, a, bits):
        return self._bin(xarith.ShRUIOp, a, self.const(bits, a.type))

    def rotl(self, a, bits):
        return self.or_(self.shl(a, bits), self.shr(a, 32 - bits))

    def cast(self, cls, a, type_):
        return self.s.add(cls.build(operands=[a], result_types=[type_]))

    def low(self, a):
        return self.cast(arith.TruncIOp, a, I32)

    def high(self, a):
        return self.low(self.shr(a, 32))

    def fuse(self, low, high):
        """``low | high << 32`` as i64."""
        return self.or_(self.cast(arith.ExtUIOp, low, I64), self.shl(self.cast(arith.ExtUIOp, high, I64), 32))

    def index(self, dim):
        return self.cast(arith.IndexCastOp, self.s.add(IndexOp(dim)), I64)

    def pick(self, word, values):
        """``values[word]`` (``word`` an i64 in range)."""
        chosen = values[-1]
        for k in range(len(values) - 2, -1, -1):
            hit = self.s.add(arith.CmpIOp(word, self.const(k, I64), "eq"))
            chosen = self.s.add(arith.SelectOp.build(operands=[hit, values[k], chosen], result_types=[chosen.type]))
        return chosen


def _philox(m, key, counter, high):
    """Philox-4x32-10 of the counter words ``(low(counter), high(counter), low(high), high(high))``."""
    x = [m.low(counter), m.high(counter), m.low(high), m.high(high)]
    k0, k1 = key
    for _ in range(10):
        p0 = m.mul(m.cast(arith.ExtUIOp, x[0], I64), m.const(_PHILOX_MULTIPLIERS[0], I64))
        p1 = m.mul(m.cast(arith.ExtUIOp, x[2], I64), m.const(_PHILOX_MULTIPLIERS[1], I64))
        x = [m.xor(m.xor(m.high(p1), x[1]), k0), m.low(p1), m.xor(m.xor(m.high(p0), x[3]), k1), m.low(p0)]
        k0, k1 = m.add(k0, m.const(_PHILOX_KEY_STEPS[0], I32)), m.add(k1, m.const(_PHILOX_KEY_STEPS[1], I32))
    return x


def _threefry(m, key, counter):
    """Threefry-2x32 (20 rounds, key schedule every 4) of ``(low(counter), high(counter))``."""
    ks = [key[0], key[1], m.xor(m.xor(m.const(_THREEFRY_PARITY, I32), key[0]), key[1])]
    x = [m.add(m.low(counter), ks[0]), m.add(m.high(counter), ks[1])]
    for i in range(5):
        for j in range(4):
            x[0] = m.add(x[0], x[1])
            x[1] = m.xor(x[0], m.rotl(x[1], _THREEFRY_ROTATIONS[(4 * i) % 8 + j]))
        x[0] = m.add(x[0], ks[(i + 1) % 3])
        x[1] = m.add(m.add(x[1], ks[(i + 2) % 3]), m.const(i + 1, I32))
    return x


def _linear(m, indices, shape):
    """Row-major linear index (i64) of ``indices`` (i64 values) in ``shape``."""
    total = m.const(0, I64)
    stride = 1
    for index, size in reversed(list(zip(indices, shape))):
        total = m.add(total, m.mul(index, m.const(stride, I64)))
        stride *= size
    return total


def _halved_dim(shape):
    """ThreeFry's 32-bit split dimension: the first even one, else the largest."""
    even = [d for d, size in enumerate(shape) if size % 2 == 0]
    return even[0] if even else max(range(len(shape)), key=lambda d: (shape[d], -d))


def _block_count(algorithm, shape, bits):
    n = math.prod(shape)
    if algorithm != "THREE_FRY":
        per = 4 if bits == 32 else 2
        return (n + per - 1) // per
    if bits == 64 or not shape:
        return n
    d = _halved_dim(shape)
    return math.prod(shape[:d]) * ((shape[d] + 1) // 2) * math.prod(shape[d + 1:])


def _state_form(op, state_type, algorithm):
    """``"u64x2"`` (spec/XLA) or ``"i32x4"`` (IREE's tests); a CompileError otherwise."""
    element = element_type(state_type)
    shape = list(state_type.get_shape())
    width = element.width.data if isinstance(element, IntegerType) else None
    if shape == [2] and width == 64:
        return "u64x2"
    if shape == [4] and width == 32:
        return "i32x4"
    raise error_at_op(op, f"'stablehlo.rng_bit_generator' ({algorithm}) with state {state_type}: rt reads a "
                          "tensor<2xui64> state (key, counter) or IREE's tensor<4xi32>")


def _key_and_counter(m, form, args):
    """(key words k0, k1 as i32; counter as i64) from the state scalars ``args``."""
    if form == "u64x2":
        key, counter = args[0], args[1]
        return (m.low(key), m.high(key)), counter, key
    return (args[0], args[1]), m.fuse(args[3], args[2]), m.fuse(args[0], args[1])


def _retyped(b, value, type_):
    """``value`` bitcast to ``type_`` (same shape; ``ui64`` <-> ``i64``), or ``value`` itself."""
    if value.type == type_:
        return value
    return b.add(TensorBitCastOp.build(operands=[value, [], []], result_types=[type_]))


def _signless(type_):
    return TensorType(IntegerType(element_type(type_).width.data), type_.get_shape())


def convert_rng_bit_generator(op, b):
    """(output state, random bits) of ``op`` as ``linalg.generic``s (see the module docstring)."""
    require_static(op, op.outputs[0].type, op.outputs[1].type)
    attr = op.attributes.get("rng_algorithm")
    if attr is None:
        raise error_at_op(op, "'stablehlo.rng_bit_generator' needs rng_algorithm (DEFAULT, THREE_FRY or PHILOX)")
    algorithm = attr.value.data
    form = _state_form(op, op.outputs[0].type, algorithm)
    out_element = element_type(op.outputs[1].type)
    bits = out_element.width.data if isinstance(out_element, IntegerType) else None
    if bits not in (32, 64):
        raise error_at_op(op, f"'stablehlo.rng_bit_generator' output {op.outputs[1].type}: rt produces 32- or "
                              "64-bit integer elements (bitcast_convert them to other types)")
    state_type, out_type = _signless(op.outputs[0].type), _signless(op.outputs[1].type)
    state = _retyped(b, op.inputs[0], state_type)
    shape = list(out_type.get_shape())
    rank = len(shape)
    words = 2 if form == "u64x2" else 4
    state_maps = [[AffineExpr.constant(k)] for k in range(words)]

    def bits_body(s, args):
        m = _Ints(s)
        key, counter, high = _key_and_counter(m, form, args)
        indices = [m.index(k) for k in range(rank)]
        if algorithm == "THREE_FRY" and bits == 32 and shape:
            d = _halved_dim(shape)
            halved = shape[:d] + [(shape[d] + 1) // 2] + shape[d + 1:]
            block = _linear(m, indices[:d] + [m.shr(indices[d], 1)] + indices[d + 1:], halved)
            word = m.and_(indices[d], 1)
        else:
            flat = _linear(m, indices, shape)
            per = 1 if algorithm == "THREE_FRY" else (4 if bits == 32 else 2)
            block, word = m.shr(flat, per.bit_length() - 1), m.and_(flat, per - 1)
        advanced = m.add(counter, block)
        if algorithm == "THREE_FRY":
            x = _threefry(m, key, advanced)
            value = m.fuse(x[0], x[1]) if bits == 64 else m.pick(word, x)
        else:
            wrapped = s.add(arith.CmpIOp(advanced, counter, "ult"))
            high = m.add(high, m.cast(arith.ExtUIOp, wrapped, I64))
            x = _philox(m, key, advanced, high)
            value = m.pick(word, [m.fuse(x[0], x[1]), m.fuse(x[2], x[3])]) if bits == 64 else m.pick(word, x)
        return [value]
    random = generic(b, [state] * words, [empty(b, out_type)], affine_maps(rank, *state_maps, dim_exprs(rank)),
                     ["parallel"] * rank, [out_type], bits_body)[0]
    blocks = _block_count(algorithm, shape, bits)

    def state_body(s, args):
        m = _Ints(s)
        position = m.index(0)
        if form == "u64x2":
            return [m.pick(m.and_(position, 1), [args[0], m.add(args[0], m.const(blocks, I64))])]
        advanced = m.add(m.fuse(args[2], args[1]), m.const(blocks, I64))
        return [m.pick(position, [args[0], args[0], m.low(advanced), m.high(advanced)])]
    counter_maps = [] if form == "u64x2" else [[AffineExpr.constant(2)], [AffineExpr.constant(3)]]
    new_state = generic(b, [state] * (1 + len(counter_maps)), [empty(b, state_type)],
                        affine_maps(1, [AffineExpr.dimension(0)], *counter_maps, [AffineExpr.dimension(0)]),
                        ["parallel"], [state_type], state_body)[0]
    return [_retyped(b, new_state, op.outputs[0].type), _retyped(b, random, op.outputs[1].type)]
