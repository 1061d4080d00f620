"""A counted loop for llvmlite builders (what MLIR's scf.for lowers to).

``counted_loop`` emits ``for (i = start; i + step <= stop; i += step)`` with the induction
variable as a phi in the header, so consecutive loops can continue where the previous one
stopped (main vector loop, then remainder loops). ``loop_nest`` nests unit-step loops over
some dimensions of an iteration space around a body.
"""
import contextlib


class Loop:
    """A loop in progress: ``index`` is the induction variable (valid in the body and after)."""

    def __init__(self, index, carried):
        self.index = index
        self.carried = carried
        self.next_carried = None


@contextlib.contextmanager
def counted_loop(builder, start, stop, step, name, carried=()):
    """Emit a loop over i64 ``index`` from ``start`` while ``index + step <= stop``.

    carried: initial values of loop-carried values; inside the body read ``loop.carried``
    and set ``loop.next_carried`` to the values for the next iteration. After the ``with``
    block the builder sits in the exit block, ``loop.index`` is the first index not run and
    ``loop.carried`` holds the final carried values.
    """
    b = builder
    pre = b.block
    header = b.append_basic_block(f"{name}.header")
    body = b.append_basic_block(f"{name}.body")
    exit_ = b.append_basic_block(f"{name}.exit")
    b.branch(header)
    b.position_at_end(header)
    index = b.phi(start.type, name=f"{name}.i")
    index.add_incoming(start, pre)
    phis = []
    for k, value in enumerate(carried):
        phi = b.phi(value.type, name=f"{name}.c{k}")
        phi.add_incoming(value, pre)
        phis.append(phi)
    b.cbranch(b.icmp_signed("<=", b.add(index, step), stop), body, exit_)
    b.position_at_end(body)
    loop = Loop(index, tuple(phis))
    yield loop
    nxt = b.add(index, step, name=f"{name}.next")
    index.add_incoming(nxt, b.block)
    if phis:
        if loop.next_carried is None or len(loop.next_carried) != len(phis):
            raise ValueError(f"loop {name}: set next_carried to {len(phis)} values")
        for phi, value in zip(phis, loop.next_carried):
            phi.add_incoming(value, b.block)
    b.branch(header)
    b.position_at_end(exit_)


def loop_nest(builder, dims, idx, ranges, body):
    """Emit unit-step loops ``d<dim>`` over ``dims`` (outermost first), ``idx[dim]`` set to
    each loop's index inside, and call ``body()`` in the innermost; ``ranges[dim]`` is the
    (lo, hi) i64 range of a dim. The ``idx`` entries are removed again after their loop."""
    if not dims:
        body()
        return
    d = dims[0]
    lo, hi = ranges[d]
    with counted_loop(builder, lo, hi, lo.type(1), f"d{d}") as loop:
        idx[d] = loop.index
        loop_nest(builder, dims[1:], idx, ranges, body)
    del idx[d]
