"""Loop nests over a workgroup's tile with incrementally advanced operand offsets.

``tile_ranges`` gives each loop dim of an op its ``[lo, hi)`` for the current workgroup (the
Distribution's tiles on distributed dims, the whole domain elsewhere). ``LoopNest`` walks a
chosen subset of those dims in bytecode, keeping one offset register per operand and level:
entering a loop copies the parent's offset, each iteration adds the operand's (pre-scaled)
stride, so the body sees ready offsets without multiplying. Operands that do not depend on
a loop dim share the parent's register.
Source: the scf.for nests IREE's VMVX path leaves around ukernel calls and scalar bodies
after tiling (TileAndDistributeToWorkgroups + LLVMCPU-style tiling of the VMVX pipeline).
"""
from rt.compiler.codegen.vmvx.access import offset_at
from rt.runtime.errors import CompileError


def tile_ranges(em, op_index, domain, kind):
    """``[(lo, hi), ...]`` per loop dim of op ``op_index`` for the current workgroup.

    domain: evaluated sizes (ints or registers). On a distributed dim the workgroup covers
    root indices ``[id * tile, id * tile + tile)``; an op with a Distribution offset ``o`` along
    it plays root index ``i + o`` at its own index ``i``, so its range is shifted by ``-o``.
    Both ends are clamped to ``[0, domain]``; ``lo`` may exceed ``hi`` for workgroups past the
    end (the loops then run zero times).
    """
    dist = em.kernel.distribution
    ranges = [(0, size) for size in domain]
    if not dist.dims:
        return ranges
    if len(dist.tiles) != len(dist.dims) or len(dist.dims) > 3:
        raise CompileError(f"vmvx codegen: kernel {em.kernel.name!r}: distribution {dist!r} needs one tile per "
                           f"distributed dim (at most 3)")
    if len(dist.op_dims) != len(em.kernel.ops):
        raise CompileError(f"vmvx codegen: kernel {em.kernel.name!r}: distribution.op_dims has "
                           f"{len(dist.op_dims)} entries for {len(em.kernel.ops)} ops")
    if dist.op_offsets and (len(dist.op_offsets) != len(em.kernel.ops)
                            or len(dist.op_offsets[op_index]) != len(dist.dims)):
        raise CompileError(f"vmvx codegen: kernel {em.kernel.name!r}: distribution.op_offsets "
                           f"{dist.op_offsets!r} must give one Size per distributed dim for each op")
    dims = dist.op_dims[op_index]
    if len(dims) != len(dist.dims):
        raise CompileError(f"vmvx codegen: kernel {em.kernel.name!r}: op {op_index} ({kind}) maps "
                           f"{len(dims)} distributed dims, expected {len(dist.dims)}")
    for axis, (d, tile) in enumerate(zip(dims, dist.tiles)):
        if d is None:
            continue
        if not 0 <= d < len(domain):
            raise CompileError(f"vmvx codegen: kernel {em.kernel.name!r}: op {op_index} ({kind}) distributes "
                               f"loop d{d} but has {len(domain)} loops")
        if isinstance(tile, bool) or not isinstance(tile, int) or tile < 1:
            raise CompileError(f"vmvx codegen: kernel {em.kernel.name!r}: workgroup tile {tile!r} must be a "
                               f"positive int")
        lo = em.mul(em.workgroup_id(axis), tile)
        hi = em.add(lo, tile)
        offset = dist.offset(op_index, axis)
        if offset != 0:
            off = em.size(offset)
            lo = em.smin(em.smax(em.sub(lo, off), 0), domain[d])
            hi = em.smax(em.sub(hi, off), 0)
        ranges[d] = (lo, em.smin(hi, domain[d]))
    return ranges


def extent(em, rng):
    """``max(hi - lo, 0)`` of a range."""
    lo, hi = rng
    return em.smax(em.sub(hi, lo), 0)


class LoopNest:
    """Bytecode loops over ``dims`` (outer to inner) of ``ranges`` for ``accesses``.

    scales: per access, the unit offsets are counted in (1 for element offsets, the element
    size for byte offsets). ``run(body, levels)`` calls ``body(offsets, index)`` innermost,
    where ``offsets[a]`` is the current offset register/int of access a and ``index[d]`` the
    i64 register of loop dim d; ``levels`` maps a level number to (enter, leave) hooks run
    around the loops below it (enter(offsets, index) / leave(offsets, index)).
    """

    def __init__(self, em, ranges, accesses, dims, scales):
        self.em, self.ranges, self.accesses, self.dims = em, ranges, accesses, list(dims)
        starts = [lo for lo, _ in ranges]
        self.start = [em.mul(offset_at(em, a, starts), s) for a, s in zip(accesses, scales)]
        self.steps = {d: [em.reg(em.mul(a.strides[d], s)) if a.depends[d] else None
                          for a, s in zip(accesses, scales)] for d in self.dims}
        for d in self.dims:
            em.reg(ranges[d][0])
            em.reg(ranges[d][1])

    def run(self, body, levels=None):
        self._level(0, list(self.start), {}, body, levels or {})

    def _level(self, level, offsets, index, body, levels):
        hooks = levels.get(level)
        if hooks:
            hooks[0](offsets, index)
        if level == len(self.dims):
            body(offsets, index)
        else:
            d = self.dims[level]
            mine, carried = list(offsets), []
            for a, step in enumerate(self.steps[d]):
                if step is not None:
                    mine[a] = self.em.copy(offsets[a])
                    carried.append((mine[a], step))
            lo, hi = self.ranges[d]
            with self.em.loop(lo, hi, carried) as i:
                self._level(level + 1, mine, {**index, d: i}, body, levels)
        if hooks:
            hooks[1](offsets, index)
