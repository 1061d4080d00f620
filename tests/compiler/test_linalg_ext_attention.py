"""iree_linalg_ext.attention / online_attention: IREE's printed form round-trips, and the
verifier rejects malformed ops with located messages."""
import pytest

from rt.compiler.dialects._linalg_ext_attention import AttentionOp, OnlineAttentionOp
from rt.compiler.frontend import parse_module
from rt.runtime.errors import CompileError

_MAPS = """affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2)>,
    affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> ()>"""
_OUT = "affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>"
_ROW = "affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>"
_MASK = "affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>"


def _attention(maps=f"{_MAPS}, {_MASK}, {_OUT}", mask=", %m", mask_type=", tensor<2x3x5xi1>",
               q="tensor<2x3x4xf32>", body="%t = math.tanh %s : f32\n iree_linalg_ext.yield %t : f32"):
    return f"""
func.func @f(%q: {q}, %k: tensor<2x5x4xf32>, %v: tensor<2x5x6xf32>, %m: tensor<2x3x5xi1>) -> tensor<2x3x6xf32> {{
  %init = tensor.empty() : tensor<2x3x6xf32>
  %scale = arith.constant 0.5 : f32
  %1 = iree_linalg_ext.attention {{indexing_maps = [{maps}]}}
      ins(%q, %k, %v, %scale{mask} : {q}, tensor<2x5x4xf32>, tensor<2x5x6xf32>, f32{mask_type})
      outs(%init : tensor<2x3x6xf32>) {{
  ^bb0(%s: f32):
    {body}
  }} -> tensor<2x3x6xf32>
  return %1 : tensor<2x3x6xf32>
}}"""


_ONLINE = f"""
func.func @g(%q: tensor<2x3x4xf16>, %k: tensor<2x5x4xf16>, %v: tensor<2x5x6xf16>, %acc: tensor<2x3x6xf32>,
             %max: tensor<2x3xf32>, %sum: tensor<2x3xf32>) -> (tensor<2x3x6xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {{
  %scale = arith.constant 0.5 : f16
  %r:3 = iree_linalg_ext.online_attention {{indexing_maps = [{_MAPS}, {_OUT}, {_ROW}, {_ROW}]}}
      ins(%q, %k, %v, %scale : tensor<2x3x4xf16>, tensor<2x5x4xf16>, tensor<2x5x6xf16>, f16)
      outs(%acc, %max, %sum : tensor<2x3x6xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {{
  ^bb0(%s: f32):
    iree_linalg_ext.yield %s : f32
  }} -> tensor<2x3x6xf32>, tensor<2x3xf32>, tensor<2x3xf32>
  return %r#0, %r#1, %r#2 : tensor<2x3x6xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}}"""


def _op(module, cls):
    return next(op for op in module.walk() if isinstance(op, cls))


def test_attention_with_mask_and_region_round_trips():
    module = parse_module(_attention(), "a.mlir")
    text = str(module)
    assert str(parse_module(text, "again.mlir")) == text
    op = _op(module, AttentionOp)
    assert op.mask is not None and len(op.outputs) == 1
    assert op.roles() == ["batch", "m", "k1", "k2", "n"]
    assert "ins(%q, %k, %v, %scale, %m : tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x5x6xf32>, f32, " \
           "tensor<2x3x5xi1>) outs(%init : tensor<2x3x6xf32>)" in text
    assert "math.tanh" in text and "iree_linalg_ext.yield" in text
    assert "iree_linalg_ext.attention <indexing_maps = [affine_map" in text  # IREE 3.13's form


def test_attention_reads_the_indexing_maps_in_either_clause():
    """Older IREE writes ``{indexing_maps = ...}``, IREE 3.13 ``<indexing_maps = ...>``."""
    old = parse_module(_attention(), "a.mlir")
    new = parse_module(_attention().replace("attention {indexing_maps", "attention <indexing_maps")
                       .replace("]}\n      ins", "]>\n      ins"), "b.mlir")
    assert str(old) == str(new)


def test_online_attention_round_trips_with_three_outputs():
    module = parse_module(_ONLINE, "o.mlir")
    text = str(module)
    assert str(parse_module(text, "again.mlir")) == text
    op = _op(module, OnlineAttentionOp)
    assert op.mask is None and len(op.outputs) == 3 and len(op.results) == 3
    assert "outs(%acc, %max, %sum : tensor<2x3x6xf32>, tensor<2x3xf32>, tensor<2x3xf32>)" in text


@pytest.mark.parametrize("text,fragment", [
    (_attention(maps=f"{_MAPS}, {_OUT}"), "expected 6 indexing maps"),
    (_attention().replace("xi1", "xi8"), "the mask's elements must be i1 or float; got i8"),
    (_attention(q="tensor<2x3x7xf32>"), "iteration dim d2 is 7 in query but 4 in key"),
    (_attention(maps=f"{_MAPS}, {_MASK}, affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d4)>"),
     "iteration dim d2 is 4 in query but 3 in output 0"),
    (_attention(body="iree_linalg_ext.yield"), "must end in 'iree_linalg_ext.yield' of one float"),
    (_attention().replace("{indexing_maps", "<maps"), "unknown property 'maps'; expected one of indexing_maps"),
])
def test_bad_attention_is_a_located_error(text, fragment):
    with pytest.raises(CompileError) as info:
        parse_module(text, "bad.mlir")
    message = str(info.value)
    assert "bad.mlir:" in message
    assert fragment in message.replace("'iree_linalg_ext.attention' op ", "")
