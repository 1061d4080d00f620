// arith.bitcast between types of different widths: bf16 is 16 bits, i8 is 8.
func.func @f(%x: tensor<4xbf16>) -> tensor<4xi8> {
  %y = arith.bitcast %x : tensor<4xbf16> to tensor<4xi8>
  return %y : tensor<4xi8>
}
