"""x86-64 CPU targets for llvm-cpu code generation, and object emission.

A ``CpuTarget`` names the LLVM CPU and the explicit feature list code is compiled for; the
features LLVM may emit instructions from become the object's required ``cpu_features``
(checked by the loader). Named CPUs follow the x86-64 psABI micro-architecture levels and
LLVM's processor definitions, as IREE's ``--iree-llvmcpu-target-cpu`` does; ``host`` asks
LLVM what this machine has. Objects are relocatable ELF (reloc=pic, codemodel=small) for
rt's loader (devices/llvm_cpu/image.py), as docs/ARCHITECTURE.md §4 explains.

Source: IREE compiler/plugins/target/LLVMCPU (LLVMTargetOptions, target-cpu/features handling).
"""
import functools
from dataclasses import dataclass

import llvmlite.binding as llvm

from rt.devices.llvm_cpu.cpu_features import (host_cpu_features, known_cpu_features,
                                               parse_feature_list)
from rt.runtime.errors import CompileError, InvalidArgumentError

TRIPLE = "x86_64-unknown-linux-gnu"

_V2 = ("cx16", "popcnt", "sse3", "ssse3", "sse4.1", "sse4.2", "sahf")
_V3 = _V2 + ("avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave")
_V4 = _V3 + ("avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl")
_ZNVER4 = _V4 + ("sse4a", "aes", "pclmul", "avx512vbmi", "avx512ifma", "avx512vpopcntdq",
                 "avx512vbmi2", "gfni", "vpclmulqdq", "avx512vnni", "avx512bitalg",
                 "avx512bf16", "adx", "clflushopt", "clwb", "clzero", "fsgsbase", "crc32",
                 "invpcid", "rdpid", "rdrnd", "rdseed", "sha", "shstk", "vaes", "xsavec",
                 "xsaveopt", "xsaves", "prfchw", "mwaitx", "pku", "rdpru", "wbnoinvd")

_ZNVER1 = _V3 + ("sse4a", "aes", "pclmul", "adx", "clflushopt", "clzero", "fsgsbase", "mwaitx",
                 "prfchw", "rdrnd", "rdseed", "sha", "xsavec", "xsaveopt", "xsaves")
_ZNVER2 = _ZNVER1 + ("clwb", "rdpid", "wbnoinvd")
_HASWELL = _V3 + ("aes", "pclmul", "fsgsbase", "invpcid", "rdrnd", "xsaveopt")
_SKYLAKE = _HASWELL + ("adx", "rdseed", "prfchw", "clflushopt", "xsavec", "xsaves")
_ALDERLAKE = _SKYLAKE + ("avxvnni", "gfni", "vaes", "vpclmulqdq", "sha", "movdiri", "movdir64b",
                         "rdpid", "clwb")
_SKX = _SKYLAKE + ("avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl", "clwb", "pku")
_ICX = _SKX + ("avx512vnni", "avx512vbmi", "avx512ifma", "avx512vbmi2", "avx512bitalg",
               "avx512vpopcntdq", "gfni", "vaes", "vpclmulqdq", "rdpid", "sha", "wbnoinvd")
_SPR = _ICX + ("avx512bf16", "avx512fp16", "avxvnni", "amx-tile", "amx-int8", "amx-bf16",
               "movdiri", "movdir64b")

#: Explicit features of the named CPUs (beyond the x86-64 baseline sse, sse2): the x86-64
#: psABI levels, AMD Zen 1-5 and Intel Haswell to Granite Rapids (LLVM's X86.td processor
#: definitions, reduced to the features that matter to code generation and the loader).
NAMED_CPUS = {
    "x86-64": (),
    "x86-64-v2": _V2,
    "x86-64-v3": _V3,
    "x86-64-v4": _V4,
    "znver1": _ZNVER1,
    "znver2": _ZNVER2,
    "znver3": _ZNVER2 + ("invpcid", "pku", "vaes", "vpclmulqdq"),
    "znver4": _ZNVER4,
    "znver5": _ZNVER4 + ("avx512vp2intersect", "avxvnni", "movdiri", "movdir64b", "prefetchi"),
    "haswell": _HASWELL,
    "broadwell": _HASWELL + ("adx", "rdseed", "prfchw"),
    "skylake": _SKYLAKE,
    "alderlake": _ALDERLAKE,
    "raptorlake": _ALDERLAKE,
    "skylake-avx512": _SKX,
    "cascadelake": _SKX + ("avx512vnni",),
    "cooperlake": _SKX + ("avx512vnni", "avx512bf16"),
    "icelake-server": _ICX,
    "sapphirerapids": _SPR,
    "emeraldrapids": _SPR,
    "graniterapids": _SPR + ("amx-fp16", "prefetchi"),
}

#: Features whose instructions LLVM may emit from plain IR; only these are "required".
CODEGEN_FEATURES = frozenset((
    "sse", "sse2", "sse3", "ssse3", "sse4.1", "sse4.2", "sse4a", "popcnt", "lzcnt", "bmi",
    "bmi2", "movbe", "fma", "fma4", "f16c", "avx", "avx2", "avx512f", "avx512cd", "avx512bw",
    "avx512dq", "avx512vl", "avx512vbmi", "avx512vbmi2", "avx512ifma", "avx512vnni",
    "avx512bitalg", "avx512vpopcntdq", "avx512bf16", "avx512fp16", "avx512vp2intersect",
    "avxvnni", "gfni", "vaes", "vpclmulqdq", "aes", "pclmul", "cx16", "sahf", "adx", "sha",
    "xop", "tbm", "crc32", "avx10.1", "avx10.2",
))


