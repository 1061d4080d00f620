module @jit_encoder attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x64xf32>, %arg1: tensor<64x64xf32>, %arg2: tensor<64x64xf32>, %arg3: tensor<64x64xf32>, %arg4: tensor<64x64xf32>, %arg5: tensor<64xf32>, %arg6: tensor<64xf32>, %arg7: tensor<64x128xf32>, %arg8: tensor<128x64xf32>) -> (tensor<32x64xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
    %1 = stablehlo.reshape %0 : (tensor<32x64xf32>) -> tensor<32x2x32xf32>
    %2 = stablehlo.transpose %1, dims = [1, 0, 2] : (tensor<32x2x32xf32>) -> tensor<2x32x32xf32>
    %3 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
    %4 = stablehlo.reshape %3 : (tensor<32x64xf32>) -> tensor<32x2x32xf32>
    %5 = stablehlo.transpose %4, dims = [1, 0, 2] : (tensor<32x2x32xf32>) -> tensor<2x32x32xf32>
    %6 = stablehlo.dot_general %arg0, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
    %7 = stablehlo.reshape %6 : (tensor<32x64xf32>) -> tensor<32x2x32xf32>
    %8 = stablehlo.transpose %7, dims = [1, 0, 2] : (tensor<32x2x32xf32>) -> tensor<2x32x32xf32>
    %9 = stablehlo.transpose %5, dims = [0, 2, 1] : (tensor<2x32x32xf32>) -> tensor<2x32x32xf32>
    %10 = stablehlo.dot_general %2, %9, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x32x32xf32>, tensor<2x32x32xf32>) -> tensor<2x32x32xf32>
    %cst = stablehlo.constant dense<5.65685415> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x32x32xf32>
    %12 = stablehlo.divide %10, %11 : tensor<2x32x32xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %13 = stablehlo.reduce(%12 init: %cst_0) applies stablehlo.maximum across dimensions = [2] : (tensor<2x32x32xf32>, tensor<f32>) -> tensor<2x32xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %15 = stablehlo.maximum %14, %13 : tensor<2x32xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<2x32xf32>) -> tensor<2x32x1xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1, 2] : (tensor<2x32x1xf32>) -> tensor<2x32x32xf32>
    %18 = stablehlo.subtract %12, %17 : tensor<2x32x32xf32>
    %19 = stablehlo.exponential %18 : tensor<2x32x32xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.reduce(%19 init: %cst_2) applies stablehlo.add across dimensions = [2] : (tensor<2x32x32xf32>, tensor<f32>) -> tensor<2x32xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1] : (tensor<2x32xf32>) -> tensor<2x32x1xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 2] : (tensor<2x32x1xf32>) -> tensor<2x32x32xf32>
    %23 = stablehlo.divide %19, %22 : tensor<2x32x32xf32>
    %24 = stablehlo.dot_general %23, %8, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x32x32xf32>, tensor<2x32x32xf32>) -> tensor<2x32x32xf32>
    %25 = stablehlo.transpose %24, dims = [1, 0, 2] : (tensor<2x32x32xf32>) -> tensor<32x2x32xf32>
    %26 = stablehlo.reshape %25 : (tensor<32x2x32xf32>) -> tensor<32x64xf32>
    %27 = stablehlo.dot_general %26, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
    %28 = stablehlo.add %arg0, %27 : tensor<32x64xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %29 = stablehlo.reduce(%28 init: %cst_3) applies stablehlo.add across dimensions = [1] : (tensor<32x64xf32>, tensor<f32>) -> tensor<32xf32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [0] : (tensor<32xf32>) -> tensor<32x1xf32>
    %cst_4 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<32x1xf32>
    %32 = stablehlo.divide %30, %31 : tensor<32x1xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x64xf32>
    %34 = stablehlo.subtract %28, %33 : tensor<32x64xf32>
    %35 = stablehlo.multiply %34, %34 : tensor<32x64xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %36 = stablehlo.reduce(%35 init: %cst_5) applies stablehlo.add across dimensions = [1] : (tensor<32x64xf32>, tensor<f32>) -> tensor<32xf32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [0] : (tensor<32xf32>) -> tensor<32x1xf32>
    %cst_6 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<32x1xf32>
    %39 = stablehlo.divide %37, %38 : tensor<32x1xf32>
    %40 = stablehlo.broadcast_in_dim %32, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x64xf32>
    %41 = stablehlo.subtract %28, %40 : tensor<32x64xf32>
    %cst_7 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<32x1xf32>
    %43 = stablehlo.add %39, %42 : tensor<32x1xf32>
    %44 = stablehlo.sqrt %43 : tensor<32x1xf32>
    %45 = stablehlo.broadcast_in_dim %44, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x64xf32>
    %46 = stablehlo.divide %41, %45 : tensor<32x64xf32>
    %47 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %48 = stablehlo.broadcast_in_dim %47, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<32x64xf32>
    %49 = stablehlo.multiply %46, %48 : tensor<32x64xf32>
    %50 = stablehlo.broadcast_in_dim %arg6, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %51 = stablehlo.broadcast_in_dim %50, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<32x64xf32>
    %52 = stablehlo.add %49, %51 : tensor<32x64xf32>
    %53 = stablehlo.dot_general %52, %arg7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
    %cst_8 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<32x128xf32>
    %55 = stablehlo.multiply %54, %53 : tensor<32x128xf32>
    %56 = stablehlo.negate %53 : tensor<32x128xf32>
    %cst_9 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<32x128xf32>
    %58 = stablehlo.multiply %56, %57 : tensor<32x128xf32>
    %59 = chlo.erfc %58 : tensor<32x128xf32> -> tensor<32x128xf32>
    %60 = stablehlo.multiply %55, %59 : tensor<32x128xf32>
    %61 = stablehlo.dot_general %60, %arg8, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x128xf32>, tensor<128x64xf32>) -> tensor<32x64xf32>
    %62 = stablehlo.add %52, %61 : tensor<32x64xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %63 = stablehlo.reduce(%62 init: %cst_10) applies stablehlo.add across dimensions = [1] : (tensor<32x64xf32>, tensor<f32>) -> tensor<32xf32>
    %64 = stablehlo.broadcast_in_dim %63, dims = [0] : (tensor<32xf32>) -> tensor<32x1xf32>
    %cst_11 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %65 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<32x1xf32>
    %66 = stablehlo.divide %64, %65 : tensor<32x1xf32>
    %67 = stablehlo.broadcast_in_dim %66, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x64xf32>
    %68 = stablehlo.subtract %62, %67 : tensor<32x64xf32>
    %69 = stablehlo.multiply %68, %68 : tensor<32x64xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %70 = stablehlo.reduce(%69 init: %cst_12) applies stablehlo.add across dimensions = [1] : (tensor<32x64xf32>, tensor<f32>) -> tensor<32xf32>
    %71 = stablehlo.broadcast_in_dim %70, dims = [0] : (tensor<32xf32>) -> tensor<32x1xf32>
    %cst_13 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<32x1xf32>
    %73 = stablehlo.divide %71, %72 : tensor<32x1xf32>
    %74 = stablehlo.broadcast_in_dim %66, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x64xf32>
    %75 = stablehlo.subtract %62, %74 : tensor<32x64xf32>
    %cst_14 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<32x1xf32>
    %77 = stablehlo.add %73, %76 : tensor<32x1xf32>
    %78 = stablehlo.sqrt %77 : tensor<32x1xf32>
    %79 = stablehlo.broadcast_in_dim %78, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x64xf32>
    %80 = stablehlo.divide %75, %79 : tensor<32x64xf32>
    %81 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %82 = stablehlo.broadcast_in_dim %81, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<32x64xf32>
    %83 = stablehlo.multiply %80, %82 : tensor<32x64xf32>
    %84 = stablehlo.broadcast_in_dim %arg6, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %85 = stablehlo.broadcast_in_dim %84, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<32x64xf32>
    %86 = stablehlo.add %83, %85 : tensor<32x64xf32>
    return %86 : tensor<32x64xf32>
  }
}
