"""Resource usage analysis: how every ``!stream.resource`` value of the host program is used.

Each resource SSA value (op results and block arguments outside executables) gets usage flags
from the op defining it and the ops using it (IREE's ResourceUsageBitfield: external, mutated,
constant, transfer/staging/dispatch read/write, global read/write). Values that are one buffer
share their flags: in-place results and their tied operands, branch/call/return/yield/condition
operands and the arguments or results they become (scf.if/for/while, cf.br/cond_br), ``arith.select`` and ``util.optimization_barrier``
results and their operands. Values linked by a copy (``stream.async.transfer``/``clone``/
``slice``) share flags only when the union stays valid: not both constant and mutated, not both
staging and dispatch, staging on both sides or neither, at most one explicit (non-``*``)
lifetime, and, for transfers, only on one affinity (devices own separate heaps: a copy to
another device is another buffer) and when aliasing source and result cannot expose an
in-place update (:func:`transfer_alias_safe`). Explicit lifetimes pin a group: a value typed
``!stream.resource<constant>`` keeps its group constant. :func:`lifetime` maps a group's flags
to the lifetime IREE would choose.

Source followed: IREE ``Stream/Analysis/ResourceUsage.cpp`` (ValueResourceUsage) and
``RefineUsage.cpp`` (convertUsageToLifetime); the fixpoint over the DFX solver is a union-find
over groups here, with copy edges merged until nothing changes.
"""
from xdsl.dialects import arith, cf, func, scf
from xdsl.ir import BlockArgument

from rt.compiler.dialects import arith as rt_arith, stream, util
from rt.compiler.op_handlers import OpTable
from rt.compiler.dialects.stream_types import ResourceType
from rt.compiler.helpers.stream.resources import host_callables
from rt.compiler.helpers.stream.async_ops import has_tied_use, tied_operand_indices

EXTERNAL, MUTATED, CONSTANT = "external", "mutated", "constant"
TRANSFER_READ, TRANSFER_WRITE = "transfer_read", "transfer_write"
STAGING_READ, STAGING_WRITE = "staging_read", "staging_write"
DISPATCH_READ, DISPATCH_WRITE = "dispatch_read", "dispatch_write"
GLOBAL_READ, GLOBAL_WRITE = "global_read", "global_write"
STAGING = frozenset({STAGING_READ, STAGING_WRITE})
DISPATCH = frozenset({DISPATCH_READ, DISPATCH_WRITE})

#: flags a result gets from the op defining it
_DEF_FLAGS = OpTable({
    stream.TensorImportOp: {MUTATED, EXTERNAL}, stream.AsyncConstantOp: {CONSTANT, TRANSFER_WRITE},
    stream.AsyncSplatOp: {TRANSFER_WRITE}, stream.AsyncCloneOp: {TRANSFER_WRITE},
    stream.AsyncSliceOp: {TRANSFER_WRITE}, stream.AsyncFillOp: {TRANSFER_WRITE},
    stream.AsyncUpdateOp: {TRANSFER_WRITE}, stream.AsyncCopyOp: {TRANSFER_WRITE},
    stream.AsyncTransferOp: {TRANSFER_WRITE}, stream.AsyncStoreOp: {STAGING_WRITE},
    stream.AsyncDispatchOp: {DISPATCH_WRITE}, util.GlobalLoadOp: {GLOBAL_READ},
})
#: flags an operand gets from a reading use (tied uses add MUTATED and the write flag below)
_USE_FLAGS = OpTable({
    stream.TensorExportOp: {MUTATED, EXTERNAL}, stream.AsyncCloneOp: {TRANSFER_READ},
    stream.AsyncSliceOp: {TRANSFER_READ}, stream.AsyncTransferOp: {TRANSFER_READ},
    stream.AsyncUpdateOp: {TRANSFER_READ}, stream.AsyncCopyOp: {TRANSFER_READ},
    stream.AsyncLoadOp: {STAGING_READ}, stream.AsyncDispatchOp: {DISPATCH_READ},
    util.GlobalStoreOp: {GLOBAL_WRITE},
})
_TIED_WRITE = OpTable({stream.AsyncFillOp: TRANSFER_WRITE, stream.AsyncUpdateOp: TRANSFER_WRITE,
                       stream.AsyncCopyOp: TRANSFER_WRITE, stream.AsyncStoreOp: STAGING_WRITE,
                       stream.AsyncDispatchOp: DISPATCH_WRITE})
