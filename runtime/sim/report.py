"""The simulation report: ``--report=r.json``, ``module.report()`` and ``rt run``'s table.

Shape (times in µs rounded to the nanosecond, bytes as integers)::

    {"topology": "four-gpus", "deterministic": true, "dry_run": false, "algorithm": "auto",
     "algorithms_run": {"ring": 2, "tree": 1}, "makespan_us": 812.5,
     "devices": {"gpu0": {"busy_us": 700.0, "peak_bytes": 1048576,
                          "capacity_bytes": 17179869184, "submissions": 12,
                          "time_model": "roofline"}, ...},
     "links": {"gpu0-gpu1": {"bytes": 4096, "busy_us": 12.0}, ...}}

``algorithm`` is the topology's setting (``auto`` lets the planner choose per collective);
``algorithms_run`` counts the collectives by the algorithm each actually ran (an algorithm that
does not implement an op falls back to ring). ``dry_run`` is true when nothing was computed (rt.load(..., dry_run=True), ``--dry-run``): the
times are the roofline's and ``peak_bytes`` the virtual heaps'. ``makespan_us`` is the virtual time of the last event (every queue drained); ``busy_us`` the
time a device's queue spent running operations, without the time it waited in collectives
for other ranks; ``peak_bytes`` the high-water mark of the device's heap (allocator
statistics); a link's ``bytes`` count both directions and its ``busy_us`` is the time any
transfer was on it (links are full duplex: each direction has the full bandwidth).
"""
import json


def _us(value):
    return round(float(value), 3)


def build(simulation, busy_us):
    """The report dict of ``simulation``; ``busy_us(device)`` -> µs (after draining)."""
    devices = {}
    for device in simulation.devices:
        stats = device.allocator.query_statistics()
        devices[device.name] = {
            "busy_us": _us(busy_us(device)), "peak_bytes": int(stats.bytes_peak),
            "capacity_bytes": stats.capacity, "submissions": device.submissions,
            "time_model": device.model.mode}
    links = {key: {"bytes": int(meter.bytes), "busy_us": _us(meter.busy_until_now())}
             for key, meter in simulation.links.items()}
    return {"topology": simulation.topology.name, "deterministic": simulation.deterministic,
            "dry_run": simulation.dry_run,
            "algorithm": simulation.topology.algorithm,
            "algorithms_run": dict(sorted(simulation.algorithms_run.items())),
            "makespan_us": _us(simulation.engine.now), "devices": devices, "links": links}


def to_json(report):
    """The report as the bytes ``--report`` writes (stable key order, 2-space indent)."""
    return json.dumps(report, indent=2) + "\n"


def summary(report):
    """A short table for ``rt run``: makespan, then a line per device and per link."""
    lines = [f"simulated on {report['topology']}: makespan {report['makespan_us']:.3f} us"
             + (" (deterministic)" if report["deterministic"] else "")
             + (" (dry run: nothing computed)" if report.get("dry_run") else "")]
    width = max([len(n) for n in report["devices"]] + [len(n) for n in report["links"]] + [6])
    lines.append(f"  {'device':<{width}}  {'busy us':>12}  {'util':>6}  {'peak bytes':>14}")
    makespan = report["makespan_us"] or 1.0
    for name, d in report["devices"].items():
        lines.append(f"  {name:<{width}}  {d['busy_us']:>12.3f}  {d['busy_us'] / makespan:>6.1%}"
                     f"  {d['peak_bytes']:>14}")
    if report.get("algorithms_run"):
        ran = ", ".join(f"{name} x{count}" for name, count in report["algorithms_run"].items())
        lines.append(f"  collectives ran: {ran}")
    if report["links"]:
        lines.append(f"  {'link':<{width}}  {'busy us':>12}  {'util':>6}  {'bytes':>14}")
        for name, l in report["links"].items():
            lines.append(f"  {name:<{width}}  {l['busy_us']:>12.3f}  "
                         f"{l['busy_us'] / makespan:>6.1%}  {l['bytes']:>14}")
    return "\n".join(lines)
