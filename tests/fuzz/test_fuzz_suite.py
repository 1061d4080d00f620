"""The fuzz suite (issue 13): >= 10,000 structure-aware cases a run over the manifest, host
bytecode, llvm-cpu ELF structure and vmvx executables, each batch in a subprocess with a
timeout. Every case must end in a result or an ``RtError``: 0 crashes, 0 hangs, 0 other
exceptions. ``RT_FUZZ_SEED`` changes the seed (default fixed, so CI runs are reproducible);
``RT_FUZZ_SCALE`` multiplies the case counts. See docs/SECURITY.md.
"""
import os
import pickle

import pytest

import fuzz_harness
from fuzz_families import build_corpus

SEED = os.environ.get("RT_FUZZ_SEED", "20261124")
SCALE = float(os.environ.get("RT_FUZZ_SCALE", "1"))
COUNTS = {"manifest": 2500, "bytecode": 3000, "vmvx": 2500, "elf": 2500}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz") / "corpus.pkl"
    path.write_bytes(pickle.dumps(build_corpus()))
    return str(path)


def test_case_counts_reach_ten_thousand():
    assert sum(COUNTS.values()) >= 10_000


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(COUNTS))
def test_fuzz_family(corpus, family):
    count = max(1, int(COUNTS[family] * SCALE))
    report = fuzz_harness.run(corpus, family, SEED, count)
    assert report.crashes == [] and report.hangs == [] and report.bugs == [], (
        f"seed {SEED}: crashes {report.crashes[:5]}, hangs {report.hangs[:5]}, "
        f"non-rt exceptions {report.bugs[:5]}")
    assert report.cases == count
    # The mutations must reach past the first check, or the family tests nothing.
    deep = sum(v for k, v in report.outcomes.items() if k not in ("rejected", "error:ModuleFormatError"))
    assert deep > count // 20, report.outcomes
