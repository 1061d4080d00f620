"""``iree-stream-fuse-dispatch-bindings``: one binding per resource, offsets as operands.

Input: ``stream.cmd.dispatch`` ops whose bindings are ranges of resources, and the
``stream.executable`` functions they call (one ``!stream.binding`` argument per range). Output:
bindings that name the same resource at every dispatch site of an export are fused into one
binding over the whole resource (``[%c0 for %size]``); each original range's offset becomes a
new leading ``index`` operand, and the function adds it to its ``stream.binding.subspan``
offset. Read-only ranges fuse; a written range (``wo``/``rw``) keeps a binding of its own unless
``alias-mutable-bindings`` is set (then a fused binding's access is the union, e.g. ``rw``).
Every binding is rebased to offset 0 even when nothing fuses, so later passes see offsets only
as operands. New signature: fused bindings, then one offset per original binding, then the old
non-binding arguments; the dispatch passes offsets first, then its old operands. Bindings stay
in the ``stream.cmd.execute`` of the dispatch (affinities are untouched); the zero offset is
defined right before that execute.

Example (the seeds' ``@predict_dispatch_2``)::

    func.func @fn(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding) {
      %0 = stream.binding.subspan %arg0[%c0] : ... ; %1 = ... %arg1[%c0] ; %2 = ... %arg2[%c0]
    stream.cmd.dispatch @ex::@fn[%c1, %c10] {
      ro %t[%c0 for %c40] : !stream.resource<transient>{%c192},
      ro %t[%c64 for %c4] : !stream.resource<transient>{%c192},
      wo %t[%c128 for %c40] : !stream.resource<transient>{%c192}
    }
    // ->
    func.func @fn(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: index, %arg3: index, %arg4: index) {
      %0 = stream.binding.subspan %arg0[%arg2] : ... ; %1 = ... %arg0[%arg3] ; %2 = ... %arg1[%arg4]
    stream.cmd.dispatch @ex::@fn[%c1, %c10](%c0, %c64, %c128 : index, index, index) {
      ro %t[%c0_0 for %c192] : !stream.resource<transient>{%c192},
      wo %t[%c0_0 for %c192] : !stream.resource<transient>{%c192}
    }

Source followed: IREE ``Dialect/Stream/Transforms/FuseDispatchBindings.cpp``
(findCorrelatedBindings, updateExecutableSignature, updateDispatchSite).
"""
import dataclasses

from xdsl.dialects import arith
from xdsl.dialects.builtin import ArrayAttr, IndexType, StringAttr
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import stream
from rt.compiler.frontend import error_at_op
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream import dispatch_sites
from rt.compiler.helpers.stream.operand_segments import set_operand_groups
from rt.compiler.helpers.stream.resources import index_constant

_ACCESS_BITS = {"ro": {"R"}, "wo": {"W"}, "rw": {"R", "W"}}


def _access_keyword(bits):
    return "rw" if bits == {"R", "W"} else "wo" if bits == {"W"} else "ro"


def correlated_bindings(sites, count, alias_mutable_bindings=False):
    """Groups of binding indices that name the same resource at every dispatch site.

    ``sites`` are stream.cmd.dispatch ops with ``count`` bindings each. Returns a list of
    sorted index lists covering 0..count-1, in order of their first index.
    """
    classes = []  # per site: {binding index: frozenset of indices in its class}
    for site in sites:
        members = {}
        leaders = {}
        for idx, (resource, access) in enumerate(zip(site.resources, site.accesses())):
            if not alias_mutable_bindings and "W" in _ACCESS_BITS[access]:
                members[idx] = {idx}
                continue
            leader = leaders.setdefault(resource, idx)
            members.setdefault(leader, set()).add(idx)
            members[idx] = members[leader]
        classes.append({i: frozenset(m) for i, m in members.items()})
    groups, handled = [], set()
    for i in range(count):
        if i in handled:
            continue
        group = set(range(count))
        for site_classes in classes:
            group &= site_classes[i]
        handled |= group
        groups.append(sorted(group))
    return groups


@dataclasses.dataclass(frozen=True)
class FuseDispatchBindingsPass(Pass):
    """Fuse bindings of one resource; pass every binding offset as an index operand."""

    name = "iree-stream-fuse-dispatch-bindings"
    alias_mutable_bindings: bool = False

    def run(self, module, ctx):
        zeros = {}
        for entry in dispatch_sites.collect(module, self.name):
            if not entry.sites:
                continue
            count = len(entry.binding_args())
            groups = correlated_bindings(entry.sites, count, self.alias_mutable_bindings)
            accesses = [_group_access(entry.sites, group) for group in groups]
            _update_function(entry, groups, self.name)
            for site in entry.sites:
                zero = _zero_for(site, zeros, self.name) if groups else None
                _update_site(site, groups, accesses, zero)


def _group_access(sites, group):
    bits = set()
    for site in sites:
        access = site.accesses()
        for idx in group:
            bits |= _ACCESS_BITS[access[idx]]
    return _access_keyword(bits)


def _zero_for(site, zeros, pass_name):
    execute = dispatch_sites.enclosing_execute(site, pass_name)
    zero = zeros.get(execute)
    if zero is None:
        op = index_constant(0)
        op.result.name_hint = "c0"
        Rewriter.insert_op(op, InsertPoint.before(execute))
        zero = zeros[execute] = op.result
    return zero


def _update_function(entry, groups, pass_name):
    func = entry.func
    old_bindings = entry.binding_args()
    new_bindings = [dispatch_sites.insert_argument(func, i, stream.BindingType()) for i in range(len(groups))]
    position = len(groups)
    for new_binding, group in zip(new_bindings, groups):
        for idx in group:
            old = old_bindings[idx]
            offset = dispatch_sites.insert_argument(func, position, IndexType())
            position += 1
            for use in list(old.uses):
                subspan = use.operation
                if not isinstance(subspan, stream.BindingSubspanOp):
                    raise error_at_op(subspan, f"{pass_name}: '{subspan.name}' uses a !stream.binding of "
                                               f"@{func.sym_name.data}; only stream.binding.subspan may")
                base, total = subspan.byte_offset, offset
                if not _is_zero(base):
                    add = arith.AddiOp(base, offset)
                    Rewriter.insert_op(add, InsertPoint.before(subspan))
                    total = add.result
                subspan.operands = [new_binding, total, *subspan.dynamic_dims]
                if isinstance(base.owner, arith.ConstantOp) and not base.uses:
                    Rewriter.erase_op(base.owner)
    dispatch_sites.erase_arguments(func, old_bindings)


def _is_zero(value):
    op = value.owner
    return isinstance(op, arith.ConstantOp) and isinstance(value.type, IndexType) and op.value.value.data == 0


def _update_site(site, groups, accesses, zero):
    offsets = list(site.resource_offsets)
    resources, sizes = list(site.resources), list(site.resource_sizes)
    new_operands = [offsets[idx] for group in groups for idx in group] + list(site.uniform_operands)
    firsts = [group[0] for group in groups]
    set_operand_groups(site, uniform_operands=new_operands,
                       resources=[resources[i] for i in firsts],
                       resource_sizes=[sizes[i] for i in firsts],
                       resource_offsets=[zero] * len(groups),
                       resource_lengths=[sizes[i] for i in firsts])
    site.properties["resource_accesses"] = ArrayAttr([StringAttr(a) for a in accesses])
