"""The local drivers' command buffer: recorded commands replayed by a Cython loop.

Modelled on IREE's runtime/src/iree/hal/local/inline_command_buffer.c, but recorded first
(so a command buffer can be validated up front and replayed many times). On ``execute`` the
buffers are checked to be live, their addresses resolved into plain-int command tuples (cached
while the addresses stay the same), and ``_replay.replay`` runs them in one C loop. When the
queue is traced, the loop also reports one zone per command (names and args built once per
command buffer by ``trace_zones``) and one per debug group.
"""
from rt.runtime.errors import DeviceError, InvalidArgumentError
from rt.runtime.hal.command_buffer import (
    BARRIER,
    COPY,
    DISPATCH,
    FILL,
    KIND_NAMES,
    UPDATE,
    CommandBuffer,
)
from rt.runtime.hal.drivers import _replay


class LocalCommandBuffer(CommandBuffer):
    """Command buffer of a local-sync or local-task device."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._resolved_for = None
        self._resolved = None
        self._zones = None

    def _addresses(self):
        addresses = []
        for index, buffer in enumerate(self.buffers):
            try:
                addresses.append(buffer.ptr)
            except InvalidArgumentError as error:
                user = next(i for i, c in enumerate(self.commands) if _uses(c, index))
                raise InvalidArgumentError(
                    f"{self.label}: {self.describe_command(user)} uses a buffer that is not "
                    f"usable: {error}"
                ) from None
        return tuple(addresses)

    def _resolve(self, addresses):
        resolved = []
        for cmd in self.commands:
            kind = cmd[0]
            if kind == DISPATCH:
                _, executable, ordinal, counts, constants, refs = cmd
                resolved.append((DISPATCH, executable.library.dispatch, ordinal, counts, constants,
                                 tuple(addresses[i] + off for i, off, _ in refs),
                                 tuple(n for _, _, n in refs)))
            elif kind == FILL:
                _, i, offset, length, pattern, plen = cmd
                resolved.append((FILL, addresses[i] + offset, length, pattern, plen))
            elif kind == COPY:
                _, src, s_off, dst, t_off, length = cmd
                resolved.append((COPY, addresses[src] + s_off, addresses[dst] + t_off, length))
            elif kind == UPDATE:
                _, data, dst, t_off, length = cmd
                resolved.append((UPDATE, data, addresses[dst] + t_off, length))
            else:
                resolved.append((BARRIER,))
        return resolved

    def trace_zones(self):
        """Per command: ``(debug markers before it, zone name, zone args)``, then one last
        entry ``(markers after the last command, None, None)``; a marker is a group label to
        open or None to close the innermost group."""
        if self._zones is None:
            zones = []
            for index, cmd in enumerate(self.commands):
                markers = tuple(self.debug_markers.get(index, ()))
                zones.append((markers, *_zone(index, cmd)))
            zones.append((tuple(self.debug_markers.get(len(self.commands), ())), None, None))
            self._zones = zones
        return self._zones

    def execute(self, threads, sink=None, lane=None):
        addresses = self._addresses()
        if addresses != self._resolved_for:
            self._resolved = self._resolve(addresses)
            self._resolved_for = addresses
        try:
            if sink is None:
                _replay.replay(self._resolved, threads)
            else:
                _replay.replay(self._resolved, threads, sink, lane, self.trace_zones())
        except _replay.CommandFailure as failure:
            cause = failure.__cause__
            raise DeviceError(
                f"{self.label}: {self.describe_command(failure.index)} failed: {cause}"
            ) from cause


def _zone(index, cmd):
    """(name, args) of the trace zone of recorded command ``cmd``."""
    kind = cmd[0]
    if kind == DISPATCH:
        _, executable, ordinal, counts, _, refs = cmd
        return executable.exports[ordinal].name, {
            "command": index, "executable": executable.name, "ordinal": ordinal,
            "workgroups": list(counts), "bindings": [n for _, _, n in refs]}
    if kind == FILL:
        return KIND_NAMES[kind], {"command": index, "bytes": cmd[3],
                                  "pattern": f"0x{cmd[4]:0{2 * cmd[5]}x}"}
    if kind == COPY:
        return KIND_NAMES[kind], {"command": index, "bytes": cmd[5]}
    if kind == UPDATE:
        return KIND_NAMES[kind], {"command": index, "bytes": cmd[4]}
    return KIND_NAMES[kind], {"command": index}


def _uses(command, index):
    kind = command[0]
    if kind == DISPATCH:
        return any(i == index for i, _, _ in command[5])
    if kind == FILL:
        return command[1] == index
    if kind == COPY:
        return index in (command[1], command[3])
    if kind == UPDATE:
        return command[2] == index
    return False
