"""The local drivers' command buffer: recorded commands replayed by a Cython loop.

Modelled on IREE's runtime/src/iree/hal/local/inline_command_buffer.c, but recorded first
(so a command buffer can be validated up front and replayed many times). On ``execute`` the
buffers are checked to be live, their addresses resolved into plain-int command tuples (cached
while the addresses stay the same), and ``_replay.replay`` runs them in one C loop.
"""
from rt.runtime.errors import DeviceError, InvalidArgumentError
from rt.runtime.hal.command_buffer import (
    BARRIER,
    COPY,
    DISPATCH,
    FILL,
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

    def execute(self, threads):
        addresses = self._addresses()
        if addresses != self._resolved_for:
            self._resolved = self._resolve(addresses)
            self._resolved_for = addresses
        try:
            _replay.replay(self._resolved, threads)
        except _replay.CommandFailure as failure:
            cause = failure.__cause__
            raise DeviceError(
                f"{self.label}: {self.describe_command(failure.index)} failed: {cause}"
            ) from cause


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
