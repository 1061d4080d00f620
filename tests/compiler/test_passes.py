"""Pass infrastructure: lazy registry, options, pipeline dumps and the opt driver."""
import subprocess
import sys

import pytest

from rt.compiler.dialects import make_context
from rt.compiler.frontend import parse_module
from rt.compiler.passes import PassPipeline, get_pass_class, parse_pass_spec, pass_names
from rt.compiler.tools import opt_main
from rt.runtime.errors import InvalidArgumentError, NotFoundError

ADD = """func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  %1 = arith.addf %a, %b : tensor<4xf32>
  %2 = arith.mulf %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
"""


def test_registry_is_lazy_and_names_are_listed():
    names = pass_names()
    assert {"verify", "canonicalize", "cse", "convert-elementwise-to-linalg", "linalg-normalize-named-ops"} <= set(names)
    assert get_pass_class("cse").name == "cse"
    with pytest.raises(NotFoundError) as info:
        get_pass_class("no-such-pass")
    assert "registered passes:" in str(info.value) and "cse" in str(info.value)


def test_pass_options_are_checked():
    with pytest.raises(InvalidArgumentError) as info:
        parse_pass_spec("cse{bogus=1}")
    assert "unknown option 'bogus'" in str(info.value)


def test_pipeline_runs_in_order_and_dumps(tmp_path):
    ctx = make_context()
    module = parse_module(ADD, "add.mlir", ctx)
    pipeline = PassPipeline([parse_pass_spec("cse"), parse_pass_spec("convert-elementwise-to-linalg")],
                            dump_after="all", dump_dir=str(tmp_path))
    written = pipeline.run(module, ctx)
    assert [p.split("/")[-1] for p in written] == ["01_cse.mlir", "02_convert-elementwise-to-linalg.mlir"]
    first = (tmp_path / "01_cse.mlir").read_text()
    assert first.count("arith.addf") == 1 and "linalg.generic" not in first
    second = (tmp_path / "02_convert-elementwise-to-linalg.mlir").read_text()
    assert second.count("linalg.generic") == 2


def test_dump_after_unknown_pass_is_rejected(tmp_path):
    with pytest.raises(InvalidArgumentError) as info:
        PassPipeline([parse_pass_spec("cse")], dump_after="canonicalize", dump_dir=str(tmp_path))
    assert "not in the pipeline" in str(info.value)


def test_opt_main_prints_module(tmp_path, capsys):
    src = tmp_path / "add.mlir"
    src.write_text(ADD)
    assert opt_main([str(src), "--pass=cse"]) == 0
    out = capsys.readouterr().out
    assert out.count("arith.addf") == 1 and "arith.mulf %0, %0" in out


def test_opt_main_reports_located_errors(tmp_path, capsys):
    src = tmp_path / "bad.mlir"
    src.write_text("func.func @f() {\n  %0 = arith.constant 1 : i32\n  %1 = arith.bogus %0 : i32\n  return\n}\n")
    assert opt_main([str(src), "--pass=verify"]) == 1
    err = capsys.readouterr().err
    assert f"{src}:3:8: error: 'arith.bogus' is not supported by rt" in err
    assert err.rstrip().endswith("^")


def test_opt_main_missing_file_and_unknown_pass(tmp_path, capsys):
    assert opt_main([str(tmp_path / "none.mlir")]) == 1
    assert "cannot read" in capsys.readouterr().err
    src = tmp_path / "ok.mlir"
    src.write_text(ADD)
    assert opt_main([str(src), "--pass=nope"]) == 1
    assert "unknown pass 'nope'" in capsys.readouterr().err


def test_python_m_rt_opt_subcommand(tmp_path):
    src = tmp_path / "add.mlir"
    src.write_text(ADD)
    proc = subprocess.run([sys.executable, "-m", "rt", "opt", str(src), "--pass=convert-elementwise-to-linalg"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("linalg.generic") == 3
