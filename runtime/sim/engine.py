"""The discrete-event core of the simulator: a virtual clock, events, and shared links.

Virtual time is a float in microseconds. ``Engine`` keeps a heap of events ordered by
``(time, key, insertion)``: ``key`` is a tuple the caller derives from deterministic facts
(device index, per-queue operation number), so events at equal times run in the same order
on every run whatever the threads did in between.

``Link`` is one direction of a link: a pipe of ``bandwidth`` bytes/µs and ``latency`` µs
shared by the transfers on it (processor sharing, as in fluid network models): a transfer of
B bytes first waits the latency, then its bytes flow at ``bandwidth / n`` while n transfers
are in their byte phase. One transfer alone takes exactly ``latency + B / bandwidth``; two
equal transfers that start together each take ``latency + 2B / bandwidth``. A link with a
measured ``table`` (rt.runtime.sim.link_table) has the table's latency, and each transfer its
own byte rate ``B / (time(B) - latency)``: the n transfers in their byte phase each get 1/n of
the link's time, a transfer alone takes exactly the table's ``time(B)``. The two
directions of a topology link are two ``Link``s (full duplex) sharing one ``Meter``, which
counts the bytes carried and the busy time (the union of the intervals in which any transfer
was on either direction).

A transfer that starts on an idle link may be started *solo* (``Link.start_solo``): its end,
``latency + B / bandwidth`` from now, is known, so no event is scheduled for it; the caller
ends it (``finish_solo``) with one event for a whole batch, e.g. one step of a collective
whose transfers each have a link to themselves. Should another transfer start on the link
first, the solo one becomes an ordinary transfer from where it is (in its latency, or with
the bytes it has moved) and the model above applies: the times are the same either way.
"""
import heapq
import itertools

#: Bytes a transfer may have left and still count as delivered (float rounding).
_EPSILON = 1e-6


class Engine:
    """Events in virtual time (µs). ``now`` is the time of the event being run."""

    def __init__(self):
        self.now = 0.0
        self._heap = []
        self._order = itertools.count()

    def at(self, time, key, action):
        """Run ``action()`` at virtual ``time`` (>= now); ``key`` orders equal times."""
        if time < self.now:
            time = self.now
        heapq.heappush(self._heap, (time, key, next(self._order), action))

    def next_time(self):
        """The time of the next event, or None."""
        return self._heap[0][0] if self._heap else None

    def step(self):
        """Run the next event; False if there is none."""
        if not self._heap:
            return False
        time, _, _, action = heapq.heappop(self._heap)
        self.now = time
        action()
        return True

    def run(self):
        """Run every event (including those events schedule); returns the final time."""
        while self.step():
            pass
        return self.now

    def __len__(self):
        return len(self._heap)


class Transfer:
    """Bytes in flight on one link. ``done(failure)`` is called once at the end."""

    __slots__ = ("link", "total", "remaining", "start", "done", "label", "failure", "end", "rate")

    def __init__(self, link, nbytes, done, label):
        self.link, self.total, self.remaining = link, float(nbytes), float(nbytes)
        self.start, self.done, self.label, self.failure = None, done, label, None
        self.end = None
        self.rate = link.bandwidth if link.table is None else link.table.rate(nbytes)
        if self.rate == float("inf"):
            self.rate, self.remaining = link.bandwidth, 0.0


class Meter:
    """Bytes and busy time of a link (both directions): ``start()`` / ``stop(nbytes)`` around
    each transfer; busy time is the union of the intervals with a transfer in flight."""

    def __init__(self, engine):
        self.engine = engine
        self.bytes = 0
        self.busy_us = 0.0
        self._in_flight = 0
        self._since = None

    def start(self):
        if self._in_flight == 0:
            self._since = self.engine.now
        self._in_flight += 1

    def stop(self, nbytes):
        self.bytes += nbytes
        self._in_flight -= 1
        if self._in_flight == 0:
            self.busy_us += self.engine.now - self._since
            self._since = None

    def busy_until_now(self):
        """Busy µs including transfers still in flight at ``engine.now``."""
        extra = self.engine.now - self._since if self._since is not None else 0.0
        return self.busy_us + extra


