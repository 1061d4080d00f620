"""The vmvx executable loader: accepts ``"vmvx-bytecode"`` variants on any host.

vmvx needs no CPU features, so the only reasons to refuse a variant are its format and an
ABI mismatch: a variant whose metadata names an ``abi`` must name ``ABI`` ("rt-vmvx-0").
Source: IREE's iree_hal_vmvx_module_loader (runtime/src/iree/hal/local/loaders/).
"""
from rt.devices.vmvx.executable import FORMAT, VmvxExecutable
from rt.runtime.errors import InvalidArgumentError, UnimplementedError
from rt.runtime.hal.executable_loader import ExecutableLoader

ABI = "rt-vmvx-0"


class VmvxLoader(ExecutableLoader):
    """Loads ``vmvx-bytecode`` executables as :class:`VmvxExecutable`."""

    name = "vmvx"
    formats = (FORMAT,)

    def unsupported_reason(self, format, metadata):
        """None when the variant can run here, else a one-line reason (never raises)."""
        if format not in self.formats:
            return f"format {format!r} is not one of {self.formats}"
        abi = metadata.get("abi", ABI) if isinstance(metadata, dict) else ABI
        if abi != ABI:
            return f"vmvx ABI {abi!r} is not supported; this runtime implements {ABI!r}"
        return None

    def load(self, format, data, metadata):
        """Load one variant; see ExecutableLoader.load for the errors."""
        if format not in self.formats:
            raise InvalidArgumentError(f"vmvx loader: format {format!r} is not one of {self.formats}")
        reason = self.unsupported_reason(format, metadata)
        if reason is not None:
            raise UnimplementedError(f"vmvx loader: {reason}")
        return VmvxExecutable(data, metadata)


LOADER = VmvxLoader()
