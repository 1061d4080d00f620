"""Collectives in virtual time: ranks meet, then the algorithm's transfers cross the links.

Each rank's queue reaches a collective stage at its own virtual time (its *arrival*). The
k-th collective of every rank on one channel (``Channel.group``) forms a meeting; when the
last rank arrives the meeting runs the algorithm's steps (rt.runtime.sim.collective_plan: the
topology's ``collectives.algorithm``, flat or per dimension), each step's transfers sharing the
links like any others, and every rank's stage ends when the last step does. Time a rank spends
waiting for the others is not counted as busy. A step's transfers that each have a direct link
to themselves run solo (rt.runtime.sim.engine: one event per step and end time instead of
two per transfer), which is what makes a 1,024-rank ring affordable; the times are the same.

A meeting fails for everyone when the ranks ask for different operations, when a rank's
operation fails before it gets there (``withdraw``), when a transfer's link fails, or when the
simulation cannot make progress while ranks are missing (``fail_incomplete``: a rank finished
its call without joining). The real channel is aborted with the same error first, so the executors
blocked in the real rendezvous return too (each rank's operation ends only once its executor
settled it): nothing hangs.
"""
import collections

from rt.runtime.errors import DeviceError
from rt.runtime.sim import collective_plan, costs
from rt.runtime.hal.collective import send_recv_ranks


class _Meeting:
    __slots__ = ("key", "count", "arrivals", "failure", "steps", "devices", "started",
                 "channel", "algorithm")

    def __init__(self, key, count):
        self.key, self.count = key, count
        self.arrivals, self.failure, self.steps, self.devices = {}, None, None, None
        self.started = self.channel = self.algorithm = None


