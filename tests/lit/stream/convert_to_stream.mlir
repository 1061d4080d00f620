// RUN: python -m rt opt --split-input-file --pass=iree-stream-convert-to-stream %s | filecheck %s

// Tests that imports, reshapes, empties, dispatches (with a tied result) and exports become sized stream.tensor ops with transfers at the ABI edges.
// CHECK-LABEL: util.func public @test
// CHECK: %[[S0:.+]] = stream.tensor.sizeof tensor<1x10xf32> : index
// CHECK: %[[IMP:.+]] = stream.tensor.import %arg0 : !hal.buffer_view -> tensor<1x10xf32> in !stream.resource<external>{%[[S0]]}
// CHECK: %[[T0:.+]] = stream.async.transfer %[[IMP]] : !stream.resource<external>{%[[S0]]} -> !stream.resource<*>{%[[S0]]}
// CHECK: %[[S1:.+]] = stream.tensor.sizeof tensor<10xf32> : index
// CHECK: %[[R:.+]] = stream.tensor.clone %[[T0]] : tensor<1x10xf32> in !stream.resource<*>{%[[S0]]} -> tensor<10xf32> in !stream.resource<*>{%[[S1]]}
// CHECK: %[[S2:.+]] = stream.tensor.sizeof tensor<10xf32> : index
// CHECK: %[[E:.+]] = stream.tensor.empty : tensor<10xf32> in !stream.resource<*>{%[[S2]]}
// CHECK: %[[D:.+]] = stream.tensor.dispatch @ex::@fn[%c10](%[[R]], %[[E]]) : (tensor<10xf32> in !stream.resource<*>{%[[S1]]}, tensor<10xf32> in !stream.resource<*>{%[[S2]]}) -> tensor<10xf32> in %[[E]]{%[[S2]]}
// CHECK: %[[X:.+]] = stream.async.transfer %[[D]] : !stream.resource<*>{%[[S2]]} -> !stream.resource<external>{%[[S2]]}
// CHECK: %[[V:.+]] = stream.tensor.export %[[X]] : tensor<10xf32> in !stream.resource<external>{%[[S2]]} -> !hal.buffer_view
// CHECK: util.return %[[V]] : !hal.buffer_view
util.func public @test(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c10 = arith.constant 10 : index
  %0 = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<1x10xf32>
  %1 = flow.tensor.reshape %0 : tensor<1x10xf32> -> tensor<10xf32>
  %2 = flow.tensor.empty : tensor<10xf32>
  %3 = flow.dispatch @ex::@fn[%c10](%1, %2) : (tensor<10xf32>, tensor<10xf32>) -> %2
  %4 = hal.tensor.export %3 : tensor<10xf32> -> !hal.buffer_view
  util.return %4 : !hal.buffer_view
}

// -----

// Tests that a constant tensor global becomes a constant resource set by an initializer and loads transfer it to an unknown lifetime; dynamic dims flow into sizeof.
// CHECK: util.global private @w : !stream.resource<constant>
// CHECK: util.initializer {
// CHECK:   %[[C:.+]] = stream.tensor.constant : tensor<2xf32> in !stream.resource<constant> = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK:   util.global.store %[[C]], @w : !stream.resource<constant>
// CHECK-LABEL: util.func public @dyn
// CHECK: %[[G:.+]] = util.global.load @w : !stream.resource<constant>
// CHECK: %[[GS:.+]] = stream.tensor.sizeof tensor<2xf32> : index
// CHECK: stream.async.transfer %[[G]] : !stream.resource<constant>{%[[GS]]} -> !stream.resource<*>{%[[GS]]}
// CHECK: %[[S:.+]] = stream.tensor.sizeof tensor<?x4xf32>{%n} : index
// CHECK: stream.tensor.import %arg0 : !hal.buffer_view -> tensor<?x4xf32>{%n} in !stream.resource<external>{%[[S]]}
util.global private @w = dense<[1.0, 2.0]> : tensor<2xf32>
util.func public @dyn(%arg0: !hal.buffer_view, %n: index) -> !hal.buffer_view {
  %g = util.global.load @w : tensor<2xf32>
  %0 = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<?x4xf32>{%n}
  %1 = flow.dispatch @ex::@fn[%n](%0, %g, %n) : (tensor<?x4xf32>{%n}, tensor<2xf32>, index) -> tensor<?x4xf32>{%n}
  %2 = hal.tensor.export %1 : tensor<?x4xf32>{%n} -> !hal.buffer_view
  util.return %2 : !hal.buffer_view
}

