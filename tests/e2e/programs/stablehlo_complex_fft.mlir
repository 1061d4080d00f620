// Complex numbers and stablehlo.fft (passes/input/lower_complex.py, helpers/stablehlo/complex*.py) and
// iree_linalg_ext.fft in IREE's syntax (helpers/linalg_ext/fft.py). Expected values: numpy 2.4 in complex128
// on the f32 inputs written here, rounded to f32. fft_6, rfft_12 and irfft_5 take the DFT-matmul path;
// @jax_outlined_rfft_irfft is JAX 0.10.2's form of jnp.fft (private functions with complex signatures).

func.func @negate() {
  %re = util.unfoldable_constant dense<[0.5, -1.25, 2.0, 0.0]> : tensor<4xf32>
  %im = util.unfoldable_constant dense<[1.5, 0.75, -0.5, 1.0]> : tensor<4xf32>
  %z = stablehlo.complex %re, %im : tensor<4xcomplex<f32>>
  %r = stablehlo.negate %z : tensor<4xcomplex<f32>>
  %r_re = stablehlo.real %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %r_im = stablehlo.imag %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r_re, dense<[-0.5, 1.25, -2.0, -0.0]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%r_im, dense<[-1.5, -0.75, 0.5, -1.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @exponential() {
  %re = util.unfoldable_constant dense<[0.5, -1.25, 2.0, 0.0]> : tensor<4xf32>
  %im = util.unfoldable_constant dense<[1.5, 0.75, -0.5, 1.0]> : tensor<4xf32>
  %z = stablehlo.complex %re, %im : tensor<4xcomplex<f32>>
  %r = stablehlo.exponential %z : tensor<4xcomplex<f32>>
  %r_re = stablehlo.real %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %r_im = stablehlo.imag %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r_re, dense<[0.116625927, 0.209632367, 6.48450661, 0.540302277]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%r_im, dense<[1.64459121, 0.195292771, -3.54250216, 0.841470957]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @log() {
  %re = util.unfoldable_constant dense<[0.5, -1.25, 2.0, 0.0]> : tensor<4xf32>
  %im = util.unfoldable_constant dense<[1.5, 0.75, -0.5, 1.0]> : tensor<4xf32>
  %z = stablehlo.complex %re, %im : tensor<4xcomplex<f32>>
  %r = stablehlo.log %z : tensor<4xcomplex<f32>>
  %r_re = stablehlo.real %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %r_im = stablehlo.imag %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r_re, dense<[0.45814538, 0.376885891, 0.723459482, 0.0]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%r_im, dense<[1.24904573, 2.60117316, -0.244978666, 1.57079637]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @cosine() {
  %re = util.unfoldable_constant dense<[0.5, -1.25, 2.0, 0.0]> : tensor<4xf32>
  %im = util.unfoldable_constant dense<[1.5, 0.75, -0.5, 1.0]> : tensor<4xf32>
  %z = stablehlo.complex %re, %im : tensor<4xcomplex<f32>>
  %r = stablehlo.cosine %z : tensor<4xcomplex<f32>>
  %r_re = stablehlo.real %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %r_im = stablehlo.imag %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r_re, dense<[2.06443357, 0.408242583, -0.469257981, 1.54308069]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%r_im, dense<[-1.02083099, 0.780365944, 0.473830611, -0.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @tanh() {
  %re = util.unfoldable_constant dense<[0.5, -1.25, 2.0, 0.0]> : tensor<4xf32>
  %im = util.unfoldable_constant dense<[1.5, 0.75, -0.5, 1.0]> : tensor<4xf32>
  %z = stablehlo.complex %re, %im : tensor<4xcomplex<f32>>
  %r = stablehlo.tanh %z : tensor<4xcomplex<f32>>
  %r_re = stablehlo.real %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %r_im = stablehlo.imag %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r_re, dense<[2.12479901, -0.975363314, 0.979940832, 0.0]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%r_im, dense<[0.255149215, 0.160807788, -0.0302159879, 1.55740774]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @sqrt() {
  %re = util.unfoldable_constant dense<[0.5, -1.25, 2.0, 0.0]> : tensor<4xf32>
  %im = util.unfoldable_constant dense<[1.5, 0.75, -0.5, 1.0]> : tensor<4xf32>
  %z = stablehlo.complex %re, %im : tensor<4xcomplex<f32>>
  %r = stablehlo.sqrt %z : tensor<4xcomplex<f32>>
  %r_re = stablehlo.real %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %r_im = stablehlo.imag %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r_re, dense<[1.02008307, 0.322287112, 1.42505312, 0.707106769]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%r_im, dense<[0.735234261, 1.16355872, -0.175432056, 0.707106769]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @add() {
  %z = util.unfoldable_constant dense<[(0.5,1.5), (-1.25,0.75), (2.0,-0.5), (0.0,1.0)]> : tensor<4xcomplex<f32>>
  %w = util.unfoldable_constant dense<[(-0.25,0.5), (1.0,-2.0), (0.5,1.25), (2.0,-0.75)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.add %z, %w : tensor<4xcomplex<f32>>
  %r_re = stablehlo.real %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %r_im = stablehlo.imag %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r_re, dense<[0.25, -0.25, 2.5, 2.0]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%r_im, dense<[2.0, -1.25, 0.75, 0.25]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @subtract() {
  %z = util.unfoldable_constant dense<[(0.5,1.5), (-1.25,0.75), (2.0,-0.5), (0.0,1.0)]> : tensor<4xcomplex<f32>>
  %w = util.unfoldable_constant dense<[(-0.25,0.5), (1.0,-2.0), (0.5,1.25), (2.0,-0.75)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.subtract %z, %w : tensor<4xcomplex<f32>>
  %r_re = stablehlo.real %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %r_im = stablehlo.imag %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r_re, dense<[0.75, -2.25, 1.5, -2.0]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%r_im, dense<[1.0, 2.75, -1.75, 1.75]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @multiply() {
  %z = util.unfoldable_constant dense<[(0.5,1.5), (-1.25,0.75), (2.0,-0.5), (0.0,1.0)]> : tensor<4xcomplex<f32>>
  %w = util.unfoldable_constant dense<[(-0.25,0.5), (1.0,-2.0), (0.5,1.25), (2.0,-0.75)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.multiply %z, %w : tensor<4xcomplex<f32>>
  %r_re = stablehlo.real %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %r_im = stablehlo.imag %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r_re, dense<[-0.875, 0.25, 1.625, 0.75]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%r_im, dense<[-0.125, 3.25, 2.25, 2.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @divide() {
  %z = util.unfoldable_constant dense<[(0.5,1.5), (-1.25,0.75), (2.0,-0.5), (0.0,1.0)]> : tensor<4xcomplex<f32>>
  %w = util.unfoldable_constant dense<[(-0.25,0.5), (1.0,-2.0), (0.5,1.25), (2.0,-0.75)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.divide %z, %w : tensor<4xcomplex<f32>>
  %r_re = stablehlo.real %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %r_im = stablehlo.imag %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r_re, dense<[2.0, -0.550000012, 0.206896558, -0.16438356]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%r_im, dense<[-2.0, -0.349999994, -1.51724136, 0.438356161]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @abs_compare_convert() {
  %z = util.unfoldable_constant dense<[(3.0,4.0), (-1.5,0.0), (0.0,-2.0), (1.0,1.0)]> : tensor<4xcomplex<f32>>
  %w = util.unfoldable_constant dense<[(3.0,4.0), (-1.5,1.0), (0.0,-2.0), (1.0,-1.0)]> : tensor<4xcomplex<f32>>
  %x = util.unfoldable_constant dense<[1.5, -2.0, 0.25, 4.0]> : tensor<4xf32>
  %abs = stablehlo.abs %z : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%abs, dense<[5.0, 1.5, 2.0, 1.41421354]> : tensor<4xf32>) : tensor<4xf32>
  %eq = stablehlo.compare EQ, %z, %w : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xi1>
  check.expect_eq_const(%eq, dense<[true, false, true, false]> : tensor<4xi1>) : tensor<4xi1>
  %ne = stablehlo.compare NE, %z, %w : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xi1>
  check.expect_eq_const(%ne, dense<[false, true, false, true]> : tensor<4xi1>) : tensor<4xi1>
  %cx = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
  %sum = stablehlo.add %cx, %z : tensor<4xcomplex<f32>>
  %s_re = stablehlo.real %sum : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %s_im = stablehlo.imag %sum : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%s_re, dense<[4.5, -3.5, 0.25, 5.0]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%s_im, dense<[4.0, 0.0, -2.0, 1.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @dot_general_and_shape_ops() {
  %a = util.unfoldable_constant dense<[[(-0.439848065,-0.802066624), (-0.0777065828,0.972576737), (-0.756560624,0.388135761)], [(0.0452167019,-0.102623083), (-0.181663185,0.280353606), (-0.856720924,-0.459022284)]]> : tensor<2x3xcomplex<f32>>
  %b = util.unfoldable_constant dense<[[(-0.396252066,-0.339889318), (-0.85331589,-0.821826279)], [(-0.894828856,-0.0641061813), (0.61495024,0.235378921)], [(0.626610696,0.102096125), (-0.990056753,-0.731876254)]]> : tensor<3x2xcomplex<f32>>
  %p = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xcomplex<f32>>, tensor<3x2xcomplex<f32>>) -> tensor<2x2xcomplex<f32>>
  %t = stablehlo.transpose %p, dims = [1, 0] : (tensor<2x2xcomplex<f32>>) -> tensor<2x2xcomplex<f32>>
  %f = stablehlo.reshape %t : (tensor<2x2xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %k = stablehlo.constant dense<[(1.0,2.0), (-0.5,0.25)]> : tensor<2xcomplex<f32>>
  %c = stablehlo.concatenate %f, %k, dim = 0 : (tensor<4xcomplex<f32>>, tensor<2xcomplex<f32>>) -> tensor<6xcomplex<f32>>
  %s = stablehlo.slice %c [1:5] : (tensor<6xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %r_re = stablehlo.real %s : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %r_im = stablehlo.imag %s : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r_re, dense<[-0.362233937, 0.472565472, 0.211629197, 1.0]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%r_im, dense<[-0.589022994, 1.79512298, 1.26152527, 2.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @fft_6_not_power_of_two() {
  %x = util.unfoldable_constant dense<[(0.404885679,-0.710473478), (0.225938812,-0.242858499), (-0.0651492849,-0.481552303), (-0.405745715,0.232419267), (0.83678776,0.389108777), (-0.833120584,0.407788604)]> : tensor<6xcomplex<f32>>
  %r = stablehlo.fft %x, type = FFT, length = [6] : (tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>>
  %r_re = stablehlo.real %r : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
  %r_im = stablehlo.imag %r : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
  check.expect_almost_eq_const(%r_re, dense<[0.16359666, -1.19627023, 0.107449308, 2.18945169, -0.273626089, 1.43871284]> : tensor<6xf32>) : tensor<6xf32>
  check.expect_almost_eq_const(%r_im, dense<[-0.405567646, -0.950277865, -2.21257019, -1.20026636, 1.18397522, -0.678133965]> : tensor<6xf32>) : tensor<6xf32>
  return
}

func.func @ifft_8() {
  %x = util.unfoldable_constant dense<[(0.54777211,-0.13832432), (-0.649527431,0.267437041), (0.492627859,0.39484632), (-0.507902205,-0.809261918), (0.0720048845,0.968239367), (-0.557670832,-0.420156211), (0.624349236,-0.107223347), (-0.78421104,-0.392183691)]> : tensor<8xcomplex<f32>>
  %r = stablehlo.fft %x, type = IFFT, length = [8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
  %r_re = stablehlo.real %r : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
  %r_im = stablehlo.imag %r : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
  check.expect_almost_eq_const(%r_re, dense<[-0.0953196734, -0.0597397164, -0.193240821, 0.130860776, 0.529508173, 0.0531641059, 0.0689407885, 0.113598451]> : tensor<8xf32>) : tensor<8xf32>
  check.expect_almost_eq_const(%r_im, dense<[-0.0295783449, -0.0408421196, 0.0784008801, -0.203191951, 0.308962852, -0.26872915, 0.0571721345, -0.0405186303]> : tensor<8xf32>) : tensor<8xf32>
  return
}

func.func @rfft_12_not_power_of_two() {
  %x = util.unfoldable_constant dense<[-0.920202076, -0.510933578, -0.345997393, 0.150341496, -0.860870481, 0.861586094, -0.602353692, 0.058812011, -0.287504941, -0.28123188, 0.822285593, 0.77847147]> : tensor<12xf32>
  %r = stablehlo.fft %x, type = RFFT, length = [12] : (tensor<12xf32>) -> tensor<7xcomplex<f32>>
  %r_re = stablehlo.real %r : (tensor<7xcomplex<f32>>) -> tensor<7xf32>
  %r_im = stablehlo.imag %r : (tensor<7xcomplex<f32>>) -> tensor<7xf32>
  check.expect_almost_eq_const(%r_re, dense<[-1.13759732, -0.0709101036, -0.461653769, -1.94251204, -1.91137052, 1.05987692, -3.25168872]> : tensor<7xf32>) : tensor<7xf32>
  check.expect_almost_eq_const(%r_im, dense<[0.0, 1.32005394, 2.32709384, 0.918204367, 1.29666662, -1.6965698, 0.0]> : tensor<7xf32>) : tensor<7xf32>
  return
}

func.func @irfft_5_odd() {
  %x = util.unfoldable_constant dense<[(0.22080566,-0.0693065226), (-0.440497398,-0.66058135), (-0.690404654,-0.00590764266)]> : tensor<3xcomplex<f32>>
  %r = stablehlo.fft %x, type = IRFFT, length = [5] : (tensor<3xcomplex<f32>>) -> tensor<5xf32>
  check.expect_almost_eq_const(%r, dense<[-0.408199698, 0.465821356, 0.254434973, -0.0516942143, -0.0395567492]> : tensor<5xf32>) : tensor<5xf32>
  return
}

func.func @rfft_batched_3x8() {
  %x = util.unfoldable_constant dense<[[-0.858756006, -0.966433585, 0.0630186871, -0.215110108, 0.992762625, -0.250946879, 0.0652182922, -0.220680386], [0.547352195, -0.244915247, -0.485825688, -0.0858860686, 0.606736898, 0.0440552272, 0.357550323, 0.204319313], [-0.529336751, -0.0366556644, -0.221987382, 0.59388262, -0.461972594, 0.626269996, -0.284644008, -0.33717379]]> : tensor<3x8xf32>
  %r = stablehlo.fft %x, type = RFFT, length = [8] : (tensor<3x8xf32>) -> tensor<3x5xcomplex<f32>>
  %r_re = stablehlo.real %r : (tensor<3x5xcomplex<f32>>) -> tensor<3x5xf32>
  %r_im = stablehlo.imag %r : (tensor<3x5xcomplex<f32>>) -> tensor<3x5xf32>
  check.expect_almost_eq_const(%r_re, dense<[[-1.39092731, -2.36138296, 0.00576964021, -1.3416543, 1.91541457], [0.943386972, -0.0585114919, 1.28236449, -0.0602579154, 1.10824049], [-0.651617587, -1.1944797, -0.48467797, 1.05975139, -2.34426379]]> : tensor<3x5xf32>) : tensor<3x5xf32>
  check.expect_almost_eq_const(%r_im, dense<[[0.0, 0.504186332, 0.781589985, 0.499787122, 0.0], [0.0, 1.25291514, 0.319293261, -0.433836848, 0.0], [0.0, -0.252253711, -0.332905501, -0.126940444, 0.0]]> : tensor<3x5xf32>) : tensor<3x5xf32>
  return
}

func.func @irfft_batched_2x8() {
  %x = util.unfoldable_constant dense<[[(0.839269936,0.0429413468), (0.740146697,-0.752852976), (0.0807683095,-0.584840059), (0.650752187,-0.639117241), (0.73392576,-0.520053208)], [(0.538881958,-0.257380456), (0.171706796,-0.420689821), (0.475928336,0.851526678), (-0.889728725,-0.950510383), (-0.34554711,0.130980313)]]> : tensor<2x5xcomplex<f32>>
  %r = stablehlo.fft %x, type = IRFFT, length = [8] : (tensor<2x5xcomplex<f32>>) -> tensor<2x8xf32>
  check.expect_almost_eq_const(%r, dense<[[0.564566255, 0.421248794, 0.204891324, 0.097223036, -0.130883187, -0.102492727, 0.148023456, -0.363307029], [-0.0363565423, 0.327705264, -0.227270365, 0.378194481, 0.322654426, -0.532361329, 0.0376399122, 0.268676132]]> : tensor<2x8xf32>) : tensor<2x8xf32>
  return
}

func.func @fft2_4x6() {
  %x = util.unfoldable_constant dense<[[(0.26486811,-0.628707945), (0.380283415,0.112366006), (-0.365243018,-0.140149876), (0.973649085,0.929925859), (0.203048125,-0.0765109509), (0.406767607,0.901913285)], [(-0.871791422,-0.626244307), (-0.234937206,0.703520894), (-0.516304314,0.287643731), (0.759531975,0.723046422), (-0.282006472,0.41280368), (-0.529371262,0.246798337)], [(0.690111995,-0.634844005), (-0.632914126,-0.818736911), (-0.211249515,-0.875385165), (0.826307774,-0.705361605), (-0.950833321,-0.54172349), (-0.69090271,-0.520805001)], [(-0.00325402967,-0.569035411), (-0.0925994143,-0.104343325), (0.946525335,0.299582422), (0.787778735,0.735324442), (0.295225441,0.806390464), (-0.937792718,-0.643476486)]]> : tensor<4x6xcomplex<f32>>
  %r = stablehlo.fft %x, type = FFT, length = [4, 6] : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xcomplex<f32>>
  %r_re = stablehlo.real %r : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
  %r_im = stablehlo.imag %r : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
  check.expect_almost_eq_const(%r_re, dense<[[0.214898065, -4.96336842, 5.84537888, -1.81670427, 4.22132969, -3.02192616], [4.05597973, 2.04182291, -3.49865079, -3.83216047, -1.59949756, -0.062210653], [1.57288873, 1.48921263, 0.330114305, -1.44827306, 4.34501219, 4.69119883], [1.60972655, -2.45982313, -1.48710608, 0.465030283, -0.747867465, 0.411829859]]> : tensor<4x6xf32>) : tensor<4x6xf32>
  check.expect_almost_eq_const(%r_im, dense<[[-0.726008952, -5.81318188, -1.30559206, -3.84635282, -0.296088666, -2.76576567], [7.8664546, -0.418585479, -0.78352654, 0.363911092, 0.531694949, -2.31190801], [-5.2700305, 3.79420137, 1.42876911, -1.74689341, -0.0649750009, 1.44929504], [2.52493048, 0.725273013, -1.6068902, -5.9289608, 1.3158778, -2.20463848]]> : tensor<4x6xf32>) : tensor<4x6xf32>
  return
}

func.func @linalg_ext_fft_stages() {
  %re = util.unfoldable_constant dense<[0.926320076, -0.483422905, -0.385745168, -0.409772098, 0.293885112, 0.348487437, 0.535483897, 0.101472922]> : tensor<8xf32>
  %im = util.unfoldable_constant dense<[-0.824491322, -0.483154595, -0.834146976, 0.947646201, 0.817672551, -0.546268463, 0.510141373, -0.675037622]> : tensor<8xf32>
  %s1 = arith.constant 1 : index
  %s2 = arith.constant 2 : index
  %s3 = arith.constant 3 : index
  %wr = arith.constant dense<[1.0, 0.707106769, 6.12323426e-17, -0.707106769]> : tensor<4xf32>
  %wi = arith.constant dense<[0.0, -0.707106769, -1.0, -0.707106769]> : tensor<4xf32>
  %a:2 = iree_linalg_ext.fft ins(%s1 : index) outs(%re, %im : tensor<8xf32>, tensor<8xf32>) : tensor<8xf32>, tensor<8xf32>
  %b:2 = iree_linalg_ext.fft ins(%s2 : index) outs(%a#0, %a#1 : tensor<8xf32>, tensor<8xf32>) : tensor<8xf32>, tensor<8xf32>
  %c:2 = iree_linalg_ext.fft ins(%s3, %wr, %wi : index, tensor<4xf32>, tensor<4xf32>) outs(%b#0, %b#1 : tensor<8xf32>, tensor<8xf32>) : tensor<8xf32>, tensor<8xf32>
  check.expect_almost_eq_const(%c#0, dense<[0.926709294, 1.08494806, 1.6747148, 5.3395381, -1.63194942, -1.82904851, 0.802114129, 1.04353428]> : tensor<8xf32>) : tensor<8xf32>
  check.expect_almost_eq_const(%c#1, dense<[-1.08763885, -0.507242262, -1.42656088, -0.711996078, -1.30065453, -0.223485067, -1.4157294, 0.07737647]> : tensor<8xf32>) : tensor<8xf32>
  return
}

func.func @jax_outlined_rfft_irfft() {
  %x = util.unfoldable_constant dense<[[0.563729584, 0.0804884434, -0.402075469, -0.719231367, 0.892481446, 0.174508899, 0.760793924, -0.0803037584], [-0.408377409, 0.404467672, 0.429391533, -0.193493903, -0.0488012172, -0.0317381397, 0.893105567, -0.789889455]]> : tensor<2x8xf32>
  %0 = call @fft(%x) : (tensor<2x8xf32>) -> tensor<2x5xcomplex<f32>>
  %cst = stablehlo.constant dense<(1.000000e+00,2.000000e+00)> : tensor<complex<f32>>
  %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<2x5xcomplex<f32>>
  %2 = stablehlo.multiply %0, %1 : tensor<2x5xcomplex<f32>>
  %c = stablehlo.constant dense<0> : tensor<i32>
  %3 = call @_pad(%2, %c) : (tensor<2x5xcomplex<f32>>, tensor<i32>) -> tensor<2x5xcomplex<f32>>
  %4 = call @fft_0(%3) : (tensor<2x5xcomplex<f32>>) -> tensor<2x8xf32>
  %5 = stablehlo.real %3 : (tensor<2x5xcomplex<f32>>) -> tensor<2x5xf32>
  %6 = stablehlo.imag %3 : (tensor<2x5xcomplex<f32>>) -> tensor<2x5xf32>
  check.expect_almost_eq_const(%5, dense<[[1.2703917, -3.3057282, 3.20655751, 0.575134277, 2.35946727], [0.25466466, 0.0600433424, 0.932550073, 2.14144206, 1.47597229]]> : tensor<2x5xf32>) : tensor<2x5xf32>
  check.expect_almost_eq_const(%6, dense<[[2.54078341, 1.79425335, 1.14045262, -2.07271576, 4.71893454], [0.509329319, -1.21214032, -4.9154644, -1.68648338, 2.95194459]]> : tensor<2x5xf32>) : tensor<2x5xf32>
  check.expect_almost_eq_const(%4, dense<[[0.572723269, -1.05806804, -1.31464922, 0.884250402, 1.93802023, 0.215572774, 0.618835211, -0.586292982], [0.999838471, 1.22066891, -0.135393664, -0.501177669, -0.100904197, 0.93173629, 0.101777866, -2.26188135]]> : tensor<2x8xf32>) : tensor<2x8xf32>
  return
}

func.func private @fft(%arg0: tensor<2x8xf32>) -> tensor<2x5xcomplex<f32>> {
  %0 = stablehlo.fft %arg0, type = RFFT, length = [8] : (tensor<2x8xf32>) -> tensor<2x5xcomplex<f32>>
  return %0 : tensor<2x5xcomplex<f32>>
}

func.func private @_pad(%arg0: tensor<2x5xcomplex<f32>>, %arg1: tensor<i32>) -> tensor<2x5xcomplex<f32>> {
  %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<complex<f32>>
  %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<2x5xcomplex<f32>>, tensor<complex<f32>>) -> tensor<2x5xcomplex<f32>>
  return %1 : tensor<2x5xcomplex<f32>>
}

func.func private @fft_0(%arg0: tensor<2x5xcomplex<f32>>) -> tensor<2x8xf32> {
  %0 = stablehlo.fft %arg0, type = IRFFT, length = [8] : (tensor<2x5xcomplex<f32>>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

func.func @rfft2_3x4() {
  %x = util.unfoldable_constant dense<[[0.268906713, -0.051213596, 0.644715965, -0.567179084], [0.882532775, 0.56714654, 0.543076992, 0.742396951], [-0.593385696, -0.51496917, -0.811145604, 0.257496506]]> : tensor<3x4xf32>
  %r = stablehlo.fft %x, type = RFFT, length = [3, 4] : (tensor<3x4xf32>) -> tensor<3x3xcomplex<f32>>
  %r_re = stablehlo.real %r : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
  %r_im = stablehlo.imag %r : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
  check.expect_almost_eq_const(%r_re, dense<[[1.36837924, 0.181406438, 0.501022995], [-0.241344646, -1.17162073, 2.04751158], [-0.241344646, -0.137213513, 2.04751158]]> : tensor<3x3xf32>) : tensor<3x3xf32>
  check.expect_almost_eq_const(%r_im, dense<[[0.0, 0.431750596, 0.0], [-3.80804992, -1.0952152, -1.0938983], [3.80804992, -0.884431839, 1.0938983]]> : tensor<3x3xf32>) : tensor<3x3xf32>
  return
}

func.func @irfft2_4x6() {
  %x = util.unfoldable_constant dense<[[(0.926131725,0.673357368), (-0.630154431,-0.145591289), (-0.590037823,-0.00178225792), (-0.00624978496,0.758498132)], [(0.942176998,-0.178710818), (0.255904824,0.108777039), (0.478904933,0.400059193), (0.0926265791,-0.255294323)], [(0.51313585,-0.416086793), (0.224407673,0.445910513), (0.558218122,0.381886452), (-0.428709179,-0.00759805553)], [(0.75001061,0.381505519), (0.498151124,0.351528049), (-0.400347441,0.150572971), (-0.462443531,0.640440822)]]> : tensor<4x4xcomplex<f32>>
  %r = stablehlo.fft %x, type = IRFFT, length = [4, 6] : (tensor<4x4xcomplex<f32>>) -> tensor<4x6xf32>
  check.expect_almost_eq_const(%r, dense<[[0.129865557, 0.0545116626, 0.092761457, 0.138878673, 0.0682078972, 0.298638552], [-0.0719874874, 0.0427777804, 0.275142938, -0.0798685178, 0.0832704082, -0.00603205152], [-0.119100913, -0.0276973657, 0.0389107652, 0.0796280429, 0.0404323898, -0.0754029304], [-0.192194238, 0.12166182, -0.00862202421, 0.0301309191, 0.12325424, -0.111035831]]> : tensor<4x6xf32>) : tensor<4x6xf32>
  return
}
