"""Tensor tracing end to end: ``flow.tensor.trace`` in the input and ``--trace-dispatch-tensors``
(IREE's ``--iree-flow-trace-dispatch-tensors``), on both devices, against numpy.

Traced tensors reach ``rt.load(..., trace_tensors=callback)`` as numpy arrays, or stderr in
IREE's ``=== key ===`` format; tensors in a data-tiled (packed) layout come back row-major.
"""
import subprocess
import sys

import numpy as np
import pytest

import rt
from rt.runtime.errors import CompileError, InvalidArgumentError

DEVICES = {"llvm-cpu": "local-task://llvm-cpu", "vmvx": "local-sync://vmvx"}

#: a two-layer MLP whose first layer's pre-activation and activation are traced by the user
MLP = """
func.func @mlp(%x: tensor<?x16xf32>, %w1: tensor<16x32xf32>, %b1: tensor<32xf32>, %w2: tensor<32x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e1 = tensor.empty(%n) : tensor<?x32xf32>
  %f1 = linalg.fill ins(%cst : f32) outs(%e1 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<?x16xf32>, tensor<16x32xf32>) outs(%f1 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %a1 = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel","parallel"]} ins(%m1, %b1 : tensor<?x32xf32>, tensor<32xf32>) outs(%e1 : tensor<?x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %cst : f32
    linalg.yield %r : f32
  } -> tensor<?x32xf32>
  flow.tensor.trace "layer1" = [%m1 : tensor<?x32xf32>{%n}, %a1 : tensor<?x32xf32>{%n}]
  %e2 = tensor.empty(%n) : tensor<?x8xf32>
  %f2 = linalg.fill ins(%cst : f32) outs(%e2 : tensor<?x8xf32>) -> tensor<?x8xf32>
  %m2 = linalg.matmul ins(%a1, %w2 : tensor<?x32xf32>, tensor<32x8xf32>) outs(%f2 : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %m2 : tensor<?x8xf32>
}
"""