// -----

// Tests that affinities are kept: a transfer moves a value to @dev_b and the dispatch consuming it runs there.
// CHECK-LABEL: util.func public @multi
// CHECK: stream.tensor.import on(#hal.device.affinity<@dev_a>)
// CHECK: %[[T:.+]] = stream.async.transfer %{{.+}} : !stream.resource<*>{%{{.+}}} from(#hal.device.affinity<@dev_a>) -> to(#hal.device.affinity<@dev_b>) !stream.resource<*>{%{{.+}}}
// CHECK: stream.tensor.sizeof on(#hal.device.affinity<@dev_b>) tensor<4xf32> : index
// CHECK: stream.tensor.dispatch on(#hal.device.affinity<@dev_b>) @ex::@fn(%[[T]])
// CHECK: stream.tensor.export on(#hal.device.affinity<@dev_b>)
module attributes {stream.affinity.default = #hal.device.affinity<@dev_a>} {
  util.func public @multi(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %0 = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<4xf32>
    %1 = flow.tensor.transfer %0 : tensor<4xf32> to #hal.device.affinity<@dev_b>
    %2 = flow.dispatch @ex::@fn(%1) : (tensor<4xf32>) -> tensor<4xf32>
    %3 = hal.tensor.export %2 : tensor<4xf32> -> !hal.buffer_view
    util.return %3 : !hal.buffer_view
  }
}

// -----

// Tests that splat constants stay splats and check ops receive exported buffer views (a _const check compares against a materialized constant).
// CHECK-LABEL: util.func public @splat
// CHECK: %[[F:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[P:.+]] = stream.tensor.splat %[[F]] : f32 -> tensor<8xf32> in !stream.resource<*>{%{{.+}}}
// CHECK: %[[F2:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[P2:.+]] = stream.tensor.splat %[[F2]] : f32 -> tensor<8xf32>
// CHECK: %[[X:.+]] = stream.async.transfer %[[P]]
// CHECK: %[[B:.+]] = stream.tensor.export %[[X]] : tensor<8xf32> in !stream.resource<external>{%{{.+}}} -> !hal.buffer_view
// CHECK: %[[X2:.+]] = stream.async.transfer %[[P2]]
// CHECK: %[[B2:.+]] = stream.tensor.export %[[X2]]
// CHECK: check.expect_almost_eq(%[[B]], %[[B2]]) : !hal.buffer_view
util.func public @splat() {
  %0 = arith.constant dense<1.0> : tensor<8xf32>
  check.expect_almost_eq_const(%0, dense<1.0> : tensor<8xf32>) : tensor<8xf32>
  util.return
}

// -----

