"""The lazy pass registry: pass name -> Pass class, read from the one pipeline table.

Every pass is registered by its line in :mod:`rt.compiler.passes.pipeline` (``PHASES`` for the
default pipeline, ``STANDALONE`` for passes only ``rt opt`` runs); a pass module is imported
only when the pass is requested, so listing names is cheap.
"""
from rt.compiler.passes import pipeline
from rt.runtime.errors import NotFoundError


def _table():
    return {entry.name: entry for entry in pipeline.all_entries()}


def pass_names():
    """Every registered pass name, sorted."""
    return sorted(_table())


def get_pass_class(name):
    """The Pass subclass registered as ``name``; NotFoundError (listing known names) otherwise."""
    entry = _table().get(name)
    if entry is None:
        raise NotFoundError(f"unknown pass '{name}'; registered passes: {', '.join(pass_names())}")
    return entry.pass_class()


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
