"""Passes the pipeline runs in several phases (IREE's cleanups): ``cse``. Registered in
``rt.compiler.passes.pipeline``.
"""
