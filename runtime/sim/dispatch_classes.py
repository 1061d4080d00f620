"""Calibrated kernel costs: each dispatch class takes ``overhead + work / throughput``.

A topology device may carry the figures ``rt calibrate`` measured (rt.runtime.sim.calibration)::

    kernels:
      matmul:      {overhead_us: 4.1, gflops: 98.5, gbps: 9.7}   # work = the dispatch's flops
      conv:        {overhead_us: 6.0, gflops: 21.0}
      elementwise: {overhead_us: 2.2, gbps: 6.4}      # work = its bytes (costs.dispatch_bytes)
      reduction:   {overhead_us: 2.5, gbps: 5.1}
      copy:        {overhead_us: 0.8, gbps: 9.7}      # copies within the device (read + write)
      fill:        {overhead_us: 0.5, gbps: 14.0}     # fills and updates (bytes written)

A compute class may also give ``gbps``: its dispatches then take ``overhead + flops / gflops
+ bytes / gbps`` (bytes: of its bindings), the time a skinny matmul spends streaming a weight
matrix that is not in cache besides its arithmetic (measured: a 32x512x512 matmul on per-rank
data ran at 48 GFLOP/s where square ones of the same flops ran at 80-90). ``rt calibrate`` fits
both terms over matmuls of square and skinny shapes.

A dispatch's class comes from its export name, which the compiler builds as IREE's
``AnnotateDispatches`` does (``main_dispatch_0_matmul_64x64x64_f32``): ``matmul``/``mmt4d``
-> matmul, ``conv`` -> conv, ``reduction`` -> reduction, anything else (elementwise, generic,
set/unset_encoding, transpose, ...) -> elementwise. A compute class (matmul, conv) whose
dispatch has no flops in the executable's cost metadata (dynamic shapes) is costed by its
bytes as an elementwise dispatch. A class the file does not list falls back to elementwise,
then to the device's roofline (``peak_gflops``/``memory_gbps``).
"""
import re
from dataclasses import dataclass

#: Classes whose work is flops (rate in 1e9 flop/s); the others' work is bytes (1e9 B/s).
COMPUTE_CLASSES = ("matmul", "conv")
BYTE_CLASSES = ("elementwise", "reduction", "copy", "fill")
CLASSES = COMPUTE_CLASSES + BYTE_CLASSES
_SUMMARY = re.compile(r"_dispatch_\d+_(.*)$")


def classify(export_name):
    """The class of a dispatch from its export name (see the module docstring)."""
    match = _SUMMARY.search(export_name)
    summary = match.group(1) if match else export_name
    if "matmul" in summary or "mmt4d" in summary:
        return "matmul"
    if "conv" in summary:
        return "conv"
    if "reduction" in summary:
        return "reduction"
    return "elementwise"


@dataclass(frozen=True)
class ClassCost:
    """One class: ``overhead_us`` (µs per dispatch: the executor's launch of its workgroups),
    ``rate`` (1e9 flop/s for a compute class, 1e9 B/s otherwise) and, for a compute class,
    ``byte_rate`` (1e9 B/s over the dispatch's bytes, rt.runtime.sim.costs.dispatch_bytes; None: no byte term)."""

    overhead_us: float
    rate: float
    byte_rate: float | None = None

    def time_us(self, work, nbytes=0):
        """overhead + work / rate (+ nbytes / byte_rate), in µs (1e9 per second is 1e3 per µs)."""
        extra = nbytes / (self.byte_rate * 1e3) if self.byte_rate else 0.0
        return self.overhead_us + work / (self.rate * 1e3) + extra


@dataclass(frozen=True)
class KernelCosts:
    """The calibrated classes of one device: ``classes`` is a tuple of ``(name, ClassCost)``."""

    classes: tuple

    def get(self, name):
        return dict(self.classes).get(name)

    def dispatch_us(self, export_name, flops, nbytes):
        """µs of one dispatch, or None when neither its class nor elementwise is known."""
        kind = classify(export_name)
        if kind in COMPUTE_CLASSES and flops and self.get(kind) is not None:
            return self.get(kind).time_us(flops, nbytes)
        cost = self.get(kind if kind not in COMPUTE_CLASSES else "elementwise")
        cost = cost or self.get("elementwise")
        return None if cost is None else cost.time_us(nbytes)

    def write_us(self, kind, nbytes):
        """µs of a ``copy`` (bytes read and written) or ``fill`` (bytes written) within the
        device, or None when the class is not calibrated."""
        cost = self.get(kind)
        return None if cost is None else cost.time_us(nbytes)

    def to_dict(self):
        out = {}
        for name, cost in self.classes:
            unit = "gflops" if name in COMPUTE_CLASSES else "gbps"
            out[name] = {"overhead_us": cost.overhead_us, unit: cost.rate}
            if cost.byte_rate is not None:
                out[name]["gbps"] = cost.byte_rate
        return out


def parse(reader, value, path):
    """``KernelCosts`` from a topology's ``devices[i].kernels`` mapping; ``reader`` is the
    topology reader (its ``fail``/``mapping``/``number`` cite the file and line)."""
    reader.mapping(value, path, CLASSES)
    classes = []
    for name in CLASSES:
        if name not in value:
            continue
        where = tuple(path) + (name,)
        unit = "gflops" if name in COMPUTE_CLASSES else "gbps"
        fields = ("overhead_us", unit) + (("gbps",) if name in COMPUTE_CLASSES else ())
        entry = reader.mapping(value[name], where, fields, required=(unit,))
        overhead = (reader.number(entry["overhead_us"], where + ("overhead_us",), strict=False,
                                  unit=" (µs)") if "overhead_us" in entry else 0.0)
        rate = reader.number(entry[unit], where + (unit,),
                             unit=" (GFLOP/s)" if unit == "gflops" else " (GB/s)")
        byte_rate = (reader.number(entry["gbps"], where + ("gbps",), unit=" (GB/s)")
                     if unit == "gflops" and "gbps" in entry else None)
        classes.append((name, ClassCost(overhead, rate, byte_rate)))
    return KernelCosts(tuple(classes))
