// RUN: python -m rt opt --split-input-file --pass=iree-hal-convert-to-hal %s | filecheck %s

// Tests that an imported/dispatched/exported elementwise add becomes buffer-view access, a
// one-shot command buffer with a dispatch (workgroup count cloned from the export), a queue
// submission (waiting on a null fence) signalling a fence that is awaited, and
// buffer_view.create for the result; and that the device and executable globals are bound in
// an initializer. The dispatch takes a dynamic size, so it is recorded on every call.
// CHECK-LABEL: util.global private @__device_0 = #hal.device.target
// CHECK: util.global private @__executable_ex___device_0 : !hal.executable
// CHECK: util.initializer {
// CHECK: %[[DEV:.+]] = hal.devices.get %{{.+}} : !hal.device
// CHECK-NEXT: util.global.store %[[DEV]], @__device_0 : !hal.device
// CHECK: %[[EXE:.+]] = hal.executable.create device(%[[DEV]] : !hal.device) affinity(%{{.+}}) target(@ex::@vmvx_bytecode) : !hal.executable
// CHECK-NEXT: util.global.store %[[EXE]], @__executable_ex___device_0 : !hal.executable
// CHECK-LABEL: util.func public @add
// CHECK: %a = hal.buffer_view.buffer<%arg0 : !hal.buffer_view> : !hal.buffer
// CHECK: %[[ALLOC:.+]] = hal.device.allocator<%{{.+}} : !hal.device> : !hal.allocator
// CHECK: %out = hal.allocator.allocate<%[[ALLOC]] : !hal.allocator> affinity(%{{.+}}) type(%{{.+}}) usage(%{{.+}}) : !hal.buffer{%size}
// CHECK: %[[CMD:.+]] = hal.command_buffer.create device(%[[D:.+]] : !hal.device) mode(OneShot) categories("Transfer|Dispatch")
// CHECK: %[[X:.+]] = util.global.load @__executable_ex___device_0 : !hal.executable
// CHECK: %[[W:.+]] = arith.ceildivui %{{.+}}, %c64 : index
// CHECK: hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer> target(%[[X]] : !hal.executable)[%{{.+}}] workgroups([%[[W]], %c1, %c1]) constants([%n32]) bindings([
// CHECK-NEXT: (%a : !hal.buffer)[%c0, %size],
// CHECK-NEXT: (%b : !hal.buffer)[%c0, %size],
// CHECK-NEXT: (%out : !hal.buffer)[%c0, %size]
// CHECK: hal.command_buffer.finalize<%[[CMD]] : !hal.command_buffer>
// CHECK: %[[IMM:.+]] = util.null : !hal.fence
// CHECK-NEXT: %[[T:.+]] = hal.fence.create device(%[[D]] : !hal.device)
// CHECK-NEXT: hal.device.queue.execute<%[[D]] : !hal.device> affinity(%{{.+}}) wait(%[[IMM]]) signal(%[[T]]) commands(%[[CMD]])
// CHECK: hal.fence.await until([%[[T]]]) timeout_millis(%{{.+}})
// CHECK: %v = hal.buffer_view.create buffer(%out : !hal.buffer)[%{{.+}}, %size] shape([%n]) type(%{{.+}}) encoding(%{{.+}}) : !hal.buffer_view
// CHECK-NOT: stream.cmd
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.global private @__device_0 = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
  hal.executable private @ex {
    hal.executable.variant public @vmvx_bytecode target(#hal.executable.target<"vmvx", "vmvx-bytecode">) {
      hal.executable.export public @add_dispatch_0 ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly">, #hal.pipeline.binding<storage_buffer, "ReadOnly">, #hal.pipeline.binding<storage_buffer>]>) count(%device: !hal.device, %c0: i32) -> (index, index, index) {
        %0 = arith.extui %c0 : i32 to i64
        %1 = arith.index_cast %0 : i64 to index
        %c64 = arith.constant 64 : index
        %2 = arith.ceildivui %1, %c64 : index
        %c1 = arith.constant 1 : index
        hal.return %2, %c1, %c1 : index, index, index
      }
      hal.executable.binary public @vmvx_bytecode format("vmvx-bytecode") metadata("{}") data(dense<"0x00000000"> : vector<4xi8>)
    }
  }
  util.func public @add(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view {
    %c0 = arith.constant 0 : index
    %n = hal.buffer_view.dim<%arg0 : !hal.buffer_view>[0] : index
    %c4 = arith.constant 4 : index
    %size = arith.muli %n, %c4 : index
    %et = hal.element_type<f32> : i32
    %enc = hal.encoding_type<dense_row_major> : i32
    hal.buffer_view.assert<%arg0 : !hal.buffer_view> message("input0") shape([%n]) type(%et) encoding(%enc)
    hal.buffer_view.assert<%arg1 : !hal.buffer_view> message("input1") shape([%n]) type(%et) encoding(%enc)
    %a = stream.tensor.import %arg0 : !hal.buffer_view -> tensor<?xf32>{%n} in !stream.resource<external>{%size}
    %b = stream.tensor.import %arg1 : !hal.buffer_view -> tensor<?xf32>{%n} in !stream.resource<external>{%size}
    %out = stream.resource.alloc uninitialized : !stream.resource<external>{%size}
    %n32 = arith.index_cast %n : index to i32
    %t = stream.cmd.execute with(%a as %x: !stream.resource<external>{%size}, %b as %y: !stream.resource<external>{%size}, %out as %z: !stream.resource<external>{%size}) {
      stream.cmd.dispatch @ex::@add_dispatch_0[%n](%n32 : i32) {
        ro %x[%c0 for %size] : !stream.resource<external>{%size},
        ro %y[%c0 for %size] : !stream.resource<external>{%size},
        wo %z[%c0 for %size] : !stream.resource<external>{%size}
      }
    } => !stream.timepoint
    %r = stream.timepoint.await %t => %out : !stream.resource<external>{%size}
    %v = stream.tensor.export %r : tensor<?xf32>{%n} in !stream.resource<external>{%size} -> !hal.buffer_view
    util.return %v : !hal.buffer_view
  }
}