#: Direct implications between features (LLVM X86.td): enabling a key enables its values.
IMPLIES = {
    "sse2": ("sse",), "sse3": ("sse2",), "ssse3": ("sse3",), "sse4.1": ("ssse3",),
    "sse4.2": ("sse4.1",), "sse4a": ("sse3",), "avx": ("sse4.2",), "avx2": ("avx",),
    "fma": ("avx",), "f16c": ("avx",), "fma4": ("avx", "sse4a"), "xop": ("fma4",),
    "avx512f": ("avx2", "f16c", "fma"), "avx512cd": ("avx512f",), "avx512dq": ("avx512f",),
    "avx512bw": ("avx512f",), "avx512vl": ("avx512f",), "avx512ifma": ("avx512f",),
    "avx512vbmi": ("avx512bw",), "avx512vbmi2": ("avx512bw",), "avx512vnni": ("avx512f",),
    "avx512bitalg": ("avx512bw",), "avx512vpopcntdq": ("avx512f",), "avx512bf16": ("avx512bw",),
    "avx512fp16": ("avx512bw",), "avx512vp2intersect": ("avx512f",), "avxvnni": ("avx2",),
    "vaes": ("aes", "avx2"), "vpclmulqdq": ("avx", "pclmul"), "gfni": ("sse2",),
    "aes": ("sse2",), "pclmul": ("sse2",), "sha": ("sse2",),
}


def closure(names):
    """``names`` plus every feature they imply."""
    done, todo = set(), list(names)
    while todo:
        f = todo.pop()
        if f not in done:
            done.add(f)
            todo.extend(IMPLIES.get(f, ()))
    return done


@functools.cache
def _init_llvm():
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


@dataclass(frozen=True)
class CpuTarget:
    """An x86-64 code generation target.

    name: how the user named it (``"host"``, ``"znver4"``, ...). cpu: the LLVM processor
    name. features: enabled feature names (no ``+``), sorted, closed under ``IMPLIES``.
    reassociate_fp_reductions: float reductions may be reordered (vector partial sums);
    False keeps them in loop order (IREE's ``--iree-llvmcpu-reassociate-fp-reductions``).
    """

    name: str
    cpu: str
    features: tuple
    reassociate_fp_reductions: bool = True

    @property
    def vector_bytes(self):
        """Native vector register width in bytes: 64 (AVX-512), 32 (AVX) or 16 (SSE)."""
        if "avx512f" in self.features:
            return 64
        return 32 if "avx" in self.features else 16

    @property
    def f32_lanes(self):
        """f32 elements per native vector register."""
        return self.vector_bytes // 4

    @property
    def required_features(self):
        """The ``"+a,+b"`` string the loader checks against the host (sorted, codegen-relevant)."""
        return ",".join("+" + f for f in sorted(set(self.features) & CODEGEN_FEATURES))

    def target_machine(self, opt=3):
        """A fresh LLVM TargetMachine for this target (reloc=pic, codemodel=small).

        Codegen-relevant features not in ``features`` are passed as ``-name`` so LLVM's own
        idea of the CPU can never add an instruction set the loader would not check for.
        """
        _init_llvm()
        on = ["+" + f for f in self.features]
        off = ["-" + f for f in sorted(CODEGEN_FEATURES - set(self.features))]
        return llvm.Target.from_triple(TRIPLE).create_target_machine(
            cpu=self.cpu, features=",".join(on + off), opt=opt, reloc="pic", codemodel="small")


def cpu_target(name="host", features=""):
    """Build the ``CpuTarget`` for a CPU ``name`` plus extra ``features`` (``"+avx2,-fma"``).

    name: ``"host"`` or one of ``NAMED_CPUS``. Raises InvalidArgumentError for an unknown CPU
    or a feature name LLVM does not know.
    """
    try:
        extra_on, extra_off = parse_feature_list(features)
    except ValueError as e:
        raise InvalidArgumentError(f"llvm-cpu target features: {e}") from None
    unknown = sorted(set(extra_on + extra_off) - known_cpu_features())
    if unknown:
        raise InvalidArgumentError(f"llvm-cpu target features: unknown feature(s) {unknown}; "
                                   f"use LLVM x86 feature names such as avx2, fma, avx512f")
    if name == "host":
        _init_llvm()
        cpu, base = llvm.get_host_cpu_name(), tuple(sorted(host_cpu_features()))
    elif name in NAMED_CPUS:
        cpu, base = name, ("sse", "sse2") + NAMED_CPUS[name]
    else:
        raise InvalidArgumentError(f"llvm-cpu target CPU {name!r} is not known; expected one "
                                   f"of {['host', *NAMED_CPUS]}")
    # Turning a feature off also turns off everything that implies it (-avx drops avx2...).
    off = set(extra_off)
    enabled = sorted(f for f in closure(base + extra_on) if not closure([f]) & off)
    return CpuTarget(name, cpu, tuple(enabled))


def emit_object(module, target, opt=3):
    """Optimize an llvmlite ``ir.Module`` (or its text) for ``target``; return ELF bytes.

    Raises CompileError if LLVM rejects the IR (a code generator bug: the message carries
    LLVM's diagnostic).
    """
    machine = target.target_machine(opt)
    try:
        parsed = llvm.parse_assembly(str(module))
        parsed.triple = TRIPLE
        parsed.data_layout = str(machine.target_data)
        parsed.verify()
    except RuntimeError as e:
        raise CompileError(f"llvm-cpu codegen produced invalid LLVM IR: {e}") from None
    tuning = llvm.create_pipeline_tuning_options(speed_level=opt)
    builder = llvm.create_pass_builder(machine, tuning)
    builder.getModulePassManager().run(parsed, builder)
    return machine.emit_object(parsed)
