"""Emit one function body (util.func / func.func / util.initializer) as VM bytecode.

Structured control flow becomes branches: ``scf.if`` -> cond_br to then/else blocks that move
their ``scf.yield`` values into the result registers; ``scf.for`` -> a loop header comparing the
induction variable (signed) with the upper bound; ``scf.while`` -> before/after blocks;
``cf.br``/``cf.cond_br`` move successor operands into the target block's argument registers
(through temporaries, so permutations are safe). Calls (``util.call``/``func.call``) become
``call``; returns ``return``; f16 entry arguments are rounded to f16 (see :mod:`half`). Every
other op is handed to the op tables of :mod:`scalar_ops` (arith/math on scalars) and
:mod:`import_ops` (hal, check, util globals and buffers), :mod:`channel_ops` (hal channels, collectives). Each instruction carries the op's ``file:line:col`` so VM traps name the source.

Immediates the lowerings need (import flags, enum bits, i32 copies of ``arith.constant``
index/i64 operands) are materialized once per straight-line scope and reused: a scope is a
function block, or a nested region that also sees its parent's constants (they dominate it).
A host function issuing hundreds of dispatches then sets up its zeros and workgroup counts
once instead of before every call.

Source followed: IREE ``Dialect/VM/Conversion`` (StandardToVM, UtilToVM) and
``Target/Bytecode/BytecodeEncoder``.
"""
import struct

from xdsl.dialects import arith, cf, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType

from rt.compiler.dialects import util
from rt.compiler.frontend.diagnostics import error_at_op, op_location
from rt.compiler.op_handlers import OpHandlers, OpTable, handles
from rt.compiler.helpers.vm import affine_ops, channel_ops, half, import_ops, scalar_ops
from rt.compiler.helpers.vm.registers import RegisterAllocator, vm_type

#: The lowering of every non-control op class, called as ``fn(emitter, op)``.
_LOWERINGS = OpTable({**dict(scalar_ops.LOWERINGS.items()), **dict(import_ops.LOWERINGS.items()),
                      **dict(channel_ops.LOWERINGS.items()), **dict(affine_ops.LOWERINGS.items())})


