"""A module whose @spin(n) counts to n in a pure bytecode loop (tests of interrupts and limits).

``spin(n)`` returns n after n iterations of a 4-instruction loop (one backward branch each);
``spin(2**62)`` runs for years, so only an interrupt, a deadline or fuel ends it. ``add_i32``
is an ordinary function to call afterwards.
"""
from rt.runtime.vm import ModuleBuilder
from rt.testing import reflection, scalar


def spin_module():
    mb = ModuleBuilder("spinner")
    fb = mb.function("spin", "0I_I", export=True, reflection=reflection(
        "func @spin(%n: index) -> index", [scalar("n", "index")], [scalar("", "index")],
        "spin.mlir:3:5"))
    (n,) = fb.args
    i, one, c = fb.reg("i64"), fb.reg("i64"), fb.reg("i32")
    head, out = fb.label(), fb.label()
    fb.const_i64_zero(i)
    fb.const_i64(one, 1)
    fb.bind(head)
    fb.add_i64(i, i, one)
    fb.cmp_lt_i64_s(c, i, n)
    fb.cond_br(c, head, out)
    fb.bind(out)
    fb.return_([i])
    fb = mb.function("add_i32", "0ii_i", export=True, reflection=reflection(
        "func @add_i32(%a: i32, %b: i32) -> i32", [scalar("a", "i32"), scalar("b", "i32")],
        [scalar("", "i32")], "spin.mlir:9:1"))
    r = fb.reg("i32")
    fb.add_i32(r, *fb.args)
    fb.return_([r])
    return mb.build()
