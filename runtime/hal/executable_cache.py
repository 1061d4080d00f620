"""The executable cache: picks the variant of an executable a device can run, and loads it.

Follows ``iree_hal_executable_cache_t`` (runtime/src/iree/hal/executable_cache.h) plus the
variant selection IREE's compiler emits as ``hal.executable.variant`` conditions: a variant is
``(format, data, metadata)``; it fits if one of the device's loaders accepts its format and
reports no ``unsupported_reason`` (CPU features, ABI). Among fitting variants the one needing
the most CPU features (``metadata["cpu_features"]``, an iterable of feature names) wins —
the most specialised code the host can run; ties keep the first listed.
"""
from rt.runtime.errors import InvalidArgumentError, NotFoundError
from rt.runtime.hal.executable import Executable


def _feature_count(metadata):
    """How many CPU features a variant requires (``"+a,+b,-c"`` string or an iterable)."""
    features = metadata.get("cpu_features", ()) if isinstance(metadata, dict) else ()
    if isinstance(features, str):
        features = features.split(",")
    try:
        return sum(1 for f in features if str(f).strip() and not str(f).strip().startswith("-"))
    except TypeError:
        return 0


class ExecutableCache:
    """Loads executables for ``device`` using its ``loaders`` (``ExecutableLoader`` list)."""

    def __init__(self, device):
        self.device = device

    @property
    def formats(self):
        """Every executable format some loader of the device accepts."""
        return tuple(f for loader in self.device.loaders for f in loader.formats)

    def can_prepare_format(self, format):
        """True if a loader of the device accepts ``format`` (IREE's query of the same name)."""
        return format in self.formats

    def _why_not(self, format, metadata):
        """(loader, None) if the variant fits, else (None, reason)."""
        reasons = []
        for loader in self.device.loaders:
            if format not in loader.formats:
                continue
            reason = loader.unsupported_reason(format, metadata)
            if reason is None:
                return loader, None
            reasons.append(f"{loader.name}: {reason}")
        if not reasons:
            return None, (f"format {format!r} is not loadable on {self.device.label} "
                          f"(it accepts {', '.join(map(repr, self.formats)) or 'no formats'})")
        return None, "; ".join(reasons)

    def select_variant(self, variants):
        """Return ``(index, loader)`` of the best fitting variant.

        Raises ``NotFoundError`` listing every variant and why it does not fit.
        """
        if not variants:
            raise InvalidArgumentError(f"executable on {self.device.label}: no variants given")
        best, reasons = None, []
        for i, variant in enumerate(variants):
            if not (isinstance(variant, (tuple, list)) and len(variant) == 3):
                raise InvalidArgumentError(
                    f"executable variant {i}: expected (format, data, metadata), got {variant!r}"
                )
            format, _, metadata = variant
            loader, reason = self._why_not(format, metadata or {})
            if loader is None:
                reasons.append(f"  variant {i} ({format}): {reason}")
            elif best is None or _feature_count(metadata or {}) > _feature_count(variants[best[0]][2] or {}):
                best = (i, loader)
        if best is None:
            raise NotFoundError(
                f"no executable variant can run on {self.device.label}:\n" + "\n".join(reasons)
            )
        return best

    def prepare_executable(self, variants, name=None):
        """Select the best of ``variants`` [(format, data, metadata)] and load it."""
        index, loader = self.select_variant(variants)
        format, data, metadata = variants[index]
        library = loader.load(format, data, dict(metadata or {}))
        executable = Executable(self.device, library, format, name, metadata)
        executable.source = (format, data, metadata or {})
        return executable
