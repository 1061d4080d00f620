"""``rt benchmark`` as iree-benchmark-module (Google Benchmark) runs and reports."""
import csv
import io
import json
import re

import pytest

from rt.benchmark_runner import MinTime, parse_min_time

ADD = ("--function=add", "--input=4xf32=1", "--input=4xf32=2", "--device=local-sync://vmvx")
NAME = "BM_add/process_time/real_time"
RULE = "-" * 95
HEADER = "Benchmark                                     Time             CPU   Iterations UserCounters..."
TIME_ROW = re.compile(r"(?P<name>\S+) +(?P<real>[ \d.]{10}) ms   (?P<cpu>[ \d.]{10}) ms   (?P<iters>[ \d]{10}) "
                      r"items_per_second=(?P<items>[\d.]+[kMG]?)/s")
CV_ROW = re.compile(r"(?P<name>\S+) +[ \d.]{10} %    [ \d.]{10} %    (?P<iters>[ \d]{10}) items_per_second=[\d.]+%")


def test_repetitions_and_aggregates_in_the_console_table(rt_cli, modules):
    out = rt_cli("benchmark", modules / "add.vmfb", *ADD, "--benchmark_repetitions=3", "--benchmark_min_time=5x")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:3] == [RULE, HEADER, RULE]
    rows = [TIME_ROW.fullmatch(line) or CV_ROW.fullmatch(line) for line in lines[3:]]
    assert all(rows), lines
    assert [(m["name"], int(m["iters"])) for m in rows] == [
        (NAME, 5), (NAME, 5), (NAME, 5), (NAME + "_mean", 3), (NAME + "_median", 3), (NAME + "_stddev", 3),
        (NAME + "_cv", 3)]
    assert len({line.index(" items_per_second=") for line in lines[3:]}) == 1
    assert "Running python -m rt benchmark" in out.stderr


def test_one_repetition_has_no_aggregates_and_min_time_finds_iterations(rt_cli, modules):
    out = rt_cli("benchmark", modules / "add.vmfb", *ADD, "--benchmark_min_time=0.05s")
    rows = out.stdout.splitlines()[3:]
    assert len(rows) == 1
    m = TIME_ROW.fullmatch(rows[0])
    assert m["name"] == NAME and int(m["iters"]) > 1
    assert float(m["real"]) * int(m["iters"]) >= 50.0


def test_json_format_and_out_file_in_another_format(rt_cli, modules, tmp_path):
    out = rt_cli("benchmark", modules / "add.vmfb", *ADD, "--benchmark_repetitions=2", "--benchmark_min_time=2x",
                 "--benchmark_format=json", "--benchmark_out=r.csv", "--benchmark_out_format=csv", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert set(report["context"]) >= {"date", "host_name", "executable", "num_cpus", "load_avg"}
    entries = [(b["name"], b["run_type"], b["iterations"], b.get("aggregate_name"), b.get("time_unit"))
               for b in report["benchmarks"]]
    assert entries == [(NAME, "iteration", 2, None, "ms"), (NAME, "iteration", 2, None, "ms"),
                       (NAME + "_mean", "aggregate", 2, "mean", "ms"), (NAME + "_median", "aggregate", 2, "median", "ms"),
                       (NAME + "_stddev", "aggregate", 2, "stddev", "ms"), (NAME + "_cv", "aggregate", 2, "cv", "ms")]
    first = report["benchmarks"][0]
    assert first["items_per_second"] == pytest.approx(1e3 / first["real_time"])
    assert [b["repetition_index"] for b in report["benchmarks"][:2]] == [0, 1]
    rows = list(csv.reader(io.StringIO((tmp_path / "r.csv").read_text())))
    assert rows[0] == ["name", "iterations", "real_time", "cpu_time", "time_unit", "bytes_per_second",
                       "items_per_second", "label", "error_occurred", "error_message"]
    assert [(r[0], r[1], r[4]) for r in rows[1:]] == [
        (NAME, "2", "ms"), (NAME, "2", "ms"), (NAME + "_mean", "2", "ms"), (NAME + "_median", "2", "ms"),
        (NAME + "_stddev", "2", "ms"), (NAME + "_cv", "2", "")]


def test_out_file_defaults_to_json_and_aggregates_only(rt_cli, modules, tmp_path):
    out = rt_cli("benchmark", modules / "add.vmfb", *ADD, "--benchmark_repetitions=2", "--benchmark_min_time=1x",
                 "--benchmark_out=r.json", "--benchmark_report_aggregates_only", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert [line.split()[0] for line in out.stdout.splitlines()[3:]] == [
        NAME + "_mean", NAME + "_median", NAME + "_stddev", NAME + "_cv"]
    saved = json.loads((tmp_path / "r.json").read_text())
    assert [b["aggregate_name"] for b in saved["benchmarks"]] == ["mean", "median", "stddev", "cv"]


@pytest.mark.parametrize("text, expected", [
    ("0.5", MinTime(seconds=0.5)), ("0.5s", MinTime(seconds=0.5)), ("100x", MinTime(iterations=100)),
    ("2s", MinTime(seconds=2.0))])
def test_min_time_forms(text, expected):
    assert parse_min_time(text) == expected


@pytest.mark.parametrize("flag, message", [
    ("--benchmark_min_time=0x", "rt benchmark: --benchmark_min_time=0x: expected seconds (0.5 or 0.5s) or an "
                                "iteration count (100x)\n"),
    ("--benchmark_min_time=fast", "rt benchmark: --benchmark_min_time=fast: expected seconds (0.5 or 0.5s) or an "
                                  "iteration count (100x)\n"),
    ("--benchmark_format=xml", "rt benchmark: argument --benchmark_format: invalid choice: 'xml' (choose from "
                               "'console', 'json', 'csv') (see python -m rt benchmark --help)\n"),
])
def test_bad_benchmark_flags(rt_cli, modules, flag, message):
    out = rt_cli("benchmark", modules / "add.vmfb", *ADD, flag)
    assert out.returncode == 1 and out.stderr == message


def test_benchmark_out_path_is_checked_before_the_run(rt_cli, modules, tmp_path):
    out = rt_cli("benchmark", modules / "add.vmfb", *ADD, "--benchmark_out=no/such/r.json", cwd=tmp_path)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr == (f"rt benchmark: --benchmark_out=no/such/r.json: cannot write 'no/such/r.json': folder "
                          f"{str(tmp_path / 'no/such')!r} does not exist\n")
