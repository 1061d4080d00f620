// RUN: python -m rt opt --split-input-file --pass=iree-stream-annotate-dispatch-arguments %s | filecheck %s

// Tests the seeds' @predict_dispatch_2 after binding fusion: bindings rebased to offset 0 get
// the resource base alignment (64).
// CHECK-LABEL: stream.executable private @ex
// CHECK: func.func @fn(%{{.+}}: !stream.binding {stream.alignment = 64 : index}, %{{.+}}: !stream.binding {stream.alignment = 64 : index}) {
stream.executable private @ex {
  stream.executable.export public @fn workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @fn(%arg0: !stream.binding, %arg1: !stream.binding) {
      return
    }
  }
}
util.func public @predict(%arg0: !stream.resource<transient>) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c192 = arith.constant 192 : index
  %t = stream.cmd.execute with(%arg0 as %a: !stream.resource<transient>{%c192}) {
    stream.cmd.dispatch @ex::@fn[%c1] {
      ro %a[%c0 for %c192] : !stream.resource<transient>{%c192},
      wo %a[%c0 for %c192] : !stream.resource<transient>{%c192}
    }
  } => !stream.timepoint
  util.return %t : !stream.timepoint
}

// -----

// Tests potential values and alignments of operands over two dispatch sites: constants 64 and
// 192 (values [64, 192], alignment 64), a select of 8/24 and the constant 16 (values
// [8, 16, 24], alignment 8), a layout-slices style `(x + 63) & -64` (alignment 64, no values),
// an unknown function argument (nothing), a constant 0 at both sites (values [0], no
// alignment); and a binding whose offset is 16 at one site (alignment 16).
// CHECK-LABEL: stream.executable private @ops_ex
// CHECK: func.func @fn(%{{.+}}: !stream.binding {stream.alignment = 16 : index},
// CHECK-SAME: %{{.+}}: i32 {stream.values = [64 : i32, 192 : i32], stream.alignment = 64 : index},
// CHECK-SAME: %{{.+}}: index {stream.values = [8 : index, 16 : index, 24 : index], stream.alignment = 8 : index},
// CHECK-SAME: %{{.+}}: index {stream.alignment = 64 : index},
// CHECK-SAME: %{{.+}}: index,
// CHECK-SAME: %{{.+}}: i32 {stream.values = [0 : i32]}) {
stream.executable private @ops_ex {
  stream.executable.export public @fn workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @fn(%b: !stream.binding, %p: i32, %q: index, %r: index, %s: index, %z: i32) {
      return
    }
  }
}
util.func public @ops(%arg0: !stream.resource<external>, %cond: i1, %n: index) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c24 = arith.constant 24 : index
  %c63 = arith.constant 63 : index
  %cm64 = arith.constant -64 : index
  %c256 = arith.constant 256 : index
  %i64 = arith.constant 64 : i32
  %i192 = arith.constant 192 : i32
  %i0 = arith.constant 0 : i32
  %sel = arith.select %cond, %c8, %c24 : index
  %bump = arith.addi %n, %c63 : index
  %aligned = arith.andi %bump, %cm64 : index
  %t = stream.cmd.execute with(%arg0 as %a: !stream.resource<external>{%c256}) {
    stream.cmd.dispatch @ops_ex::@fn[%c1](%i64, %sel, %aligned, %n, %i0 : i32, index, index, index, i32) {
      ro %a[%c0 for %c16] : !stream.resource<external>{%c256}
    }
    stream.cmd.dispatch @ops_ex::@fn[%c1](%i192, %c16, %aligned, %n, %i0 : i32, index, index, index, i32) {
      ro %a[%c16 for %c16] : !stream.resource<external>{%c256}
    }
  } => !stream.timepoint
  util.return %t : !stream.timepoint
}

// -----

// Tests that an immutable global with an integer initial value gives its value, and a mutable
// one gives nothing.
// CHECK-LABEL: stream.executable private @globals_ex
// CHECK: func.func @fn(%{{.+}}: index {stream.values = [128 : index], stream.alignment = 128 : index}, %{{.+}}: index) {
util.global private @size = 128 : index
util.global private mutable @count = 3 : index
stream.executable private @globals_ex {
  stream.executable.export public @fn workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @fn(%a: index, %b: index) {
      return
    }
  }
}
util.func public @globals() -> !stream.timepoint {
  %c1 = arith.constant 1 : index
  %size = util.global.load @size : index
  %count = util.global.load @count : index
  %t = stream.cmd.execute with() {
    stream.cmd.dispatch @globals_ex::@fn[%c1](%size, %count : index, index) {
    }
  } => !stream.timepoint
  util.return %t : !stream.timepoint
}
