"""ASTRA-sim network files read as rt topologies.

ASTRA-sim's analytical network backend describes a network as parallel lists, one entry per
dimension (dimension 0 first)::

    topology: [ Ring, FullyConnected, Switch ]   # or one name: topology: Switch
    npus_count: [ 2, 8, 4 ]                      # devices per dimension
    bandwidth: [ 200.0, 100.0, 50.0 ]            # GB/s per link and direction
    latency: [ 50.0, 500.0, 2000.0 ]             # ns per link

rt reads such a file wherever it takes a topology (``--topology=net.yml``), recognised by its
``npus_count`` key, as the ``dims:`` topology with the same dimensions
(rt.runtime.sim.topology_dims): kinds Ring -> ring, FullyConnected -> fully_connected,
Switch -> switch; latency converted from ns to µs; devices ``npu0`` ... on
``DEFAULT_URI`` without a memory limit; collectives hierarchical, each dimension choosing its
algorithm by predicted time (ASTRA-sim takes those from its system file, which rt does not
read). Errors cite the file, the line and the ASTRA-sim field (``net.yml:3: npus_count[1]:
...``).
"""
from rt.runtime.sim.topology_dims import MAX_DIMS, MAX_DEVICES, DimSpec

FIELDS = ("topology", "npus_count", "bandwidth", "latency")
KINDS = {"Ring": "ring", "FullyConnected": "fully_connected", "Switch": "switch"}
DEFAULT_URI = "local-task://llvm-cpu"


def is_network_file(data):
    """Whether plain topology data is an ASTRA-sim network file (it has ``npus_count``)."""
    return isinstance(data, dict) and "npus_count" in data


def read_dims(reader, data):
    """The ``DimSpec``s of ASTRA-sim network ``data``; errors through ``reader.fail``."""
    top = reader.mapping(data, (), FIELDS, required=FIELDS)
    kinds = top["topology"]
    if isinstance(kinds, str):
        kinds = [kinds]
    lists = {}
    for key, value in (("topology", kinds), ("npus_count", top["npus_count"]),
                       ("bandwidth", top["bandwidth"]), ("latency", top["latency"])):
        if not isinstance(value, list) or not value:
            reader.fail((key,), f"expected a non-empty list (one entry per dimension), got "
                                f"{reader.describe(value)}")
        if len(value) > MAX_DIMS:
            reader.fail((key,), f"at most {MAX_DIMS} dimensions, got {len(value)}")
        lists[key] = value
    count = len(lists["topology"])
    for key, value in lists.items():
        if len(value) != count:
            reader.fail((key,), f"has {len(value)} entries but topology has {count}: one per "
                                "dimension")
    dims = []
    for k in range(count):
        kind = lists["topology"][k]
        if not isinstance(kind, str) or kind not in KINDS:
            reader.fail(("topology", k), f"expected one of {', '.join(KINDS)}, got {reader.describe(kind)}")
        size = lists["npus_count"][k]
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_DEVICES:
            reader.fail(("npus_count", k), f"expected a whole number of NPUs from 1 to "
                                           f"{MAX_DEVICES}, got {reader.describe(size)}")
        bandwidth = reader.number(lists["bandwidth"][k], ("bandwidth", k), unit=" (GB/s)")
        latency_ns = reader.number(lists["latency"][k], ("latency", k), strict=False, unit=" (ns)")
        dims.append(DimSpec(size, KINDS[kind], bandwidth, latency_ns / 1000.0))
    return dims
