"""StableHLO input (compiler/dialects/stablehlo.py, passes/input/stablehlo_to_iree_input.py):
JAX-style modules compile with rt alone and match numpy; bad input is a located CompileError."""
import numpy as np
import pytest

import rt
from rt.compiler.frontend import parse_module

#: the shape of what ``jax.jit(f).lower(x, w, b).as_text()`` prints for a dense layer with relu
JAX_DENSE = """
module @jit_dense attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32> {mhlo.layout_mode = "default"}, %arg1: tensor<8x16xf32>, %arg2: tensor<16xf32>) -> (tensor<4x16xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<16xf32>) -> tensor<4x16xf32>
    %2 = stablehlo.add %0, %1 : tensor<4x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %4 = stablehlo.maximum %2, %3 : tensor<4x16xf32>
    %5 = stablehlo.reduce(%4 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<4xf32>) -> tensor<4x16xf32>
    %7 = stablehlo.divide %4, %6 : tensor<4x16xf32>
    return %7 : tensor<4x16xf32>
  }
}
"""


@pytest.mark.parametrize("device", ["local-task://llvm-cpu", "local-sync://vmvx"])
def test_a_jax_dense_layer_compiles_with_rt_alone_and_matches_numpy(device):
    target = device.split("://")[1]
    module = rt.load(rt.compile(JAX_DENSE, devices=[target]), devices=[device])
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    w = rng.standard_normal((8, 16)).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32) + 2.0
    h = np.maximum(x @ w + b, 0)
    expected = h / h.sum(1, keepdims=True)
    np.testing.assert_allclose(np.asarray(module.main(x, w, b)), expected, rtol=1e-5, atol=1e-6)


def test_pretty_and_generic_forms_print_and_parse_back_the_same():
    text = """
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %i: tensor<2x3xi32>) -> tensor<2x4xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction NE>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %2 = stablehlo.select %1, %a, %a : tensor<2x3xi1>, tensor<2x3xf32>
  %3 = stablehlo.slice %i [0:2, 0:3:2] : (tensor<2x3xi32>) -> tensor<2x2xi32>
  %4 = stablehlo.iota dim = 0 : tensor<5xi32>
  %5 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<2x4xf32>
}
"""
    printed = str(parse_module(text, "f.mlir"))
    assert "contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST]" in printed
    assert "stablehlo.compare NE, %a, %a" in printed
    assert "stablehlo.slice %i, " not in printed and "start_indices = array<i64: 0, 0>" in printed
    assert "stablehlo.iota dim = 0 : tensor<5xi32>" in printed
    assert str(parse_module(printed, "printed.mlir")) == printed


def _compile_error(text):
    with pytest.raises(rt.CompileError) as info:
        rt.compile(text, devices=["vmvx"])
    return str(info.value)


def test_a_custom_call_is_a_located_error_naming_its_target():
    message = _compile_error("""func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @lapack_sgetrf(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}""")
    assert "<input>:2:8: error:" in message and "@lapack_sgetrf is not supported by rt" in message


def test_an_op_rt_does_not_convert_is_a_located_error_listing_the_supported_ops():
    message = _compile_error("""func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.cholesky"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}""")
    assert "<input>:2:8: error:" in message and "stablehlo.cholesky" in message
    assert "stablehlo.dot_general" in message


def test_a_bad_comparison_direction_names_the_choices():
    message = _compile_error("""func.func @f(%a: tensor<4xf32>) -> tensor<4xi1> {
  %0 = stablehlo.compare GREATER, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}""")
    assert "<input>:2:26: error:" in message and "EQ, NE, GE, GT, LE, LT" in message and "GREATER" in message


def test_dynamic_shapes_where_static_ones_are_needed_are_a_located_error():
    message = _compile_error("""func.func @f(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.reverse %a, dims = [0] : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}""")
    assert "<input>:2:8: error:" in message and "static tensor shapes" in message


def test_dot_general_dimension_numbers_that_do_not_fit_are_a_located_error():
    message = _compile_error("""func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}""")
    assert "<input>:2:8: error:" in message and "do not fit" in message


