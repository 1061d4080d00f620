"""rt.runtime: the VM (``rt.runtime.vm``) and the HAL (``rt.runtime.hal``).

Importable without the compiler's dependencies (xdsl): running a ``.vmfb`` needs numpy,
llvmlite and the built extensions only.
"""