// -----

// Tests that transient allocations become queue alloca/dealloca ordered by fences, that
// copies and fills are recorded with a barrier between them, and that timepoint joins
// become fence joins.
// CHECK-LABEL: util.func public @transients
// CHECK: %[[WAIT:.+]] = util.null : !hal.fence
// CHECK-NEXT: %[[READY:.+]] = hal.fence.create
// CHECK: %r = hal.device.queue.alloca<%{{.+}} : !hal.device> affinity(%{{.+}}) wait(%[[WAIT]]) signal(%[[READY]]) pool(%{{.+}}) type(%{{.+}}) usage(%{{.+}}) flags(None) : !hal.buffer{%c128}
// CHECK: hal.command_buffer.fill_buffer<%[[CMD:.+]] : !hal.command_buffer> target(%r : !hal.buffer)[%c0, %c64] pattern(%p : i32)
// CHECK-NEXT: hal.command_buffer.execution_barrier<%[[CMD]] : !hal.command_buffer>
// CHECK-NEXT: hal.command_buffer.copy_buffer<%[[CMD]] : !hal.command_buffer> source(%r : !hal.buffer)[%c0] target(%r : !hal.buffer)[%c64] length(%c64)
// CHECK: hal.device.queue.execute<%{{.+}} : !hal.device> affinity(%{{.+}}) wait(%[[READY]]) signal(%[[DONE:.+]]) commands(%[[CMD]])
// CHECK: hal.device.queue.dealloca<%{{.+}} : !hal.device> affinity(%{{.+}}) wait(%[[DONE]]) signal(%[[FREED:.+]]) buffer(%r : !hal.buffer)
// CHECK: %[[J:.+]] = hal.fence.join at([%[[FREED]], %[[DONE]]])
// CHECK: util.return %[[J]] : !hal.fence
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.global private @__device_0 = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
  util.func public @transients(%p: i32) -> !stream.timepoint {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %r, %rt = stream.resource.alloca uninitialized : !stream.resource<transient>{%c128} => !stream.timepoint
    %t = stream.cmd.execute await(%rt) => with(%r as %x: !stream.resource<transient>{%c128}) {
      stream.cmd.fill %p, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c128}
      stream.cmd.copy %x[%c0], %x[%c64], %c64 : !stream.resource<transient>{%c128} -> !stream.resource<transient>{%c128}
    } => !stream.timepoint
    %d = stream.resource.dealloca await(%t) => %r : !stream.resource<transient>{%c128} => !stream.timepoint
    %j = stream.timepoint.join max(%d, %t) => !stream.timepoint
    util.return %j : !stream.timepoint
  }
}