class Rendezvous:
    """The collective meetings of ``simulation``."""

    def __init__(self, simulation):
        self.sim = simulation
        self._next = collections.Counter()
        self._meetings = {}

    def new_epoch(self):
        """Restart the numbering of collectives (the SPMD runner does it before each call)."""
        self._next.clear()
        self._meetings.clear()

    def _meeting(self, channel):
        number = self._next[(channel.group, channel.rank)]
        self._next[(channel.group, channel.rank)] += 1
        key = (channel.group, number)
        meeting = self._meetings.get(key)
        if meeting is None:
            meeting = self._meetings[key] = _Meeting(key, channel.count)
        return meeting

    def arrive(self, op, stage):
        """``op`` reached collective ``stage`` now."""
        record = stage.record
        meeting = self._meeting(record.channel)
        meeting.arrivals[record.channel.rank] = (op, stage, self.sim.engine.now)
        if meeting.failure is not None:
            self._fail(meeting, meeting.failure)
        elif len(meeting.arrivals) == meeting.count:
            self._start(meeting)

    def withdraw(self, op, failure):
        """``op`` failed before reaching its remaining collective stages: fail those meetings."""
        for stage in op.stages[op.stage:]:
            if isinstance(stage, costs.CollectiveStage):
                channel = stage.record.channel
                meeting = self._meeting(channel)
                error = DeviceError(f"rank {channel.rank} ({op.device.name}) never joined "
                                    f"{stage.name}: {failure}")
                error.__cause__ = failure
                channel.abort(error)
                self._fail(meeting, error)

    def fail_incomplete(self):
        """Fail meetings some ranks never joined (called when nothing else can progress)."""
        waiting = [m for m in self._meetings.values() if m.arrivals and m.failure is None
                   and m.started is None]
        for meeting in waiting:
            missing = [r for r in range(meeting.count) if r not in meeting.arrivals]
            stage = next(iter(meeting.arrivals.values()))[1]
            error = DeviceError(f"{stage.name}: rank(s) {', '.join(map(str, missing))} of "
                                f"{meeting.count} never joined (their calls ended or are "
                                "blocked elsewhere): the ranks ran different collectives")
            stage.record.channel.abort(error)
            self._fail(meeting, error)
        return bool(waiting)

    def _fail(self, meeting, error):
        meeting.failure = error
        arrivals, meeting.arrivals = meeting.arrivals, {}
        for op, _, _ in arrivals.values():
            self.sim._stage_done(op, error)

    def _start(self, meeting):
        sim = self.sim
        arrivals = meeting.arrivals
        records = {r: stage.record for r, (_, stage, _) in arrivals.items()}
        first = records[0]
        for rank, record in sorted(records.items()):
            if (record.op, record.element_count) != (first.op, first.element_count):
                error = DeviceError(
                    f"collectives do not match on channel {first.channel.group!r}: rank 0 runs "
                    f"{first.op.describe()} x{first.element_count}, rank {rank} runs "
                    f"{record.op.describe()} x{record.element_count}")
                first.channel.abort(error)
                self._fail(meeting, error)
                return
        meeting.started = sim.engine.now
        meeting.channel = first.channel
        meeting.devices = [arrivals[r][0].device for r in range(meeting.count)]
        params = {r: send_recv_ranks(rec.param) for r, rec in records.items()}
        meeting.algorithm, meeting.steps = collective_plan.plan(
            sim.topology, [d.index for d in meeting.devices], first.op.kind.name.lower(),
            first.element_count, first.op.element_size, params)
        sim.algorithms_run[meeting.algorithm] += 1
        for op, stage, arrived in arrivals.values():
            op.waited_us += meeting.started - arrived
            stage.args["algorithm"] = meeting.algorithm      # shown on the trace's stage
        self._step(meeting, 0)

    def _step(self, meeting, index):
        sim = self.sim
        if index == len(meeting.steps):
            arrivals, meeting.arrivals = meeting.arrivals, {}
            self._meetings.pop(meeting.key, None)
            for rank in sorted(arrivals):
                sim._stage_done(arrivals[rank][0], None)
            return
        transfers = [t for t in meeting.steps[index] if t[2] > 0]
        if not transfers:
            self._step(meeting, index + 1)
            return
        left = [len(transfers)]
        failures = []

        def done(failure, count=1):
            if failure is not None:
                failures.append(failure)
            left[0] -= count
            if left[0] == 0:
                if failures:
                    error = DeviceError(f"collective step {index + 1} failed: {failures[0]}")
                    error.__cause__ = failures[0]
                    meeting.channel.abort(error)
                    self._fail(meeting, error)
                else:
                    self._step(meeting, index + 1)

        stage_name = next(iter(meeting.arrivals.values()))[1].name
        launch_step(sim, meeting.devices, transfers, f"{stage_name} step {index + 1}", done)


def launch_step(sim, devices, transfers, label, done):
    """Start one step's ``(source_rank, target_rank, nbytes)`` transfers of a collective whose
    rank r runs on ``devices[r]``; ``done(failure or None, count=1)`` as each ends (or once for
    a group of solo transfers that end together)."""
    tracing = sim.trace.sink is not None
    solo = collections.defaultdict(list)
    for source, target, nbytes in transfers:
        a, b = devices[source], devices[target]
        text = f"{label}: {a.name} -> {b.name}" if tracing else ""
        try:
            route = sim.route(a, b)
        except DeviceError as error:
            done(error)
            continue
        link = route[0]
        t = (link.start_solo(nbytes, done, text)
             if len(route) == 1 and link.fail_at is None else None)
        if t is None:
            sim._hop(route, nbytes, text, done)
        else:
            solo[t.end].append(t)
    for end, group in solo.items():
        sim.engine.at(end, group[0].link.key + (2,), lambda group=group: _finish_solo(group, done))


def _finish_solo(group, done):
    """End the solo transfers of ``group`` (those still solo; the others end on their own)."""
    ended = sum(1 for t in group if t.link.finish_solo(t, notify=False))
    if ended:
        done(None, ended)
