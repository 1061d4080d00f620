// flow.tensor.transfer as frontends write it: to the device by its affinity, and to a device
// promised before it is declared (#hal.device.promise, IREE's torch importer); on a
// one-device module both name the default device @__device_0 (rt compile --device=TARGET).
func.func @transfer_affinity_and_promise() {
  %x = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %a = flow.tensor.transfer %x : tensor<2x2xf32> to #hal.device.affinity<@__device_0>
  %p = flow.tensor.transfer %a : tensor<2x2xf32> to #hal.device.promise<@__device_0>
  %s = arith.addf %p, %x : tensor<2x2xf32>
  check.expect_almost_eq_const(%s, dense<[[2.0, 4.0], [6.0, 8.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}

func.func @transfer_dynamic() {
  %n = util.unfoldable_constant 3 : index
  %f = arith.constant 7 : i32
  %t = flow.tensor.splat %f : tensor<?xi32>{%n}
  %moved = flow.tensor.transfer %t : tensor<?xi32>{%n} to #hal.device.promise<@__device_0>
  %r = flow.tensor.reshape %moved : tensor<?xi32>{%n} -> tensor<3xi32>
  check.expect_eq_const(%r, dense<7> : tensor<3xi32>) : tensor<3xi32>
  return
}