ADD_MUL = """
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  flow.tensor.trace "sum" = [%0 : tensor<4xf32>]
  %1 = arith.mulf %0, %b : tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""


def _inputs(rows=5):
    rng = np.random.default_rng(7)
    return [rng.standard_normal(shape).astype(np.float32) for shape in ((rows, 16), (16, 32), (32,), (32, 8))]


def _run(text, target, args, **compile_options):
    traces = []
    vmfb = rt.compile(text, devices=[target], **compile_options)
    with rt.load(vmfb, devices=[DEVICES[target]], trace_tensors=lambda key, arrays: traces.append((key, arrays))) as m:
        result = getattr(m, m.functions[0])(*args)
    return np.asarray(result), traces


@pytest.mark.parametrize("target", list(DEVICES))
@pytest.mark.parametrize("data_tiling", [True, False], ids=["data-tiled", "row-major"])
def test_user_trace_sees_intermediate_values(target, data_tiling):
    x, w1, b1, w2 = _inputs()
    result, traces = _run(MLP, target, [x, w1, b1, w2], data_tiling=data_tiling)
    m1 = x @ w1
    a1 = np.maximum(m1 + b1, 0)
    assert [key for key, _ in traces] == ["layer1"]
    (traced_m1, traced_a1) = traces[0][1]
    np.testing.assert_allclose(traced_m1, m1, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(traced_a1, a1, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(result, a1 @ w2, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", list(DEVICES))
def test_trace_dispatch_tensors_prints_every_dispatch(target):
    """Each dispatch's inputs and outputs, in execution order, packed ones unpacked: the traced
    values chain (one dispatch's output is the next one's input) and match numpy."""
    x, w1, b1, w2 = _inputs(rows=3)
    result, traces = _run(MLP, target, [x, w1, b1, w2], trace_dispatch_tensors=True)
    dispatch_keys = [key for key, _ in traces if key != "layer1"]
    assert dispatch_keys and len(dispatch_keys) % 2 == 0
    for inputs_key, outputs_key in zip(dispatch_keys[::2], dispatch_keys[1::2]):
        assert inputs_key.endswith(" inputs") and outputs_key == inputs_key[:-len("inputs")] + "outputs"
    outputs = {key: arrays for key, arrays in traces if key.endswith(" outputs")}
    last = [arrays for key, arrays in traces if key.endswith(" outputs")][-1]
    np.testing.assert_allclose(last[0], result, rtol=0, atol=0)
    np.testing.assert_allclose(result, np.maximum(x @ w1 + b1, 0) @ w2, rtol=1e-5, atol=1e-5)
    # every traced tensor has the logical shape of some tensor of the program
    shapes = {a.shape for arrays in outputs.values() for a in arrays}
    assert shapes <= {(3, 16), (16, 32), (32,), (32, 8), (3, 32), (3, 8)}, shapes
    # the packing dispatches (data tiling) print their input unchanged
    for key, arrays in traces:
        if "set_encoding" in key and key.endswith(" outputs"):
            source = dict(traces)[key[:-len("outputs")] + "inputs"][0]
            np.testing.assert_array_equal(arrays[0], source)


def test_trace_dispatch_selects_by_symbol():
    x, w1, b1, w2 = _inputs(rows=2)
    _, traces = _run(MLP, "llvm-cpu", [x, w1, b1, w2], trace_dispatch="matmul")
    keys = [key for key, _ in traces if key != "layer1"]
    assert keys and all("matmul" in key for key in keys)


def test_default_sink_prints_iree_format():
    code = ("import numpy as np, rt\n"
            f"m = rt.load(rt.compile({ADD_MUL!r}, devices=['vmvx']), devices=['local-sync://vmvx'])\n"
            "print(m.f(np.array([1, 2, 3, 4], np.float32), np.array([10, 20, 30, 40], np.float32)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stderr.splitlines()[-2:] == ["=== sum ===", "4xf32=11 22 33 44"]
    assert out.stdout.strip() == "[ 110.  440.  990. 1760.]"


def test_cli_iree_flag_traces_dispatches(tmp_path):
    src = tmp_path / "f.mlir"
    src.write_text(ADD_MUL)
    vmfb = tmp_path / "f.vmfb"
    compiled = subprocess.run([sys.executable, "-m", "rt", "compile", src, "-o", vmfb,
                               "--iree-flow-trace-dispatch-tensors"], capture_output=True, text=True, timeout=300)
    assert compiled.returncode == 0, compiled.stderr
    run = subprocess.run([sys.executable, "-m", "rt", "run", vmfb, "--input=4xf32=1,2,3,4",
                          "--input=4xf32=10,20,30,40"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    key = "f_dispatch_0::f_dispatch_0_elementwise_4_f32"   # executable::export, as IREE labels it
    first = lines.index(f"=== {key} inputs ===")
    assert lines[first:first + 5] == [f"=== {key} inputs ===", "4xf32=1 2 3 4", "4xf32=10 20 30 40",
                                      f"=== {key} outputs ===", "4xf32=11 22 33 44"]
    assert "=== sum ===" in lines
    assert run.stdout.splitlines()[-1] == "4xf32=110 440 990 1760"


def test_trace_with_wrong_dim_count_is_a_located_error():
    bad = ADD_MUL.replace('[%0 : tensor<4xf32>]', '[%0 : tensor<?xf32>]').replace(
        "%0 = arith.addf %a, %b : tensor<4xf32>",
        "%0 = arith.addf %a, %b : tensor<4xf32>\n  %d = tensor.cast %0 : tensor<4xf32> to tensor<?xf32>")
    bad = bad.replace('[%0 : tensor<?xf32>]', '[%d : tensor<?xf32>]')
    with pytest.raises(CompileError) as info:
        rt.compile(bad, devices=["vmvx"])
    assert ":5:3:" in str(info.value) and "1 dynamic dims but 0 dim values" in str(info.value)


def test_trace_tensors_must_be_callable():
    with pytest.raises(InvalidArgumentError, match="trace_tensors must be callable"):
        rt.load(rt.compile(ADD_MUL, devices=["vmvx"]), devices=["local-sync://vmvx"], trace_tensors="stderr")


@pytest.mark.parametrize("target", list(DEVICES))
def test_trace_callback_error_ends_the_call_and_the_module_stays_usable(target):
    calls = []

    def failing(key, arrays):
        calls.append(key)
        if len(calls) == 1:
            raise ValueError("callback refused the tensor")

    a = np.array([1, 2, 3, 4], np.float32)
    with rt.load(rt.compile(ADD_MUL, devices=[target]), devices=[DEVICES[target]], trace_tensors=failing) as m:
        with pytest.raises(ValueError, match="callback refused the tensor"):
            m.f(a, a)
        np.testing.assert_array_equal(m.f(a, a), (a + a) * a)
    assert calls == ["sum", "sum"]


@pytest.mark.parametrize("target", list(DEVICES))
def test_iree_tensor_trace_attribute_on_a_matmul(target):
    """``iree.tensor.trace`` on a data-tiled matmul: its row-major inputs and result are traced."""
    text = MLP.replace('  flow.tensor.trace "layer1" = [%m1 : tensor<?x32xf32>{%n}, %a1 : tensor<?x32xf32>{%n}]\n', "")
    text = text.replace("%m2 = linalg.matmul ins", '%m2 = linalg.matmul {iree.tensor.trace = "layer2"} ins')
    x, w1, b1, w2 = _inputs(rows=4)
    result, traces = _run(text, target, [x, w1, b1, w2])
    a1 = np.maximum(x @ w1 + b1, 0)
    assert [key for key, _ in traces] == ["layer2 inputs", "layer2 outputs"]
    inputs, outputs = traces[0][1], traces[1][1]
    np.testing.assert_allclose(inputs[0], a1, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(inputs[1], w2)
    assert not inputs[2].any()  # the zero-filled accumulator
    np.testing.assert_allclose(outputs[0], a1 @ w2, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(outputs[0], result)


def test_iree_tensor_trace_inside_an_executable_is_a_located_error(tmp_path):
    src = tmp_path / "ex.mlir"
    src.write_text("""builtin.module {
  flow.executable private @ex {
    flow.executable.export public @fn workgroups(%w: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %w
      flow.return %x, %y, %z : index, index, index
    }
    builtin.module {
      func.func @fn(%in: !flow.dispatch.tensor<readonly:tensor<4xf32>>) {
        %0 = flow.dispatch.tensor.load %in, offsets = [0], sizes = [4], strides = [1] : !flow.dispatch.tensor<readonly:tensor<4xf32>> -> tensor<4xf32>
        %1 = math.exp %0 {iree.tensor.trace} : tensor<4xf32>
        func.return
      }
    }
  }
}
""")
    out = subprocess.run([sys.executable, "-m", "rt", "opt", "--pass=iree-flow-inject-tensor-tracing", src],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 1
    assert "ex.mlir:10:14: error: 'iree.tensor.trace' on an op inside an executable" in out.stderr
