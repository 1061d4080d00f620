"""The lazy pass registry: pass name -> ``compiler/passes/<phase>/<file>.py:<Class>``.

Modules are imported only when a pass is requested, so ``rt.compiler.passes`` imports
nothing heavy. Later phases add their entries to ``PASSES``.
"""
import importlib

from rt.runtime.errors import NotFoundError

#: pass name -> "module path relative to rt.compiler.passes:ClassName"
PASSES = {
    "verify": "input.verify:VerifyPass",
    "canonicalize": "input.canonicalize:CanonicalizePass",
    "cse": "input.cse:CSEPass",
    "convert-elementwise-to-linalg": "input.convert_elementwise_to_linalg:ConvertElementwiseToLinalgPass",
    "linalg-normalize-named-ops": "input.normalize_named_ops:NormalizeNamedOpsPass",
}


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
