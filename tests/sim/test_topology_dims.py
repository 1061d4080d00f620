"""Hierarchical topologies (``dims:``) and ASTRA-sim network files: devices and coordinates,
generated links per dimension kind, dimension-order routes, and every new field's errors."""
import json
import math
import os

import numpy as np
import pytest

import rt
from rt.runtime.errors import InvalidArgumentError
from rt.runtime.sim.simulation import Simulation
from rt.runtime.sim.topology import Topology

TORUS = """\
name: torus
dims:
  - {size: 4, kind: ring, bandwidth_gbps: 100, latency_us: 1}
  - {size: 3, kind: switch, bandwidth_gbps: 50, latency_us: 2, algorithm: direct}
device: {uri: 'local-sync://vmvx', memory: 1GiB, peak_gflops: 10}
"""

# The 3D network of ASTRA-sim's analytical example: 2 x 8 x 4 = 64 NPUs, a ring, a fully
# connected and a switch dimension of 200, 100 and 50 GB/s and 50, 500 and 2000 ns.
ASTRA_3D = """\
topology: [ Ring, FullyConnected, Switch ]
npus_count: [ 2, 8, 4 ]
bandwidth: [ 200.0, 100.0, 50.0 ]   # GB/s
latency: [ 50.0, 500.0, 2000.0 ]    # ns
"""


def test_dims_make_devices_coordinates_and_links_per_kind():
    t = Topology.from_yaml(TORUS, "torus.yaml")
    assert [d.name for d in t.devices] == [f"npu{i}" for i in range(12)]
    assert {d.memory for d in t.devices} == {2**30} and t.devices[5].time_model == "roofline"
    assert t.algorithm == "hierarchical"
    assert [t.grid.coords(i) for i in (0, 3, 4, 11)] == [(0, 0), (3, 0), (0, 1), (3, 2)]
    ring = [l for l in t.links if not l.between[1].startswith("sw")]
    ports = [l for l in t.links if l.between[1].startswith("sw")]
    assert len(ring) == 3 * 4 and len(ports) == 12                    # 3 rings of 4; a port each
    assert {l.between for l in ring[:4]} == {("npu0", "npu1"), ("npu1", "npu2"), ("npu2", "npu3"),
                                             ("npu3", "npu0")}
    assert ports[0].between == ("npu0", "sw1.0") and ports[4].between == ("npu4", "sw1.0")
    assert (ports[0].bandwidth_gbps, ports[0].latency_us) == (50.0, 4.0)   # a switch: latency twice
    assert t.validate() == t and Topology.from_dict(t.to_dict()).dims == t.dims


@pytest.mark.parametrize("size, kind, links", [(1, "ring", 0), (2, "ring", 1), (5, "ring", 5),
                                               (5, "fully_connected", 10), (5, "switch", 5),
                                               (1, "switch", 0)])
def test_link_counts_per_kind(size, kind, links):
    t = Topology.from_dict({"dims": [{"size": size, "kind": kind, "bandwidth_gbps": 1}]})
    assert len(t.devices) == size and len(t.links) == links


def test_routes_go_dimension_by_dimension_the_shorter_way_round():
    t = Topology.from_yaml(TORUS, "torus.yaml")
    g = t.grid
    assert g.route("npu0", "npu11") == (("npu0", "npu3"), ("npu3", "sw1.3"))   # back one, then the switch
    assert g.route("npu1", "npu3") == (("npu1", "npu2"), ("npu2", "npu3"))     # a tie goes forward
    assert g.route("npu6", "npu4") == (("npu6", "npu7"), ("npu7", "npu4"))     # round the wrap
    assert g.route("npu5", "npu4") == (("npu5", "npu4"),)
    sim = Simulation(t, dry_run=True)
    try:
        route = sim.route(sim.device("npu0"), sim.device("npu11"))
        assert [l.name for l in route] == ["npu0 -> npu3", "npu3 -> sw1.3"]
        assert [l.latency for l in route] == [1.0, 4.0] and route[1].bandwidth == 50e3
    finally:
        sim.release()


