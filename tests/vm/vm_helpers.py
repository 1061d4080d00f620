"""Small builders for VM tests: one-op functions and contexts."""
from rt.runtime.vm import Context, Instance, Module, ModuleBuilder
from rt.runtime.vm.cconv import LETTER_OF


def op_function(method, in_types, out_type, name="t"):
    """A callable running the single op ``method`` (e.g. "add_i32") on its arguments."""
    mb = ModuleBuilder(name)
    cconv = "0" + ("".join(LETTER_OF[t] for t in in_types) or "v") + "_" + LETTER_OF[out_type]
    fb = mb.function("f", cconv, export=True)
    dst = fb.reg(out_type)
    getattr(fb, method)(dst, *fb.args)
    fb.return_([dst])
    return load(mb).lookup_function(f"{name}.f")


def load(mb, *natives, trace_sink=None):
    """Context over ``natives`` and the module built by ``mb``."""
    return Context(Instance(), [*natives, Module.from_bytes(mb.build())], trace_sink=trace_sink)