// Tests that dispatch functions in the flow phase's form (no flow.dispatch.tie_shape; dims are
// index arguments behind flow.dispatch.workload.ordinal, named by the loads/stores) reopen each
// binding with the dims its load/store carries, right after the last of them is defined.
// CHECK-LABEL: stream.executable private @mm
// CHECK: func.func @mm(%[[A:.+]]: !stream.binding, %[[B:.+]]: !stream.binding, %[[M:.+]]: index, %[[N:.+]]: index, %[[K:.+]]: index, %[[K2:.+]]: index, %[[C:.+]]: !stream.binding) {
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0 : index
// CHECK-NEXT: %[[OM:.+]] = flow.dispatch.workload.ordinal %[[M]], 0 : index
// CHECK-NEXT: %[[SA:.+]] = stream.binding.subspan %[[A]][%[[Z]]] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<?x?xf32>>{%[[OM]], %[[K]]}
// CHECK-NEXT: %[[ON:.+]] = flow.dispatch.workload.ordinal %[[N]], 1 : index
// CHECK-DAG: %[[SB:.+]] = stream.binding.subspan %[[B]][%[[Z]]] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<?x?xf32>>{%[[K2]], %[[ON]]}
// CHECK-DAG: %[[SC:.+]] = stream.binding.subspan %[[C]][%[[Z]]] : !stream.binding -> !flow.dispatch.tensor<writeonly:tensor<?x?xf32>>{%[[OM]], %[[ON]]}
// CHECK: flow.dispatch.tensor.load %[[SA]], offsets = [0, 0], sizes = [%[[OM]], %[[K]]]
// CHECK: flow.dispatch.tensor.load %[[SB]]
// CHECK: flow.dispatch.tensor.store %{{.+}}, %[[SC]]
// CHECK-LABEL: util.func public @foo
// CHECK: stream.tensor.dispatch @mm::@mm[%M, %N](%{{.+}}, %{{.+}}, %M, %N, %K, %K2) : (tensor<?x?xf32>{%M, %K} in !stream.resource<*>{%{{.+}}}, tensor<?x?xf32>{%K2, %N} in !stream.resource<*>{%{{.+}}}, index, index, index, index) -> tensor<?x?xf32>{%M, %N} in !stream.resource<*>{%{{.+}}}
flow.executable private @mm {
  flow.executable.export public @mm workgroups(%0: index, %1: index) -> (index, index, index) {
    %2, %3, %4 = flow.dispatch.workgroup_count_from_slice %0, %1
    flow.return %2, %3, %4 : index, index, index
  }
  builtin.module {
    func.func @mm(%0: !flow.dispatch.tensor<readonly:tensor<?x?xf32>>, %1: !flow.dispatch.tensor<readonly:tensor<?x?xf32>>, %2: index, %3: index, %4: index, %5: index, %6: !flow.dispatch.tensor<writeonly:tensor<?x?xf32>>) {
      %7 = flow.dispatch.workload.ordinal %2, 0 : index
      %8 = flow.dispatch.workload.ordinal %3, 1 : index
      %cst = arith.constant 0.000000e+00 : f32
      %9 = flow.dispatch.tensor.load %0, offsets = [0, 0], sizes = [%7, %4], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<?x?xf32>>{%7, %4} -> tensor<?x?xf32>
      %10 = flow.dispatch.tensor.load %1, offsets = [0, 0], sizes = [%5, %8], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<?x?xf32>>{%5, %8} -> tensor<?x?xf32>
      %11 = tensor.empty(%7, %8) : tensor<?x?xf32>
      %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<?x?xf32>) -> tensor<?x?xf32>
      %13 = linalg.matmul ins(%9, %10 : tensor<?x?xf32>, tensor<?x?xf32>) outs(%12 : tensor<?x?xf32>) -> tensor<?x?xf32>
      flow.dispatch.tensor.store %13, %6, offsets = [0, 0], sizes = [%7, %8], strides = [1, 1] : tensor<?x?xf32> -> !flow.dispatch.tensor<writeonly:tensor<?x?xf32>>{%7, %8}
      func.return
    }
  }
}
util.func public @foo(%lhs: !hal.buffer_view, %rhs: !hal.buffer_view) -> !hal.buffer_view {
  %M = hal.buffer_view.dim<%lhs : !hal.buffer_view>[0] : index
  %K = hal.buffer_view.dim<%lhs : !hal.buffer_view>[1] : index
  %0 = hal.tensor.import %lhs : !hal.buffer_view -> tensor<?x?xf32>{%M, %K}
  %K2 = hal.buffer_view.dim<%rhs : !hal.buffer_view>[0] : index
  %N = hal.buffer_view.dim<%rhs : !hal.buffer_view>[1] : index
  %1 = hal.tensor.import %rhs : !hal.buffer_view -> tensor<?x?xf32>{%K2, %N}
  %2 = flow.dispatch @mm::@mm[%M, %N](%0, %1, %M, %N, %K, %K2) : (tensor<?x?xf32>{%M, %K}, tensor<?x?xf32>{%K2, %N}, index, index, index, index) -> tensor<?x?xf32>{%M, %N}
  %3 = hal.tensor.export %2 : tensor<?x?xf32>{%M, %N} -> !hal.buffer_view
  util.return %3 : !hal.buffer_view
}