def test_a_devices_list_names_the_grid_and_extra_links_reach_the_host():
    t = Topology.from_dict({
        "dims": [{"size": 2, "kind": "fully_connected", "bandwidth_gbps": 10}],
        "devices": [{"name": "a", "uri": "local-sync://vmvx"}, {"name": "b", "uri": "local-sync://vmvx"}],
        "links": [{"between": ["a", "host"], "bandwidth_gbps": 5}],
        "collectives": {"algorithm": "tree"}})
    assert [l.between for l in t.links] == [("a", "b"), ("a", "host")] and t.algorithm == "tree"
    assert t.to_dict()["links"] == [{"between": ["a", "host"], "bandwidth_gbps": 5.0, "latency_us": 0.0}]
    assert t.with_algorithm("direct").algorithm == "direct"
    with pytest.raises(InvalidArgumentError, match="expected one of ring, tree, direct"):
        t.with_algorithm("star")


def test_astra_sim_network_file_is_the_documented_topology(tmp_path):
    path = tmp_path / "Ring_FullyConnected_Switch.yml"
    path.write_text(ASTRA_3D)
    t = Topology.load(path)
    assert t.name == "Ring_FullyConnected_Switch" and len(t.devices) == 64
    assert [(d.size, d.kind, d.bandwidth_gbps, d.latency_us) for d in t.dims] == [
        (2, "ring", 200.0, 0.05), (8, "fully_connected", 100.0, 0.5), (4, "switch", 50.0, 2.0)]
    assert len(t.links) == 32 * 1 + 8 * 28 + 16 * 4
    assert t.link("npu0", "npu1").latency_us == 0.05 and t.link("npu0", "npu2").bandwidth_gbps == 100.0
    assert t.link("npu0", "sw2.0").latency_us == 4.0
    one = Topology.from_yaml("topology: Switch\nnpus_count: [8]\nbandwidth: [400.0]\nlatency: [936.25]\n")
    assert [(d.kind, d.size, d.latency_us) for d in one.dims] == [("switch", 8, 0.93625)]
    assert one.name == "topology"


