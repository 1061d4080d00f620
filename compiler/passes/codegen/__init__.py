"""Codegen passes that rt also runs on their own (``rt opt``): rewrites IREE applies to dispatch
functions before lowering them (``iree-codegen-*``). Registered in ``rt.compiler.passes.pipeline``.
"""
