// RUN: python -m rt opt --split-input-file %s | filecheck %s

// Tests that stream.tensor.*, stream.async.* (execute/concurrent regions, tied results) and timepoint awaits round-trip in IREE's printed form.
// CHECK-LABEL: util.func public @async_ops(
// CHECK: %s = stream.tensor.sizeof on(#hal.device.affinity<@dev>) tensor<?x4xf32>{%n} : index
// CHECK: %0 = stream.tensor.import on(#hal.device.affinity<@dev>) %bv : !hal.buffer_view -> tensor<?x4xf32>{%n} in !stream.resource<external>{%s}
// CHECK: %1 = stream.tensor.empty : tensor<?x4xf32>{%n} in !stream.resource<*>{%s}
// CHECK: %2 = stream.tensor.constant : tensor<4xf32> in !stream.resource<constant> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK: %3 = stream.tensor.splat %f : f32 -> tensor<?x4xf32>{%n} in !stream.resource<*>{%s}
// CHECK: %4 = stream.tensor.clone %3 : tensor<?x4xf32>{%n} in !stream.resource<*>{%s} -> tensor<?xf32>{%n} in !stream.resource<*>{%s}
// CHECK: %5 = stream.tensor.slice %3[%c0, %c0 for %c4, %c4] : tensor<?x4xf32>{%n} in !stream.resource<*>{%s} -> tensor<4x4xf32> in !stream.resource<*>{%c40}
// CHECK: %6 = stream.tensor.update %5, %3[%c0, %c0] : tensor<4x4xf32> in !stream.resource<*>{%c40} -> tensor<?x4xf32>{%n} in %3 as !stream.resource<*>{%s}
// CHECK: %7 = stream.tensor.fill %f, %6[%c0, %c0 for %c4, %c4] : f32 -> tensor<?x4xf32>{%n} in %6 as !stream.resource<*>{%s}
// CHECK: %8 = stream.tensor.load %7[%c0, %c0] : tensor<?x4xf32>{%n} in !stream.resource<*>{%s} -> f32
// CHECK: %9 = stream.tensor.store %8, %7[%c0, %c0] : f32 -> tensor<?x4xf32>{%n} in %7 as !stream.resource<*>{%s}
// CHECK: %10 = stream.tensor.dispatch @ex::@fn[%n](%9, %n) : (tensor<?x4xf32>{%n} in !stream.resource<*>{%s}, index) -> tensor<?x4xf32>{%n} in !stream.resource<*>{%s}
// CHECK: %11 = stream.tensor.dispatch @ex::@fn[%n](%10, %n) : (tensor<?x4xf32>{%n} in !stream.resource<*>{%s}, index) -> tensor<?x4xf32>{%n} in %10{%s}
// CHECK: %a = stream.async.alloca on(#hal.device.affinity<@dev>) : !stream.resource<transient>{%s}
// CHECK: %b = stream.async.constant : !stream.resource<constant>{%c40} = dense<1.000000e+00> : tensor<10xf32>
// CHECK: %c = stream.async.splat %f : f32 -> !stream.resource<*>{%s}
// CHECK: %d = stream.async.clone %c : !stream.resource<*>{%s} -> !stream.resource<*>{%s}
// CHECK: %e = stream.async.slice %d[%c0 to %c40] : !stream.resource<*>{%s} -> !stream.resource<*>{%c40}
// CHECK: %g = stream.async.fill %f, %d[%c0 to %c40 for %c40] : f32 -> %d as !stream.resource<*>{%s}
// CHECK: %h = stream.async.update %e, %g[%c0 to %c40] : !stream.resource<*>{%c40} -> %g as !stream.resource<*>{%s}
// CHECK: %i = stream.async.copy %e[%c0 to %c40], %h[%c0 to %c40], %c40 : !stream.resource<*>{%c40} -> %h as !stream.resource<*>{%s}
// CHECK: %j = stream.async.transfer %i : !stream.resource<*>{%s} from(#hal.device.affinity<@dev>) -> to(#hal.device.affinity<@dev2>) !stream.resource<*>{%s}
// CHECK: %k = stream.async.dispatch on(#hal.device.affinity<@dev>) @ex::@fn[%n](%j[%c0 to %s for %s], %n) : (!stream.resource<*>{%s}, index) -> !stream.resource<*>{%s}
// CHECK: %l = stream.async.dispatch @ex::@fn[%n](%k[%c0 to %s for %s], %n) : (!stream.resource<*>{%s}, index) -> %k{%s}
// CHECK: %m, %m_1 = stream.async.dispatch {@ex::@fn, @ex2::@fn}(%l[%c0 to %s for %s]) : (!stream.resource<*>{%s}) -> (!stream.resource<*>{%s}, %l as !stream.resource<transient>{%s})
// CHECK: %r, %r_1, %tp = stream.async.execute on(#hal.device.affinity<@dev>) await(%t0) => with(%l as %arg0: !stream.resource<*>{%s}, %c as %arg1: !stream.resource<*>{%s}) -> (%l{%s}, !stream.resource<*>{%s}) {
// CHECK: %x = stream.async.dispatch @ex::@fn[%n](%arg0[%c0 to %s for %s]) : (!stream.resource<*>{%s}) -> %arg0{%s}
// CHECK: %y, %y_1 = stream.async.concurrent with(%arg1 as %arg2: !stream.resource<*>{%s}) -> (!stream.resource<*>{%s}, !stream.resource<*>{%s}) {
// CHECK: %z = stream.async.clone %arg2 : !stream.resource<*>{%s} -> !stream.resource<*>{%s}
// CHECK: %w = stream.async.clone %arg2 : !stream.resource<*>{%s} -> !stream.resource<*>{%s}
// CHECK: stream.yield %z, %w : !stream.resource<*>{%s}, !stream.resource<*>{%s}
// CHECK: stream.yield %x, %y : !stream.resource<*>{%s}, !stream.resource<*>{%s}
// CHECK: } => !stream.timepoint
// CHECK: %aw, %aw_1 = stream.timepoint.await %tp => %r, %r_1 : !stream.resource<*>{%s}, !stream.resource<*>{%s}
// CHECK: %ld = stream.async.load %aw[%c0] : !stream.resource<*>{%s} -> f32
// CHECK: %st = stream.async.store %ld, %aw[%c0] : f32 -> %aw as !stream.resource<*>{%s}
// CHECK: %ex = stream.async.transfer %st : !stream.resource<*>{%s} -> !stream.resource<external>{%s}
// CHECK: %out = stream.tensor.export on(#hal.device.affinity<@dev>) %ex : tensor<?x4xf32>{%n} in !stream.resource<external>{%s} -> !hal.buffer_view
util.func public @async_ops(%bv: !hal.buffer_view, %n: index, %f: f32, %t0: !stream.timepoint, %buf: !util.buffer) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c40 = arith.constant 40 : index
  %s = stream.tensor.sizeof on(#hal.device.affinity<@dev>) tensor<?x4xf32>{%n} : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev>) %bv : !hal.buffer_view -> tensor<?x4xf32>{%n} in !stream.resource<external>{%s}
  %1 = stream.tensor.empty : tensor<?x4xf32>{%n} in !stream.resource<*>{%s}
  %2 = stream.tensor.constant : tensor<4xf32> in !stream.resource<constant> = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %3 = stream.tensor.splat %f : f32 -> tensor<?x4xf32>{%n} in !stream.resource<*>{%s}
  %4 = stream.tensor.clone %3 : tensor<?x4xf32>{%n} in !stream.resource<*>{%s} -> tensor<?xf32>{%n} in !stream.resource<*>{%s}
  %5 = stream.tensor.slice %3[%c0, %c0 for %c4, %c4] : tensor<?x4xf32>{%n} in !stream.resource<*>{%s} -> tensor<4x4xf32> in !stream.resource<*>{%c40}
  %6 = stream.tensor.update %5, %3[%c0, %c0] : tensor<4x4xf32> in !stream.resource<*>{%c40} -> tensor<?x4xf32>{%n} in %3 as !stream.resource<*>{%s}
  %7 = stream.tensor.fill %f, %6[%c0, %c0 for %c4, %c4] : f32 -> tensor<?x4xf32>{%n} in %6 as !stream.resource<*>{%s}
  %8 = stream.tensor.load %7[%c0, %c0] : tensor<?x4xf32>{%n} in !stream.resource<*>{%s} -> f32
  %9 = stream.tensor.store %8, %7[%c0, %c0] : f32 -> tensor<?x4xf32>{%n} in %7 as !stream.resource<*>{%s}
  %10 = stream.tensor.dispatch @ex::@fn[%n](%9, %n) : (tensor<?x4xf32>{%n} in !stream.resource<*>{%s}, index) -> tensor<?x4xf32>{%n} in !stream.resource<*>{%s}
  %11 = stream.tensor.dispatch @ex::@fn[%n](%10, %n) : (tensor<?x4xf32>{%n} in !stream.resource<*>{%s}, index) -> tensor<?x4xf32>{%n} in %10{%s}
  %a = stream.async.alloca on(#hal.device.affinity<@dev>) : !stream.resource<transient>{%s}
  %b = stream.async.constant : !stream.resource<constant>{%c40} = dense<1.0> : tensor<10xf32>
  %c = stream.async.splat %f : f32 -> !stream.resource<*>{%s}
  %d = stream.async.clone %c : !stream.resource<*>{%s} -> !stream.resource<*>{%s}
  %e = stream.async.slice %d[%c0 to %c40] : !stream.resource<*>{%s} -> !stream.resource<*>{%c40}
  %g = stream.async.fill %f, %d[%c0 to %c40 for %c40] : f32 -> %d as !stream.resource<*>{%s}
  %h = stream.async.update %e, %g[%c0 to %c40] : !stream.resource<*>{%c40} -> %g as !stream.resource<*>{%s}
  %i = stream.async.copy %e[%c0 to %c40], %h[%c0 to %c40], %c40 : !stream.resource<*>{%c40} -> %h as !stream.resource<*>{%s}
  %j = stream.async.transfer %i : !stream.resource<*>{%s} from(#hal.device.affinity<@dev>) -> to(#hal.device.affinity<@dev2>) !stream.resource<*>{%s}
  %k = stream.async.dispatch on(#hal.device.affinity<@dev>) @ex::@fn[%n](%j[%c0 to %s for %s], %n) : (!stream.resource<*>{%s}, index) -> !stream.resource<*>{%s}
  %l = stream.async.dispatch @ex::@fn[%n](%k[%c0 to %s for %s], %n) : (!stream.resource<*>{%s}, index) -> %k{%s}
  %m:2 = stream.async.dispatch {@ex::@fn, @ex2::@fn}(%l[%c0 to %s for %s]) : (!stream.resource<*>{%s}) -> (!stream.resource<*>{%s}, %l as !stream.resource<transient>{%s})
  %r:2, %tp = stream.async.execute on(#hal.device.affinity<@dev>) await(%t0) => with(%l as %arg0: !stream.resource<*>{%s}, %c as %arg1: !stream.resource<*>{%s}) -> (%l{%s}, !stream.resource<*>{%s}) {
    %x = stream.async.dispatch @ex::@fn[%n](%arg0[%c0 to %s for %s]) : (!stream.resource<*>{%s}) -> %arg0{%s}
    %y:2 = stream.async.concurrent with(%arg1 as %arg2: !stream.resource<*>{%s}) -> (!stream.resource<*>{%s}, !stream.resource<*>{%s}) {
      %z = stream.async.clone %arg2 : !stream.resource<*>{%s} -> !stream.resource<*>{%s}
      %w = stream.async.clone %arg2 : !stream.resource<*>{%s} -> !stream.resource<*>{%s}
      stream.yield %z, %w : !stream.resource<*>{%s}, !stream.resource<*>{%s}
    }
    stream.yield %x, %y#0 : !stream.resource<*>{%s}, !stream.resource<*>{%s}
  } => !stream.timepoint
  %aw:2 = stream.timepoint.await %tp => %r#0, %r#1 : !stream.resource<*>{%s}, !stream.resource<*>{%s}
  %ld = stream.async.load %aw#0[%c0] : !stream.resource<*>{%s} -> f32
  %st = stream.async.store %ld, %aw#0[%c0] : f32 -> %aw#0 as !stream.resource<*>{%s}
  %ex = stream.async.transfer %st : !stream.resource<*>{%s} -> !stream.resource<external>{%s}
  %out = stream.tensor.export on(#hal.device.affinity<@dev>) %ex : tensor<?x4xf32>{%n} in !stream.resource<external>{%s} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

// -----

// Tests that stream.cmd.*, stream.resource.* and stream.timepoint.* round-trip in IREE's printed form.
// CHECK-LABEL: util.func public @cmd_ops(
// CHECK: %ext = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev>) : !stream.resource<external>{%c40}
// CHECK: %p, %p_1, %p_2 = stream.resource.pack slices({
// CHECK: %t, %ttp = stream.resource.alloca uninitialized : !stream.resource<transient>{%p} => !stream.timepoint
// CHECK: %t2, %ttp2 = stream.resource.alloca uninitialized await(%t0) => !stream.resource<transient>{%p} => !stream.timepoint
// CHECK: %exec = stream.cmd.execute await(%ttp) => with(%ext as %arg0: !stream.resource<external>{%c40}, %t as %arg1: !stream.resource<transient>{%p}) {
// CHECK: stream.cmd.concurrent {
// CHECK: stream.cmd.dispatch @ex::@fn[%n](%c1_i32, %c1_i32 : i32, i32) {
// CHECK: ro %arg1[%p_1 for %c40] : !stream.resource<transient>{%p},
// CHECK: wo %arg0[%c0 for %c40] : !stream.resource<external>{%c40}
// CHECK: stream.cmd.fill %c1_i32, %arg1[%p_2 for %c4] : i32 -> !stream.resource<transient>{%p}
// CHECK: stream.cmd.serial {
// CHECK: stream.cmd.copy %arg1[%c0], %arg0[%c0], %c40 : !stream.resource<transient>{%p} -> !stream.resource<external>{%c40}
// CHECK: stream.cmd.flush %arg0[%c0 for %c40] : !stream.resource<external>{%c40}
// CHECK: stream.cmd.invalidate from(#hal.device.affinity<@dev>) %arg0[%c0 for %c40] : !stream.resource<external>{%c40}
// CHECK: stream.cmd.discard %arg1[%c0 for %c40] : !stream.resource<transient>{%p}
// CHECK: } => !stream.timepoint
// CHECK: %dl = stream.resource.dealloca await(%exec) => %t : !stream.resource<transient>{%p} => !stream.timepoint
// CHECK: %j = stream.timepoint.join max(%dl, %exec) => !stream.timepoint
// CHECK: %imm = stream.timepoint.immediate => !stream.timepoint
// CHECK: %cr, %cr_1, %ctp = stream.resource.constants :
// CHECK: !stream.resource<constant>{%c40} = dense<1.000000e+00> : tensor<10xf32>,
// CHECK: !stream.resource<constant>{%c4} = dense<2> : tensor<1xi32>
// CHECK: => !stream.timepoint
// CHECK: %sv = stream.resource.subview %cr[%c0] : !stream.resource<constant>{%c40} -> !stream.resource<constant>{%c4}
// CHECK: %sz = stream.resource.size %sv : !stream.resource<constant>
// CHECK: %mp = stream.resource.map %buf[%c0] : !util.buffer -> !stream.resource<staging>{%c40}
// CHECK: %ok, %tm = stream.resource.try_map %buf[%c0] : !util.buffer -> i1, !stream.resource<constant>{%c40}
// CHECK: %v = stream.resource.load %mp[%c0] : !stream.resource<staging>{%c40} -> f32
// CHECK: stream.resource.store %v, %mp[%c0] : f32 -> !stream.resource<staging>{%c40}
// CHECK: %br, %btp = stream.timepoint.barrier %ext : !stream.resource<external>{%c40} => !stream.timepoint
// CHECK: %aw = stream.timepoint.await sync %j => %ext : !stream.resource<external>{%c40}
util.func public @cmd_ops(%n: index, %f: f32, %t0: !stream.timepoint, %buf: !util.buffer) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c40 = arith.constant 40 : index
  %c1_i32 = arith.constant 1 : i32
  %ext = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev>) : !stream.resource<external>{%c40}
  %p:3 = stream.resource.pack slices({
    [0, 2] = %c40,
    [1, 2] = %c4
  }) : index
  %t, %ttp = stream.resource.alloca uninitialized : !stream.resource<transient>{%p#0} => !stream.timepoint
  %t2, %ttp2 = stream.resource.alloca uninitialized await(%t0) => !stream.resource<transient>{%p#0} => !stream.timepoint
  %exec = stream.cmd.execute await(%ttp) => with(%ext as %arg0: !stream.resource<external>{%c40}, %t as %arg1: !stream.resource<transient>{%p#0}) {
    stream.cmd.concurrent {
      stream.cmd.dispatch @ex::@fn[%n](%c1_i32, %c1_i32 : i32, i32) {
        ro %arg1[%p#1 for %c40] : !stream.resource<transient>{%p#0},
        wo %arg0[%c0 for %c40] : !stream.resource<external>{%c40}
      }
      stream.cmd.fill %c1_i32, %arg1[%p#2 for %c4] : i32 -> !stream.resource<transient>{%p#0}
    }
    stream.cmd.serial {
      stream.cmd.copy %arg1[%c0], %arg0[%c0], %c40 : !stream.resource<transient>{%p#0} -> !stream.resource<external>{%c40}
    }
    stream.cmd.flush %arg0[%c0 for %c40] : !stream.resource<external>{%c40}
    stream.cmd.invalidate from(#hal.device.affinity<@dev>) %arg0[%c0 for %c40] : !stream.resource<external>{%c40}
    stream.cmd.discard %arg1[%c0 for %c40] : !stream.resource<transient>{%p#0}
  } => !stream.timepoint
  %dl = stream.resource.dealloca await(%exec) => %t : !stream.resource<transient>{%p#0} => !stream.timepoint
  %j = stream.timepoint.join max(%dl, %exec) => !stream.timepoint
  %imm = stream.timepoint.immediate => !stream.timepoint
  %cr:2, %ctp = stream.resource.constants :
    !stream.resource<constant>{%c40} = dense<1.0> : tensor<10xf32>,
    !stream.resource<constant>{%c4} = dense<2> : tensor<1xi32>
    => !stream.timepoint
  %sv = stream.resource.subview %cr#0[%c0] : !stream.resource<constant>{%c40} -> !stream.resource<constant>{%c4}
  %sz = stream.resource.size %sv : !stream.resource<constant>
  %mp = stream.resource.map %buf[%c0] : !util.buffer -> !stream.resource<staging>{%c40}
  %ok, %tm = stream.resource.try_map %buf[%c0] : !util.buffer -> i1, !stream.resource<constant>{%c40}
  %v = stream.resource.load %mp[%c0] : !stream.resource<staging>{%c40} -> f32
  stream.resource.store %v, %mp[%c0] : f32 -> !stream.resource<staging>{%c40}
  %br, %btp = stream.timepoint.barrier %ext : !stream.resource<external>{%c40} => !stream.timepoint
  %aw = stream.timepoint.await sync %j => %ext : !stream.resource<external>{%c40}
  util.return
}

// -----

// Tests that stream.executable with exports, bindings and workgroup queries round-trips.
// CHECK-LABEL: stream.executable private @ex
// CHECK: stream.executable.export public @fn workgroups(%arg0: index) -> (index, index, index) {
// CHECK: %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
// CHECK: stream.return %x, %y, %z : index, index, index
// CHECK: func.func @fn(%arg0: !stream.binding, %arg1: index, %arg2: !stream.binding) {
// CHECK: %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<?x4xf32>>{%arg1}
// CHECK: %1 = stream.dispatch.workgroup.id[0] : index
// CHECK: %2 = stream.dispatch.workgroup.count[1] : index
// CHECK: %3 = stream.dispatch.workgroup.size[2] : index
stream.executable private @ex {
  stream.executable.export public @fn workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @fn(%arg0: !stream.binding, %arg1: index, %arg2: !stream.binding) {
      %c0 = arith.constant 0 : index
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<?x4xf32>>{%arg1}
      %1 = stream.dispatch.workgroup.id[0] : index
      %2 = stream.dispatch.workgroup.count[1] : index
      %3 = stream.dispatch.workgroup.size[2] : index
      return
    }
  }
}

// -----

// Tests that stream.cmd.execute, stream.cmd.serial and stream.cmd.concurrent with empty bodies parse and print without block labels.
// CHECK-LABEL: util.func public @empty_cmd_regions(
// CHECK: %0 = stream.cmd.execute await(%t) => with() {
// CHECK-NEXT: } => !stream.timepoint
// CHECK: %1 = stream.cmd.execute with(%r as %arg0: !stream.resource<transient>{%s}) {
// CHECK-NEXT: stream.cmd.serial {
// CHECK-NEXT: }
// CHECK-NEXT: stream.cmd.concurrent {
// CHECK-NEXT: }
// CHECK-NEXT: } => !stream.timepoint
// CHECK-NOT: ^bb
util.func public @empty_cmd_regions(%t: !stream.timepoint, %r: !stream.resource<transient>, %s: index) -> (!stream.timepoint, !stream.timepoint) {
  %0 = stream.cmd.execute await(%t) => with() {} => !stream.timepoint
  %1 = stream.cmd.execute with(%r as %arg0: !stream.resource<transient>{%s}) {
    stream.cmd.serial {}
    stream.cmd.concurrent {
    }
  } => !stream.timepoint
  util.return %0, %1 : !stream.timepoint, !stream.timepoint
}
