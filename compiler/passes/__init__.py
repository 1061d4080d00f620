"""rt's pass infrastructure: ``Pass``, the pipeline table, the registry, ``PassPipeline``."""
from rt.compiler.passes.base import Pass
from rt.compiler.passes.pass_manager import PassPipeline
from rt.compiler.passes.registry import get_pass_class, parse_pass_spec, pass_names

__all__ = ["Pass", "PassPipeline", "get_pass_class", "parse_pass_spec", "pass_names"]
