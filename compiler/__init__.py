"""rt.compiler: MLIR in, ``.vmfb`` out, through IREE's phases (DESIGN.md §3)."""
