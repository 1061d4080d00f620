"""Input-phase passes: verify, canonicalize, cse, elementwise-to-linalg, named-op normalization.

The passes are registered, in pipeline order, in ``rt.compiler.passes.pipeline``.
"""
