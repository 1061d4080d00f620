"""Recording the HAL work of a run for replay (``--device_replay_output=FILE.rtreplay``).

``ReplayRecorder(devices)`` installs itself as the ``recorder`` of each local device; every
queue operation then reaches ``submit`` (the one hook in ``LocalDeviceCore.submit_c``) before
it is queued, on the submitting thread. ``add_outputs(values)`` notes the results to check
and ``write(path)`` saves the replay (rt.runtime.hal.replay_format); ``detach()`` stops.

Records of the manifest (indices refer to the lists of the same name):

* ``devices``: ``{"uri", "label", "formats", "threads"}`` — formats: the executable formats
  the device loads (what a replay device must load too).
* ``executables``: ``{"device", "name", "format", "data", "metadata", "exports"}`` — the
  variant the device loaded (``Executable.source``), once; exports ``{"name", "bindings",
  "constants"}`` are its ABI.
* ``allocations``: ``{"device", "size", "memory_type", "usage", "origin", "contents"}`` —
  origin ``"alloca"`` (made by a recorded ``queue_alloca``; no contents) or ``"host"`` (made
  outside the queue: inputs, constants, staging; ``contents`` is a blob of its bytes when a
  submission first used it, or None if it was not live then).
* ``buffers``: ``{"allocation", "offset", "length", "encoding"}`` — every buffer object the
  work used (an allocation or a subspan of one).
* ``semaphores``: ``{"device"}``. A timepoint is ``[semaphore, value]``.
* ``command_buffers``: ``{"device", "label", "mode", "categories", "binding_capacity",
  "commands"}``;
  commands are ``{"kind": "dispatch", "executable", "ordinal", "workgroups", "constants",
  "bindings"}``, ``fill_buffer`` (``target``, ``pattern``, ``pattern_length``),
  ``copy_buffer`` (``source``, ``target``), ``update_buffer`` (``source`` blob, ``target``),
  ``execution_barrier``, ``collective`` (``op``, its text ``describe``, ``param``, ``send``,
  ``recv``, ``element_count``, ``rank``, ``ranks``); a buffer ref is ``{"buffer", "slot", "offset",
  "length"}`` (``buffer`` None: binding-table slot ``slot``).
* ``submissions``, in submission order: ``{"device", "op", "wait", "signal", ...}`` with
  ``command_buffers`` and ``binding_table`` (``[buffer, offset, length]`` entries) for
  ``queue_execute``, ``buffer`` for ``queue_alloca`` / ``queue_dealloca``, ``command`` for
  ``queue_copy`` / ``queue_fill`` / ``queue_update``. A wait timepoint already reached when the
  operation was submitted, and signalled by no recorded operation, is left out (nothing the
  replay must wait for); the others are kept, so the replay orders work as the run did.
* ``outputs``: ``{"buffer", "contents"}`` — the results' bytes after the run, for checking.

Only local devices (``local-sync``, ``local-task``) record; ``InvalidArgumentError`` for
others. Source followed: IREE's HAL replay (``--device_replay_output``), in spirit.
"""
import threading

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.hal import replay_format
from rt.runtime.hal._buffer import AllocationState
from rt.runtime.hal.collective import CollectiveOp


