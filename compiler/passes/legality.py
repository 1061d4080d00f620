"""Op legality: a located error for ops rt does not support, naming the op and the alternatives.

``check_supported_ops(module, ctx)`` walks the module; an op is supported when its dialect is
one rt registers and it is not in ``UNSUPPORTED`` (ops MLIR has but rt rejects on purpose).
The error reads like mlir-opt: ``file:line:col: error: 'tensor.scatter' is not supported by rt;
supported ops: tensor.cast, tensor.concat, ...``. Ops at module level must be symbols or
isolated ops (:func:`check_module_level`).
"""
from xdsl.traits import IsolatedFromAbove, SymbolOpInterface

from rt.compiler.dialects import RT_DIALECTS, UPSTREAM_DIALECTS
from rt.compiler.frontend.diagnostics import error_at_op

#: ops rt rejects even though their dialect is registered
UNSUPPORTED = frozenset({"tensor.scatter", "tensor.gather"})


def supported_ops(ctx, dialect):
    """Sorted names of the ops of ``dialect`` that rt supports (loads the dialect)."""
    return sorted(op.name for op in ctx.get_dialect(dialect).operations if op.name not in UNSUPPORTED)


def unsupported_message(ctx, op_name):
    dialect = op_name.split(".", 1)[0]
    known = set(RT_DIALECTS) | set(UPSTREAM_DIALECTS)
    if dialect in known:
        alternatives = ", ".join(supported_ops(ctx, dialect))
    else:
        alternatives = "ops of the dialects " + ", ".join(sorted(known))
    return f"'{op_name}' is not supported by rt; supported ops: {alternatives}"


def check_module_level(module):
    """Raise CompileError at the first op directly in ``module``'s body that does not belong at
    module level: only symbols (``func.func``, ``util.func``, ``util.global``, executables, nested
    modules) and isolated ops (``util.initializer``) do, as in MLIR, where a value-producing op
    there has no function to run in (rt used to drop such ops silently)."""
    for op in module.body.ops:
        if not (op.has_trait(SymbolOpInterface) or op.has_trait(IsolatedFromAbove)):
            raise error_at_op(op, f"'{op.name}' cannot be at module level; module level holds func.func, "
                                  f"util.func, util.global and util.initializer: move it into a function")


def check_supported_ops(module, ctx):
    """Raise CompileError at the first op of ``module`` that rt does not support, or that stands
    at module level without belonging there (:func:`check_module_level`)."""
    known = set(RT_DIALECTS) | set(UPSTREAM_DIALECTS)
    for op in module.walk():
        if op.name in UNSUPPORTED or op.dialect_name() not in known:
            raise error_at_op(op, unsupported_message(ctx, op.name))
    check_module_level(module)
