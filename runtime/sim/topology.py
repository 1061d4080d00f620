"""Device topologies: which devices exist, how much memory each has, and how they are linked.

A topology is a YAML file (or a dict, or ``Topology(...)``)::

    name: four-gpus                      # optional, shown in reports
    time_model: roofline                 # optional: roofline | measured (default: per device)
    collectives: {algorithm: ring}       # optional: see ALGORITHMS (default ring; with dims
                                         # hierarchical)
    host: {call_us: 140}                 # optional: host µs per SPMD call, cores, dispatch_us, wake_us (host_costs)
    devices:
      - name: gpu0                       # an identifier; "host" is reserved
        uri: local-task://llvm-cpu       # what executes the kernels (any local device URI)
        memory: 16GiB                    # capacity: bytes, or 64MiB / 16GiB / 1.5GB / 512KB
        peak_gflops: 900                 # optional roofline: 1e9 flop/s ...
        memory_gbps: 200                 # ... and 1e9 bytes/s of device memory bandwidth
        kernels: {matmul: {overhead_us: 4, gflops: 40}}  # optional: calibrated classes
        profile: p.json                  # optional: dispatch times of a real run (also top-level)
    links:
      - between: [gpu0, gpu1]            # two device names, or a device and "host"
        bandwidth_gbps: 50               # 1e9 bytes per second
        latency_us: 2
        table: [[65536, 4.3], [4MiB, 90]]  # optional: µs per size (rt.runtime.sim.link_table)
    groups:
      tp: [gpu0, gpu1, gpu2, gpu3]       # named device groups (SPMD ranks run on a group)

Units are decimal: ``bandwidth_gbps`` and ``memory_gbps`` are GB/s (10^9 bytes per second),
``peak_gflops`` is 10^9 flop/s; sizes accept B, KB/MB/GB/TB (powers of 1000) and
KiB/MiB/GiB/TiB (powers of 1024). Every error names the file, the line and the field, e.g.
``topo.yaml:7: devices[1].memory: expected a size such as 64MiB or 16GiB, got 'lots'``.

Limits, so that no file can exhaust memory or make the model meaningless: nesting at most
``MAX_DEPTH`` levels (checked on the YAML event stream before anything is built, so deep
nesting and recursive aliases are errors, not ``RecursionError``); aliases (``*name``) expand to
at most ``MAX_NODES`` nodes in all (a "billion laughs" file is refused at its line); mapping keys
are scalars; every number is finite and at most ``MAX_NUMBER`` (rates at least ``MIN_RATE``),
sizes at most ``MAX_SIZE`` bytes. Names where names belong: a list or mapping there is an error.

Instead of ``links``, a topology may give ``dims`` (dimensions with a size, a kind, a bandwidth
and a latency each) and a ``device`` template (rt.runtime.sim.topology_dims); an ASTRA-sim
network file (``topology/npus_count/bandwidth/latency``) is read as such a topology
(rt.runtime.sim.astra_sim).
"""
import dataclasses
import functools
import math
import os
import re
from dataclasses import dataclass, field

import yaml

from rt.runtime.errors import InvalidArgumentError, NotFoundError, RtError
from rt.runtime.sim import astra_sim, dispatch_classes, host_costs, link_table, topology_dims

HOST = "host"
TIME_MODELS = ("roofline", "measured")
ALGORITHMS = ("ring", "tree", "direct", "halving_doubling", "hierarchical", "auto", "rendezvous")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]i?B|B)?\s*$", re.IGNORECASE)
_FLOAT_WITHOUT_DOT = re.compile(r"^[-+]?[0-9]+[eE][-+]?[0-9]+$")
_UNITS = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
          "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40}
MAX_DEPTH = 32
MAX_NODES = 100_000
MAX_NUMBER = 1e15
MIN_RATE = 1e-6
MAX_SIZE = 2**60
_TOP_FIELDS = ("name", "time_model", "collectives", "devices", "links", "groups", "dims", "device",
               "profile", "host")
