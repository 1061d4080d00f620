// stablehlo.rng_bit_generator (helpers/stablehlo/bit_generator.py). Expected bits: jax.lax.rng_bit_generator
// on CPU (JAX 0.10.2, XLA:CPU) with the same tensor<2xui64> state; the tensor<4xi32> state (IREE's own
// form) from the same algorithms read as IREE reads that form. The counter 2^64 - 2 wraps.

func.func @philox_u32_3x4() {
  %state = util.unfoldable_constant dense<[81985529216486895, -2]> : tensor<2xi64>
  %0:2 = "stablehlo.rng_bit_generator"(%state) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<2xi64>) -> (tensor<2xi64>, tensor<3x4xi32>)
  check.expect_eq_const(%0#0, dense<[81985529216486895, 1]> : tensor<2xi64>) : tensor<2xi64>
  check.expect_eq_const(%0#1, dense<[[172511636, 1103493126, -696111122, 948282324], [1105943027, 812877280, 1535849353, -1570572676], [1879495268, -685779746, 989808270, 1085667176]]> : tensor<3x4xi32>) : tensor<3x4xi32>
  return
}

func.func @default_is_philox_u32_5() {
  %state = util.unfoldable_constant dense<[81985529216486895, -2]> : tensor<2xi64>
  %0:2 = "stablehlo.rng_bit_generator"(%state) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<2xi64>) -> (tensor<2xi64>, tensor<5xi32>)
  check.expect_eq_const(%0#0, dense<[81985529216486895, 0]> : tensor<2xi64>) : tensor<2xi64>
  check.expect_eq_const(%0#1, dense<[172511636, 1103493126, -696111122, 948282324, 1105943027]> : tensor<5xi32>) : tensor<5xi32>
  return
}

func.func @philox_u64_3() {
  %state = util.unfoldable_constant dense<[81985529216486895, -2]> : tensor<2xi64>
  %0:2 = "stablehlo.rng_bit_generator"(%state) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<2xi64>) -> (tensor<2xi64>, tensor<3xi64>)
  check.expect_eq_const(%0#0, dense<[81985529216486895, 0]> : tensor<2xi64>) : tensor<2xi64>
  check.expect_eq_const(%0#1, dense<[4739466887703318932, 4072841572553732078, 3491281334367377907]> : tensor<3xi64>) : tensor<3xi64>
  return
}

func.func @three_fry_u32_3x5() {
  %state = util.unfoldable_constant dense<[81985529216486895, -2]> : tensor<2xi64>
  %0:2 = "stablehlo.rng_bit_generator"(%state) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xi64>) -> (tensor<2xi64>, tensor<3x5xi32>)
  check.expect_eq_const(%0#0, dense<[81985529216486895, 7]> : tensor<2xi64>) : tensor<2xi64>
  check.expect_eq_const(%0#1, dense<[[-1326177957, -509976396, 188576916, -1392982820, -1432037239], [1973758215, -740456941, 902882801, -1898872860, 2083461592], [-562447427, 387185944, -1331887458, 2105865281, 1822680882]]> : tensor<3x5xi32>) : tensor<3x5xi32>
  return
}

func.func @three_fry_u32_3x2x3() {
  %state = util.unfoldable_constant dense<[81985529216486895, -2]> : tensor<2xi64>
  %0:2 = "stablehlo.rng_bit_generator"(%state) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xi64>) -> (tensor<2xi64>, tensor<3x2x3xi32>)
  check.expect_eq_const(%0#0, dense<[81985529216486895, 7]> : tensor<2xi64>) : tensor<2xi64>
  check.expect_eq_const(%0#1, dense<[[[-1326177957, 188576916, -1432037239], [-509976396, -1392982820, 1798685940]], [[1973758215, 902882801, 2083461592], [-740456941, -1898872860, 42261475]], [[-562447427, -1331887458, 1822680882], [387185944, 2105865281, -1539609799]]]> : tensor<3x2x3xi32>) : tensor<3x2x3xi32>
  return
}

func.func @three_fry_u64_2x2() {
  %state = util.unfoldable_constant dense<[81985529216486895, -2]> : tensor<2xi64>
  %0:2 = "stablehlo.rng_bit_generator"(%state) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xi64>) -> (tensor<2xi64>, tensor<2x2xi64>)
  check.expect_eq_const(%0#0, dense<[81985529216486895, 2]> : tensor<2xi64>) : tensor<2xi64>
  check.expect_eq_const(%0#1, dense<[[-2190331939583155877, -5982815655601277804], [7725297290937948297, -3180238343717443321]]> : tensor<2x2xi64>) : tensor<2x2xi64>
  return
}

func.func @three_fry_u32_scalar() {
  %state = util.unfoldable_constant dense<[81985529216486895, -2]> : tensor<2xi64>
  %0:2 = "stablehlo.rng_bit_generator"(%state) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xi64>) -> (tensor<2xi64>, tensor<i32>)
  check.expect_eq_const(%0#0, dense<[81985529216486895, -1]> : tensor<2xi64>) : tensor<2xi64>
  check.expect_eq_const(%0#1, dense<-1326177957> : tensor<i32>) : tensor<i32>
  return
}

func.func @philox_iree_state_form() {
  %state = util.unfoldable_constant dense<[7, -2147483647, -2, 5]> : tensor<4xi32>
  %0:2 = "stablehlo.rng_bit_generator"(%state) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<6xi32>)
  check.expect_eq_const(%0#0, dense<[7, -2147483647, 7, -2]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%0#1, dense<[1159989977, -1497285307, -783676484, 436944800, -321692961, -1089255902]> : tensor<6xi32>) : tensor<6xi32>
  return
}

func.func @three_fry_iree_state_form() {
  %state = util.unfoldable_constant dense<[7, -2147483647, -2, 5]> : tensor<4xi32>
  %0:2 = "stablehlo.rng_bit_generator"(%state) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<6xi32>)
  check.expect_eq_const(%0#0, dense<[7, -2147483647, 8, -2]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%0#1, dense<[537373225, 1791327998, 962884813, -1492054882, 554215215, -2062945165]> : tensor<6xi32>) : tensor<6xi32>
  return
}
