"""rt's pass infrastructure: ``Pass``, the lazy registry, ``PassPipeline``, op legality."""
from rt.compiler.passes.base import Pass
from rt.compiler.passes.pipeline import PassPipeline
from rt.compiler.passes.registry import get_pass_class, parse_pass_spec, pass_names

__all__ = ["Pass", "PassPipeline", "get_pass_class", "parse_pass_spec", "pass_names"]
