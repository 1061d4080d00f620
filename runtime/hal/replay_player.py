"""Re-executing a HAL replay without the VM (``rt replay run|benchmark FILE.rtreplay``).

``ReplayPlayer(replay)`` creates the recorded devices (or ``devices`` given instead), loads
each recorded executable once (``substitutions`` swap some for other binaries with the same
ABI), and ``run()`` replays every submission in recorded order: host allocations are made and
filled with their recorded contents, semaphores start at 0, command buffers are recorded again
from their typed records, and each queue operation is submitted with its recorded wait and
signal timepoints (a wait no recorded operation signals was the host's: the player signals it
before the submission). ``run`` waits for every signal and returns the outputs' bytes;
``verify`` compares them with the recording bit for bit.

Errors: ``ModuleFormatError`` for a malformed record (named: ``submission 3``, ``buffer 7``),
``InvalidArgumentError`` for a device that cannot take the recording (a format it does not
load, CPU features the host lacks) or a substitution whose ABI differs, ``CheckError`` for an output that differs, and
``DeadlineExceededError`` when the work does not finish within ``timeout`` seconds.
Source followed: IREE's HAL replay tool (``iree-run-replay``), in spirit.
"""
import contextlib
import json
import os

from rt.runtime.errors import CheckError, InvalidArgumentError, ModuleFormatError, NotFoundError, RtError
from rt.runtime.hal.commands import BufferRef
from rt.runtime.hal.fence import Fence

#: Seconds ``run`` waits for the replayed work before it reports a deadline.
DEFAULT_TIMEOUT = 300.0


@contextlib.contextmanager
def _record(path, what):
    """Turn a malformed field of record ``what`` into a ModuleFormatError naming it."""
    try:
        yield
    except (KeyError, IndexError, TypeError, ValueError) as e:
        if isinstance(e, RtError):
            raise
        raise ModuleFormatError(f"{path}: {what} is malformed ({type(e).__name__}: {e})") from None


def _substitute(path, record):
    """(format, data, metadata) of substitution file ``path`` for executable ``record``: a
    ``.vmfb`` holding an executable of the same name (or the only one of the format), or a raw
    binary of the recorded format with its metadata from ``NAME.json`` beside it
    (``rt dump --executables-to``) or else the recorded metadata."""
    if not os.path.exists(path):
        raise NotFoundError(f"--executable_substitution: file {path!r} does not exist")
    if path.endswith(".vmfb"):
        from rt.runtime.vm.module import Module

        module = Module.load(path)
        fits = [e for e in module.executables if e.format == record["format"]]
        named = [e for e in fits if e.name == record["name"] or e.name.startswith(record["name"] + "_")]
        chosen = named or (fits if len(fits) == 1 else [])
        if not chosen:
            raise InvalidArgumentError(
                f"--executable_substitution: {path} has no {record['format']} executable named "
                f"{record['name']!r} (it has: {', '.join(e.name for e in module.executables) or 'none'})")
        e = chosen[0]
        metadata = dict(e.metadata or {})
        metadata.setdefault("constants", record["metadata"].get("constants"))
        return e.format, bytes(e.data), {k: v for k, v in metadata.items() if v is not None}
    with open(path, "rb") as f:
        data = f.read()
    side = os.path.splitext(path)[0] + ".json"
    if os.path.exists(side):
        with open(side) as f:
            described = json.load(f)
        return described.get("format", record["format"]), data, described.get("metadata", {})
    return record["format"], data, record["metadata"]


