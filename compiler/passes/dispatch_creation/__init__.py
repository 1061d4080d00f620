"""Dispatch-creation passes: host tensor ops to flow, dispatch regions, workgroups and executables.

The passes are registered, in pipeline order, in ``rt.compiler.passes.pipeline``.
"""
