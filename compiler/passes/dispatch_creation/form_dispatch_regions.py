"""``iree-dispatch-creation-form-dispatch-regions``: group tensor compute into ``flow.dispatch.region``.

Input: util.func and util.initializer bodies after ``iree-flow-convert-to-flow``. Output:
every dispatchable op (see op_kinds) sits in exactly one ``flow.dispatch.region`` whose
workload is the root op's parallel loop sizes and whose ``count`` region is
``flow.dispatch.workgroup_count_from_slice``.
Grouping, per block:

1. roots: contractions, convolutions, pooling, reductions, transposes, pack/unpack, encodings
   and the tensor copies convert-to-flow left (pad, concat, non-contiguous slices);
2. consumer fusion: an elementwise op that is the single user of a root's result, reads it with
   an identity map and iterates exactly the root's parallel loops joins the root's region
   (matmul + bias add + relu), and so on down a single-use chain;
3. every other elementwise op becomes a root, in reverse order, so a single-use chain of
   elementwise ops (and broadcasts) fuses into its last op;
4. producer fusion: an elementwise producer whose only users are in a region that is not a
   contraction or a set_encoding (the pack walks packed tiles, so a fused producer would need
   its whole result in workgroup scratch) joins it, and so does, for a convolution root, the
   producer of its init (a bias broadcast: it writes the output tile the conv then adds into)
   or of an operand of its fused epilogue (a broadcast bias or clamp bound, a residual); an
   ``unset_encoding`` root takes an elementwise producer only when that producer's static result
   fits llvm-cpu's workgroup scratch whole (the unpack reads any element of it); ``tensor.empty``/``flow.tensor.empty``/``linalg.fill`` and
   generics splatting 0-d tensors (``_splat_like``) are cloned into every region that uses them. A fill still used on the host becomes ``flow.tensor.splat``.
5. relayouts read or written in place (only when every device target's backend names
   ``in_place_mmt4d`` in its ``kernel_ir_features``: llvm-cpu, whose mmt4d
   kernel reads and writes row-major matrices in place; see ``in_place_relayout``): an f32
   ``linalg.matmul``'s or ``linalg.batch_matmul``'s RHS ``set_encoding`` whose source is not
   a constant and whose only user is the contraction joins its region instead of becoming a
   pack dispatch (when N is static and its rows are not a multiple of 4 KiB apart, and K0 = 1
   or K is a static multiple of 16), and so does an ``unset_encoding`` that is the only user
   of its result when the contraction's init is a (filled) empty (an accumulating
   contraction's packed init keeps its unpack apart; so does an elementwise op that is the
   unset's only consumer and reads it with the identity map, which then fuses with it by
   rule 2 as before; attention's scores, read by a row max and an ``exp``, and its heads,
   read by a transpose, are unpacked in place). The lowering turns the pack ->
   mmt4d -> unpack inside the dispatch into one mmt4d (or batch_mmt4d, per batch slice) over
   strided views of the row-major bindings (``codegen/lowering/fold_relayouts.py``). A
   ``linalg.matmul``'s LHS ``set_encoding`` of a non-constant whose only user is the matmul
   joins as well, and so does a ``linalg.batch_matmul``'s (per batch slice) when its N fits one
   workgroup's columns (attention's probabilities times V, N = the head width): the kernel packs
   the LHS panel by panel into its stack (GotoBLAS's A panel, ``codegen/llvm_cpu/mmt4d.py``),
   which costs about what reading the pack dispatch's output does and saves that dispatch's
   memory round trip (broadcasting from the row-major LHS directly would run 10% (K = 1040)
   to 2x (K = 1024) slower: BENCHMARKS.md).

Example::

    %e = flow.tensor.empty : tensor<4x8xf32>
    %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %m = linalg.matmul ins(%a, %b : ...) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
    %r = linalg.generic {... relu ...} ins(%m : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>)
    // ->
    %r = flow.dispatch.region[%c4, %c8] -> (tensor<4x8xf32>) {
      %0 = tensor.empty() : tensor<4x8xf32>
      %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x8xf32>) -> tensor<4x8xf32>
      %2 = linalg.matmul ins(%a, %b : ...) outs(%1 : tensor<4x8xf32>) -> tensor<4x8xf32>
      %3 = linalg.generic {... relu ...} ins(%2 : tensor<4x8xf32>) outs(%0 : tensor<4x8xf32>)
      flow.return %3 : tensor<4x8xf32>
    } count(%w0: index, %w1: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %w0, %w1
      flow.return %x, %y, %z : index, index, index
    }

Errors: a group whose intermediate values escape (cannot happen with the rules above) or whose
result dims cannot be derived is a CompileError at the root op.

Source followed: IREE ``DispatchCreation/FormDispatchRegions.cpp`` (root ops, producer/consumer
fusion, clonable ops) and ``CloneProducersIntoDispatchRegions.cpp``.
"""
import dataclasses

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr, TensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, OpResult, Region

