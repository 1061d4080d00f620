"""Loads llvm-cpu objects: ELF checks, descriptor, import resolution, mapping.

Modelled on IREE's executable loaders (runtime/src/iree/hal/local/loaders/
embedded_elf_loader.c): validate the image, resolve its imports against what the runtime
allows, map it and check the ABI version and CPU features before any export runs. The mapping
is rt's own (``image.Image``: sections into one anonymous mapping, relocations applied, pages
sealed), so running a module needs no LLVM. Loading runs no code from the object: the library
descriptor is decoded from the object's bytes (``descriptor.read_library_descriptor``) instead
of calling its ``rt_library_query``, and export addresses are looked up by symbol name.

An object may define ``abi.HOST_CPU_DATA_SYMBOL`` (8 writable bytes): the loader writes the
host's run-time feature bits there (``cpu_features.host_cpu_data``) before any export runs.

Metadata keys: ``sha256`` (required: hex digest of the object bytes; the structural checks
cannot see flipped bytes inside code or data, and running those would crash), and optionally
``cpu_features`` (``"+avx512f,..."``) and ``abi_version`` (int), checked before mapping. The
code generator (``rt.compiler.codegen.llvm_cpu.library``) writes all three.
"""
from collections.abc import Mapping

from rt.devices.llvm_cpu import _launcher, abi
from rt.devices.llvm_cpu._code_mapping import import_address
from rt.devices.llvm_cpu.cpu_features import host_cpu_data, missing_features
from rt.devices.llvm_cpu.descriptor import read_library_descriptor
from rt.devices.llvm_cpu.elf import SHF_EXECINSTR, SHF_WRITE, read_elf_object
from rt.devices.llvm_cpu.image import Image
from rt.devices.llvm_cpu.library import LlvmCpuExecutableLibrary
from rt.runtime.errors import InvalidArgumentError, ModuleFormatError, UnimplementedError
from rt.runtime.hal.executable import COSTS
from rt.runtime.hal.executable_loader import ExecutableLoader

#: objects up to this many bytes are hashed by CPython's built-in SHA-256; larger ones by
#: hashlib's OpenSSL one, faster per byte but ~3 ms to import (a run of a small module pays it).
_BUILTIN_SHA256_BYTES = 1 << 18


def _builtin_sha256():
    """CPython's built-in SHA-256 constructor, or None where the build has none."""
    for name in ("_sha256", "_sha2"):  # CPython 3.11; 3.12+
        try:
            return __import__(name).sha256
        except ImportError:
            pass
    return None


def _sha256_hex(data):
    """The SHA-256 hex digest of ``data`` (bytes)."""
    sha256 = _builtin_sha256() if len(data) <= _BUILTIN_SHA256_BYTES else None
    if sha256 is None:
        from hashlib import sha256
    return sha256(data).hexdigest()


_MATH_F32 = ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "sqrt", "cbrt",
             "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
             "asinh", "acosh", "atanh", "erf", "erfc", "fmod", "remainder", "fma", "floor",
             "ceil", "round", "roundeven", "trunc", "rint", "nearbyint", "ldexp", "frexp",
             "hypot", "copysign", "fmin", "fmax")

#: The one-core throughput work_estimate_ns assumes: f32 flops and bytes moved per ns.
SERIAL_FLOPS_PER_NS = 64
SERIAL_BYTES_PER_NS = 32

#: External symbols an llvm-cpu object may import: memory intrinsics and libm (f32 and f64).
ALLOWED_IMPORTS = frozenset(
    ("memcpy", "memmove", "memset", "bzero", "__bzero", "sincosf", "sincos")
    + _MATH_F32 + tuple(n + "f" for n in _MATH_F32)
)


