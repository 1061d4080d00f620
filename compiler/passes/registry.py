"""The lazy pass registry: pass name -> ``compiler/passes/<phase>/<file>.py:<Class>``.

Each phase package (``compiler/passes/<phase>/__init__.py``) declares a ``PASSES`` dict of
``name -> "module:Class"`` (module relative to the phase package) and imports nothing else, so
building the registry is cheap; a pass module is imported only when the pass is requested.
"""
import importlib

from rt.runtime.errors import NotFoundError

#: phase packages, in pipeline order
PHASES = ("input", "abi", "dispatch_creation", "stream", "hal", "vm")


def _collect():
    table = {}
    for phase in PHASES:
        try:
            pkg = importlib.import_module(f"rt.compiler.passes.{phase}")
        except ModuleNotFoundError as exc:
            if exc.name != f"rt.compiler.passes.{phase}":
                raise
            continue
        for name, target in getattr(pkg, "PASSES", {}).items():
            table[name] = f"{phase}.{target}"
    return table


#: pass name -> "module path relative to rt.compiler.passes:ClassName"
PASSES = _collect()


def pass_names():
    """Every registered pass name, sorted."""
    return sorted(PASSES)


def get_pass_class(name):
    """The Pass subclass registered as ``name``; NotFoundError (listing known names) otherwise."""
    target = PASSES.get(name)
    if target is None:
        raise NotFoundError(f"unknown pass '{name}'; registered passes: {', '.join(pass_names())}")
    module, cls = target.split(":")
    return getattr(importlib.import_module(f"rt.compiler.passes.{module}"), cls)


def parse_pass_spec(spec):
    """``name`` or ``name{key=value,key=value}`` -> a configured Pass instance."""
    name, options = spec, {}
    if "{" in spec:
        if not spec.endswith("}"):
            raise NotFoundError(f"malformed pass spec '{spec}'; expected name{{key=value,...}}")
        name, body = spec[:-1].split("{", 1)
        for item in filter(None, (s.strip() for s in body.split(","))):
            key, _, value = item.partition("=")
            options[key.strip()] = value.strip() if value else "true"
    return get_pass_class(name).from_options(options)
