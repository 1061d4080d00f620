"""Stream-phase passes (IREE's ``iree-stream-*``): tensors -> async resources -> explicit commands.

The passes are registered, in IREE's order (``buildStreamTransformPassPipeline``, implemented
passes only), in ``rt.compiler.passes.pipeline``.
"""