def _resolve_imports(names):
    """{name: address} for every imported symbol; raise if one is not allowed or absent."""
    unknown = [n for n in names if n not in ALLOWED_IMPORTS]
    if unknown:
        raise ModuleFormatError(
            f"llvm-cpu object imports symbols the runtime does not provide: {', '.join(unknown)}; "
            f"objects may only call memcpy/memmove/memset and libm functions "
            f"(e.g. expf, logf, tanhf)")
    addresses = {n: import_address(n) for n in names}
    missing = [n for n, address in addresses.items() if not address]
    if missing:
        raise UnimplementedError(
            f"llvm-cpu object imports {', '.join(missing)}, which this process cannot resolve "
            f"(libm not loaded?); rebuild without calls to them")
    return addresses


def _write_host_cpu_data(elf, image, name):
    """Write ``host_cpu_data()`` into the object's ``abi.HOST_CPU_DATA_SYMBOL`` if it defines
    one (an 8-byte symbol of a writable section); raise ModuleFormatError for any other
    symbol of that name."""
    sym = elf.symbol(abi.HOST_CPU_DATA_SYMBOL)
    if sym is None:
        return
    if not sym.defined or sym.size != 8 or not elf.sections[sym.section].flags & SHF_WRITE:
        raise ModuleFormatError(f"llvm-cpu library '{name}': '{abi.HOST_CPU_DATA_SYMBOL}' must "
                                f"be a defined 8-byte symbol of a writable section, got size "
                                f"{sym.size} in section {sym.section}")
    image.mapping.write(image.address(sym) - image.base, host_cpu_data().to_bytes(8, "little"))