// -----

// Tests that an execute (memoized: its fill is static), alloca and dealloca awaiting several
// timepoints wait on the hal.fence.join of all of them, not on the first one only.
// CHECK-LABEL: util.func public @await_lists
// CHECK-SAME: (%[[A:.+]]: !hal.fence, %[[B:.+]]: !hal.fence, %[[C:.+]]: !hal.fence)
// CHECK: %[[J0:.+]] = hal.fence.join at([%[[A]], %[[B]]]) flags(None) : !hal.fence
// CHECK: hal.device.queue.alloca<%{{.+}} : !hal.device> affinity(%{{.+}}) wait(%[[J0]]) signal(%[[READY:[^)]+]])
// CHECK: %[[J1:.+]] = hal.fence.join at([%[[READY]], %[[B]], %[[C]]]) flags(None) : !hal.fence
// CHECK: hal.device.queue.execute.indirect<%{{.+}} : !hal.device> affinity(%{{.+}}) wait(%[[J1]]) signal(%[[DONE:[^)]+]])
// CHECK: %[[J2:.+]] = hal.fence.join at([%[[DONE]], %[[A]]]) flags(None) : !hal.fence
// CHECK: hal.device.queue.dealloca<%{{.+}} : !hal.device> affinity(%{{.+}}) wait(%[[J2]])
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.global private @__device_0 = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
  util.func public @await_lists(%a: !stream.timepoint, %b: !stream.timepoint, %c: !stream.timepoint) -> !stream.timepoint {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %p = arith.constant 7 : i32
    %r, %rt = stream.resource.alloca uninitialized await(%a, %b) => !stream.resource<transient>{%c64} => !stream.timepoint
    %t = stream.cmd.execute await(%rt, %b, %c) => with(%r as %x: !stream.resource<transient>{%c64}) {
      stream.cmd.fill %p, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
    } => !stream.timepoint
    %d = stream.resource.dealloca await(%t, %a) => %r : !stream.resource<transient>{%c64} => !stream.timepoint
    util.return %d : !stream.timepoint
  }
}

// -----

// Tests that host element reads and writes of a staging resource become hal.buffer.load
// and hal.buffer.store at the same offsets with the element type kept.
// CHECK-LABEL: util.func public @element_access
// CHECK-SAME: (%[[R:.+]]: !hal.buffer, %[[S:.+]]: index, %[[V:.+]]: f64)
// CHECK: %[[X:.+]] = hal.buffer.load<%[[R]] : !hal.buffer>[%c8] : i64
// CHECK-NEXT: hal.buffer.store<%[[R]] : !hal.buffer>[%c16] value(%[[V]] : f64)
// CHECK-NEXT: util.return %[[X]] : i64
// CHECK-NOT: stream.resource
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.global private @__device_0 = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
  util.func public @element_access(%r: !stream.resource<staging>, %s: index, %v: f64) -> i64 {
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %x = stream.resource.load %r[%c8] : !stream.resource<staging>{%s} -> i64
    stream.resource.store %v, %r[%c16] : f64 -> !stream.resource<staging>{%s}
    util.return %x : i64
  }
}

// -----

// Tests that f16 fill patterns and f16 push constants travel as their 16-bit patterns
// (bitcast to i16; push constants zero-extended to i32).
// CHECK-LABEL: util.func public @f16_operands
// CHECK: %[[PB:.+]] = arith.bitcast %h : f16 to i16
// CHECK: hal.command_buffer.fill_buffer<%{{.+}} : !hal.command_buffer> target(%r : !hal.buffer)[%c0, %c64] pattern(%[[PB]] : i16)
// CHECK: %[[CB:.+]] = arith.bitcast %h : f16 to i16
// CHECK-NEXT: %[[CE:.+]] = arith.extui %[[CB]] : i16 to i32
// CHECK: hal.command_buffer.dispatch<{{.+}} constants([%[[CE]]])
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.global private @__device_0 = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
  hal.executable private @ex {
    hal.executable.variant public @vmvx_bytecode target(#hal.executable.target<"vmvx", "vmvx-bytecode">) {
      hal.executable.export public @scale ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer>]>)
      hal.executable.binary public @vmvx_bytecode format("vmvx-bytecode") metadata("{}") data(dense<"0x00000000"> : vector<4xi8>)
    }
  }
  util.func public @f16_operands(%r: !stream.resource<transient>, %h: f16) -> !stream.timepoint {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %t = stream.cmd.execute with(%r as %x: !stream.resource<transient>{%c64}) {
      stream.cmd.fill %h, %x[%c0 for %c64] : f16 -> !stream.resource<transient>{%c64}
      stream.cmd.dispatch @ex::@scale(%h : f16) {
        rw %x[%c0 for %c64] : !stream.resource<transient>{%c64}
      }
    } => !stream.timepoint
    util.return %t : !stream.timepoint
  }
}

