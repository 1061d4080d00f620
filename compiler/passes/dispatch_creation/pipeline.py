"""The ABI + dispatch-creation passes in pipeline order, for the driver.

Runs after the input phase (verify, canonicalize, cse, convert-elementwise-to-linalg,
linalg-normalize-named-ops) and before the stream phase. ``iree-dispatch-creation-set-encoding``
(data tiling, issue 5) will slot in before form-dispatch-regions.

Source followed: IREE ``DispatchCreation/Passes.cpp`` (buildDispatchCreationPassPipeline) and
``Flow/Transforms/Passes.cpp``.
"""

PASS_NAMES = [
    "iree-abi-wrap-entry-points",
    "iree-flow-convert-to-flow",
    "iree-dispatch-creation-form-dispatch-regions",
    "iree-dispatch-creation-convert-dispatch-regions-to-workgroups",
    "iree-flow-outline-dispatch-regions",
]
