"""Flow-phase passes: dispatch regions outlined into executables, executables deduplicated,
dispatch tracing injected (``iree-flow-*``).
"""
