// Coarse-fences with a dynamic batch, two inputs and two results joined by one barrier, and
// a function that returns its input unchanged and signals its fence (torch's immutable
// pass-through).
util.func public @scale_and_sum$async(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.fence, %arg3: !hal.fence) -> (!hal.buffer_view, !hal.buffer_view) attributes {inlining_policy = #util.inline.never, iree.abi.model = "coarse-fences", iree.abi.stub} {
  %dim = hal.buffer_view.dim<%arg0 : !hal.buffer_view>[0] : index
  %x = hal.tensor.import wait(%arg2) => %arg0 : !hal.buffer_view -> tensor<?x3xi32>{%dim}
  %s = hal.tensor.import wait(%arg2) => %arg1 : !hal.buffer_view -> tensor<3xi32>
  %e = tensor.empty(%dim) : tensor<?x3xi32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<?x3xi32>, tensor<3xi32>) outs(%e : tensor<?x3xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %m = arith.muli %a, %b : i32
    linalg.yield %m : i32
  } -> tensor<?x3xi32>
  %c0 = arith.constant 0 : i32
  %acc0 = tensor.empty(%dim) : tensor<?xi32>
  %acc = linalg.fill ins(%c0 : i32) outs(%acc0 : tensor<?xi32>) -> tensor<?xi32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%scaled : tensor<?x3xi32>) outs(%acc : tensor<?xi32>) {
  ^bb0(%a: i32, %o: i32):
    %t = arith.addi %a, %o : i32
    linalg.yield %t : i32
  } -> tensor<?xi32>
  %r:2 = hal.tensor.barrier join(%scaled, %sum : tensor<?x3xi32>, tensor<?xi32>) => %arg3 : !hal.fence
  %o0 = hal.tensor.export %r#0 : tensor<?x3xi32>{%dim} -> !hal.buffer_view
  %o1 = hal.tensor.export %r#1 : tensor<?xi32>{%dim} -> !hal.buffer_view
  util.return %o0, %o1 : !hal.buffer_view, !hal.buffer_view
}
util.func public @identity$async(%arg0: !hal.buffer_view, %arg1: !hal.fence, %arg2: !hal.fence) -> !hal.buffer_view attributes {inlining_policy = #util.inline.never, iree.abi.model = "coarse-fences", iree.abi.stub} {
  hal.fence.signal<%arg2 : !hal.fence>
  util.return %arg0 : !hal.buffer_view
}
