// RUN: python -m rt opt --split-input-file --pass=iree-stream-pack-dispatch-operands %s | filecheck %s

// Tests that index and f32 operands become i32 words: constants at compile time, other values
// once right after their definition; the function casts its i32 arguments back, and the
// argument's stream.alignment moves to the op that rebuilds the value.
// CHECK-LABEL: stream.executable private @ex
// CHECK: func.func @fn(%[[B:.+]]: !stream.binding, %[[N32:.+]]: i32, %[[S32:.+]]: i32, %[[K32:.+]]: i32) {
// CHECK-NEXT: %n = arith.index_cast %[[N32]] {stream.alignment = 16 : index} : i32 to index
// CHECK-NEXT: %s = arith.bitcast %[[S32]] : i32 to f32
// CHECK-NEXT: %k = arith.index_cast %[[K32]] : i32 to index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: stream.binding.subspan %[[B]][%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<?xf32>>{%n}
// CHECK-LABEL: util.func public @index_and_f32
// CHECK-DAG: %[[N:.+]] = arith.index_cast %n : index to i32
// CHECK-DAG: %[[S:.+]] = arith.bitcast %s : f32 to i32
// CHECK-DAG: %[[C64:.+]] = arith.constant 64 : i32
// CHECK: stream.cmd.execute
// CHECK-NEXT: stream.cmd.dispatch @ex::@fn[%n](%[[N]], %[[S]], %[[C64]] : i32, i32, i32) {
stream.executable private @ex {
  stream.executable.export public @fn workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @fn(%b: !stream.binding, %n: index {stream.alignment = 16 : index}, %s: f32, %k: index) {
      %c0 = arith.constant 0 : index
      %0 = stream.binding.subspan %b[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<?xf32>>{%n}
      return
    }
  }
}
util.func public @index_and_f32(%r: !stream.resource<transient>, %n: index, %s: f32) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = stream.cmd.execute with(%r as %a: !stream.resource<transient>{%c64}) {
    stream.cmd.dispatch @ex::@fn[%n](%n, %s, %c64 : index, f32, index) {
      ro %a[%c0 for %c64] : !stream.resource<transient>{%c64}
    }
  } => !stream.timepoint
  util.return %t : !stream.timepoint
}

// -----

// Tests that i64 and f64 operands split into low and high words (f64 1.5 = 0x3FF8000000000000)
// that the function joins with extui/shli/ori, and that i8 widens with extui and narrows back
// with trunci.
// CHECK-LABEL: stream.executable private @wide_ex
// CHECK: func.func @fn(%[[W0:.+]]: i32, %[[W1:.+]]: i32, %[[D0:.+]]: i32, %[[D1:.+]]: i32, %[[K:.+]]: i32) {
// CHECK-NEXT: %[[LO:.+]] = arith.extui %[[W0]] : i32 to i64
// CHECK-NEXT: %[[HI:.+]] = arith.extui %[[W1]] : i32 to i64
// CHECK-NEXT: %[[C32:.+]] = arith.constant 32 : i64
// CHECK-NEXT: %[[SHL:.+]] = arith.shli %[[HI]], %[[C32]] : i64
// CHECK-NEXT: %w = arith.ori %[[LO]], %[[SHL]] : i64
// CHECK: %[[DBITS:.+]] = arith.ori
// CHECK-NEXT: %d = arith.bitcast %[[DBITS]] : i64 to f64
// CHECK-NEXT: %k = arith.trunci %[[K]] : i32 to i8
// CHECK-LABEL: util.func public @wide
// CHECK: %[[SH:.+]] = arith.constant 32 : i64
// CHECK-NEXT: %[[WLO:.+]] = arith.trunci %w : i64 to i32
// CHECK-NEXT: %[[WSH:.+]] = arith.shrui %w, %[[SH]] : i64
// CHECK-NEXT: %[[WHI:.+]] = arith.trunci %[[WSH]] : i64 to i32
// CHECK: %d = arith.constant 1.500000e+00 : f64
// CHECK-NEXT: %[[DLO:.+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[DHI:.+]] = arith.constant 1073217536 : i32
// CHECK-NEXT: %k = arith.constant -1 : i8
// CHECK-NEXT: %[[KW:.+]] = arith.constant 255 : i32
// CHECK: stream.cmd.dispatch @wide_ex::@fn[%c1](%[[WLO]], %[[WHI]], %[[DLO]], %[[DHI]], %[[KW]] : i32, i32, i32, i32, i32)
stream.executable private @wide_ex {
  stream.executable.export public @fn workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @fn(%w: i64, %d: f64, %k: i8) {
      %0 = arith.addi %w, %w : i64
      %1 = arith.addf %d, %d : f64
      %2 = arith.addi %k, %k : i8
      return
    }
  }
}
util.func public @wide(%w: i64) -> !stream.timepoint {
  %c1 = arith.constant 1 : index
  %d = arith.constant 1.5 : f64
  %k = arith.constant -1 : i8
  %t = stream.cmd.execute with() {
    stream.cmd.dispatch @wide_ex::@fn[%c1](%w, %d, %k : i64, f64, i8) {
    }
  } => !stream.timepoint
  util.return %t : !stream.timepoint
}

// -----

// Tests that a value passed to two dispatches in two executes is converted once, so both
// dispatches keep passing the same SSA value.
// CHECK-LABEL: util.func public @shared
// CHECK: %[[N:.+]] = arith.index_cast %n : index to i32
// CHECK-NOT: arith.index_cast
// CHECK: stream.cmd.dispatch @shared_ex::@fn[%n](%[[N]] : i32)
// CHECK: stream.cmd.dispatch @shared_ex::@fn[%n](%[[N]] : i32)
stream.executable private @shared_ex {
  stream.executable.export public @fn workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @fn(%n: index) {
      return
    }
  }
}
util.func public @shared(%n: index) -> !stream.timepoint {
  %t0 = stream.cmd.execute with() {
    stream.cmd.dispatch @shared_ex::@fn[%n](%n : index) {
    }
  } => !stream.timepoint
  %t1 = stream.cmd.execute await(%t0) => with() {
    stream.cmd.dispatch @shared_ex::@fn[%n](%n : index) {
    }
  } => !stream.timepoint
  util.return %t1 : !stream.timepoint
}