class ReplayPlayer:
    """Plays ``replay`` (a ``replay_format.ReplayFile``).

    devices: device URIs to use instead of the recorded ones (one per recorded device), or
    None; substitutions: ``{executable ordinal (int) or name: path}``.
    """

    def __init__(self, replay, devices=None, substitutions=None):
        from rt.runtime.hal.driver_registry import create_device

        self.replay, self.path = replay, replay.path
        recorded = replay.records("devices")
        if devices and len(devices) != len(recorded):
            raise InvalidArgumentError(f"{self.path}: the recording has {len(recorded)} device(s) "
                                       f"({', '.join(d.get('uri', '?') for d in recorded)}), "
                                       f"got {len(devices)} --device flag(s)")
        self.devices = []
        try:
            for i, record in enumerate(recorded):
                with _record(self.path, f"device {i}"):
                    self.devices.append(create_device(devices[i] if devices else record["uri"]))
            self.substituted = {}
            self.executables = self._load_executables(dict(substitutions or {}))
        except BaseException:
            self.close()
            raise

    def _load_executables(self, substitutions):
        records = self.replay.records("executables")
        names = {r.get("name"): i for i, r in enumerate(records)}
        for key in substitutions:
            index = key if isinstance(key, int) else names.get(key)
            if index is None or not 0 <= index < len(records):
                raise InvalidArgumentError(
                    f"--executable_substitution: no executable {key!r} in {self.path}; it has: "
                    + (", ".join(f"{i}={r.get('name')}" for i, r in enumerate(records)) or "none"))
            self.substituted[index] = substitutions[key]
        executables = []
        for i, record in enumerate(records):
            what = f"executable {i} ({record.get('name')})"
            with _record(self.path, what):
                device = self.devices[record["device"]]
                record = dict(record, metadata=self.replay.decode(record["metadata"], what))
                if i in self.substituted:
                    format, data, metadata = _substitute(self.substituted[i], record)
                else:
                    format, data = record["format"], self.replay.blob(record["data"], what)
                    metadata = record["metadata"]
                if not device.executable_cache.can_prepare_format(format):
                    raise InvalidArgumentError(
                        f"{self.path}: {what} is {format!r}, which {device.label} does not load "
                        f"(it loads {', '.join(device.executable_cache.formats) or 'nothing'}); "
                        "replay on a device like the recorded one "
                        f"({self.replay.records('devices')[record['device']].get('uri')})")
                try:
                    executable = device.create_executable(format, data, metadata, name=record["name"])
                except NotFoundError as e:  # no variant fits: CPU features, ABI version
                    raise InvalidArgumentError(f"{self.path}: {what} cannot be loaded on "
                                               f"{device.label}: {e}") from None
                abi = [{"name": e.name, "bindings": e.binding_count, "constants": e.constant_count}
                       for e in executable.exports]
                expected = [(e["bindings"], e["constants"]) for e in record["exports"]]
                if [(e["bindings"], e["constants"]) for e in abi] != expected:
                    raise InvalidArgumentError(
                        f"{self.path}: {what}: the loaded executable's exports (bindings, "
                        f"constants) are {[(e['name'], e['bindings'], e['constants']) for e in abi]}, "
                        f"the recorded ones {[(e['name'], e['bindings'], e['constants']) for e in record['exports']]}; "
                        "a substitute must have the same ABI")
                executables.append(executable)
        return executables

    # -- one pass ----------------------------------------------------------------------------

    def _buffers(self, state):
        """Allocate and fill the host allocations; subspans of them become the buffers."""
        allocations = state["allocations"]
        for i, record in enumerate(self.replay.records("allocations")):
            what = f"allocation {i}"
            with _record(self.path, what):
                if record["origin"] == "alloca":
                    allocations.append(None)
                    continue
                device = self.devices[record["device"]]
                buffer = device.allocator.allocate_buffer(record["size"], record["memory_type"],
                                                          record["usage"])
                if record["contents"] is not None:
                    data = self.replay.blob(record["contents"], what)
                    if len(data) != record["size"]:
                        raise ModuleFormatError(f"{self.path}: {what}: {len(data)} bytes of "
                                                f"contents for a {record['size']}-byte allocation")
                    buffer.write(0, data)
                allocations.append(buffer)
        state["buffers"] = [None] * len(self.replay.records("buffers"))

    def _buffer(self, state, index):
        """The replay buffer of buffer record ``index`` (made on first use)."""
        if index is None:
            return None
        buffers = state["buffers"]
        what = f"buffer {index}"
        with _record(self.path, what):
            if buffers[index] is None:
                record = self.replay.records("buffers")[index]
                root = state["allocations"][record["allocation"]]
                if root is None:
                    raise ModuleFormatError(f"{self.path}: {what} is used before the queue_alloca "
                                            f"of allocation {record['allocation']} was submitted")
                if record["offset"] + record["length"] > root.byte_length:
                    raise ModuleFormatError(
                        f"{self.path}: {what}: [{record['offset']}, +{record['length']}) exceeds its "
                        f"{root.byte_length}-byte allocation {record['allocation']}")
                view = root if root.is_root and record["offset"] == 0 and \
                    record["length"] == root.byte_length else root.subspan(record["offset"], record["length"])
                if record["encoding"] is not None:
                    view.set_encoding(record["encoding"])
                buffers[index] = view
            return buffers[index]

    def _ref(self, state, ref):
        return BufferRef(self._buffer(state, ref["buffer"]), ref["slot"], ref["offset"], ref["length"])

    def _command_buffer(self, state, index):
        made = state["command_buffers"]
        if index in made:
            return made[index]
        record = self.replay.records("command_buffers")[index]
        what = f"command buffer {index}"
        with _record(self.path, what):
            cb = self.devices[record["device"]].create_command_buffer(
                record["mode"], record["categories"], record["binding_capacity"])
            cb.begin()
            for k, command in enumerate(record["commands"]):
                self._command(state, cb, command, f"{what}, command {k}")
            cb.end()
        made[index] = cb
        return cb

    def _command(self, state, cb, c, what):
        kind = c["kind"]
        if kind == "dispatch":
            cb.dispatch(self.executables[c["executable"]], c["ordinal"], tuple(c["workgroups"]),
                        tuple(c["constants"]), [self._ref(state, b) for b in c["bindings"]])
        elif kind == "fill_buffer":
            t = c["target"]
            cb.fill_buffer(self._ref(state, dict(t, offset=0, length=None)), t["offset"], t["length"],
                           c["pattern"], c["pattern_length"])
        elif kind == "copy_buffer":
            s, t = c["source"], c["target"]
            cb.copy_buffer(self._ref(state, dict(s, offset=0, length=None)), s["offset"],
                           self._ref(state, dict(t, offset=0, length=None)), t["offset"], t["length"])
        elif kind == "update_buffer":
            t = c["target"]
            cb.update_buffer(self.replay.blob(c["source"], what), 0,
                             self._ref(state, dict(t, offset=0, length=None)), t["offset"], t["length"])
        elif kind == "execution_barrier":
            cb.execution_barrier()
        elif kind == "collective":
            raise InvalidArgumentError(
                f"{self.path}: {what} is a collective ({c.get('describe')}, rank {c.get('rank')} of "
                f"{c.get('ranks')}); replaying collectives needs every rank's recording and is not "
                "supported")
        else:
            raise ModuleFormatError(f"{self.path}: {what}: unknown command kind {kind!r}")

    def _fence(self, state, points):
        if not points:
            return None
        return Fence([(state["semaphores"][s], v) for s, v in points])

    def _submit(self, state, i, record, host_signals):
        device = self.devices[record["device"]]
        for s, v in host_signals:
            semaphore = state["semaphores"][s]
            if not semaphore.is_reached(v):
                semaphore.signal(v)
        op = record["op"]
        fences = dict(wait_fence=self._fence(state, record["wait"]),
                      signal_fence=self._fence(state, record["signal"]))
        if op == "queue_execute":
            cbs = [self._command_buffer(state, k) for k in record["command_buffers"]]
            table = record["binding_table"]
            device.queue_execute(cbs, binding_table=None if table is None else [
                (self._buffer(state, b), o, n) for b, o, n in table], **fences)
        elif op == "queue_alloca":
            view = self.replay.records("buffers")[record["buffer"]]
            allocation = self.replay.records("allocations")[view["allocation"]]
            buffer = device.queue_alloca(allocation["size"], memory_type=allocation["memory_type"],
                                         usage=allocation["usage"], **fences)
            state["allocations"][view["allocation"]] = buffer
        elif op == "queue_dealloca":
            device.queue_dealloca(self._buffer(state, record["buffer"]), **fences)
        elif op == "queue_barrier":
            device.queue_barrier(**fences)
        elif op in ("queue_copy", "queue_fill", "queue_update"):
            c = record["command"]
            t = c["target"]
            target = self._buffer(state, t["buffer"])
            if op == "queue_copy":
                s = c["source"]
                device.queue_copy(self._buffer(state, s["buffer"]), s["offset"], target, t["offset"],
                                  t["length"], **fences)
            elif op == "queue_fill":
                device.queue_fill(target, t["offset"], t["length"], c["pattern"], c["pattern_length"],
                                  **fences)
            else:
                device.queue_update(self.replay.blob(c["source"], f"submission {i}"), 0, target,
                                    t["offset"], t["length"], **fences)
        else:
            raise ModuleFormatError(f"{self.path}: submission {i}: unknown queue operation {op!r}")

    def prepare(self):
        """Fresh state for one pass: host allocations filled, semaphores at 0."""
        state = {"allocations": [], "command_buffers": {}, "semaphores": []}
        for i, record in enumerate(self.replay.records("semaphores")):
            with _record(self.path, f"semaphore {i}"):
                state["semaphores"].append(self.devices[record["device"]].create_semaphore(0))
        self._buffers(state)
        return state

    def execute(self, state, timeout=DEFAULT_TIMEOUT):
        """Submit every recorded queue operation of ``state`` in order and wait for all."""
        submissions = self.replay.records("submissions")
        signaled = {}
        for record in submissions:
            for s, v in record.get("signal", ()):
                signaled[s] = max(signaled.get(s, 0), v)
        final = dict(signaled)
        for i, record in enumerate(submissions):
            with _record(self.path, f"submission {i} ({record.get('op')})"):
                host = [(s, v) for s, v in record["wait"] if signaled.get(s, 0) < v]
                for s, v in host:
                    final[s] = max(final.get(s, 0), v)
                self._submit(state, i, record, host)
        if final:
            Fence([(state["semaphores"][s], v) for s, v in final.items()]).wait(timeout)

    def outputs(self, state):
        """The bytes of each recorded output's buffer now."""
        return [bytes(self._buffer(state, o["buffer"]).host_bytes())
                for o in self.replay.records("outputs")]

    def run(self, timeout=DEFAULT_TIMEOUT):
        """One whole pass: ``prepare``, ``execute``; returns ``outputs``."""
        state = self.prepare()
        self.execute(state, timeout)
        return self.outputs(state)

    def verify(self, outputs):
        """Raise ``CheckError`` naming the first output whose bytes differ from the recording."""
        for i, (record, got) in enumerate(zip(self.replay.records("outputs"), outputs)):
            want = self.replay.blob(record["contents"], f"output {i}")
            if got != want:
                if len(got) != len(want):
                    detail = f"{len(got)} bytes, recorded {len(want)}"
                else:
                    first = next(k for k in range(len(got)) if got[k] != want[k])
                    count = sum(1 for a, b in zip(got, want) if a != b)
                    detail = f"{count} of {len(got)} bytes differ, the first at byte {first}"
                hint = (f" (executables {sorted(self.substituted)} were substituted; --no-verify "
                        "skips the check)") if self.substituted else ""
                raise CheckError(f"{self.path}: output {i} (buffer {record['buffer']}) differs from "
                                 f"the recording: {detail}{hint}")

    def close(self):
        """Release the devices the player created."""
        for device in self.devices:
            device.release()
        self.devices = []