_DEVICE_FIELDS = ("name", "uri", "memory", "peak_gflops", "memory_gbps", "time_model", "kernels",
                  "profile")
_LINK_FIELDS = ("between", "bandwidth_gbps", "latency_us", "table")


@dataclass(frozen=True)
class DeviceSpec:
    """One device: ``name``; ``uri`` (the local device executing its kernels); ``memory``
    capacity in bytes (None = unlimited); roofline ``peak_gflops`` (1e9 flop/s) and
    ``memory_gbps`` (1e9 B/s), None when absent; ``time_model``: "roofline" or "measured";
    ``kernels``: calibrated per-class costs (rt.runtime.sim.dispatch_classes.KernelCosts) and
    ``profile``: a dispatch profile table (rt.runtime.sim.profile.ProfileTable), or None."""

    name: str
    uri: str
    memory: int | None = None
    peak_gflops: float | None = None
    memory_gbps: float | None = None
    time_model: str = "measured"
    kernels: object = None
    profile: object = None


@dataclass(frozen=True)
class LinkSpec:
    """A link ``between`` two endpoints (device names or "host"), ``bandwidth_gbps`` in 1e9
    bytes per second and ``latency_us`` in microseconds; ``table``: measured time per message
    size (rt.runtime.sim.link_table.LinkTable) that the simulator uses instead, or None.
    ``key`` is ``"a-b"``."""

    between: tuple
    bandwidth_gbps: float
    latency_us: float = 0.0
    table: object = None

    @property
    def key(self):
        return f"{self.between[0]}-{self.between[1]}"


