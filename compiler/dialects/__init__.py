"""rt's dialect layer on xDSL 0.74.0: one file per dialect, loaded lazily by name.

:func:`make_context` returns an xDSL ``Context`` that knows every dialect rt accepts. Our
dialects (util, flow, stream, hal, iree_encoding, iree_cpu, check, vm, io_parameters) and our extensions of
upstream ones (affine, arith, linalg, math, tensor: ops xDSL 0.74.0 lacks plus parser fixes) replace
xDSL's versions under the same names; each module is imported only when a parse first needs it.
It also shares equal integer ``DenseArrayBase`` values (:mod:`dense_array_cache`).
"""
import importlib

from xdsl.context import Context

#: dialect name -> module under rt.compiler.dialects exposing build_dialect()
RT_DIALECTS = {
    "util": "util",
    "flow": "flow",
    "stream": "stream",
    "hal": "hal",
    "iree_encoding": "iree_encoding",
    "iree_cpu": "iree_cpu",
    "check": "check",
    "arith": "arith",
    "linalg": "linalg",
    "math": "math",
    "tensor": "tensor",
    "vm": "vm",
    "io_parameters": "io_parameters",
    "shard": "shard",
    "stablehlo": "stablehlo",
    "chlo": "chlo",
    "ml_program": "ml_program",
    "tosa": "tosa",
    "iree_codegen": "iree_codegen",
    "iree_linalg_ext": "iree_linalg_ext",
    "affine": "affine",
}

#: upstream xDSL dialects rt accepts as they are
UPSTREAM_DIALECTS = ("builtin", "func", "scf", "cf", "memref", "vector", "bufferization")


def _rt_loader(module):
    def load():
        return importlib.import_module(f"rt.compiler.dialects.{module}").build_dialect()

    return load


def make_context():
    """A fresh xDSL Context with every dialect rt parses (lazily loaded)."""
    from xdsl.dialects import get_all_dialects

    from rt.compiler.dialects import dense_array_cache

    dense_array_cache.install()
    ctx = Context()
    upstream = get_all_dialects()
    for name in UPSTREAM_DIALECTS:
        ctx.register_dialect(name, upstream[name])
    for name, module in RT_DIALECTS.items():
        ctx.register_dialect(name, _rt_loader(module))
    return ctx
