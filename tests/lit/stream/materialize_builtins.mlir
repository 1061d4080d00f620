// RUN: python -m rt opt --split-input-file --pass=iree-stream-materialize-builtins %s | filecheck %s

// Tests that an i64 splat of a static size becomes a dispatch of the splat builtin with the element count folded, and the builtin executable is added once.
// CHECK-LABEL: stream.executable private @__builtin_splat_i64
// CHECK: stream.executable.export public @__builtin_splat_i64 workgroups(%workload: index) -> (index, index, index)
// CHECK: func.func @__builtin_splat_i64(%value: i64, %count: index, %out_binding: !stream.binding)
// CHECK: %out = stream.binding.subspan %out_binding[%offset] : !stream.binding -> !flow.dispatch.tensor<writeonly:tensor<?xi64>>{%count}
// CHECK: linalg.fill ins(%value : i64) outs(%empty : tensor<?xi64>) -> tensor<?xi64>
// CHECK-NOT: stream.executable private @__builtin_fill_i64
// CHECK-LABEL: util.func public @splat_static
// CHECK: %[[N:.+]] = arith.constant 5 : index
// CHECK: %[[A:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev>) @__builtin_splat_i64::@__builtin_splat_i64[%[[N]]](%v, %[[N]]) : (i64, index) -> !stream.resource<*>{%c40}
// CHECK: %[[B:.+]] = stream.async.dispatch @__builtin_splat_i64::@__builtin_splat_i64[%{{.+}}](%v, %{{.+}}) : (i64, index) -> !stream.resource<*>{%c40}
// CHECK: util.return %[[A]], %[[B]]
util.func public @splat_static(%v: i64) -> (!stream.resource<*>, !stream.resource<*>) {
  %c40 = arith.constant 40 : index
  %0 = stream.async.splat on(#hal.device.affinity<@dev>) %v : i64 -> !stream.resource<*>{%c40}
  %1 = stream.async.splat %v : i64 -> !stream.resource<*>{%c40}
  util.return %0, %1 : !stream.resource<*>, !stream.resource<*>
}

// -----

// Tests that a dynamic byte size is divided by 8 at run time and that narrower splats stay HAL fills.
// CHECK-LABEL: util.func public @splat_dynamic
// CHECK: %[[C8:.+]] = arith.constant 8 : index
// CHECK: %[[N:.+]] = arith.divui %size, %[[C8]] : index
// CHECK: stream.async.dispatch @__builtin_splat_i64::@__builtin_splat_i64[%[[N]]](%v, %[[N]]) : (i64, index) -> !stream.resource<*>{%size}
// CHECK: stream.async.splat %w : i32 -> !stream.resource<*>{%size}
util.func public @splat_dynamic(%v: i64, %w: i32, %size: index) -> (!stream.resource<*>, !stream.resource<*>) {
  %0 = stream.async.splat %v : i64 -> !stream.resource<*>{%size}
  %1 = stream.async.splat %w : i32 -> !stream.resource<*>{%size}
  util.return %0, %1 : !stream.resource<*>, !stream.resource<*>
}

// -----

// Tests that an i64 fill of a byte range becomes an in-place dispatch of the fill builtin taking the byte offset and element count.
// CHECK-LABEL: stream.executable private @__builtin_fill_i64
// CHECK: func.func @__builtin_fill_i64(%value: i64, %offset: index, %count: index, %out_binding: !stream.binding)
// CHECK: stream.binding.subspan %out_binding[%offset] : !stream.binding -> !flow.dispatch.tensor<writeonly:tensor<?xi64>>{%count}
// CHECK-LABEL: util.func public @fill_range
// CHECK: %[[N:.+]] = arith.constant 2 : index
// CHECK: %[[Z:.+]] = arith.constant 0 : index
// CHECK: %[[F:.+]] = stream.async.dispatch @__builtin_fill_i64::@__builtin_fill_i64[%[[N]]](%v, %c8, %[[N]], %t[%[[Z]] to %c40 for %c40]) : (i64, index, index, !stream.resource<*>{%c40}) -> %t{%c40}
// CHECK: util.return %[[F]]
util.func public @fill_range(%t: !stream.resource<*>, %v: i64) -> !stream.resource<*> {
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c24 = arith.constant 24 : index
  %c40 = arith.constant 40 : index
  %0 = stream.async.fill %v, %t[%c8 to %c24 for %c16] : i64 -> %t as !stream.resource<*>{%c40}
  util.return %0 : !stream.resource<*>
}

// -----

// Tests that a module without 64-bit patterns is left alone (no builtin executables).
// CHECK-LABEL: util.func public @narrow
// CHECK-NOT: __builtin
// CHECK: stream.async.fill %f, %t[%c0 to %c4 for %c4] : f32 -> %t as !stream.resource<*>{%c4}
util.func public @narrow(%t: !stream.resource<*>, %f: f32) -> !stream.resource<*> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %0 = stream.async.fill %f, %t[%c0 to %c4 for %c4] : f32 -> %t as !stream.resource<*>{%c4}
  util.return %0 : !stream.resource<*>
}
