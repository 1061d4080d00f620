"""The vmvx target backend: portable VM bytecode executables for rt.devices.vmvx.

``BACKEND.target_config(suffix)``: ``""`` -> ``{"ukernels": "all"}`` (match Generics onto
the vmvx microkernels), ``"no-ukernels"`` -> ``{"ukernels": "none"}`` (scalar bytecode for
every Generic and Mmt4d: slower, used to cross-check the kernels). ``serialize`` returns
``("vmvx-bytecode", vmfb bytes, {"abi": "rt-vmvx-0", "sha256": ..., "exports": [...]})``.
``kernel_ir_features``: every optional Kernel IR feature (shifted sub-view copies, rodata,
workgroup scratch, push constants read by bodies). ``workgroup_tiles`` prefers large tiles: vmvx runs workgroups one after another on one
thread, so each workgroup should amortise its call overhead over many elements.
Source: IREE's VMVXTargetBackend (compiler/plugins/target/VMVX/VMVXTarget.cpp).
"""
import hashlib

from rt.compiler.targets import TargetBackend
from rt.runtime.errors import InvalidArgumentError

FORMAT = "vmvx-bytecode"
ABI = "rt-vmvx-0"
_CONFIGS = {"": {"ukernels": "all"}, "no-ukernels": {"ukernels": "none"}}
#: Workgroup tile sizes per root op kind, innermost distributed dim first.
_TILES = {"elementwise": (4096, 16), "fill": (4096, 16), "copy": (4096, 16), "broadcast": (4096, 16),
          "transpose": (256, 256), "matmul": (512, 64), "batch_matmul": (512, 64, 1), "matvec": (1024,),
          "reduction": (4096,), "conv": (64, 16, 1), "packed_conv": (64, 16, 1), "pooling": (64, 16, 1), "mmt4d": (16, 16), "batch_mmt4d": (16, 16, 1),
          "pack": (64, 64), "unpack": (256, 256), "generic": (256, 64, 1)}


class VmvxBackend(TargetBackend):
    """See the module docstring."""

    name = "vmvx"
    format = FORMAT
    #: Optional Kernel IR features the vmvx code generator implements (see kernel_ir).
    kernel_ir_features = frozenset({"op_offsets", "rodata", "scratch", "push_constant_scalars"})

    def target_config(self, spec_suffix):
        suffix = spec_suffix or ""
        if suffix not in _CONFIGS:
            raise InvalidArgumentError(
                f"vmvx target: unknown option {suffix!r}; expected 'vmvx' or 'vmvx:no-ukernels'")
        return dict(_CONFIGS[suffix])

    def workgroup_tiles(self, kernel_kind, config):
        return _TILES.get(kernel_kind, _TILES["generic"])

    def serialize(self, executable_name, kernels, config):
        from rt.compiler.codegen.vmvx import build_executable

        ukernels = (config or {}).get("ukernels", "all")
        if ukernels not in ("all", "none"):
            raise InvalidArgumentError(f"vmvx target: config ukernels={ukernels!r}; expected 'all' or 'none'")
        data = build_executable(executable_name, list(kernels), use_ukernels=ukernels == "all")
        metadata = {"abi": ABI, "sha256": hashlib.sha256(data).hexdigest(),
                    "exports": [k.name for k in kernels]}
        return FORMAT, data, metadata


BACKEND = VmvxBackend()