from rt.compiler.dialects import flow, util
from rt.compiler.dialects.iree_encoding import EncodingAttr, SetEncodingOp, UnsetEncodingOp
from rt.compiler.dialects.linalg import BatchMatmulOp, MatmulOp
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.op_handlers import OpTable
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.dispatch import op_kinds as kinds
from rt.compiler.helpers.dispatch.dce import erase_dead_ops
from rt.compiler.helpers.dispatch.shapes import fold_tensor_dims, materialize_dims

INDEX = IndexType()


#: producers whose values are constants: a set_encoding of those stays a (hoisted) pack.
_CONSTANT_PRODUCERS = (arith.ConstantOp, util.GlobalLoadOp, flow.TensorConstantOp)
#: roots that take no elementwise producers into their dispatch
_NO_ELEMENTWISE_PRODUCERS = (*kinds.CONTRACTIONS, *kinds.CONVOLUTIONS, SetEncodingOp,
                             *kinds.ATTENTION_OPS)
_DISPATCH_REGIONS = (flow.DispatchRegionOp, flow.DispatchWorkgroupsOp)


#: Row strides (bytes) that are multiples of this put every row of B in one L1 set: read in
#: place, such an RHS runs the kernel ~4% slower (N = 1024: 19.6 vs 18.8 ms at 1024^3),
#: more than its pack costs; so does a dynamic N, which might be one.
_ALIASING_STRIDE = 4096
#: The widest K0 a propagated (packed-result) LHS reads the RHS with (N0 = 16 on AVX-512):
#: an in-place RHS needs K a multiple of it (no K padding to read).
_MAX_K0 = 16


#: The contractions rule 5 folds relayouts into, with their encodings' user_indexing_maps.
_IN_PLACE_CONTRACTIONS = OpTable({
    MatmulOp: ["(d0, d1, d2) -> (d0, d2)", "(d0, d1, d2) -> (d2, d1)",
               "(d0, d1, d2) -> (d0, d1)"],
    BatchMatmulOp: ["(d0, d1, d2, d3) -> (d0, d1, d3)", "(d0, d1, d2, d3) -> (d0, d3, d2)",
                    "(d0, d1, d2, d3) -> (d0, d1, d2)"],
})


def _plain_f32_matmul_encoding(encoding, contraction):
    """Whether ``encoding`` is a matmul operand's with f32 types and the maps of op
    ``contraction`` (a linalg.matmul or linalg.batch_matmul)."""
    if not isinstance(encoding, EncodingAttr) or encoding.op_type.data != "matmul":
        return False
    if [str(t) for t in encoding.element_types.data] != ["f32"] * 3:
        return False
    maps = [str(m.data) for m in encoding.user_indexing_maps.data]
    return maps == _IN_PLACE_CONTRACTIONS.get(contraction)


