"""The host's x86 CPU features, read with CPUID and XGETBV (no LLVM).

Follows LLVM's ``sys::getHostCPUFeatures`` for x86 (llvm/lib/TargetParser/Host.cpp): the same
feature names, the same CPUID leaf/register/bit for each, and the same OS-support checks (XCR0
must show the OS saves the YMM state for AVX-class features, the opmask/ZMM state for AVX-512,
the tile state for AMX and the extended GPR state for APX). The bit positions are the ones
Intel's SDM (vol. 2A, CPUID) and AMD's APM (vol. 3, appendix E) document.
"""
from libc.stdint cimport uint32_t

cdef extern from *:
    """
    #include <cpuid.h>
    #include <stdint.h>
    /* CPUID leaf/subleaf into r[0..3] (eax, ebx, ecx, edx); 0 if the leaf is above the maximum
       of its range (basic or extended), else 1. */
    static int rt_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t *r) {
        uint32_t max = __get_cpuid_max(leaf & 0x80000000u, 0);
        if (max == 0 || leaf > max) return 0;
        __cpuid_count(leaf, subleaf, r[0], r[1], r[2], r[3]);
        return 1;
    }
    /* XCR0 (the state components the OS saves), low 32 bits; callers check OSXSAVE first. */
    static uint32_t rt_xcr0(void) {
        uint32_t lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        return lo;
    }
    """
    int rt_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t* r)
    uint32_t rt_xcr0()

# (name, leaf, subleaf, register (0..3 = eax..edx), bit, OS state it needs). State: "" none,
# "avx" YMM, "avx512" opmask+ZMM, "amx" tile config+data, "apx" extended GPRs.
_BITS = (
    ("cx8", 1, 0, 3, 8, ""), ("cmov", 1, 0, 3, 15, ""), ("mmx", 1, 0, 3, 23, ""),
    ("fxsr", 1, 0, 3, 24, ""), ("sse", 1, 0, 3, 25, ""), ("sse2", 1, 0, 3, 26, ""),
    ("sse3", 1, 0, 2, 0, ""), ("pclmul", 1, 0, 2, 1, ""), ("ssse3", 1, 0, 2, 9, ""),
    ("fma", 1, 0, 2, 12, "avx"), ("cx16", 1, 0, 2, 13, ""), ("sse4.1", 1, 0, 2, 19, ""),
    ("sse4.2", 1, 0, 2, 20, ""), ("crc32", 1, 0, 2, 20, ""), ("movbe", 1, 0, 2, 22, ""),
    ("popcnt", 1, 0, 2, 23, ""), ("aes", 1, 0, 2, 25, ""), ("xsave", 1, 0, 2, 26, "avx"),
    ("f16c", 1, 0, 2, 29, "avx"), ("rdrnd", 1, 0, 2, 30, ""),
    ("sahf", 0x80000001, 0, 2, 0, ""), ("lzcnt", 0x80000001, 0, 2, 5, ""),
    ("sse4a", 0x80000001, 0, 2, 6, ""), ("prfchw", 0x80000001, 0, 2, 8, ""),
    ("xop", 0x80000001, 0, 2, 11, "avx"), ("lwp", 0x80000001, 0, 2, 15, ""),
    ("fma4", 0x80000001, 0, 2, 16, "avx"), ("tbm", 0x80000001, 0, 2, 21, ""),
    ("mwaitx", 0x80000001, 0, 2, 29, ""), ("64bit", 0x80000001, 0, 3, 29, ""),
    ("clzero", 0x80000008, 0, 1, 0, ""), ("rdpru", 0x80000008, 0, 1, 4, ""),
    ("wbnoinvd", 0x80000008, 0, 1, 9, ""),
    ("fsgsbase", 7, 0, 1, 0, ""), ("sgx", 7, 0, 1, 2, ""), ("bmi", 7, 0, 1, 3, ""),
    ("avx2", 7, 0, 1, 5, "avx"), ("bmi2", 7, 0, 1, 8, ""), ("invpcid", 7, 0, 1, 10, ""),
    ("rtm", 7, 0, 1, 11, ""), ("avx512f", 7, 0, 1, 16, "avx512"),
    ("avx512dq", 7, 0, 1, 17, "avx512"), ("rdseed", 7, 0, 1, 18, ""), ("adx", 7, 0, 1, 19, ""),
    ("avx512ifma", 7, 0, 1, 21, "avx512"), ("clflushopt", 7, 0, 1, 23, ""),
    ("clwb", 7, 0, 1, 24, ""), ("avx512cd", 7, 0, 1, 28, "avx512"), ("sha", 7, 0, 1, 29, ""),
    ("avx512bw", 7, 0, 1, 30, "avx512"), ("avx512vl", 7, 0, 1, 31, "avx512"),
    ("avx512vbmi", 7, 0, 2, 1, "avx512"), ("pku", 7, 0, 2, 4, ""), ("waitpkg", 7, 0, 2, 5, ""),
    ("avx512vbmi2", 7, 0, 2, 6, "avx512"), ("shstk", 7, 0, 2, 7, ""), ("gfni", 7, 0, 2, 8, ""),
    ("vaes", 7, 0, 2, 9, "avx"), ("vpclmulqdq", 7, 0, 2, 10, "avx"),
    ("avx512vnni", 7, 0, 2, 11, "avx512"), ("avx512bitalg", 7, 0, 2, 12, "avx512"),
    ("avx512vpopcntdq", 7, 0, 2, 14, "avx512"), ("rdpid", 7, 0, 2, 22, ""),
    ("kl", 7, 0, 2, 23, ""), ("cldemote", 7, 0, 2, 25, ""), ("movdiri", 7, 0, 2, 27, ""),
    ("movdir64b", 7, 0, 2, 28, ""), ("enqcmd", 7, 0, 2, 29, ""), ("uintr", 7, 0, 3, 5, ""),
    ("avx512vp2intersect", 7, 0, 3, 8, "avx512"), ("serialize", 7, 0, 3, 14, ""),
    ("tsxldtrk", 7, 0, 3, 16, ""), ("pconfig", 7, 0, 3, 18, ""),
    ("amx-bf16", 7, 0, 3, 22, "amx"), ("avx512fp16", 7, 0, 3, 23, "avx512"),
    ("amx-tile", 7, 0, 3, 24, "amx"), ("amx-int8", 7, 0, 3, 25, "amx"),
    ("sha512", 7, 1, 0, 0, ""), ("sm3", 7, 1, 0, 1, ""), ("sm4", 7, 1, 0, 2, ""),
    ("raoint", 7, 1, 0, 3, ""), ("avxvnni", 7, 1, 0, 4, "avx"),
    ("avx512bf16", 7, 1, 0, 5, "avx512"), ("cmpccxadd", 7, 1, 0, 7, ""),
    ("amx-fp16", 7, 1, 0, 21, "amx"), ("hreset", 7, 1, 0, 22, ""),
    ("avxifma", 7, 1, 0, 23, "avx"), ("movrs", 7, 1, 0, 31, ""),
    ("avxvnniint8", 7, 1, 3, 4, "avx"), ("avxneconvert", 7, 1, 3, 5, "avx"),
    ("amx-complex", 7, 1, 3, 8, "amx"), ("avxvnniint16", 7, 1, 3, 10, "avx"),
    ("prefetchi", 7, 1, 3, 14, ""), ("usermsr", 7, 1, 3, 15, ""),
    ("egpr", 7, 1, 3, 21, "apx"), ("push2pop2", 7, 1, 3, 21, "apx"), ("ppx", 7, 1, 3, 21, "apx"),
    ("ndd", 7, 1, 3, 21, "apx"), ("ccmp", 7, 1, 3, 21, "apx"), ("nf", 7, 1, 3, 21, "apx"),
    ("cf", 7, 1, 3, 21, "apx"), ("zu", 7, 1, 3, 21, "apx"),
    ("xsaveopt", 0xD, 1, 0, 0, "avx"), ("xsavec", 0xD, 1, 0, 1, "avx"),
    ("xsaves", 0xD, 1, 0, 3, "avx"), ("ptwrite", 0x14, 0, 1, 4, ""),
    ("amx-fp8", 0x1E, 1, 0, 4, "amx"), ("amx-tf32", 0x1E, 1, 0, 6, "amx"),
    ("amx-avx512", 0x1E, 1, 0, 7, "amx"), ("amx-movrs", 0x1E, 1, 0, 8, "amx"),
)


