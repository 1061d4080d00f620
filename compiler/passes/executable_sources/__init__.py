"""Executable-sources passes: ``iree-hal-materialize-interfaces`` (one variant per target).
"""
