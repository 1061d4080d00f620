"""A module whose @spin(n) counts to n in a pure bytecode loop (tests of interrupts and limits).

``spin(n)`` returns n after n iterations of a 4-instruction loop (one backward branch each);
``spin(2**62)`` runs for years, so only an interrupt, a deadline or fuel ends it. ``add_i32``
is an ordinary function to call afterwards. With ``init_iterations=N`` the module also exports
an ``__init`` that counts to N in the same loop while the module loads.
"""
from rt.runtime.vm import ModuleBuilder
from rt.testing import reflection, scalar


def _count_to(fb, n):
    """Emit ``i = 0; do i += 1 while i < n`` into ``fb``; returns the register holding i."""
    i, one, c = fb.reg("i64"), fb.reg("i64"), fb.reg("i32")
    head, out = fb.label(), fb.label()
    fb.const_i64_zero(i)
    fb.const_i64(one, 1)
    fb.bind(head)
    fb.add_i64(i, i, one)
    fb.cmp_lt_i64_s(c, i, n)
    fb.cond_br(c, head, out)
    fb.bind(out)
    return i


def spin_module(init_iterations=None):
    mb = ModuleBuilder("spinner")
    fb = mb.function("spin", "0I_I", export=True, reflection=reflection(
        "func @spin(%n: index) -> index", [scalar("n", "index")], [scalar("", "index")],
        "spin.mlir:3:5"))
    fb.return_([_count_to(fb, fb.args[0])])
    if init_iterations is not None:
        fb = mb.function("__init", "0v_v", export=True)
        n = fb.reg("i64")
        fb.const_i64(n, init_iterations)
        _count_to(fb, n)
        fb.return_([])
    fb = mb.function("add_i32", "0ii_i", export=True, reflection=reflection(
        "func @add_i32(%a: i32, %b: i32) -> i32", [scalar("a", "i32"), scalar("b", "i32")],
        [scalar("", "i32")], "spin.mlir:9:1"))
    r = fb.reg("i32")
    fb.add_i32(r, *fb.args)
    fb.return_([r])
    return mb.build()
