"""Kernel parameters per x86-64 CPU family: the one table mmt4d tiles, register blocking,
K/N cache blocking and panel sizes come from.

A target's family is chosen from its LLVM processor name (``CpuTarget.cpu``: ``znver4``,
``sapphirerapids``, ``haswell``... or the host's, as LLVM names it) when its features hold the
family's instruction set; every other target (``x86-64``, ``x86-64-v2``, ``x86-64-v4``, a CPU
with features turned off, a CPU this table does not name) gets the generic family of its
widest vector ISA. docs/ARCHITECTURE.md ("Kernel parameters per CPU family") gives the
reasoning per family. Values that follow from the table:

- ``f32_tile`` (M0, N0, K0): the float mmt4d tile (f16/bf16 inputs too): M0 rows of N0 lanes
  of accumulators, each k step loads N0/lanes RHS vectors and broadcasts M0 LHS elements;
- ``mmt4d_workgroup_tiles`` (x = n1, y = m1): tiles per workgroup, an output block of about
  ``OUTPUT_BLOCK`` elements a side whose LHS and RHS panels stay in L2;
- ``panel_k``: K columns of an LHS panel packed at a time, M0 x panel_k f32 = an eighth of L2
  (``panel_block`` panels, a block, then fill half of it);
- ``panel_rhs_bytes``: the RHS size from which ``panel_block`` rows of tiles share each RHS
  column (it no longer stays in the last-level cache share of a core).

Sources: IREE ``CPUEncodingExternalModels.cpp`` (enumerateMatmulTileX86_64), oneDNN's per-ISA
brgemm / gemm blocking (``cpu/x64/gemm``), BLIS's haswell 6x16 sgemm micro-kernel, the
vendors' optimization manuals (FMA ports, L1/L2 sizes).
"""
from dataclasses import dataclass

#: The output block (elements per side) a mmt4d workgroup aims for.
OUTPUT_BLOCK = 64


@dataclass(frozen=True)
class CpuFamily:
    """One row of the table. isa: the vector ISA its kernels use (``avx512f``, ``avx2`` or
    ``sse2``); vector_registers: architectural vector registers; fma_per_cycle: vector FMAs
    issued per cycle at that ISA's width; fma_latency: cycles; l1d_bytes / l2_bytes: per core
    (the smallest of the family); cpus: LLVM processor names."""

    name: str
    isa: str
    vector_registers: int
    fma_per_cycle: int
    fma_latency: int
    l1d_bytes: int
    l2_bytes: int
    f32_tile: tuple
    cpus: tuple = ()
    panel_block: int = 4
    panel_rhs_bytes: int = 8 << 20
    #: work units an LHS-panel mmt4d aims for (mmt4d.Mmt4dPlan._row_share)
    panel_units: int = 16

    @property
    def mmt4d_workgroup_tiles(self):
        """(n1, m1) tiles per mmt4d workgroup: about OUTPUT_BLOCK x OUTPUT_BLOCK outputs."""
        m0, n0 = self.f32_tile[0], self.f32_tile[1]
        return (max(1, OUTPUT_BLOCK // n0), max(1, OUTPUT_BLOCK // max(m0, 8)))

    @property
    def panel_k(self):
        """K columns of an LHS panel packed at a time: M0 x panel_k f32 is at most an eighth
        of L2, a power of two from 256 to 2048."""
        k = 2048
        while k > 256 and self.f32_tile[0] * k * 4 > self.l2_bytes // 8:
            k //= 2
        return k


ZEN4 = CpuFamily(
    "zen4", "avx512f", 32, 1, 4, 32 << 10, 1 << 20, (16, 16, 1),
    ("znver4", "znver5"))
INTEL_AVX512 = CpuFamily(
    "intel-avx512", "avx512f", 32, 2, 4, 32 << 10, 1 << 20, (8, 32, 1),
    ("skylake-avx512", "cascadelake", "cooperlake", "icelake-server", "sapphirerapids",
     "emeraldrapids", "graniterapids"))
AVX2 = CpuFamily(
    "avx2", "avx2", 16, 2, 5, 32 << 10, 256 << 10, (6, 16, 1),
    ("x86-64-v3", "haswell", "broadwell", "skylake", "alderlake", "raptorlake", "znver1",
     "znver2", "znver3"))
GENERIC_AVX512 = CpuFamily("generic-avx512", "avx512f", 32, 1, 4, 32 << 10, 1 << 20, (16, 16, 1))
GENERIC_AVX = CpuFamily("generic-avx", "avx", 16, 1, 5, 32 << 10, 256 << 10, (8, 8, 1))
GENERIC_SSE = CpuFamily("generic-sse", "sse2", 16, 1, 5, 32 << 10, 256 << 10, (8, 4, 1))

#: The named families, looked up by LLVM processor name.
FAMILIES = (ZEN4, INTEL_AVX512, AVX2)
_BY_CPU = {cpu: family for family in FAMILIES for cpu in family.cpus}


def cpu_family(cpu, features):
    """The CpuFamily for LLVM processor ``cpu`` with enabled ``features`` (names without
    ``+``): the named family when ``features`` hold its ISA (and, for AVX2 kernels, FMA), else
    the generic family of the widest ISA in ``features``."""
    features = set(features)
    family = _BY_CPU.get(cpu)
    if family is not None and family.isa in features and "fma" in features:
        return family
    if "avx512f" in features:
        return GENERIC_AVX512
    if "avx" in features:
        return GENERIC_AVX
    return GENERIC_SSE


def family_of(target):
    """``cpu_family`` of a codegen ``CpuTarget``."""
    return cpu_family(target.cpu, target.features)
