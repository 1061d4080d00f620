// flow.tensor.* ops written in the input, as IREE's input conversion and tests emit them:
// reshape, bitcast, splat, clone, slice, update, load, store and tie_shape, static and dynamic.
func.func @reshape_static_and_dynamic() {
  %x = util.unfoldable_constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %r = flow.tensor.reshape %x : tensor<2x3xi32> -> tensor<3x2xi32>
  check.expect_eq_const(%r, dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>) : tensor<3x2xi32>
  %n = util.unfoldable_constant 6 : index
  %flat = flow.tensor.reshape %x : tensor<2x3xi32> -> tensor<?xi32>{%n}
  %twice = arith.addi %flat, %flat : tensor<?xi32>
  %s = flow.tensor.reshape %twice : tensor<?xi32>{%n} -> tensor<6xi32>
  check.expect_eq_const(%s, dense<[2, 4, 6, 8, 10, 12]> : tensor<6xi32>) : tensor<6xi32>
  return
}

func.func @bitcast_bytes() {
  %x = util.unfoldable_constant dense<[1, 2, 3, 4, 5, 6, 7, -128]> : tensor<8xi8>
  %w = flow.tensor.bitcast %x : tensor<8xi8> -> tensor<2xi32>
  check.expect_eq_const(%w, dense<[67305985, -2147023355]> : tensor<2xi32>) : tensor<2xi32>
  %h = flow.tensor.bitcast %w : tensor<2xi32> -> tensor<2x2xi16>
  check.expect_eq_const(%h, dense<[[513, 1027], [1541, -32761]]> : tensor<2x2xi16>) : tensor<2x2xi16>
  %one = util.unfoldable_constant dense<[1.0, -2.0]> : tensor<2xf32>
  %bits = flow.tensor.bitcast %one : tensor<2xf32> -> tensor<2xi32>
  check.expect_eq_const(%bits, dense<[1065353216, -1073741824]> : tensor<2xi32>) : tensor<2xi32>
  return
}

func.func @splat_static_and_dynamic() {
  %f = util.unfoldable_constant 2.5 : f32
  %s = flow.tensor.splat %f : tensor<2x3xf32>
  check.expect_eq_const(%s, dense<2.5> : tensor<2x3xf32>) : tensor<2x3xf32>
  %n = util.unfoldable_constant 3 : index
  %i = arith.constant -7 : i64
  %d = flow.tensor.splat %i : tensor<?x2xi64>{%n}
  %r = flow.tensor.reshape %d : tensor<?x2xi64>{%n} -> tensor<3x2xi64>
  check.expect_eq_const(%r, dense<-7> : tensor<3x2xi64>) : tensor<3x2xi64>
  return
}

func.func @clone_is_independent() {
  %x = util.unfoldable_constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %c = flow.tensor.clone %x : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %v = arith.constant 9.0 : f32
  %m = flow.tensor.store %v, %c[%c0] : tensor<4xf32>
  check.expect_eq_const(%m, dense<[9.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_eq_const(%x, dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @slice_rows_and_window() {
  %x = util.unfoldable_constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]> : tensor<3x4xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %rows = flow.tensor.slice %x[%c1, %c0 for %c2, %c4] : tensor<3x4xi32> -> tensor<2x4xi32>
  check.expect_eq_const(%rows, dense<[[5, 6, 7, 8], [9, 10, 11, 12]]> : tensor<2x4xi32>) : tensor<2x4xi32>
  %window = flow.tensor.slice %x[%c1, %c1 for %c2, %c2] : tensor<3x4xi32> -> tensor<2x2xi32>
  check.expect_eq_const(%window, dense<[[6, 7], [10, 11]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  return
}

func.func @slice_dynamic_offsets() {
  %x = util.unfoldable_constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]> : tensor<3x4xi32>
  %o0 = util.unfoldable_constant 2 : index
  %o1 = util.unfoldable_constant 1 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %s = flow.tensor.slice %x[%o0, %o1 for %c1, %c3] : tensor<3x4xi32> -> tensor<1x3xi32>
  check.expect_eq_const(%s, dense<[[10, 11, 12]]> : tensor<1x3xi32>) : tensor<1x3xi32>
  return
}

func.func @update_rows_and_window() {
  %x = util.unfoldable_constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9]]> : tensor<3x3xi32>
  %row = util.unfoldable_constant dense<[[0, -1, -2]]> : tensor<1x3xi32>
  %block = util.unfoldable_constant dense<[[20, 21], [22, 23]]> : tensor<2x2xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %copy = flow.tensor.clone %x : tensor<3x3xi32>
  %u = flow.tensor.update %row, %copy[%c1, %c0] : tensor<1x3xi32> -> %copy as tensor<3x3xi32>
  check.expect_eq_const(%u, dense<[[1, 2, 3], [0, -1, -2], [7, 8, 9]]> : tensor<3x3xi32>) : tensor<3x3xi32>
  %w = flow.tensor.update %block, %u[%c1, %c1] : tensor<2x2xi32> -> %u as tensor<3x3xi32>
  check.expect_eq_const(%w, dense<[[1, 2, 3], [0, 20, 21], [7, 22, 23]]> : tensor<3x3xi32>) : tensor<3x3xi32>
  return
}

func.func @load_store_dynamic() {
  %n = util.unfoldable_constant 5 : index
  %zero = arith.constant 0.0 : f32
  %t = flow.tensor.splat %zero : tensor<?xf32>{%n}
  %i = util.unfoldable_constant 3 : index
  %v = arith.constant 4.5 : f32
  %s = flow.tensor.store %v, %t[%i] : tensor<?xf32>{%n}
  %back = flow.tensor.load %s[%i] : tensor<?xf32>{%n}
  %twice = arith.addf %back, %back : f32
  %c9 = arith.constant 9.0 : f32
  %eq = arith.cmpf oeq, %twice, %c9 : f32
  check.expect_true(%eq) : i1
  %r = flow.tensor.reshape %s : tensor<?xf32>{%n} -> tensor<5xf32>
  check.expect_eq_const(%r, dense<[0.0, 0.0, 0.0, 4.5, 0.0]> : tensor<5xf32>) : tensor<5xf32>
  return
}

func.func private @iota(%n: index) -> tensor<?xi32> {
  %e = tensor.empty(%n) : tensor<?xi32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%e : tensor<?xi32>) {
  ^bb0(%out: i32):
    %i = linalg.index 0 : index
    %v = arith.index_cast %i : index to i32
    linalg.yield %v : i32
  } -> tensor<?xi32>
  %b = util.optimization_barrier %g : tensor<?xi32>
  %t = flow.tensor.tie_shape %b : tensor<?xi32>{%n}
  return %t : tensor<?xi32>
}

func.func @tie_shape_dims() {
  %n = util.unfoldable_constant 4 : index
  %t = call @iota(%n) : (index) -> tensor<?xi32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %t, %c0 : tensor<?xi32>
  %c4 = arith.constant 4 : index
  %ok = arith.cmpi eq, %d, %c4 : index
  check.expect_true(%ok) : i1
  %r = tensor.cast %t : tensor<?xi32> to tensor<4xi32>
  check.expect_eq_const(%r, dense<[0, 1, 2, 3]> : tensor<4xi32>) : tensor<4xi32>
  return
}
