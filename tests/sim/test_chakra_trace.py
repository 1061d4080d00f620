"""Chakra export (rt.runtime.sim.chakra_trace, ``rt run --chakra-trace``): one ``.et`` file per
simulated device, read back with protobuf classes built from et_def.proto's fields
(tests/sim/chakra_decode.py) or, when installed, MLCommons Chakra's own reader; node kinds,
sizes, durations and dependencies of the tensor-parallel MLP, a 2-stage pipeline and a ring of
send_recv; bad prefixes rejected before anything runs."""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import rt
from rt.cli_multi_device import load_options
from rt.runtime.errors import InvalidArgumentError
from rt.runtime.sim import chakra_format as fmt
from rt.runtime.sim.chakra_trace import ChakraRecorder, check_prefix

sys.path.insert(0, os.path.dirname(__file__))
from chakra_decode import attrs, message_classes, read_et  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "multi_device")
SEND, RECV = fmt.COMM_SEND_NODE, fmt.COMM_RECV_NODE

SHIFT = """
func.func @shift(%x: tensor<4xf32>) -> tensor<4xf32> {
  %ch = flow.channel.default : !flow.channel
  %r = flow.channel.rank %ch : index
  %n = flow.channel.count %ch : index
  %c1 = arith.constant 1 : index
  %next0 = arith.addi %r, %c1 : index
  %next = arith.remui %next0, %n : index
  %prev0 = arith.addi %r, %n : index
  %prev1 = arith.subi %prev0, %c1 : index
  %prev = arith.remui %prev1, %n : index
  %e = tensor.empty() : tensor<4xf32>
  %y = flow.collective.send_recv f32, %e, %x, %ch, %next, %prev
      : (tensor<4xf32>, tensor<4xf32>, !flow.channel, index, index) -> %e as tensor<4xf32>
  return %y : tensor<4xf32>
}
"""


def _read(name):
    with open(os.path.join(EXAMPLES, name), encoding="utf-8") as f:
        return f.read()


def _check_graph(files):
    """Every dependency names an earlier node of the same file; ctrl deps are data deps too
    (ASTRA-sim's feeder schedules by data deps); ids are unique across files."""
    ids = set()
    for _, nodes in files:
        seen = set()
        for node in nodes:
            assert set(node.data_deps) <= seen, (node.name, list(node.data_deps))
            assert set(node.ctrl_deps) <= set(node.data_deps)
            seen.add(node.id)
        assert not ids & seen
        ids |= seen


def _matched(files):
    """{(src, dst, tag): (send, recv, sender index, receiver index)}: every send has exactly one
    receive with the same source, destination, tag and size (how ASTRA-sim pairs them)."""
    sides = {SEND: {}, RECV: {}}
    for index, (_, nodes) in enumerate(files):
        for node in nodes:
            if node.type in sides:
                a = attrs(node)
                key = (a["comm_src"], a["comm_dst"], a["comm_tag"])
                assert key not in sides[node.type]
                assert index == key[0 if node.type == SEND else 1]
                sides[node.type][key] = node
    assert sides[SEND].keys() == sides[RECV].keys()
    for key, send in sides[SEND].items():
        assert attrs(send)["comm_size"] == attrs(sides[RECV][key])["comm_size"]
    return {key: (send, sides[RECV][key], key[0], key[1]) for key, send in sides[SEND].items()}


@pytest.fixture(scope="module")
def pipeline_vmfb():
    return rt.compile(_read("pipeline.mlir"), devices=["stage0=llvm-cpu", "stage1=llvm-cpu"])


@pytest.fixture(scope="module")
def tp_files(tmp_path_factory):
    vmfb = rt.compile(_read("tp_mlp.mlir"), devices=["llvm-cpu"])
    rng = np.random.default_rng(3)
    args = [[rng.integers(-2, 3, s).astype(np.float32)
             for s in ((8, 64), (64, 32), (32,), (32, 16), (16,))] for _ in range(4)]
    prefix = str(tmp_path_factory.mktemp("chakra") / "tp")
    with rt.load(vmfb, topology=os.path.join(EXAMPLES, "tp4.yaml"), ranks=4, dry_run=True) as m:
        recorder = ChakraRecorder(m.simulation)
        m.mlp.spmd(args)
        paths = recorder.write(prefix)
        report = m.report()
    return paths, report


