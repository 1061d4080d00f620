"""Two Python threads calling one module on local-sync llvm-cpu run their dispatches at the same
time (issue 9: the GIL is released in every dispatch). A tracer makes both threads reach the
matmul dispatch together; a matmul zone of one thread must then begin before one of the other's
ends. A dispatch that held the GIL would run them one after the other (never an overlap,
whatever the machine's load); released, the second thread begins while the first computes
(on a single free core too: the 1024^3 matmul outlasts a scheduler slice)."""
import threading
import time

import numpy as np

import rt

N = 1024
MATMUL = f"""
func.func @mm(%a: tensor<{N}x{N}xf32>, %b: tensor<{N}x{N}xf32>) -> tensor<{N}x{N}xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{N}x{N}xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<{N}x{N}xf32>) -> tensor<{N}x{N}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{N}x{N}xf32>, tensor<{N}x{N}xf32>) outs(%f : tensor<{N}x{N}xf32>) -> tensor<{N}x{N}xf32>
  return %r : tensor<{N}x{N}xf32>
}}
"""
CALLS = 3


class _Pairs(rt.Tracer):
    """Matmul dispatch zones start in pairs (the first thread waits, GIL released, for the
    other); records (thread, begin, end) of each matmul zone."""

    def __init__(self):
        super().__init__()
        self._pair = threading.Barrier(2, timeout=120)
        self._open = {}
        self.zones = []

    def zone_begin(self, lane, name, timestamp_ns, args=None):
        if "_matmul_" in str(name) and "executable" in (args or {}):  # the dispatch's own zone
            self._pair.wait()
            self._open[threading.get_ident()] = time.perf_counter_ns()
        super().zone_begin(lane, name, timestamp_ns, args)

    def zone_end(self, lane, timestamp_ns, args=None):
        begin = self._open.pop(threading.get_ident(), None)
        if begin is not None:
            self.zones.append((threading.get_ident(), begin, time.perf_counter_ns()))
        super().zone_end(lane, timestamp_ns, args)


def test_two_threads_dispatch_at_the_same_time():
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((N, N)).astype(np.float32) for _ in range(2))
    expected = a @ b
    tracer = _Pairs()
    errors = []
    with rt.load(rt.compile(MATMUL, devices=["llvm-cpu"]), devices=["local-sync://llvm-cpu"],
                 tracer=tracer) as m:
        def work():
            try:
                for _ in range(CALLS):
                    np.testing.assert_allclose(m.mm(a, b), expected, rtol=1e-4, atol=1e-3)
            except BaseException as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors
    assert len(tracer.zones) == 2 * CALLS
    by_thread = {}
    for ident, begin, end in tracer.zones:
        by_thread.setdefault(ident, []).append((begin, end))
    first, second = by_thread.values()
    # One overlap proves the release; the OS may still run a pair back to back on a busy core.
    assert any(b0 < e1 and b1 < e0 for b0, e0 in first for b1, e1 in second), \
        f"the two threads' matmul dispatches never overlapped: {sorted(tracer.zones, key=lambda z: z[1])}"
