// RUN: python -m rt opt --split-input-file --pass=verify %s | filecheck %s
// RUN: (python -m rt opt --pass=verify %S/collectives_bad.mlir.in 2>&1; echo "exit=$?") | filecheck %s --check-prefix=BAD

// Tests that an unknown shard reduction is a located parse error listing the valid ones.
// BAD: collectives_bad.mlir.in:2:{{[0-9]+}}: error: {{.*}}unknown reduction 'median'; expected one of sum, max, min, product, average
// BAD: exit=1

// Tests that shard ops print in upstream MLIR's form (sum is the default reduction and is
// not printed).
// CHECK: shard.grid @grid(shape = 2x4)
// CHECK: %{{.+}} = shard.all_reduce %arg0 on @grid grid_axes = [1] : tensor<4xf32> -> tensor<4xf32>
// CHECK: %{{.+}} = shard.all_reduce %arg0 on @grid grid_axes = [0, 1] reduction = min : tensor<4xf32> -> tensor<4xf32>
// CHECK: %{{.+}} = shard.all_gather %arg1 on @grid grid_axes = [0] gather_axis = 1 : tensor<2x3xf32> -> tensor<2x6xf32>
// CHECK: %{{.+}} = shard.reduce_scatter %arg1 on @grid grid_axes = [0] reduction = max scatter_axis = 0 : tensor<2x3xf32> -> tensor<1x3xf32>
// CHECK: %{{.+}} = shard.all_to_all %arg1 on @grid grid_axes = [0] split_axis = 0 concat_axis = 1 : tensor<2x3xf32> -> tensor<1x6xf32>
// CHECK: %{{.+}} = shard.process_linear_index on @grid : index
shard.grid @grid(shape = 2x4)
func.func @shard_ops(%arg0: tensor<4xf32>, %arg1: tensor<2x3xf32>) {
  %0 = shard.all_reduce %arg0 on @grid grid_axes = [1] reduction = sum : tensor<4xf32> -> tensor<4xf32>
  %1 = shard.all_reduce %arg0 on @grid grid_axes = [0, 1] reduction = min : tensor<4xf32> -> tensor<4xf32>
  %2 = shard.all_gather %arg1 on @grid grid_axes = [0] gather_axis = 1 : tensor<2x3xf32> -> tensor<2x6xf32>
  %3 = shard.reduce_scatter %arg1 on @grid grid_axes = [0] reduction = max scatter_axis = 0 : tensor<2x3xf32> -> tensor<1x3xf32>
  %4 = shard.all_to_all %arg1 on @grid grid_axes = [0] split_axis = 0 concat_axis = 1 : tensor<2x3xf32> -> tensor<1x6xf32>
  %5 = shard.process_linear_index on @grid : index
  return
}

// -----

// Tests that IREE's flow channel and collective ops print in IREE's form.
// CHECK-LABEL: util.func public @flow_ops
// CHECK: %{{.+}} = flow.channel.default "g" : !flow.channel
// CHECK: %{{.+}} = flow.channel.split %{{.+}}, %{{.+}}, %{{.+}} : !flow.channel -> !flow.channel
// CHECK: flow.collective.reduce_scatter average, bf16, %{{.+}}, %arg0, %{{.+}} : (tensor<2xbf16>, tensor<4xbf16>, !flow.channel) -> %{{.+}} as tensor<2xbf16>
// CHECK: flow.collective.all_to_all ui64, %{{.+}}, %arg1, %{{.+}} : (tensor<4xui64>, tensor<4xui64>, !flow.channel) -> %{{.+}} as tensor<4xui64>
util.func public @flow_ops(%arg0: tensor<4xbf16>, %arg1: tensor<4xui64>) {
  %ch = flow.channel.default "g" : !flow.channel
  %r = flow.channel.rank %ch : index
  %s = flow.channel.split %ch, %r, %r : !flow.channel -> !flow.channel
  %e = flow.tensor.empty : tensor<2xbf16>
  %0 = flow.collective.reduce_scatter average, bf16, %e, %arg0, %s : (tensor<2xbf16>, tensor<4xbf16>, !flow.channel) -> %e as tensor<2xbf16>
  %f = flow.tensor.empty : tensor<4xui64>
  %1 = flow.collective.all_to_all ui64, %f, %arg1, %s : (tensor<4xui64>, tensor<4xui64>, !flow.channel) -> tensor<4xui64>
  util.return
}