def in_place_relayout(op):
    """Whether ``op`` is a relayout rule 5 fuses into its matmul's region: the RHS
    set_encoding of a non-constant into its only user, an f32 linalg.matmul or
    linalg.batch_matmul, the LHS set_encoding of a non-constant into its only user, such a
    matmul or a batch_matmul of at most ``OUTPUT_BLOCK`` columns, or the unset_encoding that
    is the only user of such a result."""
    if isinstance(op, SetEncodingOp):
        encoding = op.result.type.encoding
        uses = list(op.result.uses)
        if len(uses) != 1 or uses[0].index not in (0, 1) or not _plain_f32_matmul_encoding(
                encoding, uses[0].operation) or (
                encoding.operand_index.value.data != uses[0].index):
            return False
        source = op.operands[0]
        if isinstance(source, OpResult) and isinstance(source.op, _CONSTANT_PRODUCERS):
            return False
        if uses[0].index == 0:  # the LHS: packed panel by panel inside the mmt4d kernel
            return isinstance(uses[0].operation, MatmulOp) or _one_workgroup_column(uses[0].operation)
        k, n = source.type.get_shape()[-2:]
        if n < 0 or (n * 4) % _ALIASING_STRIDE == 0:
            return False
        lhs = uses[0].operation.operands[0]
        packed_lhs = isinstance(lhs, OpResult) and isinstance(lhs.op, SetEncodingOp)
        return packed_lhs or (k >= 0 and k % _MAX_K0 == 0)
    if isinstance(op, UnsetEncodingOp):
        source = op.operands[0]
        if not (isinstance(source, OpResult)
                and _plain_f32_matmul_encoding(source.type.encoding, source.op)):
            return False
        if len(list(source.uses)) != 1 or source.op.parent_block() is not op.parent_block():
            return False
        if not _fresh_init(source.op.outputs[0]):
            return False  # an accumulating contraction reads its packed init: the unpack stays
        # an elementwise consumer that rule 2 fuses with the unset (a bias add) keeps it apart
        uses = list(op.result.uses)
        rank = len(op.result.type.get_shape())
        return not (len(uses) == 1 and _epilogue(uses[0].operation, op.result, uses[0].index, rank))
    return False


def _epilogue(user, value, index, rank):
    """Whether ``user``, reading ``value`` as its operand ``index``, fuses into the region of
    ``value``'s producer by rule 2: an elementwise structured op (not a broadcast) reading it as
    an input with the identity map over ``rank`` loops."""
    if not kinds.is_elementwise(user) or isinstance(user, linalg.BroadcastOp) or not kinds.is_structured(user):
        return False
    m = kinds.operand_map(user, value)
    return (m is not None and index < len(user.inputs) and kinds.is_identity(m)
            and len(kinds.iterator_types(user)) == rank)


def _one_workgroup_column(contraction):
    """Whether the static N of batch_matmul ``contraction`` fits one workgroup's columns of
    output tiles on every llvm-cpu family (``cpu_families.OUTPUT_BLOCK``): each workgroup then
    packs each LHS panel once. Its batch_mmt4d kernel has no row-sharing of matmul's kind, so
    a wider N re-packs every panel per workgroup column (16x256x256x256: 1.25x the kernel
    time, more than the pack dispatch it saves)."""
    from rt.compiler.targets.cpu_families import OUTPUT_BLOCK

    n = contraction.outputs[0].type.get_shape()[-1]
    return 0 <= n <= OUTPUT_BLOCK


def _fresh_init(value):
    """Whether ``value`` (a contraction's init) is an empty or a fill of one: nothing to read."""
    owner = value.op if isinstance(value, OpResult) else None
    if isinstance(owner, linalg.FillOp):
        return _fresh_init(owner.outputs[0])
    return isinstance(owner, (tensor.EmptyOp, flow.TensorEmptyOp))


def _every_target_reads_in_place(module):
    """Whether the module declares devices and the backend of every executable target of them
    runs mmt4d over row-major views (``"in_place_mmt4d"`` in its ``kernel_ir_features``, the
    feature ``codegen/lowering/fold_relayouts.py`` asks for: llvm-cpu)."""
    from rt.compiler.passes.preprocessing.assign_target_devices import declared_devices
    from rt.compiler.targets import BACKENDS, get_backend

    names = [t.backend.data for _, device in declared_devices(module) for t in device.executable_targets.data]
    return bool(names) and all(
        name in BACKENDS and "in_place_mmt4d" in getattr(get_backend(name), "kernel_ir_features", ())
        for name in names)


def _producer(value, block):
    return value.op if isinstance(value, OpResult) and value.op.parent_block() is block else None


def _users(op):
    return [use.operation for r in op.results for use in r.uses]


def _top_level_user(user, block):
    """The ancestor of ``user`` that sits directly in ``block`` (None when outside it)."""
    while user is not None and user.parent_block() is not block:
        user = user.parent_op()
    return user


