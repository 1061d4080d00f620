// RUN: python -m rt opt --split-input-file --pass=iree-stream-fold-uniform-operands %s | filecheck %s

// Tests the seeds' example: %c1 is passed to @foo at both sites and is inlined, %c100/%c101
// differ and stay; @foo2 has one site, so both of its operands are inlined.
// CHECK-LABEL: stream.executable private @ex
// CHECK: func.func @foo(%[[B:.+]]: i32) {
// CHECK-NEXT: %[[A:.+]] = arith.constant 1 : i32
// CHECK-NEXT: arith.addi %[[A]], %[[B]] : i32
// CHECK: func.func @foo2() {
// CHECK-NEXT: %[[A2:.+]] = arith.constant 1 : i32
// CHECK-NEXT: %[[B2:.+]] = arith.constant 101 : i32
// CHECK-NEXT: arith.addi %[[A2]], %[[B2]] : i32
// CHECK-LABEL: util.func public @seed
// CHECK-NOT: arith.constant 1 : i32
// CHECK: stream.cmd.dispatch @ex::@foo[%c1](%c100 : i32) {
// CHECK: stream.cmd.dispatch @ex::@foo[%c1](%c101 : i32) {
// CHECK: stream.cmd.dispatch @ex::@foo2[%c1] {
stream.executable private @ex {
  stream.executable.export public @foo workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  stream.executable.export public @foo2 workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @foo(%a: i32, %b: i32) {
      %0 = arith.addi %a, %b : i32
      return
    }
    func.func @foo2(%a: i32, %b: i32) {
      %0 = arith.addi %a, %b : i32
      return
    }
  }
}
util.func public @seed() -> !stream.timepoint {
  %c1 = arith.constant 1 : index
  %c1_i32 = arith.constant 1 : i32
  %c100 = arith.constant 100 : i32
  %c101 = arith.constant 101 : i32
  %t = stream.cmd.execute with() {
    stream.cmd.dispatch @ex::@foo[%c1](%c1_i32, %c100 : i32, i32) {
    }
    stream.cmd.dispatch @ex::@foo[%c1](%c1_i32, %c101 : i32, i32) {
    }
    stream.cmd.dispatch @ex::@foo2[%c1](%c1_i32, %c101 : i32, i32) {
    }
  } => !stream.timepoint
  util.return %t : !stream.timepoint
}

// -----

// Tests that an operand equal to an earlier one at every site is dropped (the function uses
// the earlier argument), while one that is equal at only some sites stays.
// CHECK-LABEL: stream.executable private @dup_ex
// CHECK: func.func @fn(%[[X:.+]]: i32, %[[Y:.+]]: i32, %[[Z:.+]]: i32) {
// CHECK-NEXT: arith.addi %[[X]], %[[Y]] : i32
// CHECK-NEXT: arith.addi %[[X]], %[[Z]] : i32
// CHECK-LABEL: util.func public @dup
// CHECK: stream.cmd.dispatch @dup_ex::@fn[%c1](%a, %b, %a : i32, i32, i32) {
// CHECK: stream.cmd.dispatch @dup_ex::@fn[%c1](%b, %a, %a : i32, i32, i32) {
stream.executable private @dup_ex {
  stream.executable.export public @fn workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @fn(%x: i32, %y: i32, %x2: i32, %z: i32) {
      %0 = arith.addi %x2, %y : i32
      %1 = arith.addi %x, %z : i32
      return
    }
  }
}
util.func public @dup(%a: i32, %b: i32) -> !stream.timepoint {
  %c1 = arith.constant 1 : index
  %t = stream.cmd.execute with() {
    stream.cmd.dispatch @dup_ex::@fn[%c1](%a, %b, %a, %a : i32, i32, i32, i32) {
    }
    stream.cmd.dispatch @dup_ex::@fn[%c1](%b, %a, %b, %a : i32, i32, i32, i32) {
    }
  } => !stream.timepoint
  util.return %t : !stream.timepoint
}

// -----

// Tests that inlined words fold through the conversions iree-stream-pack-dispatch-operands
// leaves in the function (index_cast, bitcast, trunci, and the i64 rebuild), and that the
// host-side words left without users are erased.
// CHECK-LABEL: stream.executable private @folds_ex
// CHECK: func.func @fn(%[[B:.+]]: !stream.binding) {
// CHECK-DAG: %w = arith.constant 8589934593 : i64
// CHECK-DAG: %k = arith.constant -1 : i8
// CHECK-DAG: %s = arith.constant 2.000000e+00 : f32
// CHECK-DAG: %o = arith.constant 64 : index
// CHECK: stream.binding.subspan %[[B]][%o]
// CHECK-LABEL: util.func public @folds
// CHECK-NOT: arith.constant {{.*}} : i32
// CHECK: stream.cmd.dispatch @folds_ex::@fn[%c1] {
stream.executable private @folds_ex {
  stream.executable.export public @fn workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @fn(%b: !stream.binding, %o32: i32, %s32: i32, %k32: i32, %lo: i32, %hi: i32) {
      %o = arith.index_cast %o32 : i32 to index
      %s = arith.bitcast %s32 : i32 to f32
      %k = arith.trunci %k32 : i32 to i8
      %0 = arith.extui %lo : i32 to i64
      %1 = arith.extui %hi : i32 to i64
      %c32 = arith.constant 32 : i64
      %2 = arith.shli %1, %c32 : i64
      %w = arith.ori %0, %2 : i64
      %3 = stream.binding.subspan %b[%o] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<4xf32>>
      %4 = arith.addf %s, %s : f32
      %5 = arith.addi %k, %k : i8
      %6 = arith.addi %w, %w : i64
      return
    }
  }
}
util.func public @folds(%r: !stream.resource<external>) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %o = arith.constant 64 : i32
  %s = arith.constant 1073741824 : i32
  %k = arith.constant 255 : i32
  %lo = arith.constant 1 : i32
  %hi = arith.constant 2 : i32
  %t = stream.cmd.execute with(%r as %a: !stream.resource<external>{%c16}) {
    stream.cmd.dispatch @folds_ex::@fn[%c1](%o, %s, %k, %lo, %hi : i32, i32, i32, i32, i32) {
      ro %a[%c0 for %c16] : !stream.resource<external>{%c16}
    }
  } => !stream.timepoint
  util.return %t : !stream.timepoint
}

// -----

// Tests that an export without dispatch sites keeps its signature.
// CHECK-LABEL: stream.executable private @unused
// CHECK: func.func @fn(%{{.+}}: i32, %{{.+}}: i32) {
stream.executable private @unused {
  stream.executable.export public @fn workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @fn(%a: i32, %b: i32) {
      return
    }
  }
}
