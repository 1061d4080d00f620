"""Stream dialect round trips, parse errors and the static slice packer."""
import os

import pytest
from xdsl.ir import Block, Region

from rt.compiler.dialects import stream
from rt.compiler.frontend import parse_module
from rt.compiler.ir_printing import module_to_text
from rt.compiler.passes.stream.layout_slices import pack_static
from rt.runtime.errors import CompileError

OPS = os.path.join(os.path.dirname(__file__), "..", "..", "lit", "stream", "ops.mlir")


def _cases():
    text = open(OPS, encoding="utf-8").read()
    return [c for c in text.split("// -----") if "util.func" in c or "stream.executable" in c]


@pytest.mark.parametrize("index", range(4))
def test_printed_form_is_a_fixed_point(index):
    first = module_to_text(parse_module(_cases()[index], "ops.mlir"))
    second = module_to_text(parse_module(first, "printed.mlir"))
    assert first == second
    assert "stream." in first


@pytest.mark.parametrize("snippet, message", [
    ("""util.func public @f(%r: !stream.resource<*>, %s: index) {
  stream.cmd.execute with(%r as %a: !stream.resource<*>{%s}) {
    stream.cmd.dispatch @ex::@fn {
      xx %a[%s for %s] : !stream.resource<*>{%s}
    }
  } => !stream.timepoint
  util.return
}""", "expected a binding access ro/wo/rw"),
    ("""util.func public @f(%r: !stream.resource<*>, %s: index) {
  %0 = stream.async.fill %s, %r[%s to %s for %s] : index -> %q as !stream.resource<*>{%s}
  util.return
}""", "tied result names %q"),
    ("""util.func public @f(%s: index) {
  %0 = stream.tensor.empty : tensor<?xf32> in !stream.resource<*>{%s}
  util.return
}""", "1 dynamic dims but 0 sizes"),
])
def test_bad_stream_ir_is_a_located_error(snippet, message):
    with pytest.raises(CompileError) as info:
        parse_module(snippet, "bad.mlir")
    assert message in str(info.value)
    assert "bad.mlir:" in str(info.value)


def test_empty_command_regions_built_by_a_pass_print_without_block_labels():
    module = parse_module("""util.func public @f() -> !stream.timepoint {
  %0 = stream.cmd.execute with() {} => !stream.timepoint
  util.return %0 : !stream.timepoint
}""", "empty.mlir")
    execute = next(op for op in module.walk() if isinstance(op, stream.CmdExecuteOp))
    execute.body.block.add_ops([stream.CmdSerialOp.build(regions=[Region(Block())]),
                                stream.CmdConcurrentOp.build(regions=[Region(Block())])])
    text = module_to_text(module)
    assert "^bb" not in text
    assert "stream.cmd.serial {\n" in text and "stream.cmd.concurrent {\n" in text
    assert module_to_text(parse_module(text, "printed.mlir")) == text


def test_pack_static_matches_the_seed_layout():
    offsets, total = pack_static([((0, 2), 40), ((1, 2), 4), ((2, 4), 40), ((3, 4), 4)])
    assert offsets == [0, 64, 128, 0]
    assert total == 192


def test_pack_static_reuses_gaps_between_live_slices():
    offsets, total = pack_static([((0, 9), 64), ((0, 1), 64), ((0, 9), 64), ((2, 3), 64)])
    assert offsets == [0, 64, 128, 64]
    assert total == 192