class _Grouping:
    """Assignment of the dispatchable ops of one block to groups (lists of ops)."""

    def __init__(self, block, in_place):
        self.block = block
        self.in_place = in_place
        self.group_of = {}
        self.groups = []

    def folded(self, op):
        """Whether ``op`` joins its matmul's region (rule 5) instead of forming its own."""
        return self.in_place and in_place_relayout(op)

    def new_group(self, op):
        group = {"members": [op], "clones": []}
        self.groups.append(group)
        self.group_of[op] = group
        return group

    def claim(self, group, op):
        group["members"].append(op)
        self.group_of[op] = group

    def fuse_consumers(self, group, root):
        unset = isinstance(root, UnsetEncodingOp)
        if not (kinds.is_structured(root) or unset):
            return
        if root in _IN_PLACE_CONTRACTIONS:
            users = _users(root)
            if len(users) == 1 and self.folded(users[0]):
                self.claim(group, users[0])
                return
        if unset:
            parallel = list(root.result.type.get_shape())
        else:
            parallel = [it for it in kinds.iterator_types(root) if it == "parallel"]
            if not kinds.output_is_parallel_projection(root):
                return
        current = root
        while len(current.results) == 1:
            uses = list(current.results[0].uses)
            if len(uses) != 1:
                return
            user = uses[0].operation
            if user.parent_block() is not self.block or user in self.group_of:
                return
            if not _epilogue(user, current.results[0], uses[0].index, len(parallel)):
                return
            self.claim(group, user)
            current = user

    def fuse_producers(self, group):
        root = kinds.pick_root(group["members"])
        allow_elementwise = root is not None and not isinstance(root, _NO_ELEMENTWISE_PRODUCERS)
        work = list(group["members"])
        while work:
            member = work.pop()
            for value in member.operands:
                producer = _producer(value, self.block)
                if producer is None or producer in self.group_of:
                    continue
                if root in _IN_PLACE_CONTRACTIONS and self.folded(producer):
                    self.claim(group, producer)
                    continue
                if kinds.is_clonable(producer) or _splat_like(producer):
                    if producer not in group["clones"]:
                        group["clones"].append(producer)
                        work.append(producer)
                    continue
                if not kinds.is_elementwise(producer) or not (
                        allow_elementwise or _conv_takes(root, member, value)):
                    continue
                if isinstance(root, UnsetEncodingOp) and not _fits_whole_in_scratch(producer):
                    continue
                users = {_top_level_user(u, self.block) for u in _users(producer)}
                if all(self.group_of.get(u) is group for u in users):
                    self.claim(group, producer)
                    work.append(producer)


