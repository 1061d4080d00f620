// RUN: python -m rt opt --split-input-file --pass=iree-convert-shard-to-flow %s | filecheck %s
// RUN: (python -m rt opt --pass=iree-convert-shard-to-flow %S/convert_shard_to_flow_bad.mlir.in 2>&1; echo "exit=$?") | filecheck %s --check-prefix=BAD

// BAD: convert_shard_to_flow_bad.mlir.in:3:8: error: 'shard.reduce_scatter': dimension 0 of tensor<4x2xf32> is not divisible by the 3 processes of the group
// BAD: exit=1

// Tests that an all_reduce over every axis of a grid uses the default channel, that the sum
// is the default reduction and signless integers are collected as signed, and that the grid
// is erased.
// CHECK-LABEL: func.func @all_reduce_default
// CHECK-NOT: shard.grid
// CHECK: %[[CH:.+]] = flow.channel.default : !flow.channel
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4xi32>
// CHECK: flow.collective.all_reduce sum, si32, %[[E]], %arg0, %[[CH]] : (tensor<4xi32>, tensor<4xi32>, !flow.channel) -> %[[E]] as tensor<4xi32>
shard.grid @grid(shape = 4)
func.func @all_reduce_default(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  %0 = shard.all_reduce %arg0 on @grid grid_axes = [0] : tensor<4xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Tests that a group over some axes of a grid gets a channel global split from the default
// one in an initializer (color: the other axes, key: the group's axes), and that max maps to
// maximum.
// CHECK-LABEL: builtin.module
// CHECK: util.global private @_shard_grid_axes_1 : !flow.channel
// CHECK: util.initializer {
// CHECK: %[[D:.+]] = flow.channel.default : !flow.channel
// CHECK: %[[R:.+]] = flow.channel.rank %[[D]] : index
// CHECK: %[[S:.+]] = flow.channel.split %[[D]], %{{.+}}, %{{.+}} : !flow.channel -> !flow.channel
// CHECK: util.global.store %[[S]], @_shard_grid_axes_1 : !flow.channel
// CHECK: func.func @all_reduce_axis
// CHECK: %[[CH:.+]] = util.global.load @_shard_grid_axes_1 : !flow.channel
// CHECK: flow.collective.all_reduce maximum, f32, %{{.+}}, %arg0, %[[CH]]
shard.grid @grid(shape = 2x3)
func.func @all_reduce_axis(%arg0: tensor<5xf32>) -> tensor<5xf32> {
  %0 = shard.all_reduce %arg0 on @grid grid_axes = [1] reduction = max : tensor<5xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Tests that an all_gather along axis 1 transposes it to axis 0 and back around the flow op.
// CHECK-LABEL: func.func @all_gather
// CHECK: %[[T:.+]] = linalg.transpose ins(%arg0:tensor<3x4xf16>) outs(%{{.+}}:tensor<4x3xf16>) permutation = [1, 0]
// CHECK: %[[G:.+]] = flow.collective.all_gather f16, %{{.+}}, %[[T]], %{{.+}} : (tensor<8x3xf16>, tensor<4x3xf16>, !flow.channel)
// CHECK: linalg.transpose ins(%[[G]]:tensor<8x3xf16>) outs(%{{.+}}:tensor<3x8xf16>) permutation = [1, 0]
shard.grid @grid(shape = 2)
func.func @all_gather(%arg0: tensor<3x4xf16>) -> tensor<3x8xf16> {
  %0 = shard.all_gather %arg0 on @grid grid_axes = [0] gather_axis = 1 : tensor<3x4xf16> -> tensor<3x8xf16>
  return %0 : tensor<3x8xf16>
}

// -----

// Tests that reduce_scatter along axis 0 needs no transpose and all_to_all moves the received
// blocks from the split axis to the concat axis.
// CHECK-LABEL: func.func @scatter_and_all_to_all
// CHECK: flow.collective.reduce_scatter sum, ui8, %{{.+}}, %arg0, %{{.+}} : (tensor<2x2xui8>, tensor<4x2xui8>, !flow.channel)
// CHECK: %[[A:.+]] = flow.collective.all_to_all f32, %{{.+}}, %arg1, %{{.+}} : (tensor<4x3xf32>, tensor<4x3xf32>, !flow.channel)
// CHECK: %[[X:.+]] = tensor.expand_shape %[[A]] {{.+}} : tensor<4x3xf32> into tensor<2x2x3xf32>
// CHECK: %[[M:.+]] = linalg.transpose ins(%[[X]]:tensor<2x2x3xf32>) outs(%{{.+}}:tensor<2x2x3xf32>) permutation = [1, 0, 2]
// CHECK: tensor.collapse_shape %[[M]] {{.+}} : tensor<2x2x3xf32> into tensor<2x6xf32>
shard.grid @grid(shape = 2)
func.func @scatter_and_all_to_all(%arg0: tensor<4x2xui8>, %arg1: tensor<4x3xf32>) -> (tensor<2x2xui8>, tensor<2x6xf32>) {
  %0 = shard.reduce_scatter %arg0 on @grid grid_axes = [0] scatter_axis = 0 : tensor<4x2xui8> -> tensor<2x2xui8>
  %1 = shard.all_to_all %arg1 on @grid grid_axes = [0] split_axis = 0 concat_axis = 1 : tensor<4x3xf32> -> tensor<2x6xf32>
  return %0, %1 : tensor<2x2xui8>, tensor<2x6xf32>
}

// -----

// Tests that process_linear_index is the rank on the default channel.
// CHECK-LABEL: func.func @index
// CHECK: %[[CH:.+]] = flow.channel.default : !flow.channel
// CHECK: %[[R:.+]] = flow.channel.rank %[[CH]] : index
// CHECK: func.return %[[R]] : index
shard.grid @grid(shape = 2x2)
func.func @index() -> index {
  %0 = shard.process_linear_index on @grid : index
  return %0 : index
}

// -----

// Tests that a grid used by a collective gets an initializer, ahead of its channel globals,
// asserting that the default channel has as many ranks as the grid has processes.
// CHECK-LABEL: builtin.module
// CHECK: util.initializer {
// CHECK: %[[D:.+]] = flow.channel.default : !flow.channel
// CHECK: %[[N:.+]] = flow.channel.count %[[D]] : index
// CHECK: %[[C:.+]] = arith.constant 6 : index
// CHECK: %[[OK:.+]] = arith.cmpi eq, %[[N]], %[[C]] : index
// CHECK: cf.assert %[[OK]], "{{.+}}convert_shard_to_flow.mlir:{{[0-9]+}}:1: shard.grid @checked of shape 2x3 runs on 6 rank(s), but its channel has another rank count: load it with ranks=6 (rt run --ranks=6)"
// CHECK: util.global private @_shard_checked_axes_1 : !flow.channel
// CHECK: func.func @rank_count_checked
shard.grid @checked(shape = 2x3)
func.func @rank_count_checked(%arg0: tensor<5xf32>) -> tensor<5xf32> {
  %0 = shard.all_reduce %arg0 on @checked grid_axes = [1] : tensor<5xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
