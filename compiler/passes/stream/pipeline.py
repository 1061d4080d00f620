"""The stream phase in order (IREE's ``buildStreamTransformPassPipeline``, implemented passes only).

``PASS_NAMES`` lists the registered ``iree-stream-*`` passes in the order the driver runs them.
IREE's order, for reference: verify-input, outline-constants, convert-to-stream,
specialize-encodings, encode-host-tensors, encode-device-tensors, materialize-builtins, materialize-copy-on-write, elide-async-copies,
refine-usage, schedule-execution, schedule-concurrency, propagate-timepoints,
schedule-allocation, pack-constants, layout-slices, elide-timepoints, fuse-dispatch-bindings,
pack-dispatch-operands, fold-uniform-operands, annotate-dispatch-arguments.

Source followed: IREE ``Dialect/Stream/Transforms/Passes.cpp``.
"""

PASS_NAMES = [
    "iree-stream-verify-input",
    "iree-stream-outline-constants",
    "iree-stream-convert-to-stream",
    "iree-stream-specialize-encodings",
    "iree-stream-encode-host-tensors",
    "iree-stream-encode-device-tensors",
    "iree-stream-materialize-builtins",
    "iree-stream-materialize-copy-on-write",
    "iree-stream-elide-async-copies",
    "iree-stream-refine-usage",
    "iree-stream-schedule-execution",
    "iree-stream-schedule-concurrency",
    "iree-stream-propagate-timepoints",
    "iree-stream-schedule-allocation",
    "iree-stream-pack-constants",
    "iree-stream-layout-slices",
    "iree-stream-elide-timepoints",
    "iree-stream-fuse-dispatch-bindings",
    "iree-stream-pack-dispatch-operands",
    "iree-stream-fold-uniform-operands",
    "iree-stream-annotate-dispatch-arguments",
]
