// RUN: python -m rt opt --split-input-file --pass=iree-stream-fuse-dispatch-bindings %s | filecheck %s
// RUN: python -m rt opt --split-input-file --pass='iree-stream-fuse-dispatch-bindings{alias-mutable-bindings=true}' %s | filecheck %s --check-prefix=ALIAS

// Tests the seeds' @predict_dispatch_2: two read-only ranges of one transient fuse into one
// binding, the written range keeps its own, all three offsets become leading index operands
// and the bindings cover the whole resource from a zero defined before the execute.
// CHECK-LABEL: stream.executable private @predict_dispatch_2
// CHECK: func.func @fn(%[[B0:.+]]: !stream.binding, %[[B1:.+]]: !stream.binding, %[[O0:.+]]: index, %[[O1:.+]]: index, %[[O2:.+]]: index) {
// CHECK-NEXT: %[[S0:.+]] = stream.binding.subspan %[[B0]][%[[O0]]] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<1x10xf32>>
// CHECK-NEXT: %[[S1:.+]] = stream.binding.subspan %[[B0]][%[[O1]]] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<f32>>
// CHECK-NEXT: %[[S2:.+]] = stream.binding.subspan %[[B1]][%[[O2]]] : !stream.binding -> !flow.dispatch.tensor<writeonly:tensor<1x10xf32>>
// CHECK-LABEL: util.func public @predict
// CHECK: %[[ZERO:c0_[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: stream.cmd.execute with(%arg0 as %[[T:.+]]: !stream.resource<transient>{%c192})
// CHECK-NEXT: stream.cmd.dispatch @predict_dispatch_2::@fn[%c1, %c10](%c0, %c64, %c128 : index, index, index) {
// CHECK-NEXT: ro %[[T]][%[[ZERO]] for %c192] : !stream.resource<transient>{%c192},
// CHECK-NEXT: wo %[[T]][%[[ZERO]] for %c192] : !stream.resource<transient>{%c192}
// CHECK-NEXT: }
// ALIAS-LABEL: util.func public @predict
// ALIAS: stream.cmd.dispatch @predict_dispatch_2::@fn[%c1, %c10](%c0, %c64, %c128 : index, index, index) {
// ALIAS-NEXT: rw %{{.+}}[%{{.+}} for %c192] : !stream.resource<transient>{%c192}
// ALIAS-NEXT: }
stream.executable private @predict_dispatch_2 {
  stream.executable.export public @fn workgroups(%arg0: index, %arg1: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0, %arg1
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @fn(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding) {
      %c0 = arith.constant 0 : index
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<1x10xf32>>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<f32>>
      %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> !flow.dispatch.tensor<writeonly:tensor<1x10xf32>>
      return
    }
  }
}
util.func public @predict(%arg0: !stream.resource<transient>) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  %c40 = arith.constant 40 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c192 = arith.constant 192 : index
  %t = stream.cmd.execute with(%arg0 as %arg3: !stream.resource<transient>{%c192}) {
    stream.cmd.dispatch @predict_dispatch_2::@fn[%c1, %c10] {
      ro %arg3[%c0 for %c40] : !stream.resource<transient>{%c192},
      ro %arg3[%c64 for %c4] : !stream.resource<transient>{%c192},
      wo %arg3[%c128 for %c40] : !stream.resource<transient>{%c192}
    }
  } => !stream.timepoint
  util.return %t : !stream.timepoint
}

// -----

// Tests that a non-zero subspan offset in the function is added to the new offset operand and
// that the dispatch's own operands follow the offsets.
// CHECK-LABEL: stream.executable private @offsets_ex
// CHECK: func.func @fn(%[[B:.+]]: !stream.binding, %[[O:.+]]: index, %[[N:.+]]: index) {
// CHECK: %[[C16:.+]] = arith.constant 16 : index
// CHECK-NEXT: %[[SUM:.+]] = arith.addi %[[C16]], %[[O]] : index
// CHECK-NEXT: stream.binding.subspan %[[B]][%[[SUM]]] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<?xf32>>{%[[N]]}
// CHECK-LABEL: util.func public @offsets
// CHECK: stream.cmd.dispatch @offsets_ex::@fn[%n](%c32, %n : index, index) {
// CHECK-NEXT: ro %{{.+}}[%{{.+}} for %size] : !stream.resource<external>{%size}
// CHECK-NEXT: }
stream.executable private @offsets_ex {
  stream.executable.export public @fn workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @fn(%arg0: !stream.binding, %n: index) {
      %c16 = arith.constant 16 : index
      %0 = stream.binding.subspan %arg0[%c16] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<?xf32>>{%n}
      return
    }
  }
}
util.func public @offsets(%arg0: !stream.resource<external>, %n: index, %size: index) -> !stream.timepoint {
  %c32 = arith.constant 32 : index
  %t = stream.cmd.execute with(%arg0 as %a: !stream.resource<external>{%size}) {
    stream.cmd.dispatch @offsets_ex::@fn[%n](%n : index) {
      ro %a[%c32 for %n] : !stream.resource<external>{%size}
    }
  } => !stream.timepoint
  util.return %t : !stream.timepoint
}