@pytest.mark.parametrize("text, message", [
    ("dims: []\n", r"t.yaml:1: dims: expected a non-empty list"),
    ("dims:\n  - {size: 0, kind: ring, bandwidth_gbps: 1}\n", r"t.yaml:2: dims\[0\].size: expected a whole number"),
    ("dims:\n  - {size: true, kind: ring, bandwidth_gbps: 1}\n", r"dims\[0\].size: expected a whole number"),
    ("dims:\n  - {size: 2.5, kind: ring, bandwidth_gbps: 1}\n", r"dims\[0\].size: expected a whole number"),
    ("dims:\n  - {size: 4, kind: mesh, bandwidth_gbps: 1}\n",
     r"t.yaml:2: dims\[0\].kind: expected one of ring, fully_connected, switch, got 'mesh'"),
    ("dims:\n  - {size: 4, kind: ring, bandwidth_gbps: 0}\n", r"dims\[0\].bandwidth_gbps: must be > 0"),
    ("dims:\n  - {size: 4, kind: ring, bandwidth_gbps: .inf}\n", r"dims\[0\].bandwidth_gbps: expected a finite number"),
    ("dims:\n  - {size: 4, kind: ring, bandwidth_gbps: .nan}\n", r"dims\[0\].bandwidth_gbps: expected a finite number"),
    ("dims:\n  - {size: 4, kind: ring, bandwidth_gbps: fast}\n", r"dims\[0\].bandwidth_gbps: expected a number"),
    ("dims:\n  - {size: 4, kind: ring, bandwidth_gbps: 1, latency_us: -1}\n", r"dims\[0\].latency_us: must be >= 0"),
    ("dims:\n  - {size: 4, kind: ring, bandwidth_gbps: 1, algorithm: star}\n",
     r"dims\[0\].algorithm: expected one of auto, ring, tree, direct, halving_doubling"),
    ("dims:\n  - {size: 4, kind: ring, bandwidth: 1}\n", r"dims\[0\].bandwidth: unknown field"),
    ("dims:\n  - {size: 4, kind: ring}\n", r"dims\[0\]: missing required field 'bandwidth_gbps'"),
    ("dims:\n" + "  - {size: 2, kind: ring, bandwidth_gbps: 1}\n" * 9, r"dims: at most 8 dimensions"),
    ("dims:\n  - {size: 65536, kind: ring, bandwidth_gbps: 1}\n  - {size: 2, kind: ring, bandwidth_gbps: 1}\n",
     r"dims: 65536 x 2 = 131072 devices; at most 65536"),
    ("dims:\n  - {size: 1024, kind: fully_connected, bandwidth_gbps: 1}\n", r"dims: these dimensions make 523776 links"),
    ("dims:\n  - {size: 2, kind: ring, bandwidth_gbps: 1}\ndevice: {uri: 'nope://x'}\n", r"t.yaml:3: device.uri:"),
    ("dims:\n  - {size: 2, kind: ring, bandwidth_gbps: 1}\ndevice: {name: [a]}\n", r"device.name: expected a name"),
    ("dims:\n  - {size: 2, kind: ring, bandwidth_gbps: 1}\ndevice: {}\ndevices: []\n", r"device: give either"),
    ("dims:\n  - {size: 2, kind: ring, bandwidth_gbps: 1}\ndevices:\n  - {name: a, uri: 'local-sync://vmvx'}\n",
     r"devices: the dims hold 2 devices, the list has 1"),
    ("dims:\n  - {size: 2, kind: ring, bandwidth_gbps: 1}\nlinks:\n  - {between: [npu0, npu1], bandwidth_gbps: 1}\n",
     r"t.yaml:4: links\[0\].between: npu0 and npu1 are already linked by the dims"),
    ("device: {uri: 'local-sync://vmvx'}\ndevices:\n  - {name: a, uri: 'local-sync://vmvx'}\n",
     r"t.yaml:1: device: a device template goes with dims"),
    ("collectives: {algorithm: hierarchical}\ndevices:\n  - {name: a, uri: 'local-sync://vmvx'}\n",
     r"collectives.algorithm: hierarchical needs dims"),
    ("topology: [Ring, Mesh2D]\nnpus_count: [2, 2]\nbandwidth: [1, 1]\nlatency: [1, 1]\n",
     r"t.yaml:1: topology\[1\]: expected one of Ring, FullyConnected, Switch, got 'Mesh2D'"),
    ("topology: [[Ring]]\nnpus_count: [2]\nbandwidth: [1]\nlatency: [1]\n",
     r"t.yaml:1: topology\[0\]: expected one of Ring, FullyConnected, Switch, got a list of 1"),
    ("topology: {a: 1}\nnpus_count: [2]\nbandwidth: [1]\nlatency: [1]\n",
     r"t.yaml:1: topology: expected a non-empty list \(one entry per dimension\), got a mapping"),
    ("dims: {a: 1}\n", r"t.yaml:1: dims: expected a non-empty list of dimensions, got a mapping"),
    ("topology: [Ring]\nnpus_count: [2, 2]\nbandwidth: [1]\nlatency: [1]\n",
     r"t.yaml:2: npus_count: has 2 entries but topology has 1"),
    ("topology: [Ring]\nnpus_count: [0]\nbandwidth: [1]\nlatency: [1]\n", r"t.yaml:2: npus_count\[0\]: expected a whole number"),
    ("topology: [Ring]\nnpus_count: [4]\nbandwidth: [0]\nlatency: [1]\n", r"t.yaml:3: bandwidth\[0\]: must be > 0"),
    ("topology: [Ring]\nnpus_count: [4]\nbandwidth: [1]\nlatency: [.nan]\n", r"t.yaml:4: latency\[0\]: expected a finite number"),
    ("topology: [Ring]\nnpus_count: [4]\nbandwidth: [1]\n", r"t.yaml:1: \(top level\): missing required field 'latency'"),
    ("topology: [Ring]\nnpus_count: [4]\nbandwidth: [1]\nlatency: [1]\nlinks: []\n", r"t.yaml:5: links: unknown field"),
])
def test_bad_dims_and_network_files_name_the_line_and_field(text, message):
    with pytest.raises(InvalidArgumentError, match=message):
        Topology.from_yaml(text, "t.yaml")


