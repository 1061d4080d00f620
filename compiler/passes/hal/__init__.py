"""HAL-phase passes: target devices, interfaces, executable translation, stream -> hal.

The passes are registered, in pipeline order, in ``rt.compiler.passes.pipeline``.
"""
