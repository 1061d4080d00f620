"""``python -m rt profile summary|dispatch|memory PROFILE.json [--jsonl]``: read a device profile.

The profile is what ``rt run/benchmark --device_profiling_output=PROFILE.json`` wrote
(rt.runtime.hal.profiling). ``summary``: per dispatch entry (executable, export): count, total
and mean time, GFLOP/s (from the compiler's flop estimate), GB/s (binding bytes over time) and
arithmetic intensity (flops per binding byte: the roofline's x axis; peak compute and bandwidth
of CPU devices are not known to rt, so the roofline position is given as intensity and achieved
rates); then per queue its operations and occupancy (busy time over the profile's span); then
per device the memory high-water mark. ``dispatch``: every dispatch event. ``memory``: every
alloca/dealloca event and each device's allocator statistics. ``--jsonl``: one JSON object per
line instead of a table (rows carry a ``"kind"``).

Errors: ``NotFoundError`` for a missing file, ``ModuleFormatError`` for a file that is not a
profile of this version.
"""
import json
import sys

from rt.runtime.errors import ModuleFormatError, NotFoundError

ACTIONS = ("summary", "dispatch", "memory")


def read_profile(path):
    """The profile document at ``path`` (checked: format and version)."""
    from rt.runtime.hal.profiling import FORMAT, VERSION

    try:
        with open(path) as f:
            document = json.load(f)
    except OSError as e:
        raise NotFoundError(f"cannot read profile {path!r}: {e.strerror}") from None
    except ValueError as e:
        raise ModuleFormatError(f"{path}: not a device profile (not JSON: {e})") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ModuleFormatError(f"{path}: not an rt device profile (expected format {FORMAT!r}; "
                                "write one with rt run --device_profiling_output=FILE)")
    if document.get("version") != VERSION:
        raise ModuleFormatError(f"{path}: profile version {document.get('version')!r}; this rt "
                                f"reads version {VERSION}")
    return document


def dispatch_rows(document):
    """One row per (device, executable, entry): count, times (ns), flops, bytes, rates."""
    groups = {}
    for d in document.get("dispatches", ()):
        key = (d["device"], d["executable"], d["entry"])
        g = groups.setdefault(key, {"kind": "dispatch_summary", "device": d["device"],
                                    "executable": d["executable"], "entry": d["entry"], "count": 0,
                                    "total_ns": 0, "flops": 0, "binding_bytes": 0,
                                    "flops_known": True})
        g["count"] += 1
        g["total_ns"] += d["end_ns"] - d["start_ns"]
        g["binding_bytes"] += d["binding_bytes"]
        if d.get("flops") is None:
            g["flops_known"] = False
        else:
            g["flops"] += d["flops"]
    rows = []
    for g in groups.values():
        seconds = g["total_ns"] / 1e9
        known = g.pop("flops_known")
        g["flops"] = g["flops"] if known else None
        g["mean_ns"] = g["total_ns"] / g["count"]
        g["gflops_per_s"] = g["flops"] / seconds / 1e9 if known and seconds else None
        g["gbytes_per_s"] = g["binding_bytes"] / seconds / 1e9 if seconds else None
        g["flops_per_byte"] = g["flops"] / g["binding_bytes"] if known and g["binding_bytes"] else None
        rows.append(g)
    return sorted(rows, key=lambda r: -r["total_ns"])


def queue_rows(document):
    """One row per queue: operations by kind, busy time and occupancy of the profile's span."""
    span = max(document.get("span_ns") or 0, 1)
    queues = {}
    for e in document.get("queue_events", ()):
        q = queues.setdefault((e["device"], e["queue"]), {"kind": "queue", "device": e["device"],
                                                          "queue": e["queue"], "operations": {},
                                                          "busy_ns": 0, "submit_to_start_ns": 0})
        q["operations"][e["op"]] = q["operations"].get(e["op"], 0) + 1
        q["busy_ns"] += e["end_ns"] - e["start_ns"]
        if e.get("submit_ns") is not None:
            q["submit_to_start_ns"] += max(0, e["start_ns"] - e["submit_ns"])
    for q in queues.values():
        q["occupancy"] = q["busy_ns"] / span
    return list(queues.values())


def memory_rows(document):
    """Each device's allocator statistics (``peak_bytes``: the high-water mark)."""
    return [dict(kind="memory", device=d["label"], **d["memory"])
            for d in document.get("devices", ()) if "memory" in d]


def _num(value, scale=1.0, digits=2):
    return "-" if value is None else f"{value / scale:.{digits}f}"


