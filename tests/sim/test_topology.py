"""Topology files: every schema field, and bad files named by line and field."""
import pytest

import rt
from rt.runtime.errors import InvalidArgumentError, NotFoundError
from rt.runtime.sim.topology import Topology

FULL = """\
name: four-gpus
time_model: roofline
collectives: {algorithm: tree}
devices:
  - name: gpu0
    uri: local-task://llvm-cpu
    memory: 16GiB
    peak_gflops: 900
    memory_gbps: 200.5
  - name: gpu1
    uri: local-sync://vmvx
    memory: 64MiB
  - name: gpu2
    uri: local-task://llvm-cpu?threads=1
    memory: 1.5GB
    time_model: measured
  - {name: gpu3, uri: "local-sync://llvm-cpu", memory: 4096}
links:
  - between: [gpu0, gpu1]
    bandwidth_gbps: 50
    latency_us: 2
  - {between: [gpu1, host], bandwidth_gbps: 16}
groups:
  tp: [gpu0, gpu1, gpu2, gpu3]
  pair: [gpu2, gpu3]
"""


def test_every_field_is_read():
    t = Topology.from_yaml(FULL, "full.yaml")
    assert (t.name, t.algorithm, t.source) == ("four-gpus", "tree", "full.yaml")
    gpu0, gpu1, gpu2, gpu3 = t.devices
    assert (gpu0.name, gpu0.uri, gpu0.memory) == ("gpu0", "local-task://llvm-cpu", 16 * 2**30)
    assert (gpu0.peak_gflops, gpu0.memory_gbps, gpu0.time_model) == (900.0, 200.5, "roofline")
    assert (gpu1.memory, gpu1.peak_gflops, gpu1.time_model) == (64 * 2**20, None, "roofline")
    assert (gpu2.memory, gpu2.time_model) == (1_500_000_000, "measured")
    assert gpu3.memory == 4096
    ab, host = t.links
    assert (ab.between, ab.bandwidth_gbps, ab.latency_us, ab.key) == (("gpu0", "gpu1"), 50.0, 2.0,
                                                                      "gpu0-gpu1")
    assert (host.key, host.latency_us) == ("gpu1-host", 0.0)
    assert t.link("gpu1", "gpu0") is ab and t.link("gpu0", "gpu3") is None
    assert t.groups == {"tp": ("gpu0", "gpu1", "gpu2", "gpu3"), "pair": ("gpu2", "gpu3")}
    assert t.group() == t.groups["tp"] and t.group("pair") == ("gpu2", "gpu3")
    assert t.device("gpu2") is gpu2


def test_defaults_and_round_trip():
    t = Topology.from_yaml("devices:\n  - {name: a, uri: 'local-sync://vmvx'}\n")
    (a,) = t.devices
    assert (t.name, t.algorithm, t.links, t.groups) == ("topology", "ring", (), {})
    assert (a.memory, a.time_model) == (None, "measured")
    assert t.group() == ("a",)
    full = Topology.from_yaml(FULL)
    assert Topology.from_dict(full.to_dict()) == Topology.from_dict(full.to_dict())
    assert Topology.from_dict(full.to_dict()).devices == full.devices
    assert rt.Topology is Topology


