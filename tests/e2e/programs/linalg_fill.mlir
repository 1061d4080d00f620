// linalg.fill of f32, f16, i8, i32, i64 and i1 tensors, and a fill that overwrites existing data.
func.func @fill_types() {
  %f = arith.constant 2.5 : f32
  %h = arith.constant -0.5 : f16
  %b = arith.constant -7 : i8
  %i = arith.constant 123456 : i32
  %l = arith.constant -9000000000 : i64
  %t = arith.constant true
  %ef = tensor.empty() : tensor<2x3xf32>
  %eh = tensor.empty() : tensor<5xf16>
  %eb = tensor.empty() : tensor<3x3xi8>
  %ei = tensor.empty() : tensor<4xi32>
  %el = tensor.empty() : tensor<2xi64>
  %et = tensor.empty() : tensor<3xi1>
  %rf = linalg.fill ins(%f : f32) outs(%ef : tensor<2x3xf32>) -> tensor<2x3xf32>
  %rh = linalg.fill ins(%h : f16) outs(%eh : tensor<5xf16>) -> tensor<5xf16>
  %rb = linalg.fill ins(%b : i8) outs(%eb : tensor<3x3xi8>) -> tensor<3x3xi8>
  %ri = linalg.fill ins(%i : i32) outs(%ei : tensor<4xi32>) -> tensor<4xi32>
  %rl = linalg.fill ins(%l : i64) outs(%el : tensor<2xi64>) -> tensor<2xi64>
  %rt = linalg.fill ins(%t : i1) outs(%et : tensor<3xi1>) -> tensor<3xi1>
  check.expect_eq_const(%rf, dense<2.5> : tensor<2x3xf32>) : tensor<2x3xf32>
  check.expect_eq_const(%rh, dense<-0.5> : tensor<5xf16>) : tensor<5xf16>
  check.expect_eq_const(%rb, dense<-7> : tensor<3x3xi8>) : tensor<3x3xi8>
  check.expect_eq_const(%ri, dense<123456> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%rl, dense<-9000000000> : tensor<2xi64>) : tensor<2xi64>
  check.expect_eq_const(%rt, dense<true> : tensor<3xi1>) : tensor<3xi1>
  return
}

func.func @fill_overwrites() {
  %x = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %d = arith.addf %x, %x : tensor<2x2xf32>
  %v = util.unfoldable_constant -3.0 : f32
  %r = linalg.fill ins(%v : f32) outs(%d : tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const(%r, dense<-3.0> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}