class FunctionEmitter:
    """Emits a region into a FunctionBuilder. ``module`` is the ModuleEmitter (imports, globals, rodata).

    Control-flow ops are emitted by this class's ``@handles`` methods; every other op by its
    entry in the lowering tables of :mod:`scalar_ops`, :mod:`import_ops`, :mod:`channel_ops` and
    :mod:`affine_ops`.
    """

    handler = OpHandlers()

    def __init__(self, module, fb, owner):
        self.module, self.fb, self.owner = module, fb, owner
        self.regs = RegisterAllocator(fb)
        self._scratch = []
        self._labels = {}
        self._yield_targets = []
        self._conditions = []
        self._constants = [{}]

    # -- registers ---------------------------------------------------------------------------

    def type_of(self, value, op=None):
        vt = vm_type(value.type)
        if vt is None:
            raise error_at_op(op or self.owner, f"value of type {value.type} has no VM register type "
                                                "(expected index, i1-i64, f16, f32, f64 or a HAL/util handle); "
                                                "it should have been converted by an earlier phase")
        return vt

    def get(self, value, op=None):
        reg = self.regs.values.get(value)
        if reg is None:
            raise error_at_op(op or self.owner, f"internal: value {value.name_hint or ''} of type "
                                                f"{value.type} used before it was defined in the VM emission")
        return reg

    def define(self, value, op=None):
        return self.regs.define(value, self.type_of(value, op))

    def scratch(self, type_name):
        reg = self.regs.new(type_name)
        self._scratch.append(reg)
        return reg

    def const(self, type_name, value):
        """A register holding ``value``, materialized once per scope (see the module docstring);
        never write to it."""
        key = (type_name, value if type_name in ("i32", "i64") else struct.pack("<d", value))
        for scope in reversed(self._constants):
            reg = scope.get(key)
            if reg is not None:
                return reg
        reg = self.regs.new(type_name)
        {"i32": self.fb.const_i32, "i64": self.fb.const_i64, "f32": self.fb.const_f32,
         "f64": self.fb.const_f64}[type_name](reg, value)
        self._constants[-1][key] = reg
        return reg

    def get_as(self, value, type_name, op=None):
        """``value`` in a register of ``type_name`` (i32 <-> i64); an ``arith.constant`` of index
        or i64 type wanted as i32 is the truncated constant, not a ``trunc`` at run time."""
        owner = value.owner
        if (type_name == "i32" and isinstance(owner, arith.ConstantOp)
                and isinstance(owner.value, IntegerAttr)
                and isinstance(owner.value.type, IndexType | IntegerType)
                and (isinstance(owner.value.type, IndexType) or owner.value.type.width.data == 64)):
            low = owner.value.value.data & 0xFFFFFFFF
            return self.const("i32", low - (1 << 32) if low >= 1 << 31 else low)
        return self.as_type(self.get(value, op), type_name)

    def _push_constants(self):
        self._constants.append({})

    def _pop_constants(self):
        for reg in self._constants.pop().values():
            self.regs.release(reg)

    def null_ref(self):
        reg = self.scratch("ref")
        self.fb.const_ref_zero(reg)
        return reg

    def as_type(self, reg, type_name):
        """``reg`` converted between i32/i64 (sign-extending) into a scratch register if needed."""
        if reg.type == type_name:
            return reg
        out = self.scratch(type_name)
        if reg.type == "i64" and type_name == "i32":
            self.fb.trunc_i64_i32(out, reg)
        elif reg.type == "i32" and type_name == "i64":
            self.fb.ext_i32_i64_s(out, reg)
        else:
            raise AssertionError((reg.type, type_name))
        return out

    def mov(self, dst, src):
        getattr(self.fb, f"mov_{dst.type}")(dst, src)

    # -- bodies --------------------------------------------------------------------------------

    def emit_function(self, region, arg_regs):
        """Emit ``region`` (the function body) with its entry arguments in ``arg_regs``."""
        blocks = list(region.blocks)
        for block in blocks:
            self._labels[block] = self.fb.label()
        for arg, reg in zip(blocks[0].args, arg_regs):
            self.regs.bind(arg, reg)
            half.round_result(self, reg, arg.type)
        for block in blocks[1:]:
            for arg in block.args:
                self.define(arg, self.owner)
        for block in blocks:
            self.fb.bind(self._labels[block])
            self._push_constants()  # a block's constants may not dominate the next block
            self.emit_block(block)
            self._pop_constants()

    def emit_block(self, block):
        self.regs.plan_block(block)
        for op in block.ops:
            self.emit_op(op)

    def emit_op(self, op):
        where = op_location(op)
        if where is not None:
            self.fb.loc(*where)
        control = self.handler(op)
        if control is not None:
            control(op)
        else:
            lower = _LOWERINGS.get(op)
            if lower is None:
                raise error_at_op(op, f"'{op.name}' cannot be converted to the VM: the vm phase takes "
                                      "util/func/arith/math/scf/cf ops on scalars, hal ops and check ops")
            lower(self, op)
        for reg in self._scratch:
            self.regs.release(reg)
        self._scratch = []
        self.regs.after_op(op)

    # -- moves between blocks -------------------------------------------------------------------

    def parallel_move(self, dsts, values, op):
        srcs = [self.get(v, op) for v in values]
        pairs = [(d, s) for d, s in zip(dsts, srcs) if d is not s]
        clobbered = {(d.bank, d.index) for d, _ in pairs}
        if any((s.bank, s.index) in clobbered for _, s in pairs):
            temps = []
            for _, s in pairs:
                t = self.scratch(s.type)
                self.mov(t, s)
                temps.append(t)
            pairs = [(d, t) for (d, _), t in zip(pairs, temps)]
        for d, s in pairs:
            self.mov(d, s)

    def _branch_to(self, block, values, op):
        self.parallel_move([self.get(a) for a in block.args], values, op)
        self.fb.br(self._labels[block])

    # -- control flow ----------------------------------------------------------------------------

    @handles(cf.BranchOp)
    def _cf_br(self, op):
        self._branch_to(op.successor, op.arguments, op)

    @handles(cf.ConditionalBranchOp)
    def _cf_cond_br(self, op):
        cond = self.get(op.cond, op)
        then_l, else_l = self.fb.label(), self.fb.label()
        self.fb.cond_br(cond, then_l, else_l)
        self.fb.bind(then_l)
        self._branch_to(op.then_block, op.then_arguments, op)
        self.fb.bind(else_l)
        self._branch_to(op.else_block, op.else_arguments, op)

    def _emit_nested(self, region, arg_regs, targets):
        """Inline a single-block region; its scf.yield moves into ``targets`` and falls through."""
        block = region.blocks[0]
        for arg, reg in zip(block.args, arg_regs):
            self.regs.bind(arg, reg)
        self._yield_targets.append(targets)
        self._push_constants()
        self.emit_block(block)
        self._pop_constants()
        self._yield_targets.pop()

    @handles(scf.YieldOp)
    def _scf_yield(self, op):
        targets = self._yield_targets[-1]
        if targets is not None:
            self.parallel_move(targets, op.operands, op)

    @handles(scf.IfOp)
    def _scf_if(self, op):
        results = [self.define(r, op) for r in op.results]
        then_l, else_l, done = self.fb.label(), self.fb.label(), self.fb.label()
        self.fb.cond_br(self.get(op.cond, op), then_l, else_l)
        self.fb.bind(then_l)
        self._emit_nested(op.true_region, [], results)
        self.fb.br(done)
        self.fb.bind(else_l)
        if op.false_region.blocks:
            self._emit_nested(op.false_region, [], results)
        self.fb.br(done)
        self.fb.bind(done)

    @handles(scf.ForOp)
    def _scf_for(self, op):
        iv = self.scratch_persistent(self.type_of(op.lb, op))
        carried = [self.define(r, op) for r in op.results]
        self.mov(iv, self.get(op.lb, op))
        self.parallel_move(carried, op.iter_args, op)
        ub, step = self.get(op.ub, op), self.get(op.step, op)
        head, body, done = self.fb.label(), self.fb.label(), self.fb.label()
        self.fb.bind(head)
        more = self.scratch_persistent("i32")
        getattr(self.fb, f"cmp_lt_{iv.type}_s")(more, iv, ub)
        self.fb.cond_br(more, body, done)
        self.fb.bind(body)
        self._emit_nested(op.body, [iv] + carried, carried)
        getattr(self.fb, f"add_{iv.type}")(iv, iv, step)
        self.fb.br(head)
        self.fb.bind(done)

    @handles(scf.WhileOp)
    def _scf_while(self, op):
        before, after = op.before_region.blocks[0], op.after_region.blocks[0]
        state = [self.define(a, op) for a in before.args]
        results = [self.define(r, op) for r in op.results]
        self.parallel_move(state, op.arguments, op)
        head, done = self.fb.label(), self.fb.label()
        self.fb.bind(head)
        after_args = [self.define(a, op) for a in after.args]
        self._conditions.append((results, after_args, done))
        self._emit_nested(op.before_region, state, None)
        self._conditions.pop()
        self._emit_nested(op.after_region, after_args, state)
        self.fb.br(head)
        self.fb.bind(done)

    @handles(scf.ConditionOp)
    def _scf_condition(self, op):
        results, after_args, done = self._conditions[-1]
        stay = self.fb.label()
        self.parallel_move(results, op.args, op)
        self.parallel_move(after_args, op.args, op)
        self.fb.cond_br(self.get(op.condition, op), stay, done)
        self.fb.bind(stay)

    def scratch_persistent(self, type_name):
        """A register kept for the rest of the function (loop state)."""
        return self.regs.new(type_name)

    @handles(util.CallOp, func.CallOp)
    def _call(self, op):
        args = [self.get(v, op) for v in op.operands]
        results = [self.define(r, op) for r in op.results]
        self.fb.call(self.module.function_name(op.callee.root_reference.data, op), args, results)

    @handles(util.ReturnOp, func.ReturnOp, util.InitializerReturnOp)
    def _return(self, op):
        self.fb.return_([self.get(v, op) for v in op.operands])