// -----

// Tests that scf.if yielding dynamically shaped tensors yields each branch's resource, byte size and dynamic dim.
// CHECK-LABEL: util.func public @if_dynamic
// CHECK: %[[R:.+]], %[[RS:.+]], %[[RD:.+]] = scf.if %c -> (!stream.resource<*>, index, index) {
// CHECK: %[[D:.+]] = stream.tensor.dispatch @ex::@fn[%[[N2:.+]]](%{{.+}}, %[[N2]]) : (tensor<?xf32>{%n} in !stream.resource<*>{%{{.+}}}, index) -> tensor<?xf32>{%[[N2]]} in !stream.resource<*>{%[[S2:.+]]}
// CHECK: scf.yield %[[D]], %[[S2]], %[[N2]] : !stream.resource<*>, index, index
// CHECK: } else {
// CHECK: scf.yield %{{.+}}, %{{.+}}, %n : !stream.resource<*>, index, index
// CHECK: }
// CHECK: %[[X:.+]] = stream.async.transfer %[[R]] : !stream.resource<*>{%[[RS]]} -> !stream.resource<external>{%[[RS]]}
// CHECK: stream.tensor.export %[[X]] : tensor<?xf32>{%[[RD]]} in !stream.resource<external>{%[[RS]]} -> !hal.buffer_view
util.func public @if_dynamic(%arg: !hal.buffer_view, %c: i1) -> !hal.buffer_view {
  %n = hal.buffer_view.dim<%arg : !hal.buffer_view>[0] : index
  %0 = hal.tensor.import %arg : !hal.buffer_view -> tensor<?xf32>{%n}
  %r = scf.if %c -> (tensor<?xf32>) {
    %c2 = arith.constant 2 : index
    %n2 = arith.muli %n, %c2 : index
    %1 = flow.dispatch @ex::@fn[%n2](%0, %n2) : (tensor<?xf32>{%n}, index) -> tensor<?xf32>{%n2}
    scf.yield %1 : tensor<?xf32>
  } else {
    scf.yield %0 : tensor<?xf32>
  }
  %c0 = arith.constant 0 : index
  %d = tensor.dim %r, %c0 : tensor<?xf32>
  %2 = hal.tensor.export %r : tensor<?xf32>{%d} -> !hal.buffer_view
  util.return %2 : !hal.buffer_view
}

// -----