class LlvmCpuLoader(ExecutableLoader):
    """The ``llvm-cpu`` executable loader (``rt.devices.llvm_cpu.LOADER``)."""

    name = "llvm-cpu"
    formats = (abi.FORMAT,)

    def unsupported_reason(self, format, metadata):
        """None if ``format``/``metadata`` can run here, else a one-line reason. Never raises."""
        if format not in self.formats:
            return f"format {format!r} is not one of {self.formats}"
        if metadata is None:
            return None
        if not isinstance(metadata, Mapping):
            return f"metadata must be a dict, got {type(metadata).__name__}"
        version = metadata.get("abi_version", abi.ABI_VERSION)
        if version != abi.ABI_VERSION:
            return (f"built for llvm-cpu ABI version {version!r}; this runtime speaks version "
                    f"{abi.ABI_VERSION}")
        try:
            missing = missing_features(metadata.get("cpu_features", ""))
        except ValueError as e:
            return f"metadata cpu_features is malformed: {e}"
        if missing:
            return (f"requires CPU features {','.join(missing)} which this host lacks; pick a "
                    f"variant built for this host's CPU")
        return None

    def pin_workers(self, cpu_ids):
        """Pin the worker pool to ``cpu_ids`` (``_launcher.pin_workers``)."""
        _launcher.pin_workers(cpu_ids)

    def load(self, format, data, metadata):
        """Load one object and return its ``LlvmCpuExecutableLibrary``.

        format: ``"llvm-cpu-object-x86_64"``. data: the object (bytes-like). metadata: dict
        with at least ``sha256`` (see module docstring). Raises InvalidArgumentError (format,
        argument types), ModuleFormatError (malformed object or metadata, missing or wrong
        sha256, disallowed imports, bad descriptor), UnimplementedError (CPU features, ABI
        version, unresolvable imports).
        """
        if format not in self.formats:
            raise InvalidArgumentError(f"llvm-cpu loader: format {format!r} is not one of "
                                       f"{self.formats}")
        if not isinstance(metadata, Mapping):
            raise InvalidArgumentError(f"llvm-cpu loader: metadata must be a dict, got "
                                       f"{type(metadata).__name__}")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise InvalidArgumentError(f"llvm-cpu loader: data must be bytes-like, got "
                                       f"{type(data).__name__}")
        data = bytes(data)
        digest = metadata.get("sha256")
        if not isinstance(digest, str):
            raise ModuleFormatError("llvm-cpu object: metadata has no 'sha256' digest of the "
                                    "object bytes; the code generator records one in every "
                                    "executable's metadata")
        if _sha256_hex(data) != digest.lower():
            raise ModuleFormatError(f"llvm-cpu object: sha256 of the {len(data)} bytes does not "
                                    f"match the metadata's {digest!r} (corrupted executable)")
        reason = self.unsupported_reason(format, metadata)
        if reason is not None:
            error = ModuleFormatError if "malformed" in reason else UnimplementedError
            raise error(f"llvm-cpu loader: {reason}")
        elf = read_elf_object(data)
        query = elf.symbol(abi.LIBRARY_QUERY_SYMBOL)
        if query is None or not query.defined or query.binding != "GLOBAL":
            raise ModuleFormatError(f"llvm-cpu object does not define the library query "
                                    f"'{abi.LIBRARY_QUERY_SYMBOL}'")
        descriptor = read_library_descriptor(elf, data)
        self._check_descriptor(descriptor)
        image = Image(elf, data, _resolve_imports(elf.undefined_symbols))
        _write_host_cpu_data(elf, image, descriptor.name)
        fns = []
        for export, symbol in zip(descriptor.exports, descriptor.export_symbols):
            sym = elf.symbol(symbol)
            if (sym is None or not sym.defined
                    or not elf.sections[sym.section].flags & SHF_EXECINSTR):
                raise ModuleFormatError(f"llvm-cpu library '{descriptor.name}': export "
                                        f"'{export.name}' (symbol '{symbol}') is not a function "
                                        f"the object defines")
            fns.append(image.address(sym))
        assertions = metadata.get("assertions", ())
        if not isinstance(assertions, (list, tuple)) or not all(isinstance(a, str) for a in assertions):
            raise ModuleFormatError("llvm-cpu object: metadata 'assertions' must be a list of "
                                    "strings (the messages of the library's cf.assert ops)")
        costs = metadata.get(COSTS)
        costs = costs if isinstance(costs, Mapping) else {}
        work_ns = [work_estimate_ns(costs.get(e.name)) for e in descriptor.exports]
        return LlvmCpuExecutableLibrary(descriptor.name, descriptor.exports,
                                        descriptor.cpu_features, fns, (image.mapping, data), assertions,
                                        work_ns)

    @staticmethod
    def _check_descriptor(descriptor):
        name = descriptor.name
        try:
            missing = missing_features(descriptor.cpu_features)
        except ValueError as e:
            raise ModuleFormatError(f"llvm-cpu library '{name}': cpu_features: {e}") from None
        if missing:
            raise UnimplementedError(f"llvm-cpu library '{name}' requires CPU features "
                                     f"{','.join(missing)} which this host lacks")
        seen = set()
        for e in descriptor.exports:
            if e.name in seen:
                raise ModuleFormatError(f"llvm-cpu library '{name}': export '{e.name}' is "
                                        f"listed twice")
            seen.add(e.name)


def work_estimate_ns(cost):
    """The time one dispatch of an export takes on one thread, estimated in ns from its entry
    of the executable's ``costs`` metadata (``{"flops": int, "bytes": int}``,
    rt.compiler.codegen.cost), or 0 when unknown (no entry, dynamic sizes, malformed).

    A roofline of one core at a deliberately low throughput (SERIAL_FLOPS_PER_NS,
    SERIAL_BYTES_PER_NS): small dispatches reach neither peak, and an underestimate would keep
    a dispatch that needs the pool on one thread, where an overestimate only splits a small one.
    """
    if not isinstance(cost, Mapping):
        return 0
    flops, nbytes = cost.get("flops"), cost.get("bytes")
    if not isinstance(flops, int) or not isinstance(nbytes, int) or flops < 0 or nbytes <= 0:
        return 0
    return max(1, int(flops / SERIAL_FLOPS_PER_NS + nbytes / SERIAL_BYTES_PER_NS))


LOADER = LlvmCpuLoader()
