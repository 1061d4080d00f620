"""Dispatch sites of ``stream.executable`` exports and the argument layout of their functions.

The cmd-level dispatch passes (fuse-dispatch-bindings, pack-dispatch-operands,
fold-uniform-operands, annotate-dispatch-arguments) change a dispatch function's signature
together with every ``stream.cmd.dispatch`` naming it. The function of export ``@e`` is the
``func.func @e`` of the executable's inner module. Its ``!stream.binding`` arguments take the
dispatch's resources in order and every other argument takes the dispatch's uniform operands in
order, so the two kinds may interleave::

    func.func @e(%a: !stream.binding, %n: index, %b: !stream.binding)
    stream.cmd.dispatch @ex::@e[%w](%n0 : index) { ro %r[%c0 for %s] : ..., wo %r[%c64 for %s] : ... }
    // %a <- first binding, %b <- second binding, %n <- %n0

Source followed: IREE ``CmdDispatchOp::makeOperandToArgMap`` / ``makeResourceToArgMap``
(``Dialect/Stream/IR/StreamOps.cpp``).
"""
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, ModuleOp
from xdsl.dialects.func import FuncOp

from rt.compiler.dialects import stream
from rt.compiler.dialects.stream_types import BindingType, entry_point_parts
from rt.compiler.frontend import error_at_op

ASYNC_DISPATCHES = (stream.AsyncDispatchOp, stream.TensorDispatchOp)


@dataclass
class ExportSites:
    """One export, its dispatch function and the ``stream.cmd.dispatch`` ops naming it."""

    executable: stream.ExecutableOp
    export: stream.ExecutableExportOp
    func: object
    sites: list = field(default_factory=list)

    @property
    def symbol(self):
        """``@exe::@export`` for messages."""
        return f"@{self.executable.sym_name.data}::@{self.export.sym_name.data}"

    def binding_args(self):
        """The function's ``!stream.binding`` block arguments, in order."""
        return [a for a in self.func.body.blocks[0].args if isinstance(a.type, BindingType)]

    def operand_args(self):
        """The function's other block arguments (one per uniform operand), in order."""
        return [a for a in self.func.body.blocks[0].args if not isinstance(a.type, BindingType)]


def collect(module, pass_name):
    """Every export of every ``stream.executable`` in ``module`` with its cmd dispatch sites.

    Raises CompileError when a dispatch names no export, when async/tensor dispatches remain
    (these passes run after iree-stream-schedule-allocation), when an export has no function,
    or when a site's operands and resources do not match the function's arguments.
    """
    exports = {}
    for exe in module.body.block.ops:
        if not isinstance(exe, stream.ExecutableOp):
            continue
        inner = [op for op in exe.body.block.ops if isinstance(op, ModuleOp)]
        funcs = {op.sym_name.data: op for m in inner for op in m.body.block.ops if isinstance(op, FuncOp)}
        for export in exe.export_ops():
            func = funcs.get(export.sym_name.data)
            if func is None or not func.body.blocks:
                raise error_at_op(export, f"{pass_name}: stream.executable.export @{export.sym_name.data} has no "
                                          f"func.func @{export.sym_name.data} with a body in @{exe.sym_name.data}'s "
                                          "builtin.module")
            exports[(exe.sym_name.data, export.sym_name.data)] = ExportSites(exe, export, func)
    for op in module.walk():
        if isinstance(op, ASYNC_DISPATCHES):
            raise error_at_op(op, f"{pass_name} expects explicit commands (stream.cmd.dispatch) but found "
                                  f"'{op.name}'; run iree-stream-schedule-allocation first")
        if not isinstance(op, stream.CmdDispatchOp):
            continue
        for ref in op.entry_points.data:
            key = entry_point_parts(ref)
            entry = exports.get(key)
            if entry is None:
                raise error_at_op(op, f"stream.cmd.dispatch names @{key[0]}::@{key[1]}, which is not an export of "
                                      "a stream.executable in this module")
            _check_site(op, entry, pass_name)
            entry.sites.append(op)
    return list(exports.values())


def _check_site(op, entry, pass_name):
    operands, bindings = entry.operand_args(), entry.binding_args()
    if len(op.uniform_operands) != len(operands) or len(op.resources) != len(bindings):
        raise error_at_op(op, f"{pass_name}: stream.cmd.dispatch {entry.symbol} passes {len(op.uniform_operands)} "
                              f"operand(s) and {len(op.resources)} resource(s) but func "
                              f"@{entry.func.sym_name.data} takes {len(operands)} non-binding and {len(bindings)} "
                              "!stream.binding argument(s)")
    for i, (value, arg) in enumerate(zip(op.uniform_operands, operands)):
        if value.type != arg.type:
            raise error_at_op(op, f"{pass_name}: operand {i} of stream.cmd.dispatch {entry.symbol} has type "
                                  f"{value.type} but the function argument it feeds has type {arg.type}")


def enclosing_execute(op, pass_name):
    """The ``stream.cmd.execute`` around ``op``; CompileError when there is none."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, stream.CmdExecuteOp):
        parent = parent.parent_op()
    if parent is None:
        raise error_at_op(op, f"{pass_name}: '{op.name}' must be inside a stream.cmd.execute region")
    return parent


def defined_inside(value, op):
    """True when ``value`` is defined within a region of ``op``."""
    owner = value.owner
    current = owner.parent_op()
    while current is not None:
        if current is op:
            return True
        current = current.parent_op()
    return False


def arg_attr_list(func):
    """Per-argument attribute dictionaries of ``func`` (empty dictionaries when it has none)."""
    attrs = func.properties.get("arg_attrs")
    if attrs is not None:
        return list(attrs.data)
    return [DictionaryAttr({}) for _ in func.body.blocks[0].args]


def store_signature(func, attr_list):
    """Set ``func``'s function_type from its entry block and its ``arg_attrs`` from ``attr_list``."""
    block = func.body.blocks[0]
    func.properties["function_type"] = FunctionType.from_lists(list(block.arg_types),
                                                               list(func.function_type.outputs.data))
    if any(d.data for d in attr_list):
        func.properties["arg_attrs"] = ArrayAttr(attr_list)
    else:
        func.properties.pop("arg_attrs", None)


def insert_argument(func, index, type_):
    """Insert a block argument of ``type_`` at ``index``; keeps function_type and arg_attrs in step."""
    attrs = arg_attr_list(func)
    arg = func.body.blocks[0].insert_arg(type_, index)
    attrs.insert(index, DictionaryAttr({}))
    store_signature(func, attrs)
    return arg


def erase_arguments(func, args):
    """Erase unused block arguments ``args``; keeps function_type and arg_attrs in step."""
    block = func.body.blocks[0]
    attrs = arg_attr_list(func)
    for arg in sorted(args, key=lambda a: a.index, reverse=True):
        del attrs[arg.index]
        block.erase_arg(arg)
    store_signature(func, attrs)


def set_arg_attr(func, index, name, value):
    """Set attribute ``name`` of argument ``index`` of ``func``."""
    attrs = arg_attr_list(func)
    attrs[index] = DictionaryAttr(dict(attrs[index].data) | {name: value})
    store_signature(func, attrs)