def test_input_type_none_rejects_stablehlo_and_unknown_types_are_named():
    text = "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.abs %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}"
    with pytest.raises(rt.CompileError, match=r"<input>:2:8: error: 'stablehlo.abs' with --iree-input-type=none"):
        rt.compile(text, devices=["vmvx"], input_type="none")
    with pytest.raises(rt.InvalidArgumentError, match="input_type='torch' is not supported by rt; input types: auto"):
        rt.compile(text, devices=["vmvx"], input_type="torch")
    assert rt.compile(text, devices=["vmvx"], input_type="stablehlo")[:4] != b""


def test_a_jax_lowering_object_is_read_through_its_text_methods():
    class Lowered:  # what jax.stages.Lowered offers rt: as_text() giving the StableHLO module
        def as_text(self):
            return JAX_DENSE

    Lowered.__module__ = "jax._src.stages"
    module = rt.load(rt.compile(Lowered(), devices=["vmvx"]), devices=["local-sync://vmvx"])
    x, w, b = np.ones((4, 8), np.float32), np.ones((8, 16), np.float32), np.ones(16, np.float32)
    np.testing.assert_allclose(np.asarray(module.main(x, w, b)), np.full((4, 16), 1 / 16, np.float32), rtol=1e-6)
    with pytest.raises(rt.InvalidArgumentError, match="jax.stages.Lowered or a jax.export.Exported; got object"):
        rt.compile(object())


def test_the_cli_compiles_a_stablehlo_file_and_writes_the_converted_input(tmp_path):
    import subprocess
    import sys

    src = tmp_path / "dense.stablehlo.mlir"
    src.write_text(JAX_DENSE)
    converted = subprocess.run([sys.executable, "-m", "rt", "compile", str(src), "-o", "-", "--compile-to=input",
                                "--iree-input-type=stablehlo"], capture_output=True, text=True, timeout=300)
    assert converted.returncode == 0, converted.stderr
    assert "linalg.matmul" in converted.stdout and "stablehlo." not in converted.stdout
    refused = subprocess.run([sys.executable, "-m", "rt", "compile", str(src), "-o", str(tmp_path / "x.vmfb"),
                              "--input-type=torch"], capture_output=True, text=True, timeout=300)
    assert refused.returncode != 0 and "input_type='torch' is not supported by rt" in refused.stderr


def test_a_tosa_op_rt_does_not_convert_is_a_located_error():
    message = _compile_error("""func.func @f(%a: tensor<6xi16>) -> tensor<6xi16> {
  %0 = tosa.tile %a {multiples = array<i64: 2>} : (tensor<6xi16>) -> tensor<6xi16>
  return %0 : tensor<6xi16>
}""")
    assert "<input>:2:8: error: 'tosa.tile' is not supported by rt's TOSA input yet" in message
    assert "tosa.matmul" in message


def test_tosa_matmul_with_a_zero_point_is_a_located_error():
    message = _compile_error("""func.func @f(%a: tensor<1x2x3xi8>, %b: tensor<1x3x4xi8>) -> tensor<1x2x4xi32> {
  %zp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x2x3xi8>, tensor<1x3x4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x4xi32>
  return %0 : tensor<1x2x4xi32>
}""")
    assert "<input>:3:8: error: 'tosa.matmul' with non-zero zero points is not supported by rt" in message


def test_iree_codegen_compilation_info_is_read_and_set_aside():
    text = """#info = #iree_codegen.compilation_info<
    lowering_config = #iree_cpu.lowering_config<distribution = {sizes=[8, 8], interchange=[1, 0]}>,
    translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>>
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %0 = "stablehlo.dot"(%a, %b) {compilation_info = #info} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}"""
    printed = str(parse_module(text, "hint.mlir"))
    assert "#iree_codegen.compilation_info<" in printed and "interchange=[1, 0]" in printed
    module = rt.load(rt.compile(text, devices=["vmvx"]), devices=["local-sync://vmvx"])
    a, b = np.arange(32, dtype=np.float32).reshape(4, 8), np.ones((8, 2), np.float32)
    np.testing.assert_allclose(np.asarray(module.main(a, b)), a @ b)