def _fits_whole_in_scratch(op):
    """Whether every result of ``op`` has a static size within llvm-cpu's per-workgroup scratch
    (``SCRATCH_LIMIT``). An elementwise producer of packed tiles fused into an
    ``unset_encoding`` dispatch is computed whole into workgroup scratch (the unpack reads any
    element of it, so the scratch is not tiled); a larger one stays a dispatch of its own, which
    tiles like any elementwise op, instead of a kernel that cannot be compiled."""
    from rt.compiler.codegen.llvm_cpu.buffers import SCRATCH_LIMIT

    total = 0
    for result in op.results:
        shape = result.type.get_shape() if isinstance(result.type, TensorType) else ()
        if any(s < 0 for s in shape):
            return False
        count = 1
        for s in shape:
            count *= s
        total += count * max(1, result.type.element_type.bitwidth // 8)
    return total <= SCRATCH_LIMIT


def _splat_like(op):
    """Whether ``op`` is a linalg.generic that splats scalars: all-parallel, identity outputs,
    every input a 0-d tensor (JAX's ``broadcast_in_dim`` of a clamp bound, and the 0-d generic
    yielding that bound). Like a fill it is cloned into every dispatch that reads it, so one
    splat shared by several dispatches is not a dispatch of its own. A body that reads a tensor
    from outside (a decomposed gather) is not a splat."""
    return (isinstance(op, linalg.GenericOp) and kinds.is_elementwise(op) and len(op.results) == 1
            and all(isinstance(v.type, TensorType) and not v.type.get_shape() for v in op.inputs)
            and not _reads_captured_tensors(op))


def _reads_captured_tensors(op):
    """Whether ``op``'s body uses a tensor defined outside it (a gather's ``tensor.extract`` of
    its source): such a generic does real work per element and is not cheap to clone."""
    ops = set(op.walk())
    blocks = {block for o in ops for region in o.regions for block in region.blocks}

    def captured(value):
        return value.op not in ops if isinstance(value, OpResult) else value.block not in blocks

    return any(isinstance(v.type, TensorType) and captured(v) for body_op in op.body.walk()
               for v in body_op.operands)


def _conv_takes(root, member, value):
    """Whether the group of convolution ``root`` takes the elementwise producer of ``value``, an
    operand of group member ``member``: the conv's init (a bias broadcast, which writes the
    output tile the conv then adds into) or an operand of its epilogue (a broadcast bias, a
    residual: computed on the output tile and inlined into the epilogue by the lowering). The
    conv's input and filter keep their producers apart: a window reads past the tile."""
    if not isinstance(root, kinds.CONVOLUTIONS):
        return False
    return member is not root or any(v is value for v in root.outputs)


def _index_value(size, before):
    """An index value for ``size``: reuses an index constant at the top of the block or makes one."""
    if not isinstance(size, int):
        return size
    block = before.parent_block()
    for op in block.ops:
        if not isinstance(op, arith.ConstantOp):
            break
        if isinstance(op.result.type, IndexType) and op.value.value.data == size:
            return op.result
    op = arith.ConstantOp(IntegerAttr(size, INDEX))
    op.location = before.location
    if block.first_op is not None:
        block.insert_op_before(op, block.first_op)
    else:
        block.add_op(op)
    return op.result


def _workload(root, before):
    """Root's parallel loop sizes (result shape for non-structured roots) as index values; [1] if none."""
    if root is not None and kinds.is_structured(root):
        ranges = kinds.loop_ranges(root, lambda v: materialize_dims(v, before))
        sizes = [r for r, it in zip(ranges, kinds.iterator_types(root)) if it == "parallel"]
    elif root is not None and root.results and isinstance(root.results[0].type, TensorType):
        value = root.results[0]
        dims = list(materialize_dims(value, before))
        sizes = [dims.pop(0) if s < 0 else s for s in value.type.get_shape()]
    else:
        sizes = []
    if any(s is None for s in sizes):
        raise error_at_op(root, f"'{root.name}' op: cannot derive its loop sizes from its operands")
    return [_index_value(s, before) for s in (sizes or [1])]


def _count_region(n):
    block = Block(arg_types=[INDEX] * n)
    count = flow.DispatchWorkgroupCountFromSliceOp.build(operands=[list(block.args)], result_types=[INDEX] * 3)
    block.add_ops([count, flow.ReturnOp.build(operands=[list(count.results)])])
    return Region(block)


def _build_region(group, block, order):
    """Outline ``group`` into a flow.dispatch.region; ``order`` maps the block's ops to their
    positions (taken once per block: building a region keeps the order of the ops it leaves)."""
    if any(o not in order for o in (*group["members"], *group["clones"])):
        order.clear()
        order.update((o, i) for i, o in enumerate(block.ops))
    members = sorted(group["members"], key=order.__getitem__)
    clones = sorted(group["clones"], key=order.__getitem__)
    member_set = set(members)
    last = members[-1]
    escaping = []
    for op in members:
        for result in op.results:
            outside = [u for u in result.uses if _top_level_user(u.operation, block) not in member_set]
            if outside and op is not last:
                raise error_at_op(op, f"'{op.name}' op: its result is used outside its dispatch region before the "
                                      "region's last op; cannot form the dispatch")
            if outside:
                escaping.append(result)
    root = kinds.pick_root(members)
    result_dims = [d for v in escaping for d in materialize_dims(v, last)]
    workload = _workload(root, last)
    body = Block()
    mapping = {}
    for clone in clones:
        if isinstance(clone, flow.TensorEmptyOp):
            new = tensor.EmptyOp(list(clone.result_dims), clone.result.type)
        else:
            new = clone.clone()
        for i, operand in enumerate(new.operands):
            if operand in mapping:
                new.operands[i] = mapping[operand]
        new.location = clone.location
        body.add_op(new)
        for old, fresh in zip(clone.results, new.results):
            mapping[old] = fresh
    region_op = flow.DispatchRegionOp.build(
        operands=[result_dims, workload], result_types=[[v.type for v in escaping]],
        regions=[Region(body), _count_region(len(workload))])
    region_op.location = root.location if root is not None else last.location
    block.insert_op_before(region_op, last)
    for v, r in zip(escaping, region_op.results):
        for use in list(v.uses):
            if _top_level_user(use.operation, block) not in member_set:
                use.operation.operands[use.index] = r
    for op in members:
        op.detach()
        body.add_op(op)
        for i, operand in enumerate(op.operands):
            if operand in mapping:
                op.operands[i] = mapping[operand]
    ret = flow.ReturnOp.build(operands=[escaping])
    ret.location = last.location
    body.add_op(ret)
    return region_op


def _is_dispatch_code(op):
    """Whether ``op``'s regions are computation dispatch creation moves as a whole (a linalg or
    tensor op's body, a dispatch region), not host code to form dispatches in."""
    # every linalg and tensor op: their regions are payload bodies
    return op.dialect_name() in ("linalg", "tensor") or isinstance(op, _DISPATCH_REGIONS)


def _splat_host_fills(block, grouping):
    """A fill still used by host ops (not by any region) becomes flow.tensor.splat for those uses."""
    for op in list(block.ops):
        if not isinstance(op, linalg.FillOp) or op in grouping.group_of:
            continue
        host_uses = [u for u in op.results[0].uses if _top_level_user(u.operation, block) not in grouping.group_of]
        if not host_uses:
            continue
        dims = materialize_dims(op.results[0], op)
        splat = flow.TensorSplatOp.build(operands=[op.inputs[0], dims], result_types=[op.results[0].type])
        splat.location = op.location
        block.insert_op_before(splat, op)
        for use in host_uses:
            use.operation.operands[use.index] = splat.result


@dataclasses.dataclass(frozen=True)
class FormDispatchRegionsPass(Pass):
    """Root ops + fused producers/consumers -> flow.dispatch.region."""

    name = "iree-dispatch-creation-form-dispatch-regions"

    def run(self, module, ctx):
        in_place = _every_target_reads_in_place(module)
        for fn in [op for op in module.body.block.ops if isinstance(op, (util.FuncOp, util.InitializerOp))]:
            for block in self._host_blocks(fn):
                self._form(block, in_place)
            fold_tensor_dims(fn)
            erase_dead_ops(fn)

    @staticmethod
    def _host_blocks(fn):
        blocks = []
        for op in fn.walk():
            if _is_dispatch_code(op):
                continue
            for region in op.regions:
                parent = op
                inside = False
                while parent is not None:
                    if _is_dispatch_code(parent):
                        inside = True
                    parent = parent.parent_op()
                if not inside:
                    blocks.extend(region.blocks)
        return blocks

    @staticmethod
    def _form(block, in_place):
        grouping = _Grouping(block, in_place)
        ops = list(block.ops)
        for op in ops:
            if op in grouping.group_of or not kinds.is_dispatchable(op) or kinds.is_clonable(op):
                continue
            if isinstance(op, SetEncodingOp) and grouping.folded(op):
                continue
            if not kinds.is_elementwise(op):
                group = grouping.new_group(op)
                grouping.fuse_consumers(group, op)
        processed = set()
        for op in reversed(ops):
            if op.parent_block() is not block:
                continue
            if op in grouping.group_of:
                group = grouping.group_of[op]
            elif isinstance(op, SetEncodingOp) and grouping.folded(op):
                continue
            elif _splat_like(op) and all(  # cloned into its users' dispatches: operands only (a
                    u.parent_block() is block and u in grouping.group_of for u in _users(op)):
                continue  # value read by tensor.extract inside a body is not cloned; it gets a dispatch
            elif kinds.is_dispatchable(op) and not kinds.is_clonable(op):
                group = grouping.new_group(op)
            elif isinstance(op, linalg.FillOp) and any(
                    _top_level_user(u.operation, block) in grouping.group_of for u in op.results[0].uses):
                continue
            elif isinstance(op, linalg.FillOp):
                group = grouping.new_group(op)
            else:
                continue
            if id(group) not in processed:
                processed.add(id(group))
                grouping.fuse_producers(group)
        _splat_host_fills(block, grouping)
        order = {o: i for i, o in enumerate(block.ops)}
        for group in grouping.groups:
            _build_region(group, block, order)

