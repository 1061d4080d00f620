"""Hostile topology files and fault specs (issue 25, item 5): every one is an
InvalidArgumentError naming ``file:line: field`` (or the fault spec and its field), never a
TypeError/RecursionError/OverflowError/ValueError, unbounded memory, or a value (inf, NaN, 0)
that makes the model meaningless later."""
import pytest

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.sim import faults
from rt.runtime.sim.topology import Topology

BASE = """devices:
  - name: gpu0
    uri: local-sync://vmvx
  - name: gpu1
    uri: local-sync://vmvx
links:
  - between: [gpu0, gpu1]
    bandwidth_gbps: 50
"""
GPU0_URI = "uri: local-sync://vmvx\n  - name: gpu1"


def _with_gpu0(field):
    return BASE.replace(GPU0_URI, f"uri: local-sync://vmvx\n    {field}\n  - name: gpu1", 1)


BOMB = ("a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
        "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
        "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
        "devices: [*h]\n")

BAD_FILES = [
    (BASE.replace("[gpu0, gpu1]", "[[gpu0], gpu1]"),
     "t.yaml:7: links[0].between[0]: expected a device name or 'host', got a list of 1"),
    (BASE.replace("[gpu0, gpu1]", "[gpu0, {a: 1}]"),
     "t.yaml:7: links[0].between[1]: expected a device name or 'host', got a mapping"),
    (BASE.replace("name: gpu0", "? [a]\n    : gpu0"), "t.yaml:2: devices[0]: a key must be a name, got a list of 1"),
    (BASE + "groups:\n  {a: 1}: [gpu0]\n", "t.yaml:10: groups: a key must be a name, got a mapping"),
    (BASE + "groups:\n  tp: [[gpu0]]\n", "t.yaml:10: groups.tp[0]: expected a device name, got a list of 1"),
    (BASE.replace("bandwidth_gbps: 50", "bandwidth_gbps: !!int 12x"),
     "t.yaml:8: links[0].bandwidth_gbps: int value '12x' is not valid: invalid literal for int() with base 10: '12x'"),
    (BASE.replace("bandwidth_gbps: 50", "bandwidth_gbps: !!float abc"),
     "t.yaml:8: links[0].bandwidth_gbps: float value 'abc' is not valid: could not convert string to float: 'abc'"),
    (BASE.replace("bandwidth_gbps: 50", "bandwidth_gbps: " + "9" * 400),
     "t.yaml:8: links[0].bandwidth_gbps: expected a finite number (GB/s) of at most 1e+15, got "
     "99999999999999999999...(400 characters)"),
    (_with_gpu0("memory: " + "9" * 400),
     "t.yaml:4: devices[0].memory: must be at most 1152921504606846976 bytes (1 EiB), got "
     "99999999999999999999...(400 characters)"),
    (_with_gpu0("memory: " + "9" * 400 + "GiB"),
     "t.yaml:4: devices[0].memory: must be at most 1152921504606846976 bytes (1 EiB), got "
     "'9999999999999999999...(405 characters)"),
    (_with_gpu0("memory: 2EiB"), "t.yaml:4: devices[0].memory: expected a size such as 64MiB or 16GiB (or bytes), "
                                 "got '2EiB'"),
    ("a: &x [*x]\ndevices: []\n", "t.yaml:1: a[0][0]...: nested more than 32 levels deep (a recursive alias?)"),
    ("devices: " + "[" * 5000 + "]" * 5000 + "\n", "t.yaml:1: nested more than 32 levels deep; a topology needs a few"),
    ("devices:\n" + "".join("  " * i + "- a:\n" for i in range(1, 40)),
     "t.yaml:17: nested more than 32 levels deep; a topology needs a few"),
    (BOMB, "t.yaml:1: f[0][3][3][7][1][5]: more than 100000 values once aliases (*name) are expanded; "
           "write the topology out without them"),
    (BASE.replace("bandwidth_gbps: 50", "bandwidth_gbps: .nan"),
     "t.yaml:8: links[0].bandwidth_gbps: expected a finite number (GB/s) of at most 1e+15, got nan"),
    (BASE.replace("bandwidth_gbps: 50", "bandwidth_gbps: .inf"),
     "t.yaml:8: links[0].bandwidth_gbps: expected a finite number (GB/s) of at most 1e+15, got inf"),
    (BASE.replace("bandwidth_gbps: 50", "bandwidth_gbps: 1.0e-300"),
     "t.yaml:8: links[0].bandwidth_gbps: must be at least 1e-06 (GB/s) (a rate that small models nothing), "
     "got 1e-300"),
    (BASE.replace("bandwidth_gbps: 50", "bandwidth_gbps: 50\n    latency_us: 1.0e+300"),
     "t.yaml:9: links[0].latency_us: must be at most 1e+15 (µs), got 1e+300"),
    (BASE.replace("bandwidth_gbps: 50", "bandwidth_gbps: 1e9"),
     "t.yaml:8: links[0].bandwidth_gbps: expected a number (GB/s), got '1e9' (YAML reads an exponent without a "
     "dot as text: write 1.0e9, not 1e9)"),
    (_with_gpu0("peak_gflops: .inf"),
     "t.yaml:4: devices[0].peak_gflops: expected a finite number (GFLOP/s) of at most 1e+15, got inf"),
    (_with_gpu0("memory_gbps: 0"), "t.yaml:4: devices[0].memory_gbps: must be > 0, got 0"),
    ("devices: \x07\n", "t.yaml:1: not valid YAML: special characters are not allowed"),
]