RING = """
shard.grid @grid(shape = {n})
func.func @ar(%x: tensor<{count}xf32>) -> tensor<{count}xf32> {{
  %r = shard.all_reduce %x on @grid grid_axes = [0] : tensor<{count}xf32> -> tensor<{count}xf32>
  return %r : tensor<{count}xf32>
}}
"""


def test_a_program_on_a_2d_torus_runs_the_hierarchical_all_reduce(tmp_path):
    """4 x 4 torus (rings of 50 GB/s, 2 µs), all_reduce of M = 4096 floats, hierarchical with
    ring phases: 2(n0-1)(α + M/(n0 β)) + 2(n1-1)(α + M/(n0 n1 β))."""
    n, count = 16, 4096
    topo = {"dims": [{"size": 4, "kind": "ring", "bandwidth_gbps": 50, "latency_us": 2}] * 2,
            "device": {"uri": "local-sync://llvm-cpu"}}
    tracer = rt.Tracer()
    with rt.load(rt.compile(RING.format(n=n, count=count), devices=["llvm-cpu"]), topology=topo,
                 ranks=n, dry_run=True, tracer=tracer) as m:
        m.ar.spmd([[rt.NotComputed((count,), np.float32)]] * n)
        report = m.report()
    tracer.write(tmp_path / "t.json")
    events = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    stages = [e for e in events if e["ph"] == "X" and e["name"] == "all_reduce with sum : f32"]
    assert len(stages) == n and {e["args"]["algorithm"] for e in stages} == {"hierarchical(0:ring,1:ring)"}
    M, beta = count * 4, 50e3
    expected = 2 * 3 * (2 + M / (4 * beta)) + 2 * 3 * (2 + M / (16 * beta))
    assert report["algorithm"] == "hierarchical"
    assert report["algorithms_run"] == {"hierarchical(0:ring,1:ring)": 1}  # what ran, once per collective
    assert report["makespan_us"] == pytest.approx(expected, abs=1e-3)
    assert math.isclose(report["links"]["npu0-npu4"]["bytes"], 2 * 3 * M / 16)


def test_the_report_names_the_algorithm_auto_chose(tmp_path):
    """A dim left at ``auto``: the report's ``algorithm`` is the setting (``hierarchical`` over
    dims), ``algorithms_run`` what the planner chose for each collective, as the trace's stages
    name it."""
    n, count = 8, 1024
    topo = {"dims": [{"size": n, "kind": "switch", "bandwidth_gbps": 50, "latency_us": 2}],
            "device": {"uri": "local-sync://llvm-cpu"}}
    tracer = rt.Tracer()
    with rt.load(rt.compile(RING.format(n=n, count=count), devices=["llvm-cpu"]), topology=topo,
                 ranks=n, dry_run=True, tracer=tracer) as m:
        for _ in range(2):
            m.ar.spmd([[rt.NotComputed((count,), np.float32)]] * n)
        report = m.report()
    tracer.write(tmp_path / "t.json")
    events = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    chosen = {e["args"]["algorithm"] for e in events if e["ph"] == "X" and "algorithm" in e.get("args", {})}
    assert report["algorithm"] == "hierarchical"
    assert len(chosen) == 1 and "auto" not in next(iter(chosen))
    assert report["algorithms_run"] == {next(iter(chosen)): 2}


EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "multi_device")


@pytest.mark.parametrize("name, devices, links, first", [
    ("pod256.yaml", 256, 256 + 256, ("gpu0", "sw0.0")),
    ("torus_32x32.yaml", 1024, 2048, ("npu0", "npu1")),
    ("astra_ring_fc_switch.yml", 64, 320, ("npu0", "npu1")),
])
def test_the_example_topologies_load_as_documented(name, devices, links, first):
    t = Topology.load(f"{EXAMPLES}/{name}")
    assert (len(t.devices), len(t.links), t.links[0].between, t.algorithm) == (devices, links, first, "hierarchical")
