"""Dispatch profile tables: what each dispatch took in a real run, to replay in a simulated one.

A profile maps ``(export name, workgroup count)`` to the µs the dispatch took on a real device
(from a trace: the lower quartile of its samples, ``lower_quartile`` says why). It is read
from either form:

* a Chrome trace of a run on real devices (``rt run m.vmfb --trace=t.json``, ``rt.Tracer``):
  every dispatch slice (a complete event whose ``args`` carry ``workgroups``) is a sample;
* a profile file (``ProfileTable.write``)::

      {"format": "rt-dispatch-profile", "version": 1,
       "dispatches": [{"name": "mm_dispatch_0_matmul_64x64x64_f32", "workgroups": [1, 4, 1],
                       "us": 97.2, "samples": 3}, ...]}

A topology device names one with ``profile: p.json`` (a path relative to the topology file;
a top-level ``profile:`` applies to every device without its own). The simulator then gives
a dispatch found in the table its recorded time, whatever the device's time model, and costs
the others with the model (``measured``: the time the kernel takes now). The idea is
Vidur's and ASTRA-sim's: kernels profiled once, the system around them simulated.
"""
import json
import os
import statistics

from rt.runtime.atomic_write import atomic_write
from rt.runtime.errors import InvalidArgumentError, NotFoundError

FORMAT = "rt-dispatch-profile"


def lower_quartile(samples):
    """The lower quartile (inclusive method) of a dispatch's traced µs ``samples`` (one: itself).

    Why not the median: on a shared host contention only ever adds time to a dispatch, and a
    traced call adds its own (the traced transformer layer on 2 ranks at load 1.4: one call ~2x
    the untraced one, its 64x64x128 matmul a median 95 µs over its samples against a minimum of
    13 µs), so the median of a handful of traced calls (the warm-up among them) is what the
    dispatch took while losing its core, not what it takes in the untraced run being predicted.
    The lower quartile keeps the samples that kept their core, and unlike the minimum one
    lucky sample does not set it."""
    if len(samples) < 2:
        return float(samples[0])
    return statistics.quantiles(samples, n=4, method="inclusive")[0]


class ProfileTable:
    """``{(name, workgroups tuple): µs}``; ``samples`` counts the samples behind each entry."""

    def __init__(self, times=None, samples=None, source="<profile>"):
        self.times = dict(times or {})
        self.samples = dict(samples or {})
        self.source = source

    def __eq__(self, other):
        return isinstance(other, ProfileTable) and self.times == other.times

    def __hash__(self):
        return hash(tuple(sorted(self.times.items())))

    def __len__(self):
        return len(self.times)

    def lookup(self, name, workgroups):
        """µs of dispatch ``name`` over ``workgroups`` (3 ints), or None when not profiled."""
        return self.times.get((name, tuple(workgroups)))

    @classmethod
    def from_trace_events(cls, events, source="<trace>", statistic=lower_quartile):
        """The table of the dispatch slices among Chrome trace ``events``: per dispatch and
        workgroup count, ``statistic`` (default ``lower_quartile``) of its samples' µs."""
        found = {}
        for event in events:
            if not isinstance(event, dict) or event.get("ph") != "X" or "dur" not in event:
                continue
            args = event.get("args")
            if not isinstance(args, dict) or "workgroups" not in args:
                continue
            key = (str(event["name"]), tuple(int(w) for w in args["workgroups"]))
            found.setdefault(key, []).append(float(event["dur"]))
        return cls({k: statistic(v) for k, v in found.items()},
                   {k: len(v) for k, v in found.items()}, source)

    @classmethod
    def load(cls, path):
        """Read a profile file or a real run's trace; ``InvalidArgumentError`` naming the file
        and what is wrong (a simulated run's trace, no dispatch in it, a malformed entry)."""
        path = os.fspath(path)
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except OSError as e:
            raise NotFoundError(f"cannot read dispatch profile {path!r}: {e.strerror}") from None
        except (ValueError, UnicodeDecodeError) as e:
            raise InvalidArgumentError(f"{path}: a dispatch profile must be JSON (a profile "
                                       f"file or a --trace of a real run): {e}") from None
        if isinstance(data, dict) and data.get("format") == FORMAT:
            return cls._from_profile(data, path)
        events = data.get("traceEvents") if isinstance(data, dict) else data
        if not isinstance(events, list):
            raise InvalidArgumentError(f"{path}: expected a dispatch profile ({{\"format\": "
                                       f"\"{FORMAT}\", ...}}) or a Chrome trace, got neither")
        clock = (data.get("otherData") or {}).get("clock", "") if isinstance(data, dict) else ""
        if str(clock).startswith("simulated"):
            raise InvalidArgumentError(f"{path}: this trace is of a simulated run (virtual "
                                       "time); record the profile with --trace on real devices")
        table = cls.from_trace_events(events, path)
        if not table.times:
            raise InvalidArgumentError(f"{path}: the trace holds no dispatch slice (events with "
                                       "args.workgroups); trace a run that executes dispatches")
        return table

    @classmethod
    def _from_profile(cls, data, path):
        entries = data.get("dispatches")
        if not isinstance(entries, list):
            raise InvalidArgumentError(f"{path}: 'dispatches' must be a list of "
                                       "{name, workgroups, us} entries")
        times, samples = {}, {}
        for i, entry in enumerate(entries):
            try:
                name, workgroups, us = entry["name"], entry["workgroups"], float(entry["us"])
                key = (str(name), tuple(int(w) for w in workgroups))
            except (KeyError, TypeError, ValueError):
                raise InvalidArgumentError(
                    f"{path}: dispatches[{i}]: expected {{\"name\": str, \"workgroups\": [x, y, "
                    f"z], \"us\": number}}, got {entry!r:.80}") from None
            if len(key[1]) != 3 or not (us >= 0 and us < float("inf")):
                raise InvalidArgumentError(f"{path}: dispatches[{i}]: workgroups must be 3 "
                                           f"integers and us a finite time >= 0, got {entry!r:.80}")
            times[key] = us
            samples[key] = int(entry.get("samples", 1))
        return cls(times, samples, path)

    def to_dict(self):
        return {"format": FORMAT, "version": 1,
                "dispatches": [{"name": name, "workgroups": list(wg), "us": round(us, 3),
                                "samples": self.samples.get((name, wg), 1)}
                               for (name, wg), us in sorted(self.times.items())]}

    def write(self, path):
        atomic_write(path, (json.dumps(self.to_dict(), indent=1) + "\n").encode(),
                     what="dispatch profile")
