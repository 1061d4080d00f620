"""A simulated run as a Chakra execution trace (MLCommons' schema, replayable by ASTRA-sim).

``ChakraRecorder(simulation)`` listens to the simulation's queue operations from the moment it
is created; ``write(prefix)`` writes ``PREFIX.{index}.et`` for every device of the topology
(``index``: the device's position in the topology, Chakra's rank) and
``PREFIX.comm_groups.json``. ``rt run ... --chakra-trace=PREFIX`` does both around the call.

What maps to what (each stage of a queue operation, rt.runtime.sim.costs, is one node):

* a dispatch, fill, update or same-device copy: ``COMP_NODE`` with ``num_ops`` (the
  dispatch's flops, 0 when unknown) and ``tensor_size`` (the bytes it moves, rt.runtime.sim.costs.dispatch_bytes / bytes
  written);
* a collective: ``COMM_COLL_NODE`` with ``comm_type`` (ALL_REDUCE, ALL_GATHER,
  REDUCE_SCATTER, ALL_TO_ALL, BROADCAST, REDUCE), ``comm_size`` (bytes of the larger of the
  rank's send and receive buffers) and ``pg_name`` (the channel's group, listed with its ranks
  in ``PREFIX.comm_groups.json``); a channel send / recv / send_recv: ``COMM_SEND_NODE`` /
  ``COMM_RECV_NODE`` with ``comm_src``, ``comm_dst`` and a ``comm_tag`` both sides share;
* a transfer between devices (``flow.tensor.transfer``, a cross-device copy):
  ``COMM_SEND_NODE`` on the source and ``COMM_RECV_NODE`` on the target with ``comm_size``
  bytes and a shared ``comm_tag``.

Dependencies reproduce the run's order: each node of a device's queue depends on the queue's
previous node (queue order: listed in ``ctrl_deps`` and, because ASTRA-sim's ET feeder
schedules a node once its ``data_deps`` are done and reads nothing else, in ``data_deps``
too); the first node of an operation also has data dependencies on the nodes that signalled
its wait fence on the same device. A wait on work of
another device becomes a zero-byte ``COMM_SEND_NODE`` / ``COMM_RECV_NODE`` pair (the signal
crossing devices) unless that work's transfer already landed a ``COMM_RECV_NODE`` here.
Durations are the simulated ones in whole µs (Chakra's unit), with the exact value in the
``duration_ns`` attribute; every node has ``is_cpu_op`` false.
"""
import bisect
import json
import os

from rt.runtime.atomic_write import atomic_write
from rt.runtime.errors import InvalidArgumentError
from rt.runtime.hal.collective import CollectiveKind, send_recv_ranks
from rt.runtime.sim import chakra_format as fmt
from rt.runtime.sim import costs

COMM_TYPES = {CollectiveKind.ALL_REDUCE: fmt.ALL_REDUCE, CollectiveKind.ALL_GATHER: fmt.ALL_GATHER,
              CollectiveKind.REDUCE_SCATTER: fmt.REDUCE_SCATTER,
              CollectiveKind.ALL_TO_ALL: fmt.ALL_TO_ALL, CollectiveKind.BROADCAST: fmt.BROADCAST,
              CollectiveKind.REDUCE: fmt.REDUCE}


def check_prefix(prefix, where="--chakra-trace"):
    """``prefix`` as a path, checked before a run: a non-empty path (not a directory) whose
    folder exists. Raises InvalidArgumentError saying what is wrong."""
    if not isinstance(prefix, (str, os.PathLike)) or not os.fspath(prefix):
        raise InvalidArgumentError(f"{where}: expected a file prefix such as out/mlp (files "
                                   f"out/mlp.0.et, ...), got {prefix!r}")
    prefix = os.fspath(prefix)
    folder = os.path.dirname(prefix) or "."
    if prefix.endswith(os.sep) or os.path.isdir(prefix):
        raise InvalidArgumentError(f"{where}: {prefix!r} is a directory; give a file prefix "
                                   f"inside it, e.g. {os.path.join(prefix, 'trace')!r}")
    if not os.path.isdir(folder):
        raise InvalidArgumentError(f"{where}: folder {folder!r} of prefix {prefix!r} does not "
                                   "exist; create it first")
    return prefix


def _micros(us):
    return max(0, round(us))