# rt's arith.select does not subclass xDSL's: parsed selects are rt's, built ones xDSL's.
_SELECTS = (arith.SelectOp, rt_arith.SelectOp)
_CALLS = (util.CallOp, func.CallOp)
_RETURNS = (util.ReturnOp, func.ReturnOp)
#: ops that use resources without needing flags (the edges below cover them)
_LINKING = (*_RETURNS, *_CALLS, cf.BranchOp, cf.ConditionalBranchOp, scf.YieldOp, scf.ConditionOp, scf.IfOp,
            scf.ForOp, scf.WhileOp, *_SELECTS, util.OptimizationBarrierOp, stream.AsyncExecuteOp,
            stream.AsyncConcurrentOp, stream.YieldOp, stream.TimepointAwaitOp, stream.TimepointBarrierOp)
#: copies whose source and result may share a group when the union is valid
_COPIES = (stream.AsyncTransferOp, stream.AsyncCloneOp, stream.AsyncSliceOp)
_FRESH = (stream.AsyncDispatchOp, stream.AsyncAllocaOp, stream.AsyncSplatOp, stream.AsyncCloneOp,
          stream.AsyncSliceOp, stream.AsyncFillOp, stream.AsyncUpdateOp, stream.AsyncCopyOp,
          stream.AsyncTransferOp)


def _global_lifetime(module, op):
    name = op.global_name.root_reference.data
    for glob in module.body.block.ops:
        if isinstance(glob, util.GlobalOp) and glob.sym_name.data == name and isinstance(glob.type, ResourceType):
            return glob.type.lifetime.data
    return None


def transfer_alias_safe(op):
    """True when ``op``'s result may be the very buffer of its source without exposing an update.

    Safe when neither is updated in place; or when only the result is, and the source is a fresh
    resource of this function (made by an async op, not an import, global or argument) used only
    by the transfer.
    """
    source, result = op.source, op.result
    if has_tied_use(source):
        return False
    if not has_tied_use(result):
        return True
    if not isinstance(source.owner, _FRESH):
        return False
    return len(list(source.uses)) == 1


def is_valid(flags, pinned):
    """Whether one buffer may carry ``flags`` and the explicit lifetimes ``pinned``."""
    if flags & STAGING and flags & DISPATCH:
        return False
    if CONSTANT in flags and MUTATED in flags:
        return False
    return len(pinned) <= 1


def lifetime(flags, pinned):
    """The resource lifetime for a group's flags (its explicit lifetime when it has one)."""
    if pinned:
        return sorted(pinned)[0]
    if EXTERNAL in flags:
        return "external"
    if flags & STAGING:
        return "staging"
    if CONSTANT in flags:
        return "constant"
    if GLOBAL_READ in flags or GLOBAL_WRITE in flags:
        written = {MUTATED, GLOBAL_WRITE, DISPATCH_WRITE, STAGING_WRITE, TRANSFER_WRITE}
        return "variable" if flags & written else "constant"
    return "transient"


