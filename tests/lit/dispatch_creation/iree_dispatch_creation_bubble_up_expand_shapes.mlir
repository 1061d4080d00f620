// RUN: python -m rt opt --split-input-file --pass=iree-dispatch-creation-bubble-up-expand-shapes %s | filecheck %s

// Tests that a grouped conv's bias broadcast is built on the group-split shape (the expand moves onto the 1-D bias) and that its relu and residual add run on the conv's shape, with one collapse after them.
// CHECK-LABEL: func.func @grouped_conv
// CHECK: %[[B:.+]] = tensor.expand_shape %bias {{.+}} output_shape [4, 18] : tensor<72xf32> into tensor<4x18xf32>
// CHECK: %[[E:.+]] = tensor.empty() : tensor<1x4x18x6x6xf32>
// CHECK: %[[I:.+]] = linalg.broadcast ins(%[[B]]{{ ?}}:{{ ?}}tensor<4x18xf32>) outs(%[[E]]{{ ?}}:{{ ?}}tensor<1x4x18x6x6xf32>) dimensions = [0, 3, 4]
// CHECK: %[[C:.+]] = linalg.conv_2d_ngchw_gfchw {{.+}} outs(%[[I]] : tensor<1x4x18x6x6xf32>)
// CHECK: %[[R:.+]] = linalg.generic {{.+}} ins(%[[C]] : tensor<1x4x18x6x6xf32>)
// CHECK: %[[S:.+]] = tensor.expand_shape %skip
// CHECK: %[[A:.+]] = linalg.generic {{.+}} ins(%[[R]], %[[S]] : tensor<1x4x18x6x6xf32>, tensor<1x4x18x6x6xf32>)
// CHECK: %[[OUT:.+]] = tensor.collapse_shape %[[A]] {{.+}} : tensor<1x4x18x6x6xf32> into tensor<1x72x6x6xf32>
// CHECK: return %[[OUT]]
func.func @grouped_conv(%x: tensor<1x24x6x6xf32>, %w: tensor<4x18x6x1x1xf32>, %bias: tensor<72xf32>, %skip: tensor<1x72x6x6xf32>) -> tensor<1x72x6x6xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x72x6x6xf32>
  %b = linalg.broadcast ins(%bias : tensor<72xf32>) outs(%e : tensor<1x72x6x6xf32>) dimensions = [0, 2, 3]
  %xs = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 4, 6, 6, 6] : tensor<1x24x6x6xf32> into tensor<1x4x6x6x6xf32>
  %bs = tensor.expand_shape %b [[0], [1, 2], [3], [4]] output_shape [1, 4, 18, 6, 6] : tensor<1x72x6x6xf32> into tensor<1x4x18x6x6xf32>
  %c = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%xs, %w : tensor<1x4x6x6x6xf32>, tensor<4x18x6x1x1xf32>) outs(%bs : tensor<1x4x18x6x6xf32>) -> tensor<1x4x18x6x6xf32>
  %cc = tensor.collapse_shape %c [[0], [1, 2], [3], [4]] : tensor<1x4x18x6x6xf32> into tensor<1x72x6x6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cc : tensor<1x72x6x6xf32>) outs(%e : tensor<1x72x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x72x6x6xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r, %skip : tensor<1x72x6x6xf32>, tensor<1x72x6x6xf32>) outs(%e : tensor<1x72x6x6xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %m = arith.addf %in, %s : f32
    linalg.yield %m : f32
  } -> tensor<1x72x6x6xf32>
  return %a : tensor<1x72x6x6xf32>
}

// -----

// Tests that a broadcast with another user and an elementwise op using linalg.index keep their reshapes.
// CHECK-LABEL: func.func @kept
// CHECK: %[[B:.+]] = linalg.broadcast ins(%bias{{ ?}}:{{ ?}}tensor<8xf32>)
// CHECK: tensor.expand_shape %[[B]]
// CHECK: %[[CC:.+]] = tensor.collapse_shape
// CHECK: linalg.generic {{.+}} ins(%[[CC]] : tensor<1x8x3x3xf32>)
func.func @kept(%x: tensor<1x8x3x3xf32>, %w: tensor<2x4x4x1x1xf32>, %bias: tensor<8xf32>) -> (tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>) {
  %e = tensor.empty() : tensor<1x8x3x3xf32>
  %b = linalg.broadcast ins(%bias : tensor<8xf32>) outs(%e : tensor<1x8x3x3xf32>) dimensions = [0, 2, 3]
  %xs = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 3, 3] : tensor<1x8x3x3xf32> into tensor<1x2x4x3x3xf32>
  %bs = tensor.expand_shape %b [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 3, 3] : tensor<1x8x3x3xf32> into tensor<1x2x4x3x3xf32>
  %c = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%xs, %w : tensor<1x2x4x3x3xf32>, tensor<2x4x4x1x1xf32>) outs(%bs : tensor<1x2x4x3x3xf32>) -> tensor<1x2x4x3x3xf32>
  %cc = tensor.collapse_shape %c [[0], [1, 2], [3], [4]] : tensor<1x2x4x3x3xf32> into tensor<1x8x3x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cc : tensor<1x8x3x3xf32>) outs(%e : tensor<1x8x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %k = arith.index_cast %i : index to i32
    %f = arith.sitofp %k : i32 to f32
    %m = arith.addf %in, %f : f32
    linalg.yield %m : f32
  } -> tensor<1x8x3x3xf32>
  return %r, %b : tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>
}
