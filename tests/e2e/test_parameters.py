"""Globals initialized from named parameters (``#flow.parameter.named``), compiled by rt and run
on both devices with the parameters in .irpa archives, .safetensors files and numpy arrays;
through ``rt.load(parameters=...)`` and ``python -m rt run --parameters=``. Results are checked
against numpy; bad parameter files and missing parameters give errors naming them."""
import functools
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import rt
from rt.runtime.io.irpa import Splat, write_irpa

HERE = pathlib.Path(__file__).resolve().parent
MODEL = HERE / "parameters" / "model.mlir"
DEVICES = {"llvm-cpu": "local-task://llvm-cpu", "vmvx": "local-sync://vmvx"}
WEIGHT = np.array([[0.5, -1.0, 2.0], [3.0, 0.25, -4.0]], np.float32)
BIAS = np.array([1.0, 2.0, 3.0], np.float32)
X = np.array([[2.0, -1.0]], np.float32)


@functools.lru_cache(maxsize=None)
def _compiled(target):
    return rt.compile(str(MODEL), devices=[target])


def _write_model_irpa(path):
    write_irpa(path, {"weight": WEIGHT, "table": Splat(b"\x05", 4), "counter": np.array([10, -20], np.int32)})
    return path


@pytest.mark.parametrize("target", sorted(DEVICES))
def test_parameters_from_irpa_and_arrays(tmp_path, target):
    archive = _write_model_irpa(tmp_path / "model.irpa")
    params = {"model": archive, "": {"bias": BIAS}}
    with rt.load(_compiled(target), devices=[DEVICES[target]], parameters=params) as m:
        np.testing.assert_allclose(m.affine(X), X @ WEIGHT + BIAS, rtol=1e-6)
        np.testing.assert_array_equal(m.doubled_table(), [10, 10, 10, 10])
        np.testing.assert_array_equal(m.bump(), [11, -19])
        np.testing.assert_array_equal(m.bump(), [12, -18])
    with rt.load(_compiled(target), devices=[DEVICES[target]], parameters=params) as m:
        np.testing.assert_array_equal(m.bump(), [11, -19])  # a fresh copy of the mutable global


@pytest.mark.parametrize("target", sorted(DEVICES))
def test_parameters_from_safetensors(tmp_path, target):
    from safetensors.numpy import save_file

    save_file({"weight": WEIGHT, "table": np.array([1, -2, 3, -4], np.int8),
               "counter": np.array([0, 0], np.int32)}, str(tmp_path / "model.safetensors"))
    save_file({"bias": BIAS}, str(tmp_path / "bias.safetensors"))
    specs = [f"model={tmp_path / 'model.safetensors'}", str(tmp_path / "bias.safetensors")]
    with rt.load(_compiled(target), devices=[DEVICES[target]], parameters=specs) as m:
        np.testing.assert_allclose(m.affine(X), X @ WEIGHT + BIAS, rtol=1e-6)
        np.testing.assert_array_equal(m.doubled_table(), [2, -4, 6, -8])


def test_cli_parameters(tmp_path):
    archive = _write_model_irpa(tmp_path / "model.irpa")
    write_irpa(tmp_path / "bias.irpa", {"bias": BIAS})
    (tmp_path / "m.vmfb").write_bytes(_compiled("vmvx"))
    base = [sys.executable, "-m", "rt", "run", str(tmp_path / "m.vmfb"), "--device=local-sync://vmvx"]
    out = subprocess.run(base + ["--function=affine", "--input=1x2xf32=2,-1", f"--parameters=model={archive}",
                                 f"--parameters={tmp_path / 'bias.irpa'}"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "1x3xf32=[-1 -0.25 11]"
    out = subprocess.run(base + ["--function=doubled_table", f"--parameters=model={archive}"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.strip() == ('rt run: parameter "bias" (the module expects tensor<3xf32>): no parameter file '
                                  "was given for unscoped parameters (scopes given: 'model'); pass "
                                  "--parameters=FILE or rt.load(parameters=...)")


def test_bad_parameter_files_are_named(tmp_path):
    archive = _write_model_irpa(tmp_path / "model.irpa")
    cut = tmp_path / "cut.irpa"
    cut.write_bytes(archive.read_bytes()[:150])
    with pytest.raises(rt.InvalidArgumentError, match=f"{cut}: not a valid IREE parameter archive: entry table"):
        rt.load(_compiled("vmvx"), devices=["local-sync://vmvx"], parameters={"model": cut, "": {"bias": BIAS}})
    write_irpa(tmp_path / "small.irpa", {"weight": WEIGHT[:1], "table": b"1234", "counter": b"12345678"})
    with pytest.raises(rt.InvalidArgumentError, match=rf'parameter "model"::"weight" in {tmp_path / "small.irpa"} '
                                                      r"holds 12 bytes but the module expects tensor<2x3xf32> of 24"):
        rt.load(_compiled("vmvx"), devices=["local-sync://vmvx"],
                parameters={"model": tmp_path / "small.irpa", "": {"bias": BIAS}})
    with pytest.raises(rt.NotFoundError, match=r'parameter "model"::"counter" \(the module expects tensor<2xi32>\) '
                                               r"is not in .*only.irpa"):
        write_irpa(tmp_path / "only.irpa", {"weight": WEIGHT, "table": b"1234"})
        rt.load(_compiled("vmvx"), devices=["local-sync://vmvx"],
                parameters={"model": tmp_path / "only.irpa", "": {"bias": BIAS}})


def test_dynamic_parameter_global_is_a_located_error():
    text = ('util.global private @w = #flow.parameter.named<"w"> : tensor<?xf32>\n'
            "func.func @f() -> tensor<?xf32> {\n  %w = util.global.load @w : tensor<?xf32>\n"
            "  return %w : tensor<?xf32>\n}\n")
    with pytest.raises(rt.CompileError) as info:
        rt.compile(text)
    assert (info.value.line, info.value.col) == (1, 1)
    assert 'initialized from parameter "w" but has the dynamic type tensor<?xf32>' in str(info.value)
