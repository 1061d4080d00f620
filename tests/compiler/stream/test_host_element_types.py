"""Element types the host cannot hold: a tensor.extract / insert of an f8 or packed i4 element
is a compile error located at the user's op (bf16 and f16 work: tests/e2e/programs)."""
import pytest

import rt
from rt.runtime.errors import CompileError

SOURCE = """func.func @f(%t: tensor<4x{elem}>) -> ({result}) {{
  %c1 = arith.constant 1 : index
  {body}
}}
"""


@pytest.mark.parametrize("elem", ["f8E4M3FN", "f8E5M2FNUZ", "i4"])
def test_host_extract_is_located(tmp_path, elem):
    path = tmp_path / "extract.mlir"
    path.write_text(SOURCE.format(elem=elem, result=f"tensor<4x{elem}>", body=(
        f"%x = tensor.extract %t[%c1] : tensor<4x{elem}>\n"
        f"  %s = tensor.splat %x : tensor<4x{elem}>\n"
        f"  return %s : tensor<4x{elem}>")))
    with pytest.raises(CompileError) as info:
        rt.compile(str(path), devices=["vmvx"])
    assert (info.value.line, info.value.col) == (3, 8)
    assert f"{elem} element read or written on the host" in info.value.message


def test_host_insert_is_located(tmp_path):
    path = tmp_path / "insert.mlir"
    path.write_text(SOURCE.format(elem="f8E4M3FN", result="tensor<4xf8E4M3FN>", body=(
        "%v = arith.constant 1.0 : f8E4M3FN\n"
        "  %r = tensor.insert %v into %t[%c1] : tensor<4xf8E4M3FN>\n"
        "  return %r : tensor<4xf8E4M3FN>")))
    with pytest.raises(CompileError) as info:
        rt.compile(str(path), devices=["vmvx"])
    assert (info.value.line, info.value.col) == (4, 8)
    assert "f8E4M3FN element read or written on the host" in info.value.message
