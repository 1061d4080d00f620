"""``Simulation``: simulated devices, virtual clocks, and the scheduler that drives them.

Model (docs/ARCHITECTURE.md §7, docs/MULTI_DEVICE.md):

* Every ``SimDevice`` queue runs its operations in order in virtual time (µs). An operation
  starts at ``max(queue free, its wait fence's virtual time, the submitting host's clock)``
  and runs its stages (rt.runtime.sim.costs) one after the other: compute for a roofline or
  measured time (stretched when more devices compute at once than the topology's
  ``host.cores``, rt.runtime.sim.cores), transfers over the topology's links (``L + B/W``, links shared by the
  transfers on them), collectives with the other ranks of their channel.
* The executors do the real work: the scheduler releases an operation's gate at its virtual
  start and signals the caller's fence at its virtual end, after the executor's own fence
  settled. Failures (a failed wait fence, a failing command, an injected fault, a failed
  link) fail the signal fence with the cause; nothing is left waiting.
* Hosts (threads calling into the program) have clocks too: a host that waits on a fence
  resumes at the virtual time the fence was signalled; an SPMD call starts its ranks' clocks
  the topology's ``host.call_us`` after the caller's (rt.runtime.sim.host_costs). Events run only while every
  registered host (SPMD ranks, see ``host_group``) is blocked waiting, and in
  ``(time, key)`` order with keys built from device indices and per-device operation
  numbers, so the order of events — hence results, traces and reports — does not depend on
  thread timing. The waiting thread itself runs the events (one at a time, under the
  simulation's lock): IREE's donate-caller, through the semaphores' ``producer``.
"""
import collections
import sys
import threading

from rt.runtime.errors import DeviceError, InvalidArgumentError, ResourceExhaustedError, RtError
from rt.runtime.hal.driver_registry import create_device, parse_device_uri
from rt.runtime.hal.trace import Lane
from rt.runtime.sim import costs, report
from rt.runtime.sim.collective_rendezvous import Rendezvous
from rt.runtime.sim.engine import Engine, Link, Meter
from rt.runtime.sim.faults import FaultPlan, InjectedFaultError
from rt.runtime.sim.measure import MeasureSink
from rt.runtime.sim.sim_device import SimDevice
from rt.runtime.sim.cores import CoreShare
from rt.runtime.sim.virtual_trace import VirtualTrace

#: Event key priorities at equal times: operation starts, stage ends, link events.
START, STAGE, LINK = 0, 1, 2
#: Known signal times kept before forgetting those of semaphores nobody else references
#: (references then: our entry's tuple and getrefcount's argument).
_PRUNE_AT, _ONLY_OURS = 4096, 2


class _Op:
    __slots__ = ("device", "ordinal", "where", "name", "args", "wait", "signal", "gate", "done",
                 "stages", "submit_time", "start", "stage", "failure", "stage_start",
                 "waited_us", "start_up")

    def __init__(self, device, ordinal, where, name, args, wait, signal, gate, done, stages,
                 submit_time):
        self.device, self.ordinal, self.where, self.name = device, ordinal, where, name
        self.args, self.wait, self.signal, self.gate, self.done = args, wait, signal, gate, done
        self.stages, self.submit_time = stages, submit_time
        self.start = self.stage_start = None
        self.stage = 0
        self.failure = None
        self.waited_us = 0.0
        self.start_up = 0.0  # µs of host.call_us its first profiled dispatch also holds

    def key(self, *more):
        return (self.device.index, self.ordinal) + more


class _Queue:
    __slots__ = ("pending", "current", "armed", "busy_us")

    def __init__(self):
        self.pending = collections.deque()
        self.current = self.armed = None
        self.busy_us = 0.0


class _Host:
    """A host's clock. ``registered`` hosts (SPMD ranks) hold events back while running;
    ``start_up``: the call cost charged at its start, handed to its first operation."""

    __slots__ = ("time", "blocked", "done", "registered", "finished", "lane", "previous", "start_up")

    def __init__(self, time, lane, registered=False, start_up=0.0):
        self.time, self.lane, self.registered = time, lane, registered
        self.blocked, self.done, self.finished, self.previous = False, None, False, None
        self.start_up = start_up


def _executor_uri(uri, memory):
    """The URI of the real device behind a simulated one: always ``local-task`` (its queue
    thread runs the work the scheduler releases; ``local-sync`` means one thread)."""
    driver, device, params = parse_device_uri(uri)
    if driver == "local-sync":
        params.setdefault("threads", "1")
    if memory is not None:
        params["heap_capacity"] = str(memory)
    query = "&".join(f"{k}={v}" for k, v in sorted(params.items()))
    return f"local-task://{device}" + (f"?{query}" if query else "")


