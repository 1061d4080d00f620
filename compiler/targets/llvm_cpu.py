"""The ``llvm-cpu`` target backend: x86-64 CPU configs, workgroup tiles, object serialization.

Device specs: ``llvm-cpu`` (this host's CPU), ``llvm-cpu:host``, ``llvm-cpu:<cpu>`` for each
of ``NAMED_CPUS`` (``x86-64``, ``x86-64-v2`` / ``-v3`` / ``-v4``, AMD ``znver1``..``znver5``,
Intel ``haswell``..``graniterapids``). The config
is the dict behind ``#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64", {...}>``:
``cpu`` (LLVM processor name), ``cpu_features`` (every enabled feature, ``"+a,+b"``),
``target_triple``, ``native_vector_size`` (bytes) and ``target`` (the spec's CPU name).
``serialize`` compiles a list of kernel_ir.Kernel into one relocatable object with
``kernel_codegen.emit_kernel`` and ``LibraryBuilder``, exactly what
``rt.devices.llvm_cpu.LOADER`` loads.

Source: IREE compiler/plugins/target/LLVMCPU (LLVMCPUTarget.cpp, LLVMTargetOptions) and the
tile-size heuristics of KernelDispatch.cpp, reduced to one table per op kind.
"""
import dataclasses

from rt.compiler.codegen.llvm_cpu.kernel_codegen import emit_kernel
from rt.compiler.codegen.llvm_cpu.library import LibraryBuilder
from rt.compiler.codegen.llvm_cpu.target import NAMED_CPUS, TRIPLE, CpuTarget, cpu_target
from rt.compiler.targets import TargetBackend
from rt.compiler.targets.cpu_families import family_of
from rt.devices.llvm_cpu import abi
from rt.devices.llvm_cpu.cpu_features import known_cpu_features, parse_feature_list
from rt.runtime.errors import CompileError, InvalidArgumentError

#: Workgroup tiles per root-op kind, innermost distributed dim first (x, y, z). A matmul's
#: x is n and y is m; an elementwise op's x is its innermost parallel dim. Pack, unpack and
#: mmt4d count outer (tile) dims: mmt4d and batch_mmt4d take their CPU family's
#: ``mmt4d_workgroup_tiles`` (cpu_families: a 64 x 64 output block, 4 x 4 tiles of 16 x 16 on
#: Zen 4, whose LHS and RHS panels stay in L2; a 1024^3 matmul still has 256 workgroups);
#: pack and unpack see ``relayout_tiles``. A packed-filter conv tiles its output
#: pixels (x: the row, y: rows, z: the batch) and keeps every channel in one workgroup: one
#: output row per workgroup reads KH input rows and the whole packed filter once.
WORKGROUP_TILES = {
    "matmul": (128, 32),
    "batch_matmul": (128, 32, 1),
    # one m1 per workgroup row; the kernel regroups them (mmt4d.Mmt4dPlan._row_share): blocks
    # of rows sharing their n1 tiles, whole rows when M has enough rows of tiles
    "mmt4d_lhs_panel": (8, 1),
    "unpack": (8, 8, 1),
    "conv": (64, 8, 1),
    "packed_conv": (64, 1, 1),
    "pooling": (64, 8, 1),
    "reduction": (256, 8),
    "matvec": (256,),
    "attention": (32, 1),
}
DEFAULT_TILES = (8192, 16, 4)


def relayout_tiles(vector_bytes):
    """Pack tiles for a target with ``vector_bytes`` registers: x spans 8 f32 vectors of
    columns (whole transposed blocks for an LHS pack), y 8 outer tiles (an RHS pack then writes
    at most 8 packed panels at a time: more, 64 KiB apart, thrash the L1 sets), z one batch
    (a batch_matmul operand's pack splits over batch x tiles, not tiles alone)."""
    return (2 * vector_bytes, 8, 1)


