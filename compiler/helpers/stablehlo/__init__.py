"""StableHLO input helpers: IR builders, the elementwise op emitters (tensors and scalars) and
the dot, control-flow and gather/scatter/window/convolution lowerings used by
``iree-stablehlo-to-iree-input``.
"""