def summary_text(document):
    """The tables of ``rt profile summary``."""
    lines = [f"{'dispatch':<48} {'count':>6} {'total ms':>10} {'mean us':>10} {'GFLOP/s':>9} "
             f"{'GB/s':>8} {'flop/B':>8}"]
    for r in dispatch_rows(document):
        lines.append(f"{r['entry'][:48]:<48} {r['count']:>6} {_num(r['total_ns'], 1e6, 3):>10} "
                     f"{_num(r['mean_ns'], 1e3, 1):>10} {_num(r['gflops_per_s']):>9} "
                     f"{_num(r['gbytes_per_s']):>8} {_num(r['flops_per_byte']):>8}")
    lines.append("")
    lines.append(f"{'queue':<40} {'operations':<44} {'busy ms':>9} {'occupancy':>9}")
    for q in queue_rows(document):
        ops = ", ".join(f"{k} x{v}" for k, v in sorted(q["operations"].items()))
        lines.append(f"{(q['device'] + ' ' + q['queue'])[:40]:<40} {ops[:44]:<44} "
                     f"{_num(q['busy_ns'], 1e6, 3):>9} {q['occupancy']:>9.1%}")
    lines.append("")
    for m in memory_rows(document):
        lines.append(f"{m['device']}: memory high-water {m['peak_bytes']} B ({m['allocations']} "
                     f"allocations, {m['frees']} frees, {m['live_bytes']} B live at the end)")
    lines.append("(roofline: flop/B is the arithmetic intensity; rt knows no peak figures for "
                 "CPU devices, compare GFLOP/s and GB/s with the host's)")
    return "\n".join(lines) + "\n"


def statistics_text(document):
    """What ``--print_device_statistics`` prints: per device, dispatches and memory."""
    lines = []
    rows = dispatch_rows(document)
    for device in document.get("devices", ()):
        mine = [r for r in rows if r["device"] == device["label"]]
        total = sum(r["total_ns"] for r in mine)
        lines.append(f"[[ {device['label']} device statistics ]]")
        lines.append(f"  {sum(r['count'] for r in mine)} dispatches, {total / 1e6:.3f} ms")
        if "memory" in device:
            lines.append(f"  memory high-water {device['memory']['peak_bytes']} B")
    return "\n".join(lines) + "\n"


def _table(action, document):
    if action == "summary":
        return summary_text(document)
    if action == "dispatch":
        lines = [f"{'start us':>12} {'dur us':>10} {'device':<28} {'entry':<44} workgroups"]
        for d in document.get("dispatches", ()):
            lines.append(f"{d['start_ns'] / 1e3:>12.1f} {(d['end_ns'] - d['start_ns']) / 1e3:>10.1f} "
                         f"{d['device'][:28]:<28} {d['entry'][:44]:<44} {d['workgroups']}")
        return "\n".join(lines) + "\n"
    lines = [f"{'start us':>12} {'dur us':>10} {'device':<28} {'op':<16} bytes"]
    for e in document.get("memory_events", ()):
        lines.append(f"{e['start_ns'] / 1e3:>12.1f} {(e['end_ns'] - e['start_ns']) / 1e3:>10.1f} "
                     f"{e['device'][:28]:<28} {e['op']:<16} {e['bytes']}")
    lines += [f"{m['device']}: high-water {m['peak_bytes']} B" for m in memory_rows(document)]
    return "\n".join(lines) + "\n"


def _jsonl(action, document):
    if action == "summary":
        rows = dispatch_rows(document) + queue_rows(document) + memory_rows(document)
    elif action == "dispatch":
        rows = [dict(kind="dispatch", **d) for d in document.get("dispatches", ())]
    else:
        rows = [dict(kind="memory_event", **e) for e in document.get("memory_events", ())]
        rows += memory_rows(document)
    return "".join(json.dumps(r) + "\n" for r in rows)


def register(sub):
    """Add the ``profile`` subcommand to ``sub`` (argparse subparsers)."""
    p = sub.add_parser("profile", help="summarize a device profile (--device_profiling_output)")
    p.add_argument("action", choices=ACTIONS, help="summary, dispatch or memory")
    p.add_argument("profile", help="the profile .json file")
    p.add_argument("--jsonl", action="store_true", help="one JSON object per line instead of tables")
    p.set_defaults(func=main)


def main(args):
    document = read_profile(args.profile)
    sys.stdout.write((_jsonl if args.jsonl else _table)(args.action, document))
    return 0
