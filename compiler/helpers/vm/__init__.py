"""VM helpers: the function and module emitters of ``iree-vm-conversion``, register allocation and the
op lowerings (scalar ops, HAL imports, channels, half floats).
"""
