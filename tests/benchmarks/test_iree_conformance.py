"""benchmarks/iree_conformance.py on a small IREE-like tree: scope, suites, tests, the report."""
import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "iree_conformance.py"
spec = importlib.util.spec_from_file_location("iree_conformance", SCRIPT)
conf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(conf)

CHECKS = """\
// A comment naming foo.bar_op must not count as an op.
func.func @adds() {
  %a = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  %b = arith.addi %a, %a : tensor<2xi32>
  check.expect_eq_const(%b, dense<[2, 4]> : tensor<2xi32>) : tensor<2xi32>
  return
}
func.func @"wrong.result"() {
  %a = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const(%a, dense<[1, 3]> : tensor<2xi32>) : tensor<2xi32>
  return
}
func.func private @helper(%x: tensor<2xi32>) -> tensor<2xi32> {
  return %x : tensor<2xi32>
}
func.func @takes_args(%x: tensor<2xi32>) -> tensor<2xi32> {
  return %x : tensor<2xi32>
}
"""
FOREIGN = """\
func.func @abs() {
  %a = util.unfoldable_constant dense<[-1.0]> : tensor<1xf32>
  %b = "torch.aten.abs"(%a) : (tensor<1xf32>) -> tensor<1xf32>
  check.expect_almost_eq_const(%b, dense<[1.0]> : tensor<1xf32>) : tensor<1xf32>
  return
}
"""
LIT = """\
// RUN: iree-run-mlir --Xcompiler,iree-hal-target-backends=vmvx %s --input=2xi32=3,4 | FileCheck %s
// RUN: iree-compile --compile-to=stream %s | FileCheck %s
// CHECK: EXEC @twice
func.func @twice(%x: tensor<2xi32>) -> tensor<2xi32> {
  %y = arith.addi %x, %x : tensor<2xi32>
  return %y : tensor<2xi32>
}
// CHECK: 2xi32=6 8
"""
CMAKE = """\
iree_check_single_backend_test_suite(
  NAME
    check_vmvx
  SRCS
    "checks.mlir"
    "foreign.mlir"
  TARGET_BACKEND
    "vmvx"
  COMPILER_FLAGS
    "--iree-opt-data-tiling=false"
    "--iree-vmvx-enable-microkernels"
)
iree_check_single_backend_test_suite(
  NAME
    check_cuda
  SRCS
    "gpu_only.mlir"
  TARGET_BACKEND
    "cuda"
)
iree_lit_test_suite(
  NAME
    lit
  SRCS
    "lit_run.mlir"
)
"""


@pytest.fixture
def tree(tmp_path):
    folder = tmp_path / "tests" / "e2e" / "ops"
    folder.mkdir(parents=True)
    (folder / "CMakeLists.txt").write_text(CMAKE)
    (folder / "checks.mlir").write_text(CHECKS)
    (folder / "foreign.mlir").write_text(FOREIGN)
    (folder / "gpu_only.mlir").write_text(CHECKS.replace("@adds", "@gpu_adds"))
    (folder / "lit_run.mlir").write_text(LIT)
    return tmp_path


def test_ops_and_tests_read_from_text():
    assert conf.ops_of(CHECKS) == {"util.unfoldable_constant", "arith.addi", "check.expect_eq_const",
                                  "func.func"}
    assert conf.ops_of(FOREIGN) >= {"torch.aten.abs"}
    assert conf.test_functions(CHECKS) == ["adds", "wrong.result"]


def test_discover_scope_suites_and_exclusions(tree):
    files = {f["file"]: f for f in conf.discover(tree)}
    assert set(files) == {"ops/checks.mlir", "ops/foreign.mlir", "ops/gpu_only.mlir", "ops/lit_run.mlir"}
    checks = files["ops/checks.mlir"]
    assert checks["in_scope"] and checks["kind"] == "check" and checks["excluded"] is None
    assert checks["tests"] == ["adds", "wrong.result"]
    assert files["ops/foreign.mlir"]["foreign_ops"] == ["torch.aten.abs"]
    assert files["ops/gpu_only.mlir"]["excluded"] == "IREE runs it only on GPU backends (cuda)"
    assert files["ops/lit_run.mlir"]["kind"] == "lit"
    assert conf.compile_options(checks, "vmvx") == ({"data_tiling": False}, ["--iree-vmvx-enable-microkernels"])
    assert conf.compile_options(checks, "llvm-cpu") == ({}, [])


def test_blocker_key_strips_location():
    res = {"kind": "error", "file": "a.mlir",
           "error": "CompileError: /x/a.mlir:3:7: error: 'linalg.foo' is not supported"}
    assert conf.blocker_key(res) == "CompileError: 'linalg.foo' is not supported"
    assert conf.blocker_key({"kind": "check", "file": "a.mlir", "error": "x"}) == "wrong result (a.mlir)"


def test_end_to_end_report(tree, tmp_path):
    out = tmp_path / "out.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), str(tree), "--devices=vmvx", f"--json={out}",
                           "--timeout=300"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    by_test = {(r["file"], r["test"]): r for r in data["results"]}
    assert by_test[("ops/checks.mlir", "adds")]["ok"] is True
    wrong = by_test[("ops/checks.mlir", "wrong.result")]
    assert wrong["ok"] is False and wrong["kind"] == "check"
    lit = [r for r in data["results"] if r["file"] == "ops/lit_run.mlir"]
    assert [r["ok"] for r in lit] == [True, None]
    assert by_test[("ops/gpu_only.mlir", "gpu_adds")]["ok"] is True
    sweep = {s["file"]: s for s in data["sweeps"]}
    assert sweep["ops/foreign.mlir"]["ok"] is False and sweep["ops/foreign.mlir"]["located"] is True
    assert data["summary"]["table"]["counted|ops|vmvx"] == {"total": 2, "pass": 1}
    assert data["summary"]["table"]["excluded|ops|vmvx"] == {"total": 2, "pass": 1}
    assert data["summary"]["internal_or_unlocated"] == []
    assert "wrong result (ops/checks.mlir)" in proc.stdout
