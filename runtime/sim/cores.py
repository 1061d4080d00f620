"""The host's cores shared by the devices that run on it: kernels stretch when oversubscribed.

A calibrated topology says how many cores its devices share (``host: {cores: 2}``, what
``os.sched_getaffinity`` gives ``rt calibrate``). Each device's kernel costs (calibrated
classes, a profile, measured durations) are the time of the kernel on a core of its own. When
more devices compute at once than there are cores, the cores are shared (processor sharing,
as the operating system's scheduler time-slices the executor threads): with n kernels in
flight and c cores, each progresses at ``min(1, c / n)`` of its own speed. Four 100 µs kernels
that start together on 2 cores all end at 200 µs; two on 2 cores at 100 µs. Why: a traced
dispatch's duration on a time-sliced host is mostly its time on a core (a slice is
milliseconds, a dispatch tens to hundreds of µs); the wait for a core falls between dispatches
and no duration shows it (four ``threads=1`` devices on the 2-core development machine: a
tensor-parallel MLP took 2.4-2.9 ms, its dispatches' durations and the call's other costs
added to 1.6-1.8 ms).

``CoreShare`` is that model on the engine's virtual clock: ``run(us, done)`` starts a kernel
of ``us`` µs (its own time) and calls ``done()`` when it has received that much core time.
Without ``cores`` (hand-written topologies), or with no more devices than cores, kernels take
their own time and no ``CoreShare`` is used.
"""

#: Core-µs a kernel may have left and still count as done (float rounding).
_EPSILON = 1e-9


class CoreShare:
    """``cores`` cores shared by the kernels ``run`` on them (module docstring); ``key`` is
    the engine event key of completions (kernels ending together finish in start order)."""

    def __init__(self, engine, cores, key):
        self.engine, self.cores, self.key = engine, float(cores), key
        self._running = []          # [remaining core-µs, done], in start order
        self._updated = 0.0
        self._version = 0

    def run(self, us, done):
        """Start a kernel needing ``us`` µs of one core now; ``done()`` when it has had them."""
        self._advance()
        self._running.append([float(us), done])
        self._reschedule()

    def _speed(self):
        return min(1.0, self.cores / max(1, len(self._running)))

    def _advance(self):
        now = self.engine.now
        if self._running and now > self._updated:
            progress = self._speed() * (now - self._updated)
            for job in self._running:
                job[0] -= progress
        self._updated = now

    def _reschedule(self):
        self._version += 1
        if not self._running:
            return
        version = self._version
        soonest = min(job[0] for job in self._running)
        self.engine.at(self.engine.now + max(0.0, soonest) / self._speed(), self.key,
                       lambda: self._complete(version))

    def _complete(self, version):
        if version != self._version:
            return
        self._advance()
        soonest = min(job[0] for job in self._running)
        finished = [job for job in self._running if job[0] <= soonest + _EPSILON]
        self._running = [job for job in self._running if job[0] > soonest + _EPSILON]
        self._reschedule()
        for _, done in finished:
            done()
