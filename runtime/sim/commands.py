"""What a finalized command buffer will do, read through its recorded commands.

The one place where the simulator reads a ``CommandBuffer``'s records (``commands``, the
typed records of rt.runtime.hal.commands); everything else sees these plain records:

* ``Dispatch(index, name, executable, ordinal, workgroups, binding_bytes)``
* ``Copy(index, source, target, nbytes)`` — buffers; a copy between devices is a transfer
* ``Fill(index, nbytes)``, ``Update(index, nbytes)``
* ``Collective(index, channel, op, param, element_count)`` — ``op`` a ``CollectiveOp``

Buffers named through a binding-table slot are resolved through the submission's binding table
(``(buffer, offset, length)`` entries, as ``queue_execute(binding_table=...)`` takes them);
without one a copy through a slot is costed as a copy within the device.
"""
from collections import namedtuple

from rt.runtime.hal.collective import CollectiveOp

Dispatch = namedtuple("Dispatch", "index name executable ordinal workgroups binding_bytes")
Copy = namedtuple("Copy", "index source target nbytes")
Fill = namedtuple("Fill", "index nbytes")
Update = namedtuple("Update", "index nbytes")
Collective = namedtuple("Collective", "index channel op param element_count")


def records(command_buffer, binding_table=None):
    """The commands of ``command_buffer`` as the records above (barriers omitted); slot
    references resolve through ``binding_table`` when given."""
    table = list(binding_table or ())

    def buffer(ref):
        if ref.buffer is None and ref.slot < len(table):
            entry = table[ref.slot]
            return entry[0] if isinstance(entry, tuple) else entry
        return ref.buffer

    out = []
    for index, cmd in enumerate(command_buffer.commands):
        kind = cmd.kind
        if kind == "dispatch":
            out.append(Dispatch(index, cmd.executable.exports[cmd.ordinal].name, cmd.executable,
                                cmd.ordinal, tuple(cmd.workgroup_count),
                                tuple(b.length for b in cmd.bindings)))
        elif kind == "copy_buffer":
            out.append(Copy(index, buffer(cmd.source), buffer(cmd.target), cmd.source.length))
        elif kind == "fill_buffer":
            out.append(Fill(index, cmd.target.length))
        elif kind == "update_buffer":
            out.append(Update(index, cmd.target.length))
        elif kind == "collective":
            out.append(Collective(index, cmd.channel, CollectiveOp.unpack(cmd.op), cmd.param,
                                  cmd.element_count))
    return out
