"""Pass instrumentation: wall time per pass nested by phase (``--timing``) and progress on a terminal.

``Timing`` collects a tree of named scopes (phase → pass → sections a pass opens itself, plus
the verifier) and prints it in the shape of MLIR's ``--mlir-timing`` report::

    ===-------------------------------------------------------------------------===
                             ... Execution time report ...
    ===-------------------------------------------------------------------------===
      Total Execution Time: 1.2345 seconds

      ----Wall Time----  ----Name----
        0.0412 (  3.3%)  parse
        0.0791 (  6.4%)  input
        0.0102 (  0.8%)    verify
        ...
        1.2345 (100.0%)  Total

``Progress`` writes one status line (``[37/41] iree-hal-translate-executables 3/4``), rewritten
in place, to a stream that is a terminal, and erases it when the run ends.

Code inside a pass reaches the active instrumentation through :func:`scope` (a nested timing
section) and :func:`progress` (steps within the pass); both do nothing when no compilation
with timing or progress is running. Source followed: MLIR ``PassTiming.cpp`` (report format,
``--mlir-timing-display=tree``).
"""
import contextlib
import contextvars
import sys
import time

_ACTIVE = contextvars.ContextVar("rt_compiler_instrumentation", default=(None, None))
_RULE = "===" + "-" * 73 + "==="
#: the row under each phase that sums the verifier runs after its passes
VERIFIER = "(verifier)"


class _Node:
    __slots__ = ("name", "seconds", "children")

    def __init__(self, name):
        self.name, self.seconds, self.children = name, 0.0, {}

    def child(self, name):
        node = self.children.get(name)
        if node is None:
            node = self.children[name] = _Node(name)
        return node


class Timing:
    """Wall-clock seconds per nested scope; scopes of the same name under one parent add up."""

    def __init__(self):
        self.root = _Node("Total")
        self._stack = [self.root]
        self._start = time.perf_counter()

    @contextlib.contextmanager
    def scope(self, name):
        """Time the ``with`` body as ``name`` under the innermost open scope."""
        node = self._stack[-1].child(name)
        self._stack.append(node)
        start = time.perf_counter()
        try:
            yield node
        finally:
            node.seconds += time.perf_counter() - start
            self._stack.pop()

    def report(self):
        """The report text (see the module docstring); Total is the time since creation."""
        total = self.root.seconds = time.perf_counter() - self._start
        lines = ["", _RULE, " " * 25 + "... Execution time report ...", _RULE,
                 f"  Total Execution Time: {total:.4f} seconds", "", "  ----Wall Time----  ----Name----"]

        def emit(node, depth):
            share = 100.0 * node.seconds / total if total > 0 else 0.0
            lines.append(f"  {node.seconds:8.4f} ({share:5.1f}%)  {'  ' * depth}{node.name}")
            if node is self.root:
                return
            # the verifier row closes its phase, as MLIR lists it after the passes it checked
            for child in sorted(node.children.values(), key=lambda c: c.name == VERIFIER):
                emit(child, depth + 1)

        for child in self.root.children.values():
            emit(child, 0)
        emit(self.root, 0)
        return "\n".join(lines) + "\n"


class Progress:
    """A status line on ``stream`` (default stderr), only when that stream is a terminal
    (``force=True``: whatever the stream is)."""

    def __init__(self, stream=None, interval=0.1, force=False):
        self.stream = sys.stderr if stream is None else stream
        self.enabled = force or bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = interval
        self._prefix, self._last, self._shown = "", 0.0, False

    def pass_started(self, index, count, name):
        """Show ``[index/count] name`` (always written: passes start rarely)."""
        self._prefix = f"[{index}/{count}] {name}"
        self._write(self._prefix)

    def step(self, done, total):
        """Show ``done/total`` after the running pass's name (at most every ``interval`` s)."""
        now = time.monotonic()
        if done < total and now - self._last < self.interval:
            return
        self._last = now
        self._write(f"{self._prefix} {done}/{total}")

    def finish(self):
        """Erase the status line."""
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False

    def _write(self, text):
        if self.enabled:
            self.stream.write("\r\x1b[K" + text)
            self.stream.flush()
            self._shown = True


@contextlib.contextmanager
def active(timing=None, progress=None):
    """Make ``timing`` / ``progress`` the ones :func:`scope` and :func:`progress` reach."""
    token = _ACTIVE.set((timing, progress))
    try:
        yield
    finally:
        _ACTIVE.reset(token)


@contextlib.contextmanager
def scope(name):
    """A nested timing section named ``name`` inside the running pass (no-op without timing)."""
    timing = _ACTIVE.get()[0]
    if timing is None:
        yield None
        return
    with timing.scope(name) as node:
        yield node


def progress(done, total):
    """Report ``done`` of ``total`` steps of the running pass (no-op without progress)."""
    reporter = _ACTIVE.get()[1]
    if reporter is not None:
        reporter.step(done, total)