@pytest.mark.parametrize("text, message", BAD_FILES)
def test_bad_files_are_named_by_line_and_field(text, message):
    with pytest.raises(InvalidArgumentError) as e:
        Topology.from_yaml(text, "t.yaml")
    assert str(e.value) == message


def test_a_few_aliases_still_work():
    text = BASE.replace(
        "uri: local-sync://vmvx\n  - name: gpu1\n    uri: local-sync://vmvx",
        "uri: &vmvx local-sync://vmvx\n  - name: gpu1\n    uri: *vmvx")
    topology = Topology.from_yaml(text, "t.yaml")
    assert [d.uri for d in topology.devices] == ["local-sync://vmvx", "local-sync://vmvx"]
    assert topology.links[0].bandwidth_gbps == 50.0


def test_from_dict_refuses_unhashable_names():
    data = {"devices": [{"name": "a", "uri": "local-sync://vmvx"}], "groups": {"g": [["a"]]},
            "links": []}
    with pytest.raises(InvalidArgumentError, match=r"^<dict>: groups\.g\[0\]: expected a device name, got a list"):
        Topology.from_dict(data)


BAD_SPECS = [
    ("link=gpu0-gpu1,slow=inf", "fault 'link=gpu0-gpu1,slow=inf': slow must be a factor >= 1 and <= 1e+06, got 'inf'"),
    ("link=gpu0-gpu1,slow=nan", "fault 'link=gpu0-gpu1,slow=nan': slow must be a factor >= 1 and <= 1e+06, got 'nan'"),
    ("link=gpu0-gpu1,slow=1e400",
     "fault 'link=gpu0-gpu1,slow=1e400': slow must be a factor >= 1 and <= 1e+06, got '1e400'"),
    ({"link": "gpu0-gpu1", "slow": float("inf")},
     "fault 'link=gpu0-gpu1,slow=inf': slow must be a factor >= 1 and <= 1e+06, got 'inf'"),
    ("device=gpu0,fail_at=²",
     "fault 'device=gpu0,fail_at=²': fail_at must be a positive integer (at most 18 digits), got '²'"),
    ("device=gpu0,fail_at=١",
     "fault 'device=gpu0,fail_at=١': fail_at must be a positive integer (at most 18 digits), got '١'"),
    ("device=gpu0,memory=²", "fault 'device=gpu0,memory=²': memory: expected a size such as 64MiB or 16GiB (or "
                             "bytes), got '²'"),
    ("device=gpu0,fail_at=" + "9" * 400, None),
    ("device=gpu0,fail_at=1,count=" + "9" * 5000, None),
    ("device=gpu0,memory=" + "9" * 400, None),
    ({"device": ["gpu0"], "fail_at": 1},
     "fault {'device': ['gpu0'], 'fail_at': 1}: 'device': expected a name or a number, got list ['gpu0']"),
    ({"device": "gpu0", "memory": {"a": 1}},
     "fault {'device': 'gpu0', 'memory': {'a': 1}}: 'memory': expected a name or a number, got dict {'a': 1}"),
    (42, "a fault is a string such as 'device=gpu1,fail_at=3' or a dict {'device': 'gpu1', 'fail_at': 3}, got int"),
    (["device=gpu0"], "a fault is a string such as 'device=gpu1,fail_at=3' or a dict {'device': 'gpu1', "
                      "'fail_at': 3}, got list"),
    ("link=,fail", "fault 'link=,fail': link: expected a link name, got nothing"),
]


@pytest.mark.parametrize("spec, message", BAD_SPECS)
def test_bad_fault_specs_name_the_field(spec, message):
    with pytest.raises(InvalidArgumentError) as e:
        faults.parse(spec)
    if message is None:  # a huge number: the field and the limit are named
        field = spec.rsplit(",", 1)[1].split("=")[0]
        assert str(e.value).startswith(f"fault '{spec}': {field}")
        assert "at most" in str(e.value)
    else:
        assert str(e.value) == message


def test_valid_specs_still_parse():
    assert faults.parse("link=gpu0-gpu1,slow=4").slow == 4.0
    assert faults.parse("link=gpu0-gpu1,slow=1000000").slow == 1e6
    assert faults.parse({"device": "gpu0", "fail_at": 3, "count": 2}).count == 2
    assert faults.parse({"link": "a-b", "fail": True}).fail is True
    assert faults.parse("device=gpu0,memory=1MiB").memory == 2**20
