// RUN: python -m rt opt --split-input-file --pass=iree-vm-conversion %s | filecheck %s

// Tests that HAL channel ops become hal module imports with IREE's calling conventions and
// that the collective op is packed as iree_hal_collective_op_t: all_reduce (1) | sum (1) << 8
// | f32 (9) << 16 = 590081.
// CHECK: // imports (4):
// CHECK-NEXT: //   [0] hal.channel.create 0rIIrrii_r
// CHECK-NEXT: //   [1] hal.channel.rank_and_count 0r_ii
// CHECK-NEXT: //   [2] hal.channel.split 0riiI_r
// CHECK-NEXT: //   [3] hal.command_buffer.collective 0rriiiirrIIIII_v
// CHECK: call.import @hal.channel.create
// CHECK: call.import @hal.channel.rank_and_count
// CHECK: call.import @hal.channel.split
// CHECK: const.i32 %i{{[0-9]+}}, 590081
// CHECK: call.import @hal.command_buffer.collective
util.func public @f(%dev: !hal.device, %cmd: !hal.command_buffer, %b: !hal.buffer, %n: index) -> i32 {
  %c0 = arith.constant 0 : index
  %m1 = arith.constant -1 : i32
  %aff = arith.constant -1 : i64
  %ch = hal.channel.create device(%dev : !hal.device) affinity(%aff) flags(None) group("g") rank(%m1) count(%m1) : !hal.channel
  %rank, %count = hal.channel.rank_and_count<%ch : !hal.channel> : i32, i32
  %s = hal.channel.split<%ch : !hal.channel> color(%rank) key(%count) flags(None) : !hal.channel
  hal.command_buffer.collective<%cmd : !hal.command_buffer> channel(%s : !hal.channel) op(<all_reduce with sum : f32>) send(%b : !hal.buffer)[%c0, %n] recv(%b : !hal.buffer)[%c0, %n] count(%n) flags(None)
  util.return %rank : i32
}