@dataclass(frozen=True)
class Topology:
    """Devices, links, groups and the host's per-call cost (``host``,
    rt.runtime.sim.host_costs); build with ``Topology.load(path)``, ``Topology.from_yaml``,
    ``Topology.from_dict`` or directly (then ``validate()`` runs the same checks)."""

    devices: tuple
    links: tuple = ()
    groups: dict = field(default_factory=dict)
    name: str = "topology"
    algorithm: str = "ring"
    source: str = "<topology>"
    dims: tuple = ()
    host: host_costs.HostCosts = host_costs.HostCosts()

    def __post_init__(self):
        object.__setattr__(self, "devices", tuple(self.devices))
        object.__setattr__(self, "links", tuple(self.links))
        object.__setattr__(self, "groups", {k: tuple(v) for k, v in dict(self.groups).items()})
        object.__setattr__(self, "dims", tuple(self.dims))

    # -- construction ------------------------------------------------------------------------

    @classmethod
    def load(cls, path):
        """Read a topology YAML file; ``InvalidArgumentError`` with ``file:line: field:``."""
        path = os.fspath(path)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise NotFoundError(f"cannot read topology file {path!r}: {e.strerror}") from None
        return cls.from_yaml(text, path)

    @classmethod
    def from_yaml(cls, text, source="<topology>"):
        """Parse topology YAML ``text``; ``source`` names it in errors."""
        try:
            _check_nesting(text, source)
            node = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            position = getattr(e, "position", None)  # a ReaderError (a character YAML refuses)
            line = mark.line + 1 if mark is not None else (text.count("\n", 0, position) + 1
                                                            if position is not None else None)
            where = f"{source}:{line}" if line is not None else source
            problem = getattr(e, "problem", None) or getattr(e, "reason", None) or str(e)
            raise InvalidArgumentError(f"{where}: not valid YAML: {problem}") from None
        if node is None:
            raise InvalidArgumentError(f"{source}:1: the topology is empty; expected a mapping "
                                       "with a 'devices' list")
        lines = {}
        data = _plain(node, (), lines, source, yaml.SafeLoader(""), [MAX_NODES])
        return _Reader(source, lines).topology(data)

    @classmethod
    def from_dict(cls, data, source="<dict>"):
        """Build from plain Python data shaped like the YAML file."""
        return _Reader(source, {}).topology(data)

    def with_algorithm(self, algorithm):
        """This topology with its collectives run by ``algorithm`` (one of ``ALGORITHMS``; an
        override per load or per command); ``InvalidArgumentError`` naming the choices."""
        if algorithm not in ALGORITHMS:
            raise InvalidArgumentError(f"collective algorithm {algorithm!r}: expected one of "
                                       f"{', '.join(ALGORITHMS)}")
        if algorithm == "hierarchical" and not self.dims:
            raise InvalidArgumentError(f"collective algorithm 'hierarchical' needs a topology "
                                       f"with dims; {self.name!r} lists its links")
        return dataclasses.replace(self, algorithm=algorithm)

    @functools.cached_property
    def grid(self):
        """The ``topology_dims.Grid`` of a topology with ``dims`` (None without)."""
        if not self.dims:
            return None
        return topology_dims.Grid(self.dims, [d.name for d in self.devices])

    def validate(self):
        """Re-check a directly constructed topology; returns it."""
        return Topology.from_dict(self.to_dict(), self.source)

    def to_dict(self):
        """The plain-data form (what ``from_dict`` reads)."""
        devices = []
        for d in self.devices:
            entry = {"name": d.name, "uri": d.uri}
            for key in ("memory", "peak_gflops", "memory_gbps"):
                if getattr(d, key) is not None:
                    entry[key] = getattr(d, key)
            if d.kernels is not None:
                entry["kernels"] = d.kernels.to_dict()
            if d.profile is not None:
                entry["profile"] = d.profile.source
            if d.time_model != _default_time_model(d.peak_gflops, d.memory_gbps, d.kernels):
                entry["time_model"] = d.time_model
            devices.append(entry)
        generated = ({frozenset(l[:2]) for l in self.grid.links()} if self.dims else set())
        out = {"name": self.name, "collectives": {"algorithm": self.algorithm},
               "devices": devices,
               "links": [{"between": list(l.between), "bandwidth_gbps": l.bandwidth_gbps,
                          "latency_us": l.latency_us,
                          **({"table": l.table.to_list()} if l.table is not None else {})}
                         for l in self.links if frozenset(l.between) not in generated],
               "groups": {k: list(v) for k, v in self.groups.items()}}
        if self.dims:
            out["dims"] = [d.to_dict() for d in self.dims]
        if self.host != host_costs.HostCosts():
            out["host"] = self.host.to_dict()
        return out

    # -- queries -----------------------------------------------------------------------------

    def device(self, name):
        """The ``DeviceSpec`` called ``name``; ``NotFoundError`` listing the devices."""
        for d in self.devices:
            if d.name == name:
                return d
        raise NotFoundError(f"topology {self.name!r} has no device {name!r}; devices: "
                            + ", ".join(d.name for d in self.devices))

    def group(self, name=None):
        """Device names of group ``name`` (None: the first group, else every device)."""
        if name is None:
            if self.groups:
                return next(iter(self.groups.values()))
            return tuple(d.name for d in self.devices)
        if name not in self.groups:
            raise NotFoundError(f"topology {self.name!r} has no group {name!r}; groups: "
                                + (", ".join(self.groups) or "(none)"))
        return self.groups[name]

    def link(self, a, b):
        """The ``LinkSpec`` joining endpoints ``a`` and ``b`` (either order), or None."""
        for l in self.links:
            if set(l.between) == {a, b}:
                return l
        return None


def _default_time_model(peak_gflops, memory_gbps, kernels=None):
    known = peak_gflops is not None or memory_gbps is not None or kernels is not None
    return "roofline" if known else "measured"


