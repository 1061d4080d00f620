"""Injected faults: ``--inject=SPEC`` (repeatable) and ``rt.load(..., faults=[...])``.

A spec is ``key=value`` pairs joined by commas (or the same as a dict):

* ``device=gpu1,fail_at=3`` — the 3rd queue operation submitted to gpu1 fails (counting from
  1 over the device's lifetime); add ``count=N`` to fail N consecutive ones (default 1).
* ``link=gpu0-gpu1,fail`` — every transfer over the link fails; ``fail_at=N`` fails only
  the N-th transfer over it.
* ``link=gpu0-gpu1,slow=4`` — the link moves bytes 4x slower and its latency is 4x longer.
* ``device=gpu2,memory=1MiB`` — gpu2's memory capacity shrinks to 1 MiB.

A failed operation fails its signal fence with an ``InjectedFaultError`` naming the device
(or link), the operation and the spec; the failure then travels the HAL's normal path to
every dependent fence (docs/ARCHITECTURE.md §7). The fault plan is checked against the topology when
the simulation is created (unknown device or link, bad value: ``InvalidArgumentError``).
Values are checked when parsed: counts are positive integers of ASCII digits (at most 18),
``slow`` a finite factor from 1 to ``MAX_SLOW``, ``memory`` a size (topology rules), names
non-empty strings; any other spec is an error naming the field.
"""
import math
from collections.abc import Mapping
from dataclasses import dataclass

from rt.runtime.errors import DeviceError, InvalidArgumentError

_KEYS = {"device": ("fail_at", "count", "memory"), "link": ("fail", "fail_at", "slow")}
#: the largest slow-down factor: a link slower than that models nothing (and ``inf`` divides by 0)
MAX_SLOW = 1e6


class InjectedFaultError(DeviceError):
    """A failure the user injected (``--inject``); ``spec`` is the fault's text."""

    def __init__(self, message, spec):
        super().__init__(message)
        self.spec = spec


@dataclass(frozen=True)
class Fault:
    """One parsed fault: ``target`` ("device" or "link"), ``name`` and its settings."""

    target: str
    name: str
    fail_at: int | None = None
    count: int = 1
    fail: bool = False
    slow: float | None = None
    memory: int | None = None
    text: str = ""


def parse(spec):
    """A ``Fault`` from ``"device=gpu1,fail_at=3"`` or ``{"device": "gpu1", "fail_at": 3}``."""
    from rt.runtime.sim.topology import _Reader

    if isinstance(spec, Fault):
        return spec
    if isinstance(spec, Mapping):
        for key, value in spec.items():
            if not isinstance(key, str) or not isinstance(value, (str, int, float, bool)):
                raise InvalidArgumentError(f"fault {dict(spec)!r}: {key!r}: expected a name or a number, got "
                                           f"{type(value).__name__} {value!r}"[:300])
        text = ",".join(f"{k}={v}" for k, v in spec.items())
    elif isinstance(spec, str):
        text = spec
    else:
        raise InvalidArgumentError(f"a fault is a string such as 'device=gpu1,fail_at=3' or a dict "
                                   f"{{'device': 'gpu1', 'fail_at': 3}}, got {type(spec).__name__}")
    items = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip()
        if key in items:
            raise InvalidArgumentError(f"fault {text!r}: {key!r} given twice")
        items[key] = value.strip() if eq else None
    targets = [k for k in items if k in _KEYS]
    if len(targets) != 1 or items[targets[0]] is None:
        raise InvalidArgumentError(f"fault {text!r}: expected device=NAME or link=A-B first, "
                                   "e.g. device=gpu1,fail_at=3 or link=gpu0-gpu1,slow=4")
    target = targets[0]
    if not items[target]:
        raise InvalidArgumentError(f"fault {text!r}: {target}: expected a {target} name, got nothing")
    fields = {}
    for key, value in items.items():
        if key == target:
            continue
        if key not in _KEYS[target]:
            raise InvalidArgumentError(f"fault {text!r}: unknown setting {key!r} for a {target}; "
                                       f"expected {', '.join(_KEYS[target])}")
        fields[key] = _value(text, key, value, _Reader(f"fault {text!r}", {}))
    fault = Fault(target, items[target], text=text, **fields)
    if target == "device" and fault.fail_at is None and fault.memory is None:
        raise InvalidArgumentError(f"fault {text!r}: say what fails: fail_at=N or memory=SIZE")
    if target == "link" and not (fault.fail or fault.fail_at or fault.slow):
        raise InvalidArgumentError(f"fault {text!r}: say what happens: fail, fail_at=N or "
                                   "slow=FACTOR")
    return fault


