"""Compile-time random draws for ``stablehlo.rng`` NORMAL, as IREE draws them (helper, not a pass).

IREE makes ``stablehlo.rng`` with the NORMAL distribution stateless: at compile time it draws
uniform pairs ``(u1, u2)`` from C++'s ``std::mt19937`` seeded with 0 through
``std::uniform_real_distribution<double>(0, 1)`` (libstdc++: two 32-bit draws per double,
``(a + b * 2^32) / 2^64``), skipping pairs with ``u1 <= FLT_EPSILON``, and bakes
``-2 log u1``, ``cos(2 pi u2)`` and ``sin(2 pi u2)`` into the program as f32 constants; the
program computes the Box-Muller transform ``mu + sigma * sqrt(-2 log u1) * (cos | sin)`` from
them. ``box_muller_constants(n)`` gives those three lists for ``n`` values, so rt's results
equal IREE's.

Source followed: the Mersenne Twister MT19937 (Matsumoto and Nishimura, 1998; the C++
standard's ``mt19937`` parameters) and IREE's ``ExpandRngNormal`` (StableHLOToStableHLO.cpp).
"""
import math

import numpy as np


class _MT19937:
    """The 32-bit Mersenne Twister with the C++ standard's parameters, seeded as ``mt19937{seed}``."""

    def __init__(self, seed):
        self.state = [seed & 0xFFFFFFFF]
        for k in range(1, 624):
            prev = self.state[-1]
            self.state.append((1812433253 * (prev ^ (prev >> 30)) + k) & 0xFFFFFFFF)
        self.index = 624

    def _twist(self):
        s = self.state
        for k in range(624):
            y = (s[k] & 0x80000000) | (s[(k + 1) % 624] & 0x7FFFFFFF)
            s[k] = s[(k + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        self.index = 0

    def __call__(self):
        if self.index >= 624:
            self._twist()
        y = self.state[self.index]
        self.index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return y ^ (y >> 18)


def _canonical(engine):
    """libstdc++'s ``generate_canonical<double, 53>``: two draws, low word first, below 1."""
    value = (engine() + engine() * 2.0 ** 32) / 2.0 ** 64
    return value if value < 1.0 else math.nextafter(1.0, 0.0)


def box_muller_constants(count):
    """(``-2 log u1``, ``cos(2 pi u2)``, ``sin(2 pi u2)``) as f32 lists of ``ceil(count / 2)`` values."""
    engine, epsilon = _MT19937(0), np.finfo(np.float32).eps
    two_pi = np.float32(2.0 * math.pi)
    logs, cosines, sines = [], [], []
    for _ in range((count + 1) // 2):
        while True:
            u1, u2 = np.float32(_canonical(engine)), np.float32(_canonical(engine))
            if u1 > epsilon:
                break
        angle = np.float32(two_pi * u2)
        logs.append(float(np.float32(-2.0 * math.log(u1))))
        cosines.append(float(np.float32(math.cos(angle))))
        sines.append(float(np.float32(math.sin(angle))))
    return logs, cosines, sines
