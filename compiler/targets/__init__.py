"""Target backends: what the compiler knows about each executable target.

A ``TargetBackend`` turns a device spec (``llvm-cpu``, ``llvm-cpu:znver4``, ``vmvx``) into an
executable target configuration (the dict behind ``#hal.executable.target<backend, format,
{config}>``), resolves encodings for data tiling, and serializes the Kernel IR of one
executable into the bytes a runtime loader accepts. Mirrors IREE's
``IREE::HAL::TargetBackend`` (compiler/src/iree/compiler/Dialect/HAL/Target/TargetBackend.h).

Backends register by name in ``BACKENDS``; the modules are imported lazily.
"""
import abc
import importlib

BACKENDS = {
    "llvm-cpu": "rt.compiler.targets.llvm_cpu",
    "vmvx": "rt.compiler.targets.vmvx",
}


class TargetBackend(abc.ABC):
    """One executable target backend.

    name: backend name (``llvm-cpu``, ``vmvx``); format: the executable format string its
    serialized executables carry (the runtime loader's format).
    """

    name: str
    format: str

    @abc.abstractmethod
    def target_config(self, spec_suffix):
        """Config dict for ``--device=NAME=<backend>[:<suffix>]`` (e.g. suffix ``znver4``):
        keys as in IREE's executable target attr (``cpu``, ``cpu_features``,
        ``target_triple``, ``native_vector_size``) plus anything the backend needs.
        Raises InvalidArgumentError for an unknown suffix, listing the valid ones."""

    @abc.abstractmethod
    def serialize(self, executable_name, kernels, config):
        """Compile ``kernels`` (a list of kernel_ir.Kernel, export order) for ``config``.

        Returns ``(format, data: bytes, metadata: dict)`` as the runtime loader expects
        (metadata must carry whatever the loader checks, e.g. cpu_features, sha256)."""

    def workgroup_tiles(self, kernel_kind, config):
        """Preferred workgroup tile sizes for a root op kind; the dispatch lowering asks."""
        return None


def get_backend(name):
    """The TargetBackend registered as ``name``; NotFoundError lists the known ones."""
    from rt.runtime.errors import NotFoundError

    if name not in BACKENDS:
        raise NotFoundError(f"unknown target backend {name!r}; known: {', '.join(sorted(BACKENDS))}")
    return importlib.import_module(BACKENDS[name]).BACKEND