class ReplayRecorder:
    """Records the queue work of ``devices`` (a sequence of local devices) until ``detach``.

    Each device's queue is drained first (a barrier, waited for up to ``settle_timeout``
    seconds: ``DeadlineExceededError`` if earlier work never finishes).
    """

    def __init__(self, devices, settle_timeout=60.0):
        self.devices = []
        self._device_index = {}
        self._lock = threading.Lock()
        self._blobs = replay_format.Blobs()
        self._keep = []  # the objects whose id() keys the tables below stay alive
        self._signaled = {}  # semaphore index -> the highest value a recorded operation signals
        self._signals = {}  # semaphore index -> the semaphore (to wait for the recorded work)
        self._index = {"executables": {}, "allocations": {}, "buffers": {}, "semaphores": {},
                       "command_buffers": {}}
        self.manifest = {"devices": [], "executables": [], "allocations": [], "buffers": [],
                         "semaphores": [], "command_buffers": [], "submissions": [],
                         "outputs": []}
        for device in devices:
            if id(device) in self._device_index:
                continue
            if not hasattr(device, "recorder"):
                raise InvalidArgumentError(
                    f"--device_replay_output: device {device.label} cannot be recorded (only "
                    "local-sync and local-task devices record HAL replays)")
            self._device_index[id(device)] = len(self.devices)
            self.devices.append(device)
            self.manifest["devices"].append({
                "uri": device.uri, "label": device.label, "threads": int(device.threads),
                "formats": sorted(set(device.executable_cache.formats))})
        for device in self.devices:
            # Work submitted before the recording (a module's initializer packing constants)
            # finishes first, so the contents recorded at first use are final.
            device.queue_barrier().wait(settle_timeout)
            device.recorder = self

    def detach(self):
        """Stop recording (the devices' ``recorder`` back to None)."""
        for device in self.devices:
            if device.recorder is self:
                device.recorder = None

    # -- tables ------------------------------------------------------------------------------

    def _entry(self, table, obj, make):
        index = self._index[table].get(id(obj))
        if index is None:
            record = make()
            index = self._index[table][id(obj)] = len(self.manifest[table])
            self.manifest[table].append(record)
            self._keep.append(obj)
        return index

    def _device(self, device):
        index = self._device_index.get(id(device))
        if index is None:
            raise InvalidArgumentError(f"--device_replay_output: the work uses {device.label}, "
                                       "which is not one of the recorded devices")
        return index

    def _allocation(self, buffer, origin):
        allocation = buffer.allocation

        def make():
            contents = None
            if origin == "host" and allocation.state is AllocationState.LIVE:
                contents = self._blobs.add(memoryview(allocation).cast("B"))
            return {"device": self._device(buffer.device), "size": allocation.byte_length,
                    "memory_type": int(buffer.memory_type_bits), "usage": int(buffer.usage_bits),
                    "origin": origin, "contents": contents}
        return self._entry("allocations", allocation, make)

    def buffer(self, buffer, origin="host"):
        """The index of ``buffer`` (a Buffer) in ``buffers``, recorded on first sight."""
        if buffer is None:
            return None
        return self._entry("buffers", buffer, lambda: {
            "allocation": self._allocation(buffer, origin), "offset": buffer.byte_offset,
            "length": buffer.byte_length,
            "encoding": None if buffer.encoding is None else str(buffer.encoding)})

    def _executable(self, executable):
        def make():
            if executable.source is None:
                raise InvalidArgumentError(
                    f"--device_replay_output: executable {executable.name} was not loaded through "
                    "an executable cache, so its bytes are unknown and it cannot be recorded")
            format, data, metadata = executable.source
            return {"device": self._device(executable.device), "name": str(executable.name),
                    "format": format, "data": self._blobs.add(data),
                    "metadata": replay_format.encode(metadata, self._blobs),
                    "exports": [{"name": e.name, "bindings": e.binding_count,
                                 "constants": e.constant_count} for e in executable.exports]}
        return self._entry("executables", executable, make)

    def _timepoints(self, device, fence, waits):
        """``[[semaphore, value], ...]`` of ``fence``; a wait already reached that no recorded
        operation signals is left out (the host or work before the recording reached it)."""
        points = []
        for semaphore, value in (fence.timepoints if fence is not None else ()):
            index = self._index["semaphores"].get(id(semaphore))
            recorded = index is not None and self._signaled.get(index, -1) >= value
            if waits and not recorded and semaphore.is_reached(value):
                continue
            index = self._entry("semaphores", semaphore, lambda: {"device": self._device(device)})
            points.append([index, int(value)])
            if not waits and self._signaled.get(index, -1) < value:
                self._signaled[index] = int(value)
                self._signals[index] = semaphore
        return points

    def _buffer_ref(self, ref):
        """A commands.BufferRef as a record."""
        return {"buffer": self.buffer(ref.buffer), "slot": ref.slot, "offset": ref.offset,
                "length": ref.length}

    def _command(self, record):
        kind = record.kind
        if kind == "dispatch":
            return {"kind": kind, "executable": self._executable(record.executable),
                    "ordinal": record.ordinal, "workgroups": list(record.workgroup_count),
                    "constants": list(record.constants),
                    "bindings": [self._buffer_ref(b) for b in record.bindings]}
        if kind == "fill_buffer":
            return {"kind": kind, "target": self._buffer_ref(record.target),
                    "pattern": record.pattern, "pattern_length": record.pattern_length}
        if kind == "copy_buffer":
            return {"kind": kind, "source": self._buffer_ref(record.source),
                    "target": self._buffer_ref(record.target)}
        if kind == "update_buffer":
            return {"kind": kind, "source": self._blobs.add(record.source),
                    "target": self._buffer_ref(record.target)}
        if kind == "collective":
            return {"kind": kind, "op": record.op, "describe": CollectiveOp.unpack(record.op).describe(),
                    "param": record.param, "send": self._buffer_ref(record.send),
                    "recv": self._buffer_ref(record.recv), "element_count": record.element_count,
                    "rank": record.channel.rank, "ranks": record.channel.count}
        return {"kind": kind}

    def _command_buffer(self, cb):
        return self._entry("command_buffers", cb, lambda: {
            "device": self._device(cb.device), "label": cb.label, "mode": int(cb.mode),
            "categories": int(cb.categories), "binding_capacity": int(cb.binding_capacity),
            "commands": [self._command(c) for c in cb.commands]})

    # -- the hook ----------------------------------------------------------------------------

    def submit(self, device, label, payload, table, wait_fence, signal_fence):
        """Record one queue operation of ``device`` (called by ``LocalDeviceCore.submit_c``)."""
        with self._lock:
            record = {"device": self._device(device), "op": label,
                      "wait": self._timepoints(device, wait_fence, True)}
            if label == "queue_execute":
                record["command_buffers"] = [self._command_buffer(cb) for cb in payload]
                record["binding_table"] = None if table is None else [
                    [self.buffer(b), int(o), int(n)] for b, o, n in table.entries()]
            elif label == "queue_alloca":
                record["buffer"] = self.buffer(payload, origin="alloca")
            elif label == "queue_dealloca":
                record["buffer"] = self.buffer(payload)
            elif payload is not None:
                record["command"] = self._command(payload.commands[0])
            record["signal"] = self._timepoints(device, signal_fence, False)
            self.manifest["submissions"].append(record)

    # -- results -----------------------------------------------------------------------------

    def add_outputs(self, values, timeout=None):
        """Note the final contents of the buffer views among ``values`` (a call's raw results:
        a BufferView, a number, or a list/tuple of them) for the replay to check, once every
        recorded operation has signalled (an async call's results are read when ready;
        ``timeout`` seconds, None: no limit)."""
        from rt.runtime.hal._buffer_view import BufferView
        from rt.runtime.hal.fence import Fence

        values = values if isinstance(values, (list, tuple)) else [values]
        with self._lock:
            pending = [(self._signals[k], v) for k, v in self._signaled.items()]
        if pending:
            Fence(pending).wait(timeout)
        with self._lock:
            for value in values:
                if isinstance(value, BufferView):
                    buffer = value.buffer
                    self.manifest["outputs"].append({
                        "buffer": self.buffer(buffer),
                        "contents": self._blobs.add(buffer.host_bytes().tobytes())})

    def write(self, path):
        """Save the recording to ``path`` (rt.runtime.hal.replay_format)."""
        with self._lock:
            replay_format.write(path, self.manifest, self._blobs)
