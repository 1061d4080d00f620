"""``python -m rt replay run|benchmark|dump FILE.rtreplay``: play back a recorded HAL run.

    python -m rt replay run r.rtreplay [--no-verify] [--device=URI]...
                        [--executable_substitution=ORDINAL_OR_NAME=PATH]...
    python -m rt replay benchmark r.rtreplay [--benchmark_min_time=T|Ts|Nx] [--benchmark_repetitions=N]
    python -m rt replay dump r.rtreplay

``run`` re-executes the recording without the VM (rt.runtime.hal.replay_player) and checks
every output bit for bit against the recorded bytes (``--no-verify`` skips the check and prints
the outputs' sizes and first bytes instead). ``benchmark`` times whole replay passes (uploading
the recorded host contents, then the queue work) as iree-benchmark-module reports.
``dump`` prints the recording. ``--executable_substitution`` swaps executable ORDINAL (its
index in ``dump``) or NAME for PATH: a ``.vmfb`` holding an executable of that name, or a
binary of the same format (``rt dump M.vmfb --executables-to=DIR`` writes them, with the
metadata beside as ``NAME.json``); its exports must have the recorded ABI. ``--device`` replays
on other devices (one per recorded device).
"""
import sys

from rt.runtime.errors import InvalidArgumentError

ACTIONS = ("run", "benchmark", "dump")


def register(sub):
    """Add the ``replay`` subcommand to ``sub`` (argparse subparsers)."""
    p = sub.add_parser("replay", help="run, time or print a HAL replay (--device_replay_output)")
    p.add_argument("action", choices=ACTIONS, help="run, benchmark or dump")
    p.add_argument("replay", help="the .rtreplay file")
    p.add_argument("--no-verify", dest="verify", action="store_false",
                   help="run: do not compare the outputs with the recording")
    p.add_argument("--device", action="append", default=[], metavar="URI",
                   help="replay on this device instead of the recorded one (one per recorded device)")
    p.add_argument("--executable_substitution", action="append", default=[],
                   metavar="ORDINAL_OR_NAME=PATH", help="swap one executable for PATH (repeatable)")
    p.add_argument("--benchmark_min_time", default="0.5s", metavar="T|Ts|Nx",
                   help="benchmark: per repetition, iterate until T seconds or N iterations")
    p.add_argument("--benchmark_repetitions", type=int, default=1, metavar="N",
                   help="benchmark: Google Benchmark repetitions")
    p.set_defaults(func=main)


def _substitutions(specs):
    table = {}
    for spec in specs:
        key, sep, path = spec.partition("=")
        if not sep or not key or not path:
            raise InvalidArgumentError(f"--executable_substitution={spec}: expected "
                                       "ORDINAL_OR_NAME=PATH (e.g. 0=kernel.o or mlp_dispatch_0=other.vmfb)")
        table[int(key) if key.isdigit() else key] = path
    return table


def dump_text(replay):
    """A readable listing of a replay file."""
    m = replay.manifest
    lines = [f"HAL replay {replay.path} (format {m['format']} version {m['version']})"]
    for i, d in enumerate(replay.records("devices")):
        lines.append(f"device {i}: {d['uri']} ({d['label']}, formats: {', '.join(d['formats'])})")
    for i, e in enumerate(replay.records("executables")):
        exports = ", ".join(f"{x['name']}({x['bindings']} bindings, {x['constants']} constants)"
                            for x in e["exports"])
        lines.append(f"executable {i}: {e['name']} on device {e['device']}, {e['format']}: {exports}")
    for i, a in enumerate(replay.records("allocations")):
        contents = "" if a["contents"] is None else ", contents recorded"
        lines.append(f"allocation {i}: {a['size']} B on device {a['device']} ({a['origin']}{contents})")
    for i, b in enumerate(replay.records("buffers")):
        lines.append(f"buffer {i}: allocation {b['allocation']} [{b['offset']}, +{b['length']})"
                     + (f" encoding {b['encoding']}" if b["encoding"] else ""))
    for i, cb in enumerate(replay.records("command_buffers")):
        lines.append(f"command buffer {i} on device {cb['device']} ({len(cb['commands'])} commands):")
        for k, c in enumerate(cb["commands"]):
            lines.append(f"  {k}: {_command_text(replay, c)}")
    for i, s in enumerate(replay.records("submissions")):
        what = (f" command buffers {s['command_buffers']}" if "command_buffers" in s
                else f" buffer {s['buffer']}" if "buffer" in s
                else f" {_command_text(replay, s['command'])}" if "command" in s else "")
        lines.append(f"submission {i}: device {s['device']} {s['op']}{what} wait {_points(s['wait'])} "
                     f"signal {_points(s['signal'])}")
    for i, o in enumerate(replay.records("outputs")):
        lines.append(f"output {i}: buffer {o['buffer']}")
    return "\n".join(lines) + "\n"


def _points(points):
    return "[" + ", ".join(f"semaphore {s} >= {v}" for s, v in points) + "]"


def _ref_text(ref):
    where = f"buffer {ref['buffer']}" if ref["buffer"] is not None else f"slot {ref['slot']}"
    return f"{where}[{ref['offset']}, +{ref['length']})"


def _command_text(replay, c):
    kind = c["kind"]
    if kind == "dispatch":
        e = replay.records("executables")[c["executable"]]
        entry = e["exports"][c["ordinal"]]["name"]
        return (f"dispatch {entry} (executable {c['executable']}) workgroups {c['workgroups']} "
                f"constants {c['constants']} bindings " + ", ".join(_ref_text(b) for b in c["bindings"]))
    if kind == "fill_buffer":
        return f"fill_buffer {_ref_text(c['target'])} pattern 0x{c['pattern']:x} ({c['pattern_length']} B)"
    if kind == "copy_buffer":
        return f"copy_buffer {_ref_text(c['source'])} -> {_ref_text(c['target'])}"
    if kind == "update_buffer":
        return f"update_buffer -> {_ref_text(c['target'])}"
    if kind == "collective":
        return f"collective {c['describe']} x{c['element_count']} rank {c['rank']} of {c['ranks']}"
    return kind


def main(args):
    from rt.runtime.hal.replay_format import ReplayFile

    replay = ReplayFile(args.replay)
    try:
        if args.action == "dump":
            sys.stdout.write(dump_text(replay))
            return 0
        return _play(args, replay)
    finally:
        replay.close()


def _play(args, replay):
    from rt.runtime.hal.replay_player import ReplayPlayer

    player = ReplayPlayer(replay, devices=args.device or None,
                          substitutions=_substitutions(args.executable_substitution))
    try:
        if args.action == "run":
            outputs = player.run()
            if args.verify:
                player.verify(outputs)
                print(f"replayed {len(replay.records('submissions'))} submissions on "
                      f"{len(player.devices)} device(s); {len(outputs)} output(s) match the recording")
            else:
                for i, data in enumerate(outputs):
                    print(f"output {i}: {len(data)} B, first bytes {data[:16].hex()}")
            return 0
        from rt import benchmark_runner as gbench

        if args.benchmark_repetitions < 1:
            raise InvalidArgumentError(f"--benchmark_repetitions must be >= 1, got {args.benchmark_repetitions}")
        min_time = gbench.parse_min_time(args.benchmark_min_time)
        player.run()
        rows, _ = gbench.measure(player.run, min_time, args.benchmark_repetitions, "BM_replay/real_time")
        rows += gbench.aggregates(rows)
        ctx = gbench.context()
        sys.stderr.write(gbench.context_text(ctx))
        sys.stdout.write(gbench.report(rows, "console", ctx))
        return 0
    finally:
        player.close()
