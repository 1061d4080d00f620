"""rt.runtime.hal: IREE's HAL object model (DESIGN.md §4, §7)."""