class ChakraRecorder:
    """Records ``simulation``'s operations as Chakra nodes (see the module docstring)."""

    def __init__(self, simulation):
        self.simulation = simulation
        self._devices = {d.index: d for d in simulation.devices}
        self._nodes = {d.index: [] for d in simulation.devices}
        self._next_id = 1
        self._next_tag = 1
        self._tail = {}             # device index -> [last node(s) of its queue]
        self._started = set()       # (device index, ordinal) of operations with a node
        self._extra = {}            # (device index, ordinal) -> {device index: set(node ids)}
        self._landing = {}          # id(semaphore) -> (semaphore, [values], [landing maps])
        self._meetings = {}         # (group, channel rank) -> collectives seen
        self._tags = {}             # (group, meeting number) -> comm_tag
        self._members = {}          # group -> {channel rank: device index}
        self._peers = []            # (node, attribute name, group, channel rank) to resolve
        self._group_names = {}      # group -> pg_name
        simulation.trace.listeners.append(self)

    # -- nodes -------------------------------------------------------------------------------

    def _node(self, device, name, kind, start, duration, attrs, chained=True, deps=(),
              after=None):
        """A node on ``device``; ``chained``: after the queue's last node(s) (``after``
        overrides them) and becomes the queue's last node."""
        before = list(self._tail.get(device, ()) if after is None else after) if chained else []
        node = fmt.Node(self._next_id, name, kind, ctrl_deps=before,
                        data_deps=sorted(set(deps) | set(before)),
                        start_time_micros=_micros(start), duration_micros=_micros(duration))
        self._next_id += 1
        node.attr = [fmt.Attribute("is_cpu_op", "bool", False),
                     fmt.Attribute("duration_ns", "int64", round(duration * 1000))] + attrs
        if chained:
            self._tail[device] = [node.id]
        self._nodes[device].append(node)
        return node

    def _tag(self):
        tag, self._next_tag = self._next_tag, self._next_tag + 1
        return tag

    def _pair(self, source, target, name, start, duration, nbytes, send_deps=(),
              send_chained=False, recv_chained=False, recv_deps=()):
        """A COMM_SEND_NODE on ``source`` and its COMM_RECV_NODE on ``target``."""
        tag = self._tag()

        def attrs():
            return [fmt.Attribute("comm_src", "int32", source),
                    fmt.Attribute("comm_dst", "int32", target),
                    fmt.Attribute("comm_size", "int64", nbytes),
                    fmt.Attribute("comm_tag", "int32", tag)]
        send = self._node(source, f"send {name}", fmt.COMM_SEND_NODE, start, duration, attrs(),
                          send_chained, send_deps)
        recv = self._node(target, f"recv {name}", fmt.COMM_RECV_NODE, start, duration, attrs(),
                          recv_chained, recv_deps)
        return send, recv

    # -- dependencies ------------------------------------------------------------------------

    def _producers(self, fence):
        """The landing maps ({device index: set(node ids)}) of the operations that signalled
        ``fence``'s timepoints (none for a timepoint a host or unrecorded work signalled)."""
        found = []
        for semaphore, value in fence.timepoints:
            entry = self._landing.get(id(semaphore))
            if entry is not None:
                at = bisect.bisect_left(entry[1], value)  # the first signal reaching value
                if at < len(entry[1]):
                    found.append(entry[2][at])
        return found

    def _deps_on(self, device, fence, start):
        """Node ids on ``device`` that work waiting on ``fence`` depends on; a wait on another
        device's nodes becomes a zero-byte send/recv pair (recorded in that landing map)."""
        deps = set()
        for landing in self._producers(fence):
            if device in landing:
                deps |= landing[device]
                continue
            for other, ids in sorted(landing.items()):
                _, recv = self._pair(other, device, f"signal {self._devices[other].name} -> "
                                     f"{self._devices[device].name}", start, 0.0, 0,
                                     send_deps=ids)
                landing.setdefault(device, set()).add(recv.id)
                deps.add(recv.id)
        return deps

    # -- simulation listener -----------------------------------------------------------------

    def stage_end(self, op, stage, failure):
        if failure is not None:
            return
        device, key = op.device.index, op.key()
        start, duration = op.stage_start, self.simulation.engine.now - op.stage_start
        first = key not in self._started
        self._started.add(key)
        deps = self._deps_on(device, op.wait, start) if first else ()
        if isinstance(stage, costs.Compute):
            attrs = [fmt.Attribute("num_ops", "int64", stage.args.get("flops", 0)),
                     fmt.Attribute("tensor_size", "uint64", stage.args.get("bytes", 0))]
            self._node(device, stage.name, fmt.COMP_NODE, start, duration, attrs, deps=deps)
        elif isinstance(stage, costs.Transfer):
            self._transfer(op, stage, start, duration, deps)
        else:
            self._collective(op, stage, start, duration, deps)

    def _transfer(self, op, stage, start, duration, deps):
        device, source, target = op.device.index, stage.source.index, stage.target.index
        send_deps = deps if source == device else self._deps_on(source, op.wait, start)
        _, recv = self._pair(source, target, stage.name, start, duration, stage.nbytes,
                             send_deps=send_deps, send_chained=source == device,
                             recv_chained=target == device,
                             recv_deps=deps if target == device else ())
        if target != device:
            self._extra.setdefault(op.key(), {}).setdefault(target, set()).add(recv.id)

    def _collective(self, op, stage, start, duration, deps):
        record, device = stage.record, op.device.index
        channel = record.channel
        self._members.setdefault(channel.group, {})[channel.rank] = device
        number = self._meetings.get((channel.group, channel.rank), 0)
        self._meetings[(channel.group, channel.rank)] = number + 1
        kind = record.op.kind
        send_bytes, recv_bytes = record.op.byte_lengths(record.element_count, channel.count)
        if kind in COMM_TYPES:
            attrs = [fmt.Attribute("comm_type", "int64", COMM_TYPES[kind]),
                     fmt.Attribute("comm_size", "int64", max(send_bytes, recv_bytes)),
                     fmt.Attribute("pg_name", "string", self._group_name(channel.group))]
            self._node(device, stage.name, fmt.COMM_COLL_NODE, start, duration, attrs, deps=deps)
            return
        tag = self._tags.setdefault((channel.group, number), self._tag())
        peer_to, peer_from = send_recv_ranks(record.param)
        previous, ends = self._tail.get(device, []), []
        for peer, node_type, peer_attr, own_attr in (
                (peer_to, fmt.COMM_SEND_NODE, "comm_dst", "comm_src"),
                (peer_from, fmt.COMM_RECV_NODE, "comm_src", "comm_dst")):
            if peer is None:
                continue
            attrs = [fmt.Attribute(own_attr, "int32", device),
                     fmt.Attribute(peer_attr, "int32", -1),
                     fmt.Attribute("comm_size", "int64", send_bytes),
                     fmt.Attribute("comm_tag", "int32", tag)]
            node = self._node(device, stage.name, node_type, start, duration, attrs, deps=deps,
                              after=previous)
            self._peers.append((node, peer_attr, channel.group, peer))
            ends.append(node.id)
        self._tail[device] = ends

    def _group_name(self, group):
        return self._group_names.setdefault(group, str(len(self._group_names)))

    def op_end(self, op):
        if op.failure is not None:
            return
        device, key = op.device.index, op.key()
        landing = {}
        if key in self._started:
            self._started.discard(key)
        else:
            for other in self._producers(op.wait):
                for index, ids in other.items():
                    landing.setdefault(index, set()).update(ids)
        if self._tail.get(device):
            landing.setdefault(device, set()).update(self._tail[device])
        for index, ids in self._extra.pop(key, {}).items():
            landing.setdefault(index, set()).update(ids)
        for semaphore, value in op.signal.timepoints:
            _, values, landings = self._landing.setdefault(id(semaphore), (semaphore, [], []))
            at = bisect.bisect_right(values, value)
            values.insert(at, value)
            landings.insert(at, landing)

    # -- output ------------------------------------------------------------------------------

    def comm_groups(self):
        """``{pg_name: [device indices in channel-rank order]}`` (ASTRA-sim's comm-group
        file)."""
        return {name: [self._members[group][r] for r in sorted(self._members[group])]
                for group, name in self._group_names.items()}

    def write(self, prefix):
        """Write ``PREFIX.{index}.et`` per topology device and ``PREFIX.comm_groups.json``;
        returns the paths written. Raises InvalidArgumentError for a bad prefix or a channel
        peer that never ran a collective (its device is unknown)."""
        prefix = check_prefix(prefix, "chakra trace")
        self.simulation.drain()
        for node, name, group, rank in self._peers:
            device = self._members.get(group, {}).get(rank)
            if device is None:
                raise InvalidArgumentError(f"chakra trace: node {node.name!r}: channel rank "
                                           f"{rank} of group {group!r} never ran a collective, "
                                           "so its device is unknown")
            next(a for a in node.attr if a.name == name).value = device
        topology = self.simulation.topology
        paths = []
        for index, nodes in self._nodes.items():
            meta = fmt.encode_metadata([
                fmt.Attribute("producer", "string", "rt"),
                fmt.Attribute("topology", "string", topology.name),
                fmt.Attribute("device", "string", self._devices[index].name),
                fmt.Attribute("rank", "int64", index),
                fmt.Attribute("ranks", "int64", len(self._nodes))])
            data = fmt.delimited(meta) + b"".join(fmt.delimited(fmt.encode_node(n))
                                                  for n in nodes)
            path = f"{prefix}.{index}.et"
            atomic_write(path, data, what="the chakra trace")
            paths.append(path)
        groups = f"{prefix}.comm_groups.json"
        atomic_write(groups, json.dumps(self.comm_groups(), indent=2) + "\n",
                     what="the chakra comm groups")
        return paths + [groups]
