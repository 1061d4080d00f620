"""rt's CPUID/XGETBV host detection agrees with LLVM's on this host."""
import llvmlite.binding as llvm

from rt.devices.llvm_cpu._host_cpu import host_cpu_features as detect
from rt.devices.llvm_cpu.cpu_features import host_cpu_features, known_cpu_features


def test_detection_agrees_with_llvm():
    ours, llvms = detect(), llvm.get_host_cpu_features()
    assert set(ours) == set(llvms)
    assert {n for n, on in llvms.items() if on} == {n for n, on in ours.items() if on}


def test_host_set_is_the_enabled_names():
    assert host_cpu_features() == frozenset(n for n, on in detect().items() if on)
    assert {"sse2", "64bit"} <= host_cpu_features()
    assert host_cpu_features() <= known_cpu_features()
    assert "evex512" in known_cpu_features()