def _digits(value):
    """Whether ``value`` is a plain decimal integer of at most 18 ASCII digits (``str.isdigit``
    also takes '²' and other scripts' digits, which ``int`` then refuses or reads unexpectedly)."""
    return value.isascii() and value.isdigit() and len(value) <= 18


def _value(text, key, value, reader):
    if key == "fail":
        if value not in (None, "true", "True", "1", "yes"):
            raise InvalidArgumentError(f"fault {text!r}: 'fail' takes no value")
        return True
    if value is None:
        raise InvalidArgumentError(f"fault {text!r}: {key} needs a value ({key}=...)")
    if key == "memory":
        return reader.size(int(value) if _digits(value) else value, (key,))
    if key == "slow":
        try:
            factor = float(value) if value.isascii() else math.nan
        except ValueError:
            factor = math.nan
        if not 1.0 <= factor <= MAX_SLOW:
            raise InvalidArgumentError(f"fault {text!r}: slow must be a factor >= 1 and <= {MAX_SLOW:g}, "
                                       f"got {value!r}")
        return factor
    if not _digits(value) or int(value) < 1:
        raise InvalidArgumentError(f"fault {text!r}: {key} must be a positive integer (at most 18 digits), got "
                                   f"{value!r}")
    return int(value)


class FaultPlan:
    """The faults of one simulation, checked against its ``topology``."""

    def __init__(self, specs, topology):
        self.faults = [parse(s) for s in specs or ()]
        devices = {d.name for d in topology.devices}
        links = {l.key: l for l in topology.links}
        for fault in self.faults:
            if fault.target == "device" and fault.name not in devices:
                raise InvalidArgumentError(f"fault {fault.text!r}: topology {topology.name!r} has "
                                           f"no device {fault.name!r}; devices: "
                                           f"{', '.join(sorted(devices))}")
            if fault.target == "link" and self.link_key(fault.name, topology) is None:
                raise InvalidArgumentError(f"fault {fault.text!r}: topology {topology.name!r} has "
                                           f"no link {fault.name!r}; links: "
                                           f"{', '.join(links) or '(none)'}")

    @staticmethod
    def link_key(name, topology):
        """The topology's key of link ``a-b`` (either order), or None."""
        a, sep, b = name.partition("-")
        while sep:
            link = topology.link(a, b)
            if link is not None:
                return link.key
            head, sep, b = b.partition("-")
            a = f"{a}-{head}"
        return None

    def memory(self, device):
        """The injected capacity of ``device`` (bytes) or None."""
        sizes = [f.memory for f in self.faults if f.target == "device" and f.name == device
                 and f.memory is not None]
        return sizes[-1] if sizes else None

    def device_failure(self, device, submission, operation):
        """The ``InjectedFaultError`` for ``device``'s ``submission``-th operation, or None."""
        for f in self.faults:
            if (f.target == "device" and f.name == device and f.fail_at is not None
                    and f.fail_at <= submission < f.fail_at + f.count):
                return InjectedFaultError(f"{device}: {operation} (submission {submission}) "
                                          f"failed: injected fault {f.text!r}", f.text)
        return None

    def link_settings(self, key, topology):
        """``(slow factor, fail always, fail_at or None, spec)`` of link ``key``."""
        slow, fail, fail_at, text = 1.0, False, None, ""
        for f in self.faults:
            if f.target == "link" and self.link_key(f.name, topology) == key:
                slow = f.slow or slow
                fail = fail or f.fail
                fail_at = f.fail_at or fail_at
                text = f.text
        return slow, fail, fail_at, text