def test_tp_mlp_on_four_devices_is_compute_then_one_all_reduce_per_rank(tp_files):
    paths, report = tp_files
    assert paths == [f"{paths[0][:-5]}.{i}.et" for i in range(4)] + [paths[0][:-5] + ".comm_groups.json"]
    files = [read_et(p) for p in paths[:4]]
    _check_graph(files)
    with open(paths[4], encoding="utf-8") as f:
        assert json.load(f) == {"0": [0, 1, 2, 3]}
    for rank, (meta, nodes) in enumerate(files):
        assert meta.version == fmt.SCHEMA_VERSION
        assert attrs(meta) == {"producer": "rt", "topology": "four-gpus",
                               "device": f"gpu{rank}", "rank": rank, "ranks": 4}
        assert [n.type for n in nodes] == [fmt.COMP_NODE, fmt.COMP_NODE, fmt.COMM_COLL_NODE,
                                           fmt.COMP_NODE]
        # Queue order: each node after the one before it.
        assert [list(n.ctrl_deps) for n in nodes] == [[]] + [[p.id] for p in nodes[:-1]]
        first, _, coll, _ = (attrs(n) for n in nodes)
        assert first["num_ops"] >= 2 * 8 * 64 * 32 and first["tensor_size"] > 0
        assert first["is_cpu_op"] is False
        # One all_reduce (sum) of the rank's 8x16 f32 partial, over every rank.
        assert (coll["comm_type"], coll["comm_size"], coll["pg_name"]) == (fmt.ALL_REDUCE, 512, "0")
        assert nodes[2].name == "all_reduce with sum : f32"
        # The nodes' durations add up to the device's simulated busy time.
        busy_ns = sum(attrs(n)["duration_ns"] for n in nodes)
        assert busy_ns == pytest.approx(report["devices"][f"gpu{rank}"]["busy_us"] * 1000, abs=4)
        assert nodes[2].duration_micros == round(coll["duration_ns"] / 1000)
        assert nodes[3].start_time_micros == round(report["makespan_us"] - nodes[3].duration_micros)


def test_pipeline_transfers_are_matched_sends_and_receives(tmp_path, pipeline_vmfb):
    vmfb = pipeline_vmfb
    inputs = [np.zeros(s, np.float32) for s in ((16, 64), (16, 64), (64, 64), (64, 32))]
    with rt.load(vmfb, topology=os.path.join(EXAMPLES, "pipeline2.yaml"), dry_run=True) as m:
        recorder = ChakraRecorder(m.simulation)
        m.pipeline(*inputs)
        paths = recorder.write(tmp_path / "pipe")
        report = m.report()
    files = [read_et(p) for p in paths[:2]]
    _check_graph(files)
    pairs = _matched(files)
    moved = {}
    for send, recv, sender, receiver in pairs.values():
        moved[(sender, receiver)] = moved.get((sender, receiver), 0) + attrs(send)["comm_size"]
    # As the report's link bytes: two activations and the weights out, two results back.
    assert moved == {(0, 1): 2 * 4096 + 8192, (1, 0): 2 * 2048}
    assert report["links"]["stage0-stage1"]["bytes"] == sum(moved.values())
    # stage1 computes only after data arrived: its first compute node depends on a receive.
    nodes1 = files[1][1]
    by_id = {n.id: n for n in nodes1}
    compute = next(n for n in nodes1 if n.type == fmt.COMP_NODE)

    def ancestors(node):
        out = set()
        for dep in node.data_deps:
            out |= {dep} | ancestors(by_id[dep])
        return out
    assert any(by_id[a].type == RECV and attrs(by_id[a])["comm_size"] > 0
               for a in ancestors(compute))
    # Every send of stage0's data waits for the stage0 compute that produced it.
    nodes0 = {n.id: n for n in files[0][1]}
    for send, _, sender, _ in pairs.values():
        if sender == 0 and attrs(send)["comm_size"] > 0:
            assert send.data_deps and all(nodes0[d].type == fmt.COMP_NODE for d in send.data_deps)


def test_send_recv_ring_names_the_peer_devices(tmp_path):
    vmfb = rt.compile(SHIFT, devices=["llvm-cpu"])
    with rt.load(vmfb, topology=os.path.join(EXAMPLES, "tp4.yaml"), ranks=4,
                 deterministic=True) as m:
        recorder = ChakraRecorder(m.simulation)
        out = m.shift.spmd([[np.full(4, r, np.float32)] for r in range(4)])
        paths = recorder.write(tmp_path / "ring")
    assert [float(o[0]) for o in out] == [3.0, 0.0, 1.0, 2.0]
    files = [read_et(p) for p in paths[:4]]
    _check_graph(files)
    pairs = _matched(files)
    assert sorted((s, r) for _, _, s, r in pairs.values()) == [(0, 1), (1, 2), (2, 3), (3, 0)]
    assert all(attrs(send)["comm_size"] == 16 for send, _, _, _ in pairs.values())