cdef tuple _leaf(uint32_t leaf, uint32_t subleaf):
    cdef uint32_t r[4]
    r[0] = r[1] = r[2] = r[3] = 0
    if not rt_cpuid(leaf, subleaf, r):
        return None
    return (r[0], r[1], r[2], r[3])


def _os_state():
    """Which register states the OS saves: {"avx", "avx512", "amx", "apx"} subset (XCR0)."""
    basic = _leaf(1, 0)
    if basic is None or not (basic[2] >> 27) & 1:  # no OSXSAVE: XGETBV would fault
        return set()
    cdef uint32_t xcr0 = rt_xcr0()
    state = set()
    if (basic[2] >> 28) & 1 and (xcr0 & 0x6) == 0x6:
        state.add("avx")
        if (xcr0 & 0xE0) == 0xE0:
            state.add("avx512")
    amx = (1 << 17) | (1 << 18)
    if (xcr0 & amx) == amx:
        state.add("amx")
    if (xcr0 >> 19) & 1:
        state.add("apx")
    return state


def host_cpu_features():
    """{LLVM x86 feature name: enabled} for this host, as LLVM's host detection reports it.

    The names are those of the LLVM rt compiles with (llvmlite's LLVM 22): ``evex512``, which
    LLVM 22 no longer has, is not reported (``known_cpu_features`` still accepts it). A leaf
    above the CPU's maximum reports its features disabled. Never raises.
    """
    state = _os_state()
    leaves = {}
    features = {}
    for name, leaf, subleaf, reg, bit, needs in _BITS:
        key = (leaf, subleaf)
        if key not in leaves:
            leaves[key] = _leaf(leaf, subleaf)
            if subleaf == 1 and leaf == 7:
                # Subleaf 1 exists only if subleaf 0's EAX (the highest subleaf) is >= 1.
                top = leaves.get((7, 0)) or _leaf(7, 0)
                if top is None or top[0] < 1:
                    leaves[key] = None
        regs = leaves[key]
        features[name] = bool(regs is not None and (regs[reg] >> bit) & 1
                              and (not needs or needs in state))
    features["avx"] = "avx" in state
    ext7 = leaves.get((7, 1))
    avx10 = _leaf(0x24, 0) if ext7 is not None and (ext7[3] >> 19) & 1 else None
    version = avx10[1] & 0xFF if avx10 is not None else 0
    features["avx10.1"] = version >= 1
    features["avx10.2"] = version >= 2
    leaf19 = _leaf(0x19, 0)
    features["widekl"] = bool(leaves.get((7, 0)) is not None and leaf19 is not None
                              and (leaf19[1] >> 2) & 1)
    return features