// Tests that scf.for carries a tensor as resource and size through its iter_args, body block arguments and results.
// CHECK-LABEL: util.func public @for_loop
// CHECK: %[[S:.+]] = stream.tensor.sizeof on(#hal.device.affinity<@dev>) tensor<4xf32> : index
// CHECK: %[[R:.+]], %[[RS:.+]], %[[RK:.+]] = scf.for %i = %lb to %ub step %st iter_args(%[[ACC:.+]] = %{{.+}}, %[[ACCS:.+]] = %[[S]], %k = %lb) -> (!stream.resource<*>, index, index) {
// CHECK: %[[D:.+]] = stream.tensor.dispatch on(#hal.device.affinity<@dev>) @ex::@add(%[[ACC]]) : (tensor<4xf32> in !stream.resource<*>{%[[ACCS]]}) -> tensor<4xf32> in !stream.resource<*>{%[[DS:.+]]}
// CHECK: scf.yield %[[D]], %[[DS]], %{{.+}} : !stream.resource<*>, index, index
// CHECK: stream.async.transfer %[[R]] : !stream.resource<*>{%[[RS]]}
// CHECK: util.return %{{.+}}, %[[RK]] : !hal.buffer_view, index
util.func public @for_loop(%arg: !hal.buffer_view, %lb: index, %ub: index, %st: index) -> (!hal.buffer_view, index) attributes {stream.affinity = #hal.device.affinity<@dev>} {
  %0 = hal.tensor.import %arg : !hal.buffer_view -> tensor<4xf32>
  %r:2 = scf.for %i = %lb to %ub step %st iter_args(%acc = %0, %k = %lb) -> (tensor<4xf32>, index) {
    %1 = flow.dispatch @ex::@add(%acc) : (tensor<4xf32>) -> tensor<4xf32>
    %k1 = arith.addi %k, %st : index
    scf.yield %1, %k1 : tensor<4xf32>, index
  }
  %2 = hal.tensor.export %r#0 : tensor<4xf32> -> !hal.buffer_view
  util.return %2, %r#1 : !hal.buffer_view, index
}

// -----

// Tests that cf branches pass tensors to block arguments as resource, size and dynamic dim, and that ops nested in scf.if without tensor results are converted.
// CHECK-LABEL: util.func public @branches
// CHECK: cf.cond_br %c, ^[[JOIN:.+]](%{{.+}}, %{{.+}}, %n : !stream.resource<*>, index, index), ^[[OTHER:.+]]
// CHECK: ^[[OTHER]]:
// CHECK: %[[D:.+]] = stream.tensor.dispatch @ex::@fn[%n](%{{.+}}, %n)
// CHECK: cf.br ^[[JOIN]](%[[D]], %{{.+}}, %n : !stream.resource<*>, index, index)
// CHECK: ^[[JOIN]](%[[JR:.+]]: !stream.resource<*>, %[[JS:.+]]: index, %[[JD:.+]]: index):
// CHECK: scf.if %c {
// CHECK: stream.tensor.dispatch @ex::@fn[%[[JD]]](%[[JR]], %[[JD]]) : (tensor<?xf32>{%[[JD]]} in !stream.resource<*>{%[[JS]]}, index)
// CHECK: stream.tensor.export %{{.+}} : tensor<?xf32>{%[[JD]]} in !stream.resource<external>{%[[JS]]} -> !hal.buffer_view
util.func public @branches(%arg: !hal.buffer_view, %c: i1) -> !hal.buffer_view {
  %n = hal.buffer_view.dim<%arg : !hal.buffer_view>[0] : index
  %0 = hal.tensor.import %arg : !hal.buffer_view -> tensor<?xf32>{%n}
  cf.cond_br %c, ^bb1(%0 : tensor<?xf32>), ^bb2
^bb2:
  %1 = flow.dispatch @ex::@fn[%n](%0, %n) : (tensor<?xf32>{%n}, index) -> tensor<?xf32>{%n}
  cf.br ^bb1(%1 : tensor<?xf32>)
^bb1(%r: tensor<?xf32>):
  %c0 = arith.constant 0 : index
  %d = tensor.dim %r, %c0 : tensor<?xf32>
  scf.if %c {
    %2 = flow.dispatch @ex::@fn[%d](%r, %d) : (tensor<?xf32>{%d}, index) -> tensor<?xf32>{%d}
    scf.yield
  }
  %3 = hal.tensor.export %r : tensor<?xf32>{%d} -> !hal.buffer_view
  util.return %3 : !hal.buffer_view
}


// -----