class ResourceUsageAnalysis:
    """Usage groups of every resource value of ``module``'s host code; see the module docstring."""

    def __init__(self, module):
        self.module = module
        self.parent = {}
        self.flags = {}
        self.pinned = {}
        self.values = []
        self.copies = []
        self.callables = {op.sym_name.data: op for op in host_callables(module) if not isinstance(op, util.InitializerOp)}
        for callable_op in host_callables(module):
            for op in callable_op.walk():
                for region in op.regions:
                    for block in region.blocks:
                        for arg in block.args:
                            self._add(arg)
                for result in op.results:
                    self._add(result)
        for value in list(self.values):
            self._seed(value)
        for callable_op in host_callables(module):
            for op in callable_op.walk():
                self._link(op)
        self._merge_copies()

    # -- union-find ---------------------------------------------------------------------------
    def _add(self, value):
        if isinstance(value.type, ResourceType) and value not in self.parent:
            self.parent[value] = value
            self.flags[value] = set()
            explicit = value.type.lifetime.data
            self.pinned[value] = set() if explicit == "*" else {explicit}
            self.values.append(value)

    def find(self, value):
        root = value
        while self.parent[root] is not root:
            root = self.parent[root]
        while self.parent[value] is not root:
            self.parent[value], value = root, self.parent[value]
        return root

    def union(self, a, b):
        if a not in self.parent or b not in self.parent:
            return
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.parent[rb] = ra
            self.flags[ra] |= self.flags.pop(rb)
            self.pinned[ra] |= self.pinned.pop(rb)

    def group_flags(self, value):
        return self.flags[self.find(value)]

    def group_lifetime(self, value):
        root = self.find(value)
        return lifetime(self.flags[root], self.pinned[root])

    # -- seeding --------------------------------------------------------------------------------
    def _seed(self, value):
        flags = self.flags[value]
        explicit = value.type.lifetime.data
        flags |= {"external": {EXTERNAL}, "constant": {CONSTANT}, "variable": {GLOBAL_READ},
                  "staging": {STAGING_READ}}.get(explicit, set())
        owner = value.owner
        if not isinstance(value, BlockArgument):
            flags |= _DEF_FLAGS.get(owner, set())
            if isinstance(owner, util.GlobalLoadOp) and _global_lifetime(self.module, owner) == "constant":
                flags.add(CONSTANT)
        for use in value.uses:
            user = use.operation
            tied = use.index in tied_operand_indices(user)
            if tied:
                flags |= {MUTATED, _TIED_WRITE.get(user, TRANSFER_WRITE)}
            if not tied or isinstance(user, stream.AsyncDispatchOp):
                flags |= _USE_FLAGS.get(user, set())
            if isinstance(user, util.GlobalStoreOp) and _global_lifetime(self.module, user) == "constant":
                flags.add(CONSTANT)
            # any other stream op keeps the resource inside the stream phase's view
            if user not in _USE_FLAGS and user not in _TIED_WRITE and not isinstance(user, _LINKING) \
                    and user.dialect_name() != "stream":
                flags.add(EXTERNAL)

    # -- edges ----------------------------------------------------------------------------------
    def _link(self, op):
        for result, index in zip(op.results, tied_operand_indices(op)):
            if index >= 0:
                self.union(result, op.operands[index])
        if isinstance(op, _SELECTS):
            self.union(op.results[0], op.operands[1])
            self.union(op.results[0], op.operands[2])
        elif isinstance(op, util.OptimizationBarrierOp):
            for value, result in zip(op.operands, op.results):
                self.union(value, result)
        elif isinstance(op, _CALLS):
            callee = self.callables.get(op.properties["callee"].root_reference.data)
            if callee is None or not callee.regions[0].blocks:
                for value in list(op.operands) + list(op.results):
                    if value in self.parent:
                        self.flags[self.find(value)].add(EXTERNAL)
                return
            for value, arg in zip(op.operands, callee.regions[0].blocks[0].args):
                self.union(value, arg)
            for ret in callee.walk():
                if isinstance(ret, _RETURNS) and ret.parent_op() is callee:
                    for value, result in zip(ret.operands, op.results):
                        self.union(value, result)
        elif isinstance(op, cf.BranchOp):
            self._link_successor(op.successors[0], op.operands)
        elif isinstance(op, cf.ConditionalBranchOp):
            self._link_successor(op.successors[0], op.then_arguments)
            self._link_successor(op.successors[1], op.else_arguments)
        elif isinstance(op, scf.YieldOp):
            self._link_yield(op)
        elif isinstance(op, scf.ConditionOp):
            parent = op.parent_op()
            for value, arg, result in zip(op.args, parent.after_region.blocks[0].args, parent.results):
                self.union(value, arg)
                self.union(value, result)

    def _link_successor(self, block, values):
        for value, arg in zip(values, block.args):
            self.union(value, arg)

    def _link_yield(self, op):
        parent = op.parent_op()
        if isinstance(parent, scf.WhileOp):
            for init, arg, value in zip(parent.arguments, parent.before_region.blocks[0].args, op.operands):
                self.union(init, arg)
                self.union(arg, value)
            return
        for value, result in zip(op.operands, parent.results):
            self.union(value, result)
        if isinstance(parent, scf.ForOp):
            args = parent.body.blocks[0].args[1:]
            for init, arg, value in zip(parent.iter_args, args, op.operands):
                self.union(init, arg)
                self.union(arg, value)

    def _merge_copies(self):
        copies = [op for c in host_callables(self.module) for op in c.walk() if isinstance(op, _COPIES)]
        changed = True
        while changed:
            changed = False
            for op in copies:
                source, result = self.find(op.source), self.find(op.result)
                if source is result or not self._may_merge(op, source, result):
                    continue
                self.union(source, result)
                changed = True

    def _may_merge(self, op, source, result):
        fs, fr = self.flags[source], self.flags[result]
        if bool(fs & STAGING) != bool(fr & STAGING):
            return False
        if not is_valid(fs | fr, self.pinned[source] | self.pinned[result]):
            return False
        if isinstance(op, stream.AsyncTransferOp):
            return op.source_affinity == op.result_affinity and transfer_alias_safe(op)
        return True
