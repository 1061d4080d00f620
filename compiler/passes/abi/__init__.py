"""ABI passes: public functions get IREE's buffer-view calling convention."""

PASSES = {
    "iree-abi-wrap-entry-points": "wrap_entry_points:WrapEntryPointsPass",
}