def test_load_from_file(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(FULL)
    assert Topology.load(path).source == str(path)
    with pytest.raises(NotFoundError, match="cannot read topology file"):
        Topology.load(tmp_path / "missing.yaml")


BAD = [
    ("devices: [\n", r"t.yaml:2: not valid YAML"),
    ("", r"t.yaml:1: the topology is empty"),
    ("name: x\n", r"t.yaml:1: \(top level\): missing required field 'devices'"),
    ("devices: []\n", r"t.yaml:1: devices: expected a non-empty list"),
    ("devices:\n  - {name: a, uri: 'local-sync://vmvx'}\nspeed: 3\n", r"t.yaml:3: speed: unknown field"),
    ("devices:\n  - name: a\n    uri: local-sync://vmvx\n    memory: lots\n",
     r"t.yaml:4: devices\[0\].memory: expected a size such as 64MiB"),
    ("devices:\n  - name: a\n    uri: local-sync://vmvx\n    memory: 0\n",
     r"t.yaml:4: devices\[0\].memory: must be a positive size"),
    ("devices:\n  - name: a\n    uri: warp://gpu\n", r"t.yaml:3: devices\[0\].uri: unknown HAL driver 'warp'"),
    ("devices:\n  - name: a\n    uri: local-sync://tpu\n", r"t.yaml:3: devices\[0\].uri: unknown device 'tpu'"),
    ("devices:\n  - name: a\n    uri: local-task://vmvx?threads=0\n", r"devices\[0\].uri: .*threads"),
    ("devices:\n  - name: a\n    uri: local-task://vmvx?heap_capacity=1M\n",
     r"devices\[0\].uri: give the capacity as the device's 'memory' field"),
    ("devices:\n  - {uri: 'local-sync://vmvx'}\n", r"t.yaml:2: devices\[0\]: missing required field 'name'"),
    ("devices:\n  - {name: host, uri: 'local-sync://vmvx'}\n", r"devices\[0\].name: 'host' is reserved"),
    ("devices:\n  - {name: 'a b', uri: 'local-sync://vmvx'}\n", r"devices\[0\].name: expected a name"),
    ("devices:\n  - {name: a, uri: 'local-sync://vmvx'}\n  - {name: a, uri: 'local-sync://vmvx'}\n",
     r"t.yaml:3: devices\[1\].name: device 'a' is defined twice"),
    ("devices:\n  - {name: a, uri: 'local-sync://vmvx', peak_gflops: -1}\n",
     r"devices\[0\].peak_gflops: must be > 0"),
    ("devices:\n  - {name: a, uri: 'local-sync://vmvx', memory_gbps: fast}\n",
     r"devices\[0\].memory_gbps: expected a number \(GB/s\)"),
    ("devices:\n  - {name: a, uri: 'local-sync://vmvx', time_model: guess}\n",
     r"devices\[0\].time_model: expected one of roofline, measured"),
    ("time_model: guess\ndevices:\n  - {name: a, uri: 'local-sync://vmvx'}\n", r"t.yaml:1: time_model: expected"),
    ("collectives: {algorithm: star}\ndevices:\n  - {name: a, uri: 'local-sync://vmvx'}\n",
     r"t.yaml:1: collectives.algorithm: expected one of ring, tree"),
    ("devices:\n  - {name: a, uri: 'local-sync://vmvx'}\nlinks:\n  - {between: [a, b], bandwidth_gbps: 1}\n",
     r"t.yaml:4: links\[0\].between\[1\]: unknown device 'b'"),
    ("devices:\n  - {name: a, uri: 'local-sync://vmvx'}\nlinks:\n  - {between: [a, a], bandwidth_gbps: 1}\n",
     r"links\[0\].between: a link joins two different endpoints"),
    ("devices:\n  - {name: a, uri: 'local-sync://vmvx'}\nlinks:\n  - {between: [a], bandwidth_gbps: 1}\n",
     r"links\[0\].between: expected two endpoints"),
    ("devices:\n  - {name: a, uri: 'local-sync://vmvx'}\nlinks:\n  - {between: [a, host]}\n",
     r"t.yaml:4: links\[0\]: missing required field 'bandwidth_gbps'"),
    ("devices:\n  - {name: a, uri: 'local-sync://vmvx'}\nlinks:\n  - {between: [a, host], bandwidth_gbps: 0}\n",
     r"links\[0\].bandwidth_gbps: must be > 0"),
    ("devices:\n  - {name: a, uri: 'local-sync://vmvx'}\nlinks:\n"
     "  - {between: [a, host], bandwidth_gbps: 1, latency_us: -2}\n", r"links\[0\].latency_us: must be >= 0"),
    ("devices:\n  - {name: a, uri: 'local-sync://vmvx'}\nlinks:\n  - {between: [a, host], bandwidth_gbps: 1}\n"
     "  - {between: [host, a], bandwidth_gbps: 2}\n", r"t.yaml:5: links\[1\].between: a link between host and a"),
    ("devices:\n  - {name: a, uri: 'local-sync://vmvx'}\ngroups:\n  g: [a, z]\n",
     r"t.yaml:4: groups.g\[1\]: unknown device 'z'"),
    ("devices:\n  - {name: a, uri: 'local-sync://vmvx'}\ngroups:\n  g: []\n",
     r"groups.g: expected a non-empty list"),
    ("devices:\n  - {name: a, uri: 'local-sync://vmvx'}\ngroups:\n  g: [a, a]\n", r"groups.g: lists a device twice"),
    ("devices:\n  - {name: a, uri: 'local-sync://vmvx'}\ndevices: []\n", r"t.yaml:3: devices: given twice"),
]


@pytest.mark.parametrize("text, message", BAD)
def test_bad_files_name_line_and_field(text, message):
    with pytest.raises(InvalidArgumentError, match=message):
        Topology.from_yaml(text, "t.yaml")


def test_queries_name_what_exists():
    t = Topology.from_yaml(FULL)
    with pytest.raises(NotFoundError, match="no device 'gpu9'; devices: gpu0, gpu1, gpu2, gpu3"):
        t.device("gpu9")
    with pytest.raises(NotFoundError, match="no group 'dp'; groups: tp, pair"):
        t.group("dp")


def test_dicts_are_checked_the_same_way():
    with pytest.raises(InvalidArgumentError, match=r"<dict>: devices\[0\].memory: expected a size"):
        Topology.from_dict({"devices": [{"name": "a", "uri": "local-sync://vmvx", "memory": []}]})