def _check_nesting(text, source):
    """Refuse YAML nested deeper than MAX_DEPTH, from the parser's events (iterative, so the
    check itself cannot overflow the stack the composer would)."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise InvalidArgumentError(f"{source}:{event.start_mark.line + 1}: nested more than {MAX_DEPTH} "
                                           f"levels deep; a topology needs a few")
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


def _plain(node, path, lines, source, loader, budget):
    """Plain Python data for a composed YAML node; records the line of every path.

    ``budget`` is a one-element list of nodes still allowed: aliases share nodes, so a small
    file can name billions of them; a recursive alias never ends (the depth limit stops it).
    """
    line = node.start_mark.line + 1
    budget[0] -= 1
    if budget[0] < 0:
        raise InvalidArgumentError(f"{source}:{line}: {_path_text(path)}: more than {MAX_NODES} values once "
                                   f"aliases (*name) are expanded; write the topology out without them")
    if len(path) > MAX_DEPTH:
        raise InvalidArgumentError(f"{source}:{line}: {_path_text(path[:3])}...: nested more than {MAX_DEPTH} "
                                   f"levels deep (a recursive alias?)")
    lines[path] = line
    if isinstance(node, yaml.MappingNode):
        out = {}
        for key_node, value_node in node.value:
            key = _plain(key_node, path + ("<key>",), {}, source, loader, budget)
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                raise InvalidArgumentError(f"{source}:{key_node.start_mark.line + 1}: {_path_text(path)}: a key "
                                           f"must be a name, got {_kind(key)}")
            if key in out:
                raise InvalidArgumentError(f"{source}:{key_node.start_mark.line + 1}: "
                                           f"{_path_text(path + (key,))}: given twice")
            out[key] = _plain(value_node, path + (key,), lines, source, loader, budget)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_plain(v, path + (i,), lines, source, loader, budget) for i, v in enumerate(node.value)]
    try:
        return loader.construct_object(node, deep=True)
    except yaml.YAMLError as e:
        raise InvalidArgumentError(f"{source}:{line}: {_path_text(path)}: "
                                   f"{getattr(e, 'problem', None) or e}") from None
    except (ValueError, TypeError, OverflowError) as e:  # e.g. "!!int 12x", "!!float abc"
        raise InvalidArgumentError(f"{source}:{line}: {_path_text(path)}: {node.tag.rsplit(':', 1)[-1]} value "
                                   f"{node.value!r} is not valid: {e}") from None


def _path_text(path):
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


class _Reader:
    """Validates plain topology data; errors cite ``source:line`` when lines are known."""

    def __init__(self, source, lines):
        self.source, self.lines = source, lines

    def fail(self, path, message):
        probe = tuple(path)
        while probe not in self.lines and probe:
            probe = probe[:-1]
        line = self.lines.get(probe)
        where = f"{self.source}:{line}" if line is not None else self.source
        raise InvalidArgumentError(f"{where}: {_path_text(path)}: {message}")

    @staticmethod
    def describe(value):
        """A short text for ``value`` in an error ("a mapping", "a list of 3", a clipped repr)."""
        return _kind(value)

    def mapping(self, value, path, allowed, required=()):
        if not isinstance(value, dict):
            self.fail(path, f"expected a mapping with fields {', '.join(allowed)}, got "
                            f"{_kind(value)}")
        for key in value:
            if key not in allowed:
                self.fail(tuple(path) + (key,), f"unknown field; expected one of "
                                                f"{', '.join(allowed)}")
        for key in required:
            if key not in value:
                self.fail(path, f"missing required field {key!r}")
        return value

    def name(self, value, path):
        if not isinstance(value, str) or not _NAME.match(value):
            self.fail(path, f"expected a name (letters, digits, _ . -), got {value!r}")
        return value

    def number(self, value, path, minimum=0.0, strict=True, unit=""):
        """A finite number in ``[minimum, MAX_NUMBER]``; ``strict``: a rate, so at least MIN_RATE."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            hint = ""
            if isinstance(value, str) and _FLOAT_WITHOUT_DOT.match(value):
                hint = " (YAML reads an exponent without a dot as text: write 1.0e9, not 1e9)"
            self.fail(path, f"expected a number{unit}, got {_kind(value)}{hint}")
        if isinstance(value, int) and abs(value) > MAX_NUMBER or not math.isfinite(value):
            self.fail(path, f"expected a finite number{unit} of at most {MAX_NUMBER:g}, got {_kind(value)}")
        if value > MAX_NUMBER:
            self.fail(path, f"must be at most {MAX_NUMBER:g}{unit}, got {value!r}")
        if value < minimum or (strict and value == minimum):
            bound = f"> {minimum:g}" if strict else f">= {minimum:g}"
            self.fail(path, f"must be {bound}, got {value!r}")
        if strict and value < MIN_RATE:
            self.fail(path, f"must be at least {MIN_RATE:g}{unit} (a rate that small models nothing), got {value!r}")
        return float(value)

    def size(self, value, path):
        if isinstance(value, int) and not isinstance(value, bool):
            number, unit = value, "B"
        else:
            match = _SIZE.match(value) if isinstance(value, str) else None
            if match is None:
                self.fail(path, f"expected a size such as 64MiB or 16GiB (or bytes), got {value!r}")
            number, unit = float(match.group(1)), (match.group(2) or "B").upper()
        if number > MAX_SIZE:
            self.fail(path, f"must be at most {MAX_SIZE} bytes (1 EiB), got {_kind(value)}")
        size = int(number * _UNITS[unit])
        if size <= 0 or size > MAX_SIZE:
            self.fail(path, f"must be a positive size of at most 1 EiB, got {_kind(value)}")
        return size

    def choice(self, value, path, choices):
        if value not in choices:
            self.fail(path, f"expected one of {', '.join(choices)}, got {value!r}")
        return value

    def uri(self, value, path):
        from rt.runtime.hal.driver import parse_int_param
        from rt.runtime.hal.driver_registry import get_driver, parse_device_uri
        from rt.runtime.hal.executable_loader import device_names

        if not isinstance(value, str):
            self.fail(path, f"expected a device URI such as local-task://llvm-cpu, got {value!r}")
        try:
            driver_name, device_name, params = parse_device_uri(value)
            driver = get_driver(driver_name)
            if device_name not in device_names():
                raise NotFoundError(f"unknown device {device_name!r}; known devices: "
                                    + ", ".join(device_names()))
            driver.check_params(params, value)
            if "threads" in params:
                parse_int_param("threads", params["threads"], 1, 256, f"device URI {value!r}")
        except RtError as e:
            self.fail(path, str(e))
        if "heap_capacity" in params:
            self.fail(path, "give the capacity as the device's 'memory' field, not as "
                            "heap_capacity in the URI")
        return value

    def topology(self, data):
        if astra_sim.is_network_file(data):
            dims = astra_sim.read_dims(self, data)
            name = (os.path.splitext(os.path.basename(self.source))[0]
                    if not self.source.startswith("<") else "") or "topology"
            spec = DeviceSpec(topology_dims.DEFAULT_PREFIX, astra_sim.DEFAULT_URI)
            devices = [dataclasses.replace(spec, name=f"{spec.name}{i}")
                       for i in range(topology_dims.device_count(dims))]
            links = self.dim_links(dims, devices, [])
            return Topology(devices, links, {}, name, "hierarchical", self.source, dims)
        top = self.mapping(data, (), _TOP_FIELDS,
                           required=() if isinstance(data, dict) and "dims" in data else ("devices",))
        name = top.get("name", "topology")
        if not isinstance(name, str) or not name:
            self.fail(("name",), f"expected a non-empty string, got {name!r}")
        time_model = top.get("time_model")
        if time_model is not None:
            self.choice(time_model, ("time_model",), TIME_MODELS)
        dims = topology_dims.read_dims(self, top["dims"]) if "dims" in top else ()
        algorithm = "hierarchical" if dims else "ring"
        if "collectives" in top:
            coll = self.mapping(top["collectives"], ("collectives",), ("algorithm",))
            algorithm = self.choice(coll.get("algorithm", algorithm), ("collectives", "algorithm"),
                                    ALGORITHMS)
            if algorithm == "hierarchical" and not dims:
                self.fail(("collectives", "algorithm"), "hierarchical needs dims (a topology "
                                                        "declared by its dimensions)")
        profile = self.profile(top["profile"], ("profile",)) if "profile" in top else None
        if dims:
            devices = self.dim_devices(top, dims, time_model, profile)
        elif "device" in top:
            self.fail(("device",), "a device template goes with dims; list the devices under "
                                   "'devices' instead")
        else:
            devices = self.devices(top["devices"], time_model, profile)
        names = {d.name for d in devices}
        links = self.links(top.get("links", []), names)
        if dims:
            links = self.dim_links(dims, devices, links)
        groups = self.groups(top.get("groups", {}), names)
        host = host_costs.parse(self, top["host"]) if "host" in top else host_costs.HostCosts()
        return Topology(devices, links, groups, name, algorithm, self.source, dims, host)

    def dim_devices(self, top, dims, default_model, default_profile=None):
        """The devices of a topology with ``dims``: a ``device`` template or a ``devices`` list
        of exactly as many devices as the grid has."""
        count = topology_dims.device_count(dims)
        if "devices" in top:
            if "device" in top:
                self.fail(("device",), "give either a device template or a devices list, not both")
            devices = self.devices(top["devices"], default_model, default_profile)
            if len(devices) != count:
                self.fail(("devices",), f"the dims hold {count} devices, the list has {len(devices)}")
            return devices
        template = dict(self.mapping(top.get("device", {}), ("device",), _DEVICE_FIELDS))
        template.setdefault("name", topology_dims.DEFAULT_PREFIX)
        template.setdefault("uri", astra_sim.DEFAULT_URI)
        spec = self.device(template, ("device",), default_model, default_profile)
        return [dataclasses.replace(spec, name=f"{spec.name}{i}") for i in range(count)]

    def dim_links(self, dims, devices, extra):
        """The links ``dims`` generate, then the ``extra`` ones the file lists (which must not
        join devices the dims already link)."""
        grid = topology_dims.Grid(dims, [d.name for d in devices])
        names = set(grid.names)
        links = []
        for a, b, k in grid.links():
            dim = dims[k]
            latency = 2 * dim.latency_us if dim.kind == "switch" else dim.latency_us
            links.append(LinkSpec((a, b), dim.bandwidth_gbps, latency))
        generated = {frozenset(l.between) for l in links}
        switches = {b for l in links for b in l.between[1:] if b not in names}
        clash = sorted(names & switches)
        if clash:
            self.fail(("devices",), f"device name {clash[0]!r} is also a switch's name "
                                    "(sw<dim>.<line>); rename the device")
        for i, l in enumerate(extra):
            if frozenset(l.between) in generated:
                self.fail(("links", i, "between"), f"{l.between[0]} and {l.between[1]} are "
                                                   "already linked by the dims")
        return links + list(extra)

    def profile(self, value, path):
        """A dispatch profile named by a path (relative to the topology file's folder)."""
        from rt.runtime.sim.profile import ProfileTable

        if not isinstance(value, str) or not value:
            self.fail(path, f"expected the path of a dispatch profile or trace, got {_kind(value)}")
        folder = os.path.dirname(self.source) if os.path.isfile(self.source) else ""
        try:
            return ProfileTable.load(os.path.join(folder, value))
        except RtError as e:
            self.fail(path, str(e))

    def devices(self, value, default_model, default_profile=None):
        if not isinstance(value, list) or not value:
            self.fail(("devices",), f"expected a non-empty list of devices, got {_kind(value)}")
        devices, seen = [], set()
        for i, entry in enumerate(value):
            path = ("devices", i)
            spec = self.device(entry, path, default_model, default_profile)
            if spec.name in seen:
                self.fail(path + ("name",), f"device {spec.name!r} is defined twice")
            seen.add(spec.name)
            devices.append(spec)
        return devices

    def device(self, entry, path, default_model, default_profile=None):
        """One validated ``DeviceSpec`` (a ``devices`` entry or the ``device`` template)."""
        d = self.mapping(entry, path, _DEVICE_FIELDS, required=("name", "uri"))
        name = self.name(d["name"], path + ("name",))
        if name == HOST:
            self.fail(path + ("name",), f"{HOST!r} is reserved for the host end of links")
        uri = self.uri(d["uri"], path + ("uri",))
        memory = self.size(d["memory"], path + ("memory",)) if "memory" in d else None
        peak = (self.number(d["peak_gflops"], path + ("peak_gflops",), unit=" (GFLOP/s)")
                if "peak_gflops" in d else None)
        mem_bw = (self.number(d["memory_gbps"], path + ("memory_gbps",), unit=" (GB/s)")
                  if "memory_gbps" in d else None)
        kernels = (dispatch_classes.parse(self, d["kernels"], path + ("kernels",))
                   if "kernels" in d else None)
        profile = self.profile(d["profile"], path + ("profile",)) if "profile" in d else default_profile
        model = d.get("time_model", default_model) or _default_time_model(peak, mem_bw, kernels)
        self.choice(model, path + ("time_model",), TIME_MODELS)
        return DeviceSpec(name, uri, memory, peak, mem_bw, model, kernels, profile)

    def links(self, value, names):
        if not isinstance(value, list):
            self.fail(("links",), f"expected a list of links, got {_kind(value)}")
        links, seen = [], set()
        for i, entry in enumerate(value):
            path = ("links", i)
            l = self.mapping(entry, path, _LINK_FIELDS, required=("between", "bandwidth_gbps"))
            between = l["between"]
            if not isinstance(between, list) or len(between) != 2:
                self.fail(path + ("between",), f"expected two endpoints [a, b], got {between!r}")
            for k, end in enumerate(between):
                if not isinstance(end, str):
                    self.fail(path + ("between", k), f"expected a device name or {HOST!r}, got {_kind(end)}")
                if end != HOST and end not in names:
                    self.fail(path + ("between", k), f"unknown device {end!r}; expected "
                                                     f"{HOST!r} or one of {', '.join(sorted(names))}")
            if between[0] == between[1]:
                self.fail(path + ("between",), f"a link joins two different endpoints, got "
                                               f"{between!r}")
            pair = frozenset(between)
            if pair in seen:
                self.fail(path + ("between",), f"a link between {between[0]} and {between[1]} "
                                               "is already defined")
            seen.add(pair)
            bandwidth = self.number(l["bandwidth_gbps"], path + ("bandwidth_gbps",),
                                    unit=" (GB/s)")
            latency = (self.number(l["latency_us"], path + ("latency_us",), strict=False,
                                   unit=" (µs)") if "latency_us" in l else 0.0)
            table = link_table.parse(self, l["table"], path + ("table",)) if "table" in l else None
            links.append(LinkSpec(tuple(between), bandwidth, latency, table))
        return links

    def groups(self, value, names):
        if not isinstance(value, dict):
            self.fail(("groups",), f"expected a mapping of group names to device lists, got "
                                   f"{_kind(value)}")
        groups = {}
        for key, members in value.items():
            path = ("groups", key)
            self.name(key, path)
            if not isinstance(members, list) or not members:
                self.fail(path, f"expected a non-empty list of device names, got {_kind(members)}")
            for k, member in enumerate(members):
                if not isinstance(member, str):
                    self.fail(path + (k,), f"expected a device name, got {_kind(member)}")
                if member not in names:
                    self.fail(path + (k,), f"unknown device {member!r}; devices: "
                                           f"{', '.join(sorted(names))}")
            if len(set(members)) != len(members):
                self.fail(path, f"lists a device twice: {members!r}")
            groups[key] = tuple(members)
        return groups


def _kind(value):
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"