def test_encoder_writes_what_protobuf_reads():
    node = fmt.Node(300, "n", fmt.COMM_COLL_NODE, ctrl_deps=[7], data_deps=[7, 2 ** 40],
                    start_time_micros=5, duration_micros=0,
                    attr=[fmt.Attribute("a", "int64", -3), fmt.Attribute("b", "int32", 0),
                          fmt.Attribute("c", "uint64", 2 ** 63), fmt.Attribute("d", "bool", True),
                          fmt.Attribute("e", "string", "µs")])
    parsed = message_classes()["Node"]()
    parsed.ParseFromString(fmt.encode_node(node))
    assert (parsed.id, parsed.name, parsed.type, list(parsed.ctrl_deps), list(parsed.data_deps),
            parsed.start_time_micros, parsed.duration_micros) == (300, "n", 7, [7], [7, 2 ** 40], 5, 0)
    assert attrs(parsed) == {"a": -3, "b": 0, "c": 2 ** 63, "d": True, "e": "µs"}
    with pytest.raises(InvalidArgumentError, match="kind 'float'"):
        fmt.encode_attribute(fmt.Attribute("x", "float", 1.0))


def test_chakras_own_reader_loads_the_files(tp_files):
    et_def = pytest.importorskip(
        "chakra.schema.protobuf.et_def_pb2",
        reason="MLCommons Chakra is not published on PyPI (pip has only an unrelated 'chakra' "
               "0.1.0); install it from its repository to run this check")
    from chakra.src.third_party.utils.protolib import decodeMessage, openFileRd

    handle = openFileRd(tp_files[0][0])
    meta, node, nodes = et_def.GlobalMetadata(), et_def.Node(), []
    assert decodeMessage(handle, meta) and meta.version == fmt.SCHEMA_VERSION
    while decodeMessage(handle, node):
        nodes.append((node.type, node.name))
    assert [t for t, _ in nodes] == [et_def.COMP_NODE, et_def.COMP_NODE, et_def.COMM_COLL_NODE,
                                     et_def.COMP_NODE]


def test_bad_prefixes_are_rejected_before_running(tmp_path):
    with pytest.raises(InvalidArgumentError, match="does not exist; create it first"):
        check_prefix(str(tmp_path / "missing" / "trace"))
    with pytest.raises(InvalidArgumentError, match="is a directory"):
        check_prefix(str(tmp_path))
    with pytest.raises(InvalidArgumentError, match="expected a file prefix"):
        check_prefix("")
    assert check_prefix(tmp_path / "t") == str(tmp_path / "t")
    flags = argparse.Namespace(topology=None, collective_algorithm=None, deterministic=True,
                               inject=[], dry_run=False, ranks=2, group=None, channel="mpi", bind_to=None,
                               chakra_trace=str(tmp_path / "t"))
    with pytest.raises(InvalidArgumentError, match="--chakra-trace with --channel=mpi"):
        load_options(flags)


def test_cli_writes_the_trace_and_rejects_bad_prefixes(tmp_path, pipeline_vmfb):
    vmfb = tmp_path / "pipe.vmfb"
    with open(vmfb, "wb") as f:
        f.write(pipeline_vmfb)
    base = [sys.executable, "-m", "rt", "run", str(vmfb), "--input=16x64xf32", "--input=16x64xf32",
            "--input=64x64xf32", "--input=64x32xf32"]
    topo = f"--topology={os.path.join(EXAMPLES, 'pipeline2.yaml')}"
    bad = subprocess.run(base + [topo, "--dry-run", f"--chakra-trace={tmp_path / 'no' / 'p'}"],
                         capture_output=True, text=True)
    assert bad.returncode == 1 and "EXEC" not in bad.stdout
    assert "--chakra-trace: folder" in bad.stderr and "does not exist" in bad.stderr
    plain = subprocess.run(base + [f"--chakra-trace={tmp_path / 'p'}"], capture_output=True,
                           text=True)
    assert plain.returncode == 1 and "--chakra-trace needs a simulation" in plain.stderr
    ok = subprocess.run(base + [topo, "--dry-run", f"--chakra-trace={tmp_path / 'p'}"],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert f"chakra trace: 2 files {tmp_path / 'p'}.{{0..1}}.et" in ok.stdout
    files = [read_et(tmp_path / f"p.{i}.et") for i in range(2)]
    assert sum(attrs(s)["comm_size"] for s, _, _, _ in _matched(files).values()) == 2 * 4096 + 8192 + 2 * 2048