// -----

// Tests that bindings fuse only when they name the same resource at every dispatch site: the
// second site reads two different resources, so both read bindings stay (rebased to 0).
// CHECK-LABEL: stream.executable private @divergent_ex
// CHECK: func.func @fn(%{{.+}}: !stream.binding, %{{.+}}: !stream.binding, %{{.+}}: !stream.binding, %{{.+}}: index, %{{.+}}: index, %{{.+}}: index) {
// CHECK-LABEL: util.func public @divergent
// CHECK: stream.cmd.dispatch @divergent_ex::@fn[%c1](%c0, %c64, %c128 : index, index, index) {
// CHECK-NEXT: ro %[[A:.+]][%[[Z:.+]] for %c256] : !stream.resource<transient>{%c256},
// CHECK-NEXT: ro %[[A]][%[[Z]] for %c256] : !stream.resource<transient>{%c256},
// CHECK-NEXT: wo %[[A]][%[[Z]] for %c256] : !stream.resource<transient>{%c256}
// CHECK: stream.cmd.dispatch @divergent_ex::@fn[%c1](%c0, %c0, %c0 : index, index, index) {
// CHECK-NEXT: ro %{{.+}}[%[[Z]] for %c256] : !stream.resource<transient>{%c256},
// CHECK-NEXT: ro %{{.+}}[%[[Z]] for %c64] : !stream.resource<external>{%c64},
// CHECK-NEXT: wo %{{.+}}[%[[Z]] for %c64] : !stream.resource<external>{%c64}
stream.executable private @divergent_ex {
  stream.executable.export public @fn workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @fn(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding) {
      %c0 = arith.constant 0 : index
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<4xf32>>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<4xf32>>
      %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> !flow.dispatch.tensor<writeonly:tensor<4xf32>>
      return
    }
  }
}
util.func public @divergent(%t0: !stream.resource<transient>, %e0: !stream.resource<external>) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %t = stream.cmd.execute with(%t0 as %a: !stream.resource<transient>{%c256}, %e0 as %b: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @divergent_ex::@fn[%c1] {
      ro %a[%c0 for %c16] : !stream.resource<transient>{%c256},
      ro %a[%c64 for %c16] : !stream.resource<transient>{%c256},
      wo %a[%c128 for %c16] : !stream.resource<transient>{%c256}
    }
    stream.cmd.dispatch @divergent_ex::@fn[%c1] {
      ro %a[%c0 for %c16] : !stream.resource<transient>{%c256},
      ro %b[%c0 for %c16] : !stream.resource<external>{%c64},
      wo %b[%c0 for %c16] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  util.return %t : !stream.timepoint
}

// -----

// Tests that dispatches of one export on two devices are rewritten alike, each execute keeps
// its affinity and gets its own zero offset.
// CHECK-LABEL: util.func public @two_devices
// CHECK: %[[Z0:c0_[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: stream.cmd.execute on(#hal.device.affinity<@dev_a>) with(%arg0 as %[[A:.+]]: !stream.resource<external>{%c64})
// CHECK-NEXT: stream.cmd.dispatch @ex::@fn[%c1](%c0 : index) {
// CHECK-NEXT: rw %[[A]][%[[Z0]] for %c64] : !stream.resource<external>{%c64}
// CHECK: %[[Z1:c0_[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: stream.cmd.execute on(#hal.device.affinity<@dev_b>) await(%{{.+}}) => with(%arg0 as %[[B:.+]]: !stream.resource<external>{%c64})
// CHECK-NEXT: stream.cmd.dispatch @ex::@fn[%c1](%c16 : index) {
// CHECK-NEXT: rw %[[B]][%[[Z1]] for %c64] : !stream.resource<external>{%c64}
stream.executable private @ex {
  stream.executable.export public @fn workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @fn(%arg0: !stream.binding) {
      %c0 = arith.constant 0 : index
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> !flow.dispatch.tensor<readwrite:tensor<4xf32>>
      return
    }
  }
}
util.func public @two_devices(%arg0: !stream.resource<external>) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %t0 = stream.cmd.execute on(#hal.device.affinity<@dev_a>) with(%arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@fn[%c1] {
      rw %a[%c0 for %c16] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev_b>) await(%t0) => with(%arg0 as %b: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@fn[%c1] {
      rw %b[%c16 for %c16] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  util.return %t1 : !stream.timepoint
}
