"""Command-line tools of the compiler: ``opt`` (``python -m rt opt``)."""
from rt.compiler.tools.opt import opt_main

__all__ = ["opt_main"]
