// An i32 value used where the op's declared type is f32.
func.func @f() {
  %a = util.unfoldable_constant 1 : i32
  %b = util.unfoldable_constant 2.0 : f32
  %c = arith.addf %a, %b : f32
  return
}
