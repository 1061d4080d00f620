"""``iree-stream-materialize-builtins``: 64-bit splats and fills become builtin dispatches.

HAL fills repeat a 1, 2 or 4 byte pattern. encode-host-tensors narrows every pattern it can
(an i64/f64 constant whose 32-bit halves are equal becomes an i32 fill); what is left is a
``stream.async.splat`` or ``stream.async.fill`` whose value is ``i64`` (f64 values arrive
bitcast to i64). This pass replaces each of them by a ``stream.async.dispatch`` of a builtin
executable added to the module once:

* ``@__builtin_splat_i64(%value: i64, %count: index, %out: !stream.binding)`` writes
  ``%value`` ``%count`` times from byte 0 of a new resource;
* ``@__builtin_fill_i64(%value: i64, %offset: index, %count: index, %out: !stream.binding)``
  writes it ``%count`` times from byte ``%offset`` of the target, in place (the result is
  tied to the target).

Their bodies are ordinary dispatch functions (``linalg.fill`` of a dynamic ``tensor<?xi64>``
stored through ``flow.dispatch.tensor.store``), so every target backend compiles them through
its normal path; pack-dispatch-operands passes the i64 value as two i32 push constants.

Example::

    %r = stream.async.splat %v : i64 -> !stream.resource<*>{%c40}
    // ->
    %c5 = arith.constant 5 : index
    %r = stream.async.dispatch @__builtin_splat_i64::@__builtin_splat_i64[%c5](%v, %c5) : (i64, index) -> !stream.resource<*>{%c40}

    %f = stream.async.fill %v, %t[%c8 to %c24 for %c16] : i64 -> %t as !stream.resource<*>{%c40}
    // ->
    %f = stream.async.dispatch @__builtin_fill_i64::@__builtin_fill_i64[%c2](%v, %c8, %c2, %t[%c0 to %c40 for %c40]) : (i64, index, index, !stream.resource<*>{%c40}) -> %t{%c40}

Errors: CompileError at the op for a 64-bit pattern over a constant byte length that is not a
multiple of 8.
Source followed: IREE ``Stream/Transforms/MaterializeBuiltins.cpp`` and
``Stream/Builtins/{splat,fill}_i64.mlir``.
"""
import dataclasses

from xdsl.dialects import arith
from xdsl.dialects.builtin import ArrayAttr, IntegerType, SymbolRefAttr
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import stream
from rt.compiler.dialects.stream_types import index_array
from rt.compiler.frontend import error_at_op, parse_module
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream.resources import CALLABLES, host_callables, index_constant

SPLAT = "__builtin_splat_i64"
FILL = "__builtin_fill_i64"

_EXECUTABLE = """\
stream.executable private @{name} {{
  stream.executable.export public @{name} workgroups(%workload: index) -> (index, index, index) {{
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %workload
    stream.return %x, %y, %z : index, index, index
  }}
  builtin.module {{
    func.func @{name}(%value: i64, {offset_arg}%count: index, %out_binding: !stream.binding) {{
      {offset_def}
      %out = stream.binding.subspan %out_binding[%offset] : !stream.binding -> !flow.dispatch.tensor<writeonly:tensor<?xi64>>{{%count}}
      %empty = tensor.empty(%count) : tensor<?xi64>
      %filled = linalg.fill ins(%value : i64) outs(%empty : tensor<?xi64>) -> tensor<?xi64>
      flow.dispatch.tensor.store %filled, %out, offsets = [0], sizes = [%count], strides = [1] : tensor<?xi64> -> !flow.dispatch.tensor<writeonly:tensor<?xi64>>{{%count}}
      return
    }}
  }}
}}
"""


def builtin_source(name):
    """MLIR text of the builtin executable ``name`` (:data:`SPLAT` or :data:`FILL`)."""
    if name == SPLAT:
        return _EXECUTABLE.format(name=name, offset_arg="", offset_def="%offset = arith.constant 0 : index")
    return _EXECUTABLE.format(name=name, offset_arg="%offset: index, ", offset_def="")


@dataclasses.dataclass(frozen=True)
class MaterializeBuiltinsPass(Pass):
    """i64 stream.async.splat/fill -> dispatches of builtin executables."""

    name = "iree-stream-materialize-builtins"

    def run(self, module, ctx):
        used = []
        for callable_op in host_callables(module):
            for op in list(callable_op.walk()):
                if isinstance(op, (stream.AsyncSplatOp, stream.AsyncFillOp)) and _is_wide(op.value.type):
                    used.append(_splat(op) if isinstance(op, stream.AsyncSplatOp) else _fill(op))
        _add_executables(module, ctx, [name for name in (SPLAT, FILL) if name in used])


def _is_wide(type_):
    return isinstance(type_, IntegerType) and type_.width.data == 64


def _entry_point(name):
    return ArrayAttr([SymbolRefAttr(name, [name])])


def _count(op, length):
    """``length`` bytes in i64 elements, folded when ``length`` is a constant."""
    owner = getattr(length, "owner", None)
    if isinstance(owner, arith.ConstantOp):
        value = owner.value.value.data
        if value % 8:
            raise error_at_op(op, f"{op.name} of an i64 pattern over {value} bytes; expected a multiple of 8 bytes")
        return _insert(op, index_constant(value // 8))
    return _insert(op, arith.DivUIOp(length, _insert(op, index_constant(8))))


def _insert(anchor, new):
    Rewriter.insert_op(new, InsertPoint.before(anchor))
    return new.results[0]


def _affinity(op):
    return {} if op.affinity is None else {"affinity": op.affinity}


def _splat(op):
    count = _count(op, op.result_size)
    new = stream.AsyncDispatchOp.build(
        operands=[[count], [op.value, count], [], [], [], [], [op.result_size]],
        result_types=[[op.result.type]], properties={"entry_points": _entry_point(SPLAT)} | _affinity(op))
    new.location = op.location
    Rewriter.replace_op(op, new)
    return SPLAT


def _fill(op):
    count = _count(op, op.target_length)
    zero = _insert(op, index_constant(0))
    new = stream.AsyncDispatchOp.build(
        operands=[[count], [op.value, op.target_offset, count, op.target], [op.target_size], [zero],
                  [op.target_size], [op.target_size], [op.target_size]],
        result_types=[[op.result.type]],
        properties={"entry_points": _entry_point(FILL), "tied_operands": index_array([3])} | _affinity(op))
    new.location = op.location
    Rewriter.replace_op(op, new)
    return FILL


def _add_executables(module, ctx, names):
    """Insert the builtin executables ``names`` (once each) before the module's first function."""
    existing = {op.sym_name.data for op in module.body.block.ops if isinstance(op, stream.ExecutableOp)}
    anchor = next((op for op in module.body.block.ops if isinstance(op, CALLABLES)), None)
    for name in names:
        if name in existing:
            continue
        parsed = parse_module(builtin_source(name), f"<{name}>", ctx)
        executable = parsed.body.block.first_op
        executable.detach()
        if anchor is None:
            module.body.block.add_op(executable)
        else:
            module.body.block.insert_op_before(executable, anchor)

