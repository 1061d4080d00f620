"""CPU feature lists: the host's, and parsing/checking the ``"+avx512f,+fma"`` strings.

Feature names are LLVM's x86 subtarget feature names (as ``llc -mattr`` takes them), the same
strings IREE stores in ``#hal.executable.target<..., {cpu_features = "..."}>``. The host's set
comes from CPUID/XGETBV (``_host_cpu``, which follows LLVM's ``sys::getHostCPUFeatures``), so
running a module needs no LLVM.
"""
import functools

from rt.devices.llvm_cpu._host_cpu import host_cpu_features as _detect
from rt.devices.llvm_cpu.abi import RUNTIME_FEATURES


@functools.cache
def host_cpu_features():
    """The features this host has, as a frozenset of names without ``+`` (``"avx512f"``)."""
    return frozenset(name for name, enabled in _detect().items() if enabled)


@functools.cache
def host_cpu_data():
    """The ``abi.RUNTIME_FEATURES`` bits of this host, as an int (the word the loader writes
    into an object's ``abi.HOST_CPU_DATA_SYMBOL``)."""
    have = host_cpu_features()
    return sum(1 << i for i, name in enumerate(RUNTIME_FEATURES) if name in have)


@functools.cache
def known_cpu_features():
    """Every x86 feature name the host detection reports on (enabled or not)."""
    return frozenset(_detect()) | {"x87", "evex512", "cmov", "cx8"}


def parse_feature_list(text):
    """Split ``"+a,+b,-c"`` into (enabled, disabled) tuples of names, in order.

    Empty text gives two empty tuples. Raises ValueError naming the first entry that is not
    ``+name`` or ``-name``.
    """
    if not isinstance(text, str):
        raise ValueError(f"CPU features must be a string like '+avx2,+fma', got {type(text).__name__}")
    enabled, disabled = [], []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        if len(item) < 2 or item[0] not in "+-":
            raise ValueError(f"CPU feature entry {item!r} must look like '+name' or '-name'")
        (enabled if item[0] == "+" else disabled).append(item[1:])
    return tuple(enabled), tuple(disabled)


def missing_features(text):
    """Features enabled in ``text`` that this host lacks, as sorted ``"+name"`` strings.

    Raises ValueError if ``text`` is malformed (see ``parse_feature_list``).
    """
    enabled, _ = parse_feature_list(text)
    have = host_cpu_features()
    return sorted("+" + f for f in set(enabled) if f not in have)