class Link:
    """One direction ``name`` of a link: ``bandwidth`` bytes/µs (1 GB/s = 1000 bytes/µs),
    ``latency`` µs, accounted on ``meter`` (a ``Meter``; a fresh one by default); with
    ``table`` (a LinkTable) the table's latency and per-size rates instead.

    ``on_transfer(link, label, start, end, nbytes)`` (optional) is told about every finished
    transfer (the simulator draws them in traces). ``slowdown`` divides the bandwidth and
    multiplies the latency (an injected slow link); ``failure`` set -> new transfers fail.
    """

    def __init__(self, engine, name, bandwidth, latency, key=(), on_transfer=None, meter=None,
                 table=None):
        self.engine, self.name = engine, name
        self.bandwidth, self.latency = float(bandwidth), float(latency)
        self.table = table
        if table is not None:
            self.latency = table.latency_us
        self.key = key
        self.on_transfer = on_transfer
        self.meter = meter if meter is not None else Meter(engine)
        self.slowdown = 1.0
        self.failure = None
        self._flowing = []          # transfers in their byte phase
        self._entering = 0          # transfers in their latency phase
        self._solo = None           # a transfer started by start_solo, alone on the link
        self._updated = 0.0
        self._version = 0

    def transfer(self, nbytes, done, label=""):
        """Start moving ``nbytes`` now; ``done(None)`` at the end, ``done(error)`` if the link
        is failed. Returns the ``Transfer``."""
        engine = self.engine
        t = Transfer(self, nbytes, done, label)
        if self.failure is not None:
            t.failure = self.failure
            engine.at(engine.now, self.key + (0,), lambda: done(self.failure))
            return t
        if self._solo is not None:
            self._share_solo()
        t.start = engine.now
        self.meter.start()
        latency = self.latency * self.slowdown
        self._entering += 1
        engine.at(engine.now + latency, self.key + (1,), lambda: self._enter(t))
        return t

    def start_solo(self, nbytes, done, label=""):
        """Start moving ``nbytes`` now if the link is idle (no transfer on it, not failed):
        returns the ``Transfer``, whose ``end`` is the time it will be done (``latency +
        B / bandwidth`` from now) unless another transfer starts on the link before; the caller
        must call ``finish_solo(t)`` at ``t.end``. Returns None when the link is not idle."""
        if (self.failure is not None or self._flowing or self._entering
                or self._solo is not None):
            return None
        t = Transfer(self, nbytes, done, label)
        t.start = self.engine.now
        t.end = (t.start + self.latency * self.slowdown) + t.remaining / (t.rate / self.slowdown)
        self.meter.start()
        self._solo = t
        return t

    def finish_solo(self, t, notify=True):
        """End solo transfer ``t`` at its ``end``: True, after calling ``t.done(None)`` if
        ``notify``; False (nothing done) if it was shared meanwhile and ends on its own."""
        if self._solo is not t:
            return False
        self._solo = None
        self._finish(t, notify)
        return True

    def _share_solo(self):
        """Another transfer starts: the solo one becomes an ordinary transfer from where it is."""
        t, self._solo = self._solo, None
        entered = t.start + self.latency * self.slowdown
        if self.engine.now < entered:
            self._entering += 1
            self.engine.at(entered, self.key + (1,), lambda: self._enter(t))
            return
        self._flowing.append(t)
        self._updated = entered
        self._advance()
        self._reschedule()

    def _rate(self, t):
        """Bytes/µs transfer ``t`` moves now: its rate, shared with the others flowing."""
        return t.rate / self.slowdown / max(1, len(self._flowing))

    def _advance(self):
        """Account the bytes that flowed since the last update."""
        now = self.engine.now
        if self._flowing and now > self._updated:
            n, elapsed = max(1, len(self._flowing)), now - self._updated
            for t in self._flowing:
                t.remaining -= t.rate / self.slowdown / n * elapsed
        self._updated = now

    def _enter(self, t):
        self._entering -= 1
        self._advance()
        if t.remaining <= _EPSILON:
            self._finish(t)
            return
        self._flowing.append(t)
        self._reschedule()

    def _reschedule(self):
        self._version += 1
        if not self._flowing:
            return
        version = self._version
        when = self.engine.now + min(t.remaining / self._rate(t) for t in self._flowing)
        self.engine.at(when, self.key + (2,), lambda: self._complete(version))

    def _complete(self, version):
        if version != self._version:
            return
        self._advance()
        # The soonest transfer drained at exactly this event; floats may leave a few ulps.
        soonest = min(t.remaining / self._rate(t) for t in self._flowing)
        finished = [t for t in self._flowing if t.remaining <= soonest * self._rate(t) + _EPSILON]
        self._flowing = [t for t in self._flowing if t not in finished]
        for t in finished:
            t.remaining = 0.0
            self._finish(t)
        self._reschedule()

    def _finish(self, t, notify=True):
        self.meter.stop(int(t.total))
        if self.on_transfer is not None:
            self.on_transfer(self, t.label, t.start, self.engine.now, int(t.total))
        if notify:
            t.done(None)