def _dry_run_executor(uri, memory):
    """The device behind a simulated one in a dry run: ``local-sync`` (no threads: it runs
    only allocations, releases and empty operations, inline) with a heap that has no memory."""
    from rt.runtime.hal.drivers.heap_allocator import VirtualHeapAllocator

    _, device, _ = parse_device_uri(uri)
    executor = create_device(f"local-sync://{device}")
    executor.allocator = VirtualHeapAllocator(executor, memory)
    return executor


def root_cause(error):
    """The innermost ``__cause__`` of ``error``."""
    while getattr(error, "__cause__", None) is not None:
        error = error.__cause__
    return error


class Simulation:
    """The devices of ``topology`` in virtual time.

    deterministic: every kernel takes its roofline time (no measurements), so runs are
    byte-identical. faults: fault specs (rt.runtime.sim.faults). dry_run: kernels, copies and
    collectives are not executed and heaps have no memory (``SimDevice``); times are the
    roofline's, as in a deterministic run. ``devices`` lists the ``SimDevice``s in topology
    order; ``device(name)`` finds one.
    """

    def __init__(self, topology, deterministic=False, faults=(), dry_run=False):
        self.topology, self.deterministic = topology, bool(deterministic)
        self.dry_run = bool(dry_run)
        self.faults = FaultPlan(faults, topology)
        self.engine = Engine()
        self._cond = threading.Condition(threading.RLock())
        self._hosts = {}
        self._registered = []
        self._running = 0        # registered hosts neither blocked nor finished
        self._waiting = set()    # hosts blocked in donate
        self._signalled = False  # a fence was signalled or failed by the current event
        self._group_lanes = 0
        self._runner = None
        self._dirty = False
        self._closed = False
        self._signal_times = {}
        self.trace = VirtualTrace()
        self.devices = []
        self._by_executor = {}
        self._measures = {}
        try:
            for index, spec in enumerate(topology.devices):
                self._add_device(index, spec)
        except BaseException:
            self.release()
            raise
        self.links = {}          # "a-b" -> Meter (both directions)
        self._directions = {}    # (a, b) -> Link carrying a to b
        self._routes = {}
        self._transfers = collections.Counter()
        self.algorithms_run = collections.Counter()  # collective algorithm -> meetings it ran
        for index, spec in enumerate(topology.links):
            slow, fail, fail_at, text = self.faults.link_settings(spec.key, topology)
            meter = self.links[spec.key] = Meter(self.engine)
            for way, (a, b) in enumerate((spec.between, spec.between[::-1])):
                link = Link(self.engine, f"{a} -> {b}", spec.bandwidth_gbps * 1e3, spec.latency_us,
                            key=(LINK, index, way), on_transfer=self.trace.transfer, meter=meter,
                            table=spec.table)
                link.slowdown = slow
                if fail:
                    link.failure = InjectedFaultError(f"link {spec.key} failed: injected fault "
                                                      f"{text!r}", text)
                link.fail_at, link.fault_text, link.topology_key = fail_at, text, spec.key
                self._directions[(a, b)] = link
        self._queues = [_Queue() for _ in self.devices]
        cores = topology.host.cores
        self.cores = (CoreShare(self.engine, cores, (STAGE, -1))
                      if cores and len(self.devices) > cores else None)
        self.rendezvous = Rendezvous(self)
        self.trace.declare(self.devices, self._directions.values())

    def _add_device(self, index, spec):
        memory = self.faults.memory(spec.name) or spec.memory
        if self.dry_run:
            executor = _dry_run_executor(spec.uri, memory)
        else:
            executor = create_device(_executor_uri(spec.uri, memory))
        try:
            executor.label = spec.name
        except AttributeError:
            pass
        device = SimDevice(self, spec, index, executor,
                           costs.ComputeModel(spec, self.deterministic or self.dry_run))
        if device.model.mode == "measured":
            sink = MeasureSink(self._notify)
            executor.set_trace_sink(sink)
            self._measures[index] = sink
        self.devices.append(device)
        self._by_executor[id(executor)] = device

    # -- lookups -----------------------------------------------------------------------------

    def device(self, name):
        """The ``SimDevice`` called ``name``; ``NotFoundError`` listing them otherwise."""
        self.topology.device(name)
        return next(d for d in self.devices if d.name == name)

    def device_of_buffer(self, buffer):
        """The ``SimDevice`` whose executor owns ``buffer``."""
        owner = buffer.device
        device = self._by_executor.get(id(getattr(owner, "executor", owner)))
        if device is None:
            raise InvalidArgumentError(f"{buffer.describe()} does not belong to a device of "
                                       f"topology {self.topology.name!r}")
        return device

    def route(self, source, target):
        """The links a transfer from ``source`` to ``target`` crosses, one hop after the other:
        between devices of a topology with dims, dimension-order routing
        (rt.runtime.sim.topology_dims); otherwise the shortest path over the topology's links
        (devices and the host relay; ties broken by link order). ``DeviceError`` when nothing
        connects them."""
        key = (source.name, target.name)
        route = self._routes.get(key)
        if route is None:
            grid = self.topology.grid
            if grid is not None and key[0] in grid.index and key[1] in grid.index:
                route = [self._directions[hop] for hop in grid.route(*key)]
            else:
                route = self._shortest_path(*key)
            self._routes[key] = route
        if not route:
            raise DeviceError(f"no link connects {source.name} and {target.name} in topology "
                              f"{self.topology.name!r}: add a link between them (or a path of "
                              "links through other devices or the host)")
        return route

    def _shortest_path(self, source, target):
        previous = {source: None}
        frontier = [source]
        while frontier and target not in previous:
            following = []
            for node in frontier:
                for (a, b), link in self._directions.items():
                    if a == node and b not in previous:
                        previous[b] = link
                        following.append(b)
            frontier = following
        if target not in previous:
            return []
        path, node = [], target
        while previous[node] is not None:
            link = previous[node]
            path.append(link)
            node = link.name.split(" -> ")[0]
        return path[::-1]

    # -- hosts -------------------------------------------------------------------------------

    def current_host(self):
        """The calling thread's host (clock, lane); created on first use."""
        return self._host()

    def _host(self):
        host = self._hosts.get(threading.get_ident())
        if host is None:
            host = self._hosts[threading.get_ident()] = _Host(self.engine.now, Lane("host", "host"))
        return host

    def host_time(self):
        """The calling thread's virtual clock (µs)."""
        with self._cond:
            return self._host().time

    def host_group(self, count):
        """``count`` registered hosts (SPMD ranks) for one call, starting at the caller's clock
        plus the topology's host cost of a call (``host.call_us``, rt.runtime.sim.host_costs);
        a rank's thread calls ``attach(host)`` first and ``detach(host)`` when its call is over."""
        with self._cond:
            call_us = self.topology.host.call_us
            start = max(self._host().time, self.engine.now) + call_us
            hosts = [_Host(start, Lane("host", f"rank {r}"), registered=True, start_up=call_us)
                     for r in range(count)]
            for host in hosts:
                self.trace.declare_lane(host.lane)
            self._registered = [h for h in self._registered if not h.finished] + hosts
            self._running += count
            return hosts

    def attach(self, host):
        """Make ``host`` (from ``host_group``) the calling thread's clock."""
        with self._cond:
            host.previous = self._hosts.get(threading.get_ident())
            self._hosts[threading.get_ident()] = host

    def detach(self, host):
        """The calling thread's ``host`` is done; its clock joins the thread's own."""
        with self._cond:
            if host.registered and not host.finished and not host.blocked:
                self._running -= 1
            host.finished = True
            ident = threading.get_ident()
            if host.previous is not None:
                self._hosts[ident] = host.previous
                host.previous.time = max(host.previous.time, host.time)
            else:
                self._hosts.pop(ident, None)
            self._cond.notify_all()

    def _may_run(self):
        """Events may run: every registered host (SPMD rank) is blocked or finished."""
        return self._running == 0

    def _set_blocked(self, host, blocked):
        """Mark ``host`` blocked (waiting in ``donate``) or running again, keeping the count
        of running registered hosts."""
        if host.blocked != blocked and host.registered and not host.finished:
            self._running += -1 if blocked else 1
        host.blocked = blocked
        if blocked:
            self._waiting.add(host)
        else:
            self._waiting.discard(host)

    # -- submission --------------------------------------------------------------------------

    def submit(self, device, where, wait, signal, gate, done, stages, name, args):
        """Queue an operation of ``device`` (called by ``SimDevice``)."""
        with self._cond:
            device.submissions += 1
            host = self._host()
            op = _Op(device, device.submissions, where, name, args, wait, signal, gate, done,
                     stages, max(host.time, self.engine.now))
            if stages and isinstance(stages[0], costs.Compute):  # its first work, not an alloca
                op.start_up, host.start_up = host.start_up, 0.0
            self._queues[device.index].pending.append(op)
            self.trace.submitted(op)
            self._pump()
        done.on_settled(self._notify)

    def _notify(self):
        with self._cond:
            self._cond.notify_all()

    def _settled_elsewhere(self, op):
        """``op``'s wait fence settled outside the simulation (a host signalled it): its
        unknown timepoints take the signalling thread's clock."""
        with self._cond:
            time = self._host().time
            for semaphore, value in op.wait.timepoints:
                self._record_signal(semaphore, value, time, only_unknown=True)
            self._dirty = True
            self._cond.notify_all()

    def _record_signal(self, semaphore, value, time, only_unknown=False, device=None):
        """Remember that ``semaphore`` reached ``value`` at virtual ``time``, signalled by the
        queue of device index ``device`` (None: a host). The entry holds the semaphore, so its
        id is not reused while it is known; entries nobody else holds are dropped now and then."""
        if len(self._signal_times) > _PRUNE_AT:
            self._signal_times = {k: v for k, v in self._signal_times.items()
                                  if sys.getrefcount(v[0]) > _ONLY_OURS}
        times = self._signal_times.setdefault(id(semaphore), (semaphore, []))[1]
        if only_unknown and times and times[-1][0] >= value:
            return
        times.append((value, time, device))

    def _ready_time(self, op):
        """When ``op`` may start: its submission, and each timepoint of its wait fence when
        reached, plus the topology's ``host.wake_us`` for one another device's queue reached
        after the submission (this queue's thread slept until that signal woke it,
        rt.runtime.sim.host_costs)."""
        ready = op.submit_time
        wake = self.topology.host.wake_us
        for semaphore, value in op.wait.timepoints:
            entry = self._signal_times.get(id(semaphore))
            if entry is None:
                continue
            for reached, time, device in entry[1]:
                if reached >= value:
                    woken = device is not None and device != op.device.index and time > op.submit_time
                    ready = max(ready, time + wake if woken else time)
                    break
        return ready

    def _pump(self):
        """Schedule the start of every idle queue's ready head operation."""
        self._dirty = False
        for device, queue in zip(self.devices, self._queues):
            if queue.current is not None or not queue.pending:
                continue
            head = queue.pending[0]
            if head.wait.is_settled:
                queue.pending.popleft()
                queue.current = head
                ready = self._ready_time(head)
                self.engine.at(ready, (START,) + head.key(), lambda op=head: self._start(op))
            elif queue.armed is not head:
                queue.armed = head
                head.wait.on_settled(lambda op=head: self._settled_elsewhere(op))

    # -- operations in virtual time ----------------------------------------------------------

    def _start(self, op):
        device, now = op.device, self.engine.now
        op.start = now
        self.trace.op_begin(op)
        failure = op.wait.failure
        if failure is not None:
            error = DeviceError(f"{device.name}: {op.where} not run: its wait fence failed: "
                                f"{failure}")
            error.__cause__ = failure
        else:
            error = self.faults.device_failure(device.name, op.ordinal, op.where)
        if error is not None:
            op.failure = error
            op.gate.fail(error)
            self._finish(op)
            return
        op.gate.signal()
        self._next_stage(op)

    def _next_stage(self, op):
        if op.failure is not None or op.stage >= len(op.stages):
            self._finish(op)
            return
        stage = op.stages[op.stage]
        op.stage += 1
        op.stage_start = self.engine.now
        self.trace.stage_begin(op, stage)
        if isinstance(stage, costs.Compute):
            duration = stage.duration
            if op.stage == 1 and stage.first_duration is not None:
                duration = max(stage.first_duration, duration - op.start_up)
            if duration is None:
                duration = self._measured(op, stage.command)
            if op.stage > 1 and "workgroups" in stage.args:
                duration += self.topology.host.dispatch_us
            if self.cores is not None:
                self.cores.run(duration, lambda: self._stage_done(op, None))
            else:
                self.engine.at(self.engine.now + duration, (STAGE,) + op.key(op.stage),
                               lambda: self._stage_done(op, None))
        elif isinstance(stage, costs.Transfer):
            try:
                route = self.route(stage.source, stage.target)
            except RtError as error:
                self._stage_done(op, error)
                return
            self._hop(route, stage.nbytes, f"{op.device.name}: {stage.name}",
                      lambda failure: self._stage_done(op, failure))
        else:
            self.rendezvous.arrive(op, stage)

    def _hop(self, route, nbytes, label, done):
        """Move ``nbytes`` over ``route`` hop by hop; ``done(failure or None)``."""
        if not route:
            done(None)
            return
        link = route[0]
        self._transfers[link.topology_key] += 1
        if link.fail_at is not None and self._transfers[link.topology_key] == link.fail_at:
            error = InjectedFaultError(f"link {link.topology_key}: transfer {link.fail_at} failed: "
                                       f"injected fault {link.fault_text!r}", link.fault_text)
            self.engine.at(self.engine.now, link.key + (0,), lambda: done(error))
            return
        link.transfer(nbytes, lambda failure: done(failure) if failure is not None
                      else self._hop(route[1:], nbytes, label, done), label)

    def _stage_done(self, op, failure):
        stage = op.stages[op.stage - 1]
        self.trace.stage_end(op, stage, failure)
        if failure is not None:
            cause = root_cause(failure)
            op.failure = DeviceError(f"{op.device.name}: {op.where} failed in {stage.name}: "
                                     f"{cause}")
            op.failure.__cause__ = failure
        self._next_stage(op)

    def _measured(self, op, command):
        sink = self._measures[op.device.index]
        ordinal = op.ordinal
        self._wait_real(lambda: sink.duration(ordinal, command) is not None)
        return sink.duration(ordinal, command) / 1000.0

    def _wait_real(self, predicate):
        """Block (releasing the lock) until ``predicate()``: real work on an executor."""
        self._cond.wait_for(predicate)

    def _finish(self, op):
        """End ``op`` at ``now``: once the executor settled it, signal or fail its fence."""
        self._wait_real(lambda: op.done.is_settled)
        device, now = op.device, self.engine.now
        if op.failure is None and op.done.failure is not None:
            # The executor's queue error wraps what its submission raised: for a command buffer,
            # the failing command with its export and source location. Name that, not the
            # innermost cause, which has lost where the work came from.
            cause = op.done.failure.__cause__ or op.done.failure
            root = root_cause(op.done.failure)
            kind = ResourceExhaustedError if isinstance(root, ResourceExhaustedError) else DeviceError
            op.failure = kind(f"{device.name}: {op.where} failed: {cause}")
            op.failure.__cause__ = op.done.failure
        self._signalled = True
        queue = self._queues[device.index]
        queue.busy_us += now - op.start - op.waited_us
        queue.current = None
        if device.index in self._measures:
            self._measures[device.index].forget(op.ordinal)
        self.trace.op_end(op)
        if op.failure is not None:
            self.rendezvous.withdraw(op, op.failure)
            op.signal.fail(op.failure)
        else:
            for semaphore, value in op.signal.timepoints:
                self._record_signal(semaphore, value, now, device=device.index)
            try:
                op.signal.signal()
            except RtError:
                pass  # a signal semaphore failed meanwhile: its failure is what waiters see
        self._pump()

    # -- running events ----------------------------------------------------------------------

    def donate(self, done):
        """Run events on the calling thread until ``done()`` (the semaphore ``producer``
        protocol of rt.runtime.hal.fence). Returns False when nothing can make progress."""
        with self._cond:
            host = self._host()
            host.done = done
            self._set_blocked(host, True)
            try:
                while not done():
                    if self._runner is None and self._may_run():
                        if self._dirty:
                            self._pump()
                        if self.engine.next_time() is not None:
                            self._step()
                            continue
                        if self.rendezvous.fail_incomplete():
                            continue
                        return False
                    self._cond.wait()
            finally:
                self._set_blocked(host, False)
                host.done = None
        return True

    def _step(self):
        """Run one event. Only an event that signalled or failed a fence (``_finish``) can
        release a waiting host: those resume at its time and the waiters are woken."""
        self._runner = threading.get_ident()
        self._signalled = False
        try:
            self.engine.step()
        finally:
            self._runner = None
            if self._signalled:
                for host in list(self._waiting):
                    if host.done is not None and host.done():
                        self._set_blocked(host, False)
                        host.time = max(host.time, self.engine.now)
                self._cond.notify_all()

    def drain(self):
        """Run every pending event (the caller must not be a running SPMD rank)."""
        with self._cond:
            while True:
                if self._dirty:
                    self._pump()
                if self._runner is None and self.engine.next_time() is not None:
                    self._step()
                elif self._runner is not None:
                    self._cond.wait()
                else:
                    return self.engine.now

    def report(self):
        """The report dict (rt.runtime.sim.report) after running every pending event."""
        self.drain()
        with self._cond:
            return report.build(self, lambda d: self._queues[d.index].busy_us)

    def close(self):
        """Drain, hand the trace to its sink, release the executors. Idempotent."""
        if not self._closed:
            self.drain()
            self.trace.flush()
        self.release()

    def release(self):
        """Release the executors (pending work fails)."""
        self._closed = True
        for device in self.devices:
            device.release()

    def __repr__(self):
        return (f"<Simulation {self.topology.name}: {len(self.devices)} devices, "
                f"{len(getattr(self, 'links', {}))} links, t={self.engine.now:.3f} µs>")
