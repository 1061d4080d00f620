"""rt's arith dialect (compiler/dialects/arith.py): the ops and syntax IREE prints that xDSL
0.74.0 lacks parse, verify and print back; bad forms are located errors."""
import pytest

from rt.compiler.frontend import parse_module
from rt.runtime.errors import CompileError

ARGS = ("%a: i32, %b: index, %f: f32, %c: i1, %t: tensor<4xi32>, %u: tensor<4xf32>, "
        "%m: tensor<4xi1>, %h: tensor<4xf16>")


def roundtrip(line):
    text = f"func.func @f({ARGS}) {{\n  %0 = {line}\n  return\n}}\n"
    module = parse_module(text, "arith.mlir")
    op = next(o for o in module.walk() if o.name.startswith("arith."))
    printed = str(op)
    again = parse_module(f"func.func @f({ARGS}) {{\n  {printed}\n  return\n}}\n", "again.mlir")
    assert str(next(o for o in again.walk() if o.name.startswith("arith."))) == printed
    return op, printed


@pytest.mark.parametrize("line,printed", [
    ("arith.index_castui %a : i32 to index", "arith.index_castui %a : i32 to index"),
    ("arith.index_castui %b : index to i32", "arith.index_castui %b : index to i32"),
    ("arith.index_cast %t : tensor<4xi32> to tensor<4xindex>",
     "arith.index_cast %t : tensor<4xi32> to tensor<4xindex>"),
    ("arith.remf %f, %f : f32", "arith.remf %f, %f : f32"),
    ("arith.remf %u, %u fastmath<fast> : tensor<4xf32>", "arith.remf %u, %u fastmath<fast> : tensor<4xf32>"),
    ("arith.divui %b, %b exact : index", "arith.divui %b, %b exact : index"),
    ("arith.divsi %a, %a : i32", "arith.divsi %a, %a : i32"),
    ("arith.shrsi %a, %a exact : i32", "arith.shrsi %a, %a exact : i32"),
    ("arith.shrui %t, %t : tensor<4xi32>", "arith.shrui %t, %t : tensor<4xi32>"),
    ("arith.trunci %a overflow<nsw, nuw> : i32 to i8", "arith.trunci %a overflow<nsw,nuw> : i32 to i8"),
    ("arith.extui %m : tensor<4xi1> to tensor<4xi32>", "arith.extui %m : tensor<4xi1> to tensor<4xi32>"),
    ("arith.sitofp %t : tensor<4xi32> to tensor<4xf32>", "arith.sitofp %t : tensor<4xi32> to tensor<4xf32>"),
    ("arith.fptoui %u : tensor<4xf32> to tensor<4xi32>", "arith.fptoui %u : tensor<4xf32> to tensor<4xi32>"),
    ("arith.extf %h fastmath<contract> : tensor<4xf16> to tensor<4xf32>",
     "arith.extf %h fastmath<contract> : tensor<4xf16> to tensor<4xf32>"),
    ("arith.truncf %f to_nearest_even fastmath<fast> : f32 to f16",
     "arith.truncf %f to_nearest_even fastmath<fast> : f32 to f16"),
    ("arith.truncf %f : f32 to f16", "arith.truncf %f : f32 to f16"),
    ("arith.select %m, %u, %u : tensor<4xi1>, tensor<4xf32>",
     "arith.select %m, %u, %u : tensor<4xi1>, tensor<4xf32>"),
    ("arith.select %c, %u, %u : tensor<4xf32>", "arith.select %c, %u, %u : tensor<4xf32>"),
    ("arith.ceildivui %b, %b : index", "arith.ceildivui %b, %b : index"),
    ("arith.floordivsi %a, %a : i32", "arith.floordivsi %a, %a : i32"),
    ("arith.maxui %a, %a : i32", "arith.maxui %a, %a : i32"),
    ("arith.minui %b, %b : index", "arith.minui %b, %b : index"),
])
def test_ops_parse_and_print_back(line, printed):
    op, text = roundtrip(line)
    assert text.endswith(printed)


def test_flags_are_stored_as_properties():
    op, _ = roundtrip("arith.divui %b, %b exact : index")
    assert op.is_exact is not None
    op, _ = roundtrip("arith.divui %b, %b : index")
    assert op.is_exact is None
    op, _ = roundtrip("arith.truncf %f downward : f32 to f16")
    assert op.roundingmode.data == "downward" and op.fastmath is None
    op, _ = roundtrip("arith.trunci %a overflow<nuw> : i32 to i8")
    assert [f.value for f in op.overflow_flags.data] == ["nuw"]


@pytest.mark.parametrize("line,message", [
    ("arith.index_castui %a : i32 to i64", "exactly one of the operand and result element types must be index"),
    ("arith.extsi %a : i32 to i16", "strictly wider"),
    ("arith.trunci %a : i32 to i32", "strictly narrower"),
    ("arith.truncf %f : f32 to f64", "strictly narrower"),
    ("arith.sitofp %t : tensor<4xi32> to tensor<5xf32>", "same shape"),
    ("arith.select %m, %f, %f : tensor<4xi1>, f32", "must be i1 or have the result's shape"),
    ("arith.remf %a, %a : i32", "arith.remf"),
    ("arith.truncf %f bogus : f32 to f16", "Expected ':'"),
])
def test_bad_forms_are_located_errors(line, message):
    with pytest.raises(CompileError, match=r"arith\.mlir:2:\d+.*" + message.replace("(", r"\(")):
        roundtrip(line)
