"""``rt run`` / ``rt benchmark`` flags that capture device work: replay and profiling.

``--device_replay_output=FILE.rtreplay`` records the HAL work of one call (``rt run``: the
call; ``rt benchmark``: one extra call before the warmup) with its outputs
(rt.runtime.hal.replay_recorder); ``rt replay run|benchmark|dump FILE`` plays it back.
``--device_profiling_mode=queue-events,dispatch-events,memory-events`` (IREE's names; default
all three when only the output is given), ``--device_profiling_output=FILE.json`` and
``--print_device_statistics`` profile every call (rt.runtime.hal.profiling); ``rt profile``
reads the file.

``Capture(args, tracer)`` makes the trace sink the module is loaded with (the tracer, the
profiler, or both); ``record(module, call)`` runs ``call()`` -> raw results under the replay
recorder; ``write(module)`` saves what was asked. Not available on simulated topologies or
SPMD ranks (``InvalidArgumentError``), whose devices do not record.
"""
import json
import sys

from rt.runtime.errors import InvalidArgumentError

FLAGS = ("device_replay_output", "device_profiling_output")


def add_arguments(parser):
    """The capture flags of ``run`` and ``benchmark``."""
    parser.add_argument("--device_replay_output", default=None, metavar="FILE.rtreplay",
                        help="record the HAL work of a call for rt replay (run: the call; "
                             "benchmark: one extra call first)")
    parser.add_argument("--device_profiling_mode", default=None, metavar="MODES",
                        help="comma list of queue-events, dispatch-events, memory-events "
                             "(IREE's names; default: all)")
    parser.add_argument("--device_profiling_output", default=None, metavar="FILE.json",
                        help="write the device profile (read it with rt profile summary FILE)")
    parser.add_argument("--print_device_statistics", action="store_true",
                        help="print per-device dispatch, queue and memory statistics after the run")


class Capture:
    """The replay recorder and device profiler a run was asked for."""

    def __init__(self, args, tracer):
        from rt.runtime.hal.profiling import DeviceProfiler, TeeSink, parse_modes

        self.args = args
        profiling = args.device_profiling_mode is not None or args.device_profiling_output \
            or args.print_device_statistics
        if (profiling or args.device_replay_output) and (
                getattr(args, "topology", None) or getattr(args, "deterministic", False)
                or getattr(args, "ranks", None) is not None or getattr(args, "channel", None)):
            raise InvalidArgumentError(
                "--device_replay_output and --device_profiling_* record local devices; a "
                "simulated topology or SPMD ranks do not record (use --trace there)")
        if args.device_profiling_mode is not None and not (args.device_profiling_output
                                                            or args.print_device_statistics):
            raise InvalidArgumentError("--device_profiling_mode needs --device_profiling_output=FILE "
                                       "or --print_device_statistics to report the profile")
        self.profiler = DeviceProfiler(parse_modes(args.device_profiling_mode)) if profiling else None
        sinks = [s for s in (tracer, self.profiler) if s is not None]
        self.sink = sinks[0] if len(sinks) == 1 else TeeSink(sinks) if sinks else None
        self.recorder = None

    def record(self, module, call):
        """``call()`` (-> raw VM results), recorded when ``--device_replay_output`` was given."""
        if not self.args.device_replay_output:
            return call()
        from rt.runtime.hal.replay_recorder import ReplayRecorder

        self.recorder = ReplayRecorder(module.devices)
        try:
            raw = call()
            self.recorder.add_outputs(raw)
        finally:
            self.recorder.detach()
        return raw

    def write(self, module):
        """Save the replay and the profile, print the device statistics."""
        if self.recorder is not None:
            self.recorder.write(self.args.device_replay_output)
        if self.profiler is None:
            return
        document = self.profiler.to_json(module.devices)
        if self.args.device_profiling_output:
            from rt.runtime.atomic_write import atomic_write

            atomic_write(self.args.device_profiling_output, json.dumps(document, indent=1),
                         what="the device profile")
        if self.args.print_device_statistics:
            from rt.profile_report import statistics_text

            sys.stdout.write(statistics_text(document))