// Tests that constant globals are uploaded by an initializer right after them, so a later initializer reading one (a hoisted packed weight) runs after the upload.
// CHECK-LABEL: util.global private @a : !stream.resource<constant>
// CHECK-NEXT: util.initializer {
// CHECK: stream.tensor.constant : tensor<2xf32> in !stream.resource<constant> = dense<1.000000e+00> : tensor<2xf32>
// CHECK: util.global.store %{{.+}}, @a : !stream.resource<constant>
// CHECK: util.initializer {
// CHECK: util.global.load @a : !stream.resource<constant>
// CHECK: util.global private @b : !stream.resource<constant>
// CHECK-NEXT: util.initializer {
// CHECK: util.global.store %{{.+}}, @b : !stream.resource<constant>
util.global private @a = dense<1.0> : tensor<2xf32>
util.global private mutable @c : tensor<2xf32>
util.initializer {
  %0 = util.global.load @a : tensor<2xf32>
  util.global.store %0, @c : tensor<2xf32>
  util.return
}
util.global private @b = dense<2.0> : tensor<2xf32>

// -----

// Tests that flow.tensor.bitcast becomes a stream.tensor.clone between the two encodings and flow.tensor.tie_shape passes the resource on with the dims it names.
// CHECK-LABEL: util.func public @bitcast_tie_shape
// CHECK: %[[S0:.+]] = stream.tensor.sizeof tensor<?x4xf32>{%n} : index
// CHECK: %[[T:.+]] = stream.async.transfer
// CHECK: %[[S1:.+]] = stream.tensor.sizeof tensor<?x16xi8>{%n} : index
// CHECK: %[[B:.+]] = stream.tensor.clone %[[T]] : tensor<?x4xf32>{%n} in !stream.resource<*>{%[[S0]]} -> tensor<?x16xi8>{%n} in !stream.resource<*>{%[[S1]]}
// CHECK: stream.async.transfer %[[B]] : !stream.resource<*>{%[[S1]]} -> !stream.resource<external>{%[[S1]]}
// CHECK: stream.tensor.export %{{.+}} : tensor<?x16xi8>{%m} in !stream.resource<external>{%[[S1]]} -> !hal.buffer_view
util.func public @bitcast_tie_shape(%arg0: !hal.buffer_view, %n: index, %m: index) -> !hal.buffer_view {
  %0 = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<?x4xf32>{%n}
  %1 = flow.tensor.bitcast %0 : tensor<?x4xf32>{%n} -> tensor<?x16xi8>{%n}
  %2 = flow.tensor.tie_shape %1 : tensor<?x16xi8>{%m}
  %3 = hal.tensor.export %2 : tensor<?x16xi8>{%m} -> !hal.buffer_view
  util.return %3 : !hal.buffer_view
}

// -----

// Tests that a global initialized from a named parameter (flow's, or stream's as --compile-to=input prints it) becomes a resource global set by a stream.tensor.constant of #stream.parameter.named, and that the module lists the parameter with its tensor type in rt.parameters.
// CHECK: builtin.module attributes {rt.parameters = "[{\22scope\22: \22model\22, \22key\22: \22w\22, \22type\22: \22tensor<2x4xf32>\22, \22element\22: \22f32\22, \22shape\22: [2, 4]}, {\22scope\22: \22\22, \22key\22: \22b\22, \22type\22: \22tensor<3xi8>\22, \22element\22: \22i8\22, \22shape\22: [3]}]"}
// CHECK: util.global private @w : !stream.resource<constant>
// CHECK-NEXT: util.global private @b : !stream.resource<constant>
// CHECK-NEXT: util.initializer {
// CHECK-NEXT: %[[C:.+]] = stream.tensor.constant : tensor<2x4xf32> in !stream.resource<constant> = #stream.parameter.named<"model"::"w">
// CHECK-NEXT: util.global.store %[[C]], @w : !stream.resource<constant>
// CHECK-NEXT: stream.tensor.constant : tensor<3xi8> in !stream.resource<constant> = #stream.parameter.named<"b">
util.global private @w = #flow.parameter.named<"model"::"w"> : tensor<2x4xf32>
util.global private @b = #stream.parameter.named<"b"> : tensor<3xi8>