class LlvmCpuBackend(TargetBackend):
    """rt.compiler.targets.get_backend("llvm-cpu")."""

    name = "llvm-cpu"
    format = abi.FORMAT
    #: Optional Kernel IR features this backend's code generator implements.
    kernel_ir_features = frozenset({"op_offsets", "rodata", "scratch", "push_constant_scalars",
                                    "in_place_mmt4d", "attention"})

    def target_config(self, spec_suffix):
        """Config for ``llvm-cpu[:<cpu>]``; InvalidArgumentError lists the known CPUs."""
        cpu = spec_suffix or "host"
        if cpu != "host" and cpu not in NAMED_CPUS:
            raise InvalidArgumentError(f"llvm-cpu target CPU {cpu!r} is not known; expected "
                                       f"one of {', '.join(['host', *NAMED_CPUS])}")
        target = cpu_target(cpu)
        return {
            "target": cpu,
            "cpu": target.cpu,
            "cpu_features": ",".join("+" + f for f in target.features),
            "target_triple": TRIPLE,
            "native_vector_size": target.vector_bytes,
        }

    def workgroup_tiles(self, kernel_kind, config):
        """Tiles (x, y, z order) for a root op of ``kernel_kind``; see WORKGROUP_TILES and
        ``relayout_tiles``."""
        if kernel_kind == "pack":
            return relayout_tiles(_vector_bytes(config))
        if kernel_kind in ("mmt4d", "batch_mmt4d"):
            family = family_of(target_from_config(config))
            return family.mmt4d_workgroup_tiles + ((1,) if kernel_kind == "batch_mmt4d" else ())
        return WORKGROUP_TILES.get(kernel_kind, DEFAULT_TILES)

    def serialize(self, executable_name, kernels, config):
        """Compile ``kernels`` into ``(format, data, metadata)`` for the llvm-cpu loader.

        Raises CompileError for a malformed config or Kernel IR the code generator rejects.
        """
        target = target_from_config(config)
        library = LibraryBuilder(executable_name, target)
        for kernel in kernels:
            emit_kernel(library, kernel)
        obj = library.build()
        return obj.format, obj.data, obj.metadata


def _vector_bytes(config):
    size = (config or {}).get("native_vector_size")
    return size if isinstance(size, int) else 64


def target_from_config(config):
    """The CpuTarget a config dict describes (as written by ``target_config`` or by hand, as in
    IREE's ``{cpu_features = "+avx512f", target_triple = "x86_64-..."}``)."""
    config = {k: getattr(v, "data", v) for k, v in dict(config or {}).items()}
    triple = str(config.get("target_triple", TRIPLE))
    if not triple.startswith("x86_64"):
        raise CompileError(f"llvm-cpu: target_triple {triple!r} is not x86_64; this backend "
                           f"emits x86-64 objects only")
    name = str(config.get("target", config.get("cpu", "x86-64")))
    reassociate = config.get("reassociate_fp_reductions", True)
    if not isinstance(reassociate, bool):
        raise CompileError(f"llvm-cpu: reassociate_fp_reductions must be true or false, got {reassociate!r}")
    if name == "host" and "cpu_features" not in config:
        return dataclasses.replace(cpu_target("host"), reassociate_fp_reductions=reassociate)
    try:
        on, off = parse_feature_list(str(config.get("cpu_features", "")))
    except ValueError as e:
        raise CompileError(f"llvm-cpu: cpu_features: {e}") from None
    unknown = sorted(set(on) - known_cpu_features())
    if unknown:
        raise CompileError(f"llvm-cpu: cpu_features names unknown feature(s) {unknown}")
    base = name if name in NAMED_CPUS else "x86-64"
    extra = ",".join([f"+{f}" for f in on] + [f"-{f}" for f in off])
    target = cpu_target(base, extra)
    cpu = str(config.get("cpu", target.cpu))
    return CpuTarget(name, cpu if cpu != "host" else target.cpu, target.features, reassociate)


BACKEND = LlvmCpuBackend()
