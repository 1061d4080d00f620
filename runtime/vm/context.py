"""Instance and Context: link native and bytecode modules, resolve imports, call functions.

    ctx = Context(Instance(), [HalModule(devices), Module.load("m.vmfb")])
    f = ctx.lookup_function("m.main")
    f(1, 2.0)

Modules are given in dependency order; each bytecode module's imports resolve by full name
(``hal.buffer_view.create``) against the modules before it, and the cconvs must match exactly.
A module exporting ``__init`` (cconv ``0v_v``) has it called once the module is linked.
Source: iree/vm/context.c (iree_vm_context_register_modules: resolve imports in order, then
run ``__init``).

Errors: NotFoundError for a missing non-optional import (naming the import, the importing
module and the registered modules) or an unknown function; InvalidArgumentError for a cconv
mismatch (naming both signatures) or a duplicate module name.
"""
from rt.runtime.errors import InvalidArgumentError, NotFoundError
from rt.runtime.vm._interp import MAX_DEPTH, Function, ModuleState
from rt.runtime.vm.module import Module
from rt.runtime.vm.native import NativeModule


class Instance:
    """Process-wide VM settings shared by contexts (IREE's iree_vm_instance_t).

    ``max_stack_depth`` is informative: the interpreter's frame limit (1024).
    """

    max_stack_depth = MAX_DEPTH

    def __repr__(self):
        return "<rt.runtime.vm.Instance>"


class Context:
    """A set of linked modules with their state (globals) and a trace sink.

    ``trace_sink``: None or ``callable(event: str, values: tuple)`` called by ``vm.trace``.
    ``init_fuel``: None, or the budget (backward branches + calls) each module's ``__init`` may
    spend (VMTrapError past it, as for :attr:`fuel`); afterwards the module is unlimited again.
    """

    def __init__(self, instance, modules, trace_sink=None, init_fuel=None):
        if not isinstance(instance, Instance):
            raise InvalidArgumentError(f"Context needs an Instance first, got {instance!r}")
        self.instance = instance
        self._modules = {}
        self._states = {}
        self._trace_sink = trace_sink
        if init_fuel is not None and (type(init_fuel) is not int or init_fuel < 0):
            raise InvalidArgumentError(f"init_fuel must be None or a non-negative int, got {init_fuel!r}")
        self._init_fuel = init_fuel
        for m in modules:
            self._register(m)

    def _register(self, m):
        if isinstance(m, NativeModule):
            name = m.name
        elif isinstance(m, Module):
            name = m.name
        else:
            raise InvalidArgumentError(f"Context modules must be Module or NativeModule instances, got {m!r}")
        if not isinstance(name, str) or not name:
            raise InvalidArgumentError(f"native module {type(m).__name__} has no name; set the class attribute 'name'")
        if name in self._modules:
            raise InvalidArgumentError(f"module {name!r} registered twice in one Context")
        if isinstance(m, Module):
            state = ModuleState(m)
            state.trace_sink = self._trace_sink
            for imp in m.imports:
                target, sig = self._resolve(m, imp)
                state.bind_import(imp.ordinal, target, sig)
            self._states[name] = state
        self._modules[name] = m
        if isinstance(m, Module) and "__init" in m.exports:
            init = Function(self._states[name], m.exports["__init"])
            if init.signature.text != "0v_v":
                raise InvalidArgumentError(f"module {name}: __init must have cconv 0v_v, has {init.signature.text}")
            state = self._states[name]
            state.fuel = -1 if self._init_fuel is None else self._init_fuel
            try:
                init()
            finally:
                state.fuel = -1

    def _resolve(self, m, imp):
        provider = self._modules.get(imp.module_name)
        if provider is None:
            if imp.optional:
                return None, None
            raise NotFoundError(
                f"module {m.name} imports {imp.name} ({imp.signature.text}) but no module named "
                f"{imp.module_name!r} was registered before it; registered: {', '.join(self._modules) or '(none)'}"
            )
        if isinstance(provider, NativeModule):
            entry = provider.exports.get(imp.function_name)
            sig = None if entry is None else entry[1]
            target = None if entry is None else (provider.native_functions().get(imp.function_name)
                                                 or getattr(provider, entry[0]))
        else:
            ordinal = provider.exports.get(imp.function_name)
            target = None if ordinal is None else Function(self._states[provider.name], ordinal)
            sig = None if ordinal is None else provider.functions[ordinal].signature
        if target is None:
            if imp.optional:
                return None, None
            raise NotFoundError(
                f"module {m.name} imports {imp.name} ({imp.signature.text}) but module {imp.module_name!r} "
                f"has no function {imp.function_name!r}"
            )
        if sig != imp.signature:
            raise InvalidArgumentError(
                f"import {imp.name} of module {m.name}: expected cconv {imp.signature.text}, "
                f"but {imp.module_name} provides {imp.function_name} with cconv {sig.text}"
            )
        return target, sig

    @property
    def fuel(self):
        """Execution budget (backward branches + calls) left, or None for unlimited.

        Setting it gives every bytecode module of the context that budget; the getter returns
        the smallest budget left. Running out raises VMTrapError instead of looping forever
        (for untrusted or fuzzed modules).
        """
        left = [s.fuel for s in self._states.values() if s.fuel >= 0]
        return min(left) if left else None

    @fuel.setter
    def fuel(self, budget):
        if budget is not None and (type(budget) is not int or budget < 0):
            raise InvalidArgumentError(f"fuel must be None or a non-negative int, got {budget!r}")
        for state in self._states.values():
            state.fuel = -1 if budget is None else budget

    @property
    def modules(self):
        """Registered modules in order (Module or NativeModule)."""
        return list(self._modules.values())

    @property
    def trace_sink(self):
        return self._trace_sink

    @trace_sink.setter
    def trace_sink(self, sink):
        if sink is not None and not callable(sink):
            raise InvalidArgumentError(f"trace_sink must be callable(event, values) or None, got {sink!r}")
        self._trace_sink = sink
        for state in self._states.values():
            state.trace_sink = sink

    def module_state(self, name):
        """The ModuleState (globals, imports) of bytecode module ``name``."""
        if name not in self._states:
            raise NotFoundError(f"no bytecode module {name!r} in this context; modules: {', '.join(self._modules)}")
        return self._states[name]

    def lookup_function(self, name):
        """``"module.function"`` -> Function (bytecode export) or bound method (native export)."""
        mod_name, _, fname = str(name).partition(".")
        m = self._modules.get(mod_name)
        if m is None or not fname:
            raise NotFoundError(
                f"no function {name!r}: expected 'module.function' with module one of {', '.join(self._modules) or '(none)'}"
            )
        if isinstance(m, NativeModule):
            return m.lookup_function(fname)[0]
        return Function(self._states[mod_name], m.lookup_function(fname).ordinal)

    def __repr__(self):
        return f"<Context modules=[{', '.join(self._modules)}]>"