// -----

// Tests that a private function returning a tensor without taking one gets the expanded result types (resource, size, dynamic dims) in its signature, its return and its calls.
// CHECK-LABEL: util.func private @gen
// CHECK-SAME: (%{{.+}}: index, %{{.+}}: index) -> (!stream.resource<*>, index, index, index)
// CHECK: util.return %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : !stream.resource<*>, index, index, index
// CHECK-LABEL: util.func private @use
// CHECK: %{{.+}}, %{{.+}}, %{{.+}}, %[[D1:.+]] = util.call @gen(%{{.+}}, %{{.+}}) : (index, index) -> (!stream.resource<*>, index, index, index)
// CHECK: util.return %[[D1]] : index
util.func private @gen(%h: index, %w: index) -> tensor<?x?xi32> {
  %0 = flow.tensor.empty : tensor<?x?xi32>{%h, %w}
  util.return %0 : tensor<?x?xi32>
}
util.func private @use(%h: index, %w: index) -> index {
  %c1 = arith.constant 1 : index
  %0 = util.call @gen(%h, %w) : (index, index) -> tensor<?x?xi32>
  %1 = tensor.dim %0, %c1 : tensor<?x?xi32>
  util.return %1 : index
}

// -----

// Tests that IREE's coarse-fences ABI keeps its fences on the host: an import waits for its fence (hal.fence.await) and a barrier passes its tensors on and signals its fence right before the return, after the exports.
// CHECK-LABEL: util.func public @f$async
// CHECK: %[[T:.+]] = arith.constant -1 : i32
// CHECK-NEXT: hal.fence.await until([%arg1]) timeout_millis(%[[T]]) flags({{"?None"?}}) : i32
// CHECK: stream.tensor.import %arg0 : !hal.buffer_view -> tensor<4xf32>
// CHECK: %[[E:.+]] = stream.tensor.export %{{.+}} : tensor<4xf32> in !stream.resource<external>
// CHECK-NEXT: hal.fence.signal<%arg2 : !hal.fence>
// CHECK-NEXT: util.return %[[E]] : !hal.buffer_view
util.func public @f$async(%arg0: !hal.buffer_view, %arg1: !hal.fence, %arg2: !hal.fence) -> !hal.buffer_view attributes {iree.abi.model = "coarse-fences", iree.abi.stub} {
  %0 = hal.tensor.import wait(%arg1) => %arg0 : !hal.buffer_view -> tensor<4xf32>
  %1 = hal.tensor.barrier join(%0 : tensor<4xf32>) => %arg2 : !hal.fence
  %2 = hal.tensor.export %1 : tensor<4xf32> -> !hal.buffer_view
  util.return %2 : !hal.buffer_view
}

// -----

// Tests that flow.tensor.trace exports each traced tensor to a buffer view and becomes
// hal.buffer_view.trace on those views (with dynamic dims sized from the dim values).
// CHECK-LABEL: util.func public @trace
// CHECK: %[[V0:.+]] = stream.tensor.export %{{.+}} : tensor<?xf32>{%arg1} in !stream.resource<external>{%{{.+}}} -> !hal.buffer_view
// CHECK: %[[V1:.+]] = stream.tensor.export %{{.+}} : tensor<2xi32> in !stream.resource<external>{%{{.+}}} -> !hal.buffer_view
// CHECK: hal.buffer_view.trace "key" = %[[V0]], %[[V1]] : !hal.buffer_view, !hal.buffer_view
// CHECK-NOT: flow.tensor.trace
util.func public @trace(%arg0: !hal.buffer_view, %arg1: index, %arg2: !hal.buffer_view) {
  %0 = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<?xf32>{%arg1}
  %1 = hal.tensor.import %arg2 : !hal.buffer_view -> tensor<2xi32>
  flow.tensor.trace "key" = [%0 : tensor<?xf32>{%arg1}, %1 : tensor<2xi32>]
  util.return
}
