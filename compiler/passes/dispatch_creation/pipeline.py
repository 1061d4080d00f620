"""The ABI + dispatch-creation passes in pipeline order, for the driver.

Runs after the input phase (verify, canonicalize, cse, convert-elementwise-to-linalg,
linalg-normalize-named-ops) and before the stream phase. ``iree-dispatch-creation-set-encoding``
(data tiling; a no-op with ``data_tiling=False``) runs on the ABI-wrapped functions, before
convert-to-flow, as IREE's global optimization does; ``iree-util-hoist-into-globals`` then moves
the packing of constant operands into initializers (IREE's global-optimization const-expr
hoisting), so weights are packed once at load time.

Source followed: IREE ``DispatchCreation/Passes.cpp`` (buildDispatchCreationPassPipeline) and
``Flow/Transforms/Passes.cpp``.
"""

PASS_NAMES = [
    "iree-abi-wrap-entry-points",
    "iree-dispatch-creation-set-encoding",
    "iree-util-hoist-into-globals",
    "iree-flow-convert-to-flow",
    "iree-dispatch-creation-form-dispatch-regions",
    "iree-dispatch-creation-convert-dispatch-regions-to-workgroups",
    "iree-flow-outline-dispatch-regions",
]