// -----

// Tests that in a module with two devices the rt.abi reflection records the device of each
// tensor argument (its import's affinity) and result (its export's), and that an exported
// packed tensor's buffer view carries its layout identifier (rt.layout) for the runtime.
// CHECK-LABEL: util.func public @handoff
// CHECK-SAME: rt.abi = "{\22args\22:[{\22name\22:\22x\22,\22kind\22:\22tensor\22,\22device\22:1}],\22results\22:[{\22name\22:\22y\22,\22kind\22:\22tensor\22,\22device\22:0}]}"
// CHECK: hal.buffer_view.create buffer(%r : !hal.buffer)
// CHECK-SAME: {rt.layout = "packed<f32, innerDimsPos = [0, 1], innerTileSizes = [8, 4], outerDimsPerm = [0, 1]>"}
#vmvx = #hal.executable.target<"vmvx", "vmvx-bytecode">
#enc = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], layouts = [#iree_cpu.vmvx_encoding_layout<configuration = {encoding_info = {innerDimsPos = [0, 1], innerTileSizes = [8, 4], outerDimsPerm = [0, 1]}}>]>
module {
  util.global private @a = #hal.device.target<"local", [#vmvx]> : !hal.device
  util.global private @b = #hal.device.target<"local", [#vmvx]> : !hal.device
  util.func public @handoff(%x: !hal.buffer_view, %r: !stream.resource<external>) -> !hal.buffer_view attributes {iree.reflection = {rt.abi = "{\22args\22:[{\22name\22:\22x\22,\22kind\22:\22tensor\22}],\22results\22:[{\22name\22:\22y\22,\22kind\22:\22tensor\22}]}"}} {
    %c1024 = arith.constant 1024 : index
    %i = stream.tensor.import on(#hal.device.affinity<@b>) %x : !hal.buffer_view -> tensor<16x16xf32> in !stream.resource<external>{%c1024}
    %v = stream.tensor.export on(#hal.device.affinity<@a>) %r : tensor<16x16xf32, #enc> in !stream.resource<external>{%c1024} -> !hal.buffer_view
    util.return %v : !hal.buffer_view
  }
}

// -----

// Tests that stream.cmd.parameter.load becomes io_parameters.load on the device, waiting on a null fence and signaling a new one, with SHARING_IMMUTABLE usage for constant results.
// CHECK-LABEL: util.initializer
// CHECK: %[[D:.+]] = util.global.load @dev : !hal.device
// CHECK: %[[WAIT:.+]] = util.null : !hal.fence
// CHECK: %[[SIG:.+]] = hal.fence.create device(%[[D]] : !hal.device) : !hal.fence
// CHECK: %[[USAGE:.+]] = arith.constant 527363 : i32
// CHECK: %[[B:.+]] = io_parameters.load<%[[D]] : !hal.device> affinity(%{{.+}}) wait(%[[WAIT]]) signal(%[[SIG]]) type(%{{.+}}) usage(%[[USAGE]]) {
// CHECK-NEXT: %scope::%key[%zero] : !hal.buffer{%c16}
// CHECK-NEXT: }
// CHECK: util.global.store %[[B]], @w : !hal.buffer
// CHECK: util.global.store %[[SIG]], @w__timepoint : !hal.fence
#exe = #hal.executable.target<"vmvx", "vmvx-bytecode">
module {
  util.global private @dev = #hal.device.target<"local", [#exe]> : !hal.device
  util.global private @w : !stream.resource<constant>
  util.global private mutable @w__timepoint = #stream.timepoint<immediate> : !stream.timepoint
  util.initializer {
    %c16 = arith.constant 16 : index
    %scope = util.buffer.constant : !util.buffer = "model"
    %key = util.buffer.constant : !util.buffer = "w"
    %zero = arith.constant 0 : i64
    %r, %t = stream.cmd.parameter.load on(#hal.device.affinity<@dev>) {
      %scope::%key[%zero] : !stream.resource<constant>{%c16}
    } => !stream.timepoint
    util.global.store %r, @w : !stream.resource<constant>
    util.global.store %t, @w__timepoint : !stream.timepoint
    util.return
  }
}

// -----

// Tests that an execute whose commands are static (constant offsets, lengths, push constants
// and workgroup counts) is memoized: a reusable command buffer recorded once in the
// initializer, its resources as binding-table slots 0 and 1, and each call submits it with
// hal.device.queue.execute.indirect passing the resources as the binding table.
// CHECK-LABEL: util.global private @__command_buffer_0___device_0 : !hal.command_buffer
// CHECK: util.initializer {
// CHECK: %[[EXE:.+]] = hal.executable.create
// CHECK: %[[CAP:.+]] = arith.constant 2 : index
// CHECK: %[[CMD:.+]] = hal.command_buffer.create device(%{{.+}} : !hal.device) mode(None) categories("Transfer|Dispatch") affinity(%{{.+}}) bindings(%[[CAP]]) : !hal.command_buffer
// CHECK: %[[S0:.+]] = arith.constant 0 : index
// CHECK: %[[S1:.+]] = arith.constant 1 : index
// CHECK: hal.command_buffer.fill_buffer<%[[CMD]] : !hal.command_buffer> target(%[[S1]] : index)[%{{.+}}, %{{.+}}] pattern(%{{.+}} : i32)
// CHECK-NEXT: hal.command_buffer.execution_barrier<%[[CMD]] : !hal.command_buffer>
// CHECK: hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer> target(%{{.+}} : !hal.executable)[%{{.+}}] workgroups([%{{.+}}, %{{.+}}, %{{.+}}]) constants([%{{.+}}]) bindings([
// CHECK-NEXT: (%[[S0]] : index)[%{{.+}}, %{{.+}}],
// CHECK-NEXT: (%[[S1]] : index)[%{{.+}}, %{{.+}}]
// CHECK: hal.command_buffer.finalize<%[[CMD]] : !hal.command_buffer>
// CHECK-NEXT: util.global.store %[[CMD]], @__command_buffer_0___device_0 : !hal.command_buffer
// CHECK-LABEL: util.func public @static_work
// CHECK-NOT: hal.command_buffer.create
// CHECK: %[[C:.+]] = util.global.load @__command_buffer_0___device_0 : !hal.command_buffer
// CHECK: hal.device.queue.execute.indirect<%{{.+}} : !hal.device> affinity(%{{.+}}) wait(%{{.+}}) signal(%{{.+}}) commands(%[[C]]) bindings([
// CHECK-NEXT: (%a : !hal.buffer)[%{{.+}}, %c64],
// CHECK-NEXT: (%o : !hal.buffer)[%{{.+}}, %c64]
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.global private @__device_0 = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
  hal.executable private @ex {
    hal.executable.variant public @vmvx_bytecode target(#hal.executable.target<"vmvx", "vmvx-bytecode">) {
      hal.executable.export public @scale ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly">, #hal.pipeline.binding<storage_buffer>]>)
      hal.executable.binary public @vmvx_bytecode format("vmvx-bytecode") metadata("{}") data(dense<"0x00000000"> : vector<4xi8>)
    }
  }
  util.func public @static_work(%a: !stream.resource<external>, %o: !stream.resource<external>) -> !stream.timepoint {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %k = arith.constant 3 : i32
    %t = stream.cmd.execute with(%a as %x: !stream.resource<external>{%c64}, %o as %y: !stream.resource<external>{%c64}) {
      stream.cmd.fill %k, %y[%c0 for %c64] : i32 -> !stream.resource<external>{%c64}
      stream.cmd.dispatch @ex::@scale(%k : i32) {
        ro %x[%c0 for %c64] : !stream.resource<external>{%c64},
        rw %y[%c0 for %c64] : !stream.resource<external>{%c64}
      }
    } => !stream.timepoint
    util.return %t : !stream.timepoint
  }
}
