"""Dialect coverage: the repository's examples and IREE-style snippets parse, verify and round-trip."""
import glob
import os

import pytest

from rt.compiler.frontend import parse_module
from rt.runtime.errors import CompileError

EXAMPLES = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "*.mlir")))


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_round_trips(path):
    with open(path) as f:
        module = parse_module(f.read(), path)
    text = str(module)
    assert str(parse_module(text, "again.mlir")) == text
    assert any(op.name in ("func.func", "util.func") for op in module.walk())


SNIPPETS = {
    "stream_host": """
util.global private @_constant : !stream.resource<constant>
util.global private mutable @_t = #stream.timepoint<immediate> : !stream.timepoint
util.func public @f(%arg0: !hal.buffer_view, %c40: index, %t: !stream.timepoint) -> !hal.buffer_view {
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %e = hal.element_type<f32> : i32
  %d = hal.encoding_type<dense_row_major> : i32
  hal.buffer_view.assert<%arg0 : !hal.buffer_view> message("tensor") shape([%c1, %c10]) type(%e) encoding(%d)
  %0 = stream.tensor.import on(#hal.device.affinity<@dev>) %arg0 : !hal.buffer_view -> tensor<1x10xf32> in !stream.resource<external>{%c40}
  %1 = stream.async.transfer %0 : !stream.resource<external>{%c40} from(#hal.device.affinity<@dev>) -> to(#hal.device.affinity<@dev>) !stream.resource<*>{%c40}
  %2 = stream.async.transfer %1 : !stream.resource<*>{%c40} -> !stream.resource<external>{%c40}
  %j = stream.timepoint.join max(%t, %t) => !stream.timepoint
  %3 = stream.timepoint.await %j => %2 : !stream.resource<external>{%c40}
  %4 = stream.tensor.export %3 : tensor<1x10xf32> in !stream.resource<external>{%c40} -> !hal.buffer_view
  util.return %4 : !hal.buffer_view
}""",
    "flow_executable": """
flow.executable private @ex {
  flow.executable.export public @ep workgroups(%arg0: index, %arg1: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0, %arg1
    flow.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @ep(%arg0: !flow.dispatch.tensor<readonly:tensor<?x?xf32>>, %arg1: index, %arg2: index) {
      %0 = flow.dispatch.workload.ordinal %arg1, 0 : index
      %1 = flow.dispatch.workload.ordinal %arg2, 1 : index
      %2 = flow.dispatch.tie_shape %arg0 : !flow.dispatch.tensor<readonly:tensor<?x?xf32>>{%0, %1}
      return
    }
  }
}""",
    "encoding": """
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#enc = #iree_encoding.encoding<operand_index = 0 : index, op_type =  matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2], round_dims_to = array<i64: 32, 32, 32>>
#enc_r = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], layouts = [#iree_cpu.cpu_encoding_layout<configuration = {encoding_info = {innerDimsPos = [0, 1], innerTileSizes = [16, 1], outerDimsPerm = [0, 1]}}>]>
func.func @f(%a: tensor<?x?xf32>, %d0: index, %d1: index) -> tensor<?x?xf32> {
  %0 = iree_encoding.set_encoding %a : tensor<?x?xf32> -> tensor<?x?xf32, #enc>
  %1 = iree_encoding.unset_encoding %0 : tensor<?x?xf32, #enc> -> tensor<?x?xf32>{%d0, %d1}
  %s = stream.tensor.sizeof tensor<?x?xf32, #enc_r>{%d0, %d1} : index
  return %1 : tensor<?x?xf32>
}""",
    "hal_executable": """
#pl = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer>]>
hal.executable private @ex {
  hal.executable.variant public @v target(#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">) {
    hal.executable.export public @ep ordinal(0) layout(#pl) count(%arg0: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %arg0, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @ep() {
        %c0 = arith.constant 0 : index
        %0 = hal.interface.binding.subspan layout(#pl) binding(0) alignment(64) offset(%c0) flags("ReadOnly|Indirect") : !flow.dispatch.tensor<readonly:tensor<4xf32>>
        %id = hal.interface.workgroup.id[0] : index
        return
      }
    }
  }
}""",
    "linalg_extra": """
func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>, %c: tensor<2x4x4xf32>, %m: tensor<4x8xf32>, %v: tensor<8xf32>, %y: tensor<4xf32>, %p: tensor<1x8x16x1xf32>) -> tensor<2x4x4xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%c : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %1 = linalg.matvec ins(%m, %v : tensor<4x8xf32>, tensor<8xf32>) outs(%y : tensor<4xf32>) -> tensor<4xf32>
  %2 = linalg.pack %m inner_dims_pos = [0, 1] inner_tiles = [16, 1] into %p : tensor<4x8xf32> -> tensor<1x8x16x1xf32>
  %3 = linalg.unpack %2 inner_dims_pos = [0, 1] inner_tiles = [16, 1] into %m : tensor<1x8x16x1xf32> -> tensor<4x8xf32>
  %4 = math.erfc %v : tensor<8xf32>
  %5 = math.isnan %v : tensor<8xf32>
  return %0 : tensor<2x4x4xf32>
}""",
    "hal_runtime": """
func.func @f(%dev: !hal.device, %cmd: !hal.command_buffer, %exe: !hal.executable, %buf: !hal.buffer, %w: !hal.fence, %s: !hal.fence, %aff: i64, %c0: index, %c64: index, %t: i32) {
  %c = hal.command_buffer.create device(%dev : !hal.device) mode(OneShot) categories("Transfer|Dispatch") affinity(%aff) : !hal.command_buffer
  hal.command_buffer.dispatch<%c : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c64, %c64, %c64]) bindings([(%buf : !hal.buffer)[%c0, %c64]]) flags(None)
  hal.command_buffer.finalize<%c : !hal.command_buffer>
  hal.device.queue.execute<%dev : !hal.device> affinity(%aff) wait(%w) signal(%s) commands(%c) flags(None)
  %st = hal.fence.await until([%s]) timeout_millis(%t) flags(None) : i32
  return
}""",
    "arith_scaling": """
func.func @f(%x: f4E2M1FN, %s: f8E8M0FNU, %y: f32) -> (f32, f4E2M1FN) {
  %0 = arith.scaling_extf %x, %s : f4E2M1FN, f8E8M0FNU to f32
  %1 = arith.scaling_truncf %y, %s : f32, f8E8M0FNU to f4E2M1FN
  return %0, %1 : f32, f4E2M1FN
}""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_round_trips(name):
    module = parse_module(SNIPPETS[name], f"{name}.mlir")
    text = str(module)
    assert str(parse_module(text, "again.mlir")) == text


def test_device_affinity_and_target_fields():
    paths = [p for p in EXAMPLES if p.endswith("tensor_sizeof.mlir")]
    with open(paths[0]) as f:
        module = parse_module(f.read(), "t.mlir")
    globals_ = [op for op in module.walk() if op.name == "util.global"]
    targets = [g.initial_value.executable_targets.data[0] for g in globals_]
    assert [t.backend.data for t in targets] == ["vmvx", "llvm-cpu"]
    sizeofs = [op for op in module.walk() if op.name == "stream.tensor.sizeof"]
    assert [s.affinity.device.root_reference.data for s in sizeofs] == ["device_a", "device_b"]
    assert sizeofs[0].encoding.encoding.op_type.data == "matmul"


@pytest.mark.parametrize("text,fragment", [
    ("%0 = stream.tensor.sizeof tensor<?xf32> : index", "1 dynamic dims but 0 sizes"),
    ("util.global private @x : !stream.resource<bogus>", "unknown resource lifetime 'bogus'"),
    ("#e = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul>", "missing 'element_types"),
])
def test_bad_dialect_input_is_located(text, fragment):
    with pytest.raises(CompileError) as info:
        parse_module(text, "bad.mlir")
    assert info.value.file == "bad.mlir" and info.value.line == 1
    assert fragment in info.value.message
