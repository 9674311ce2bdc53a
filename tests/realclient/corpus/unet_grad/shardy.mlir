module @jit_unet_loss_and_grad attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "space"=4]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "space", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg1: tensor<3x3x2x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg2: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg3: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg4: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg5: tensor<3x3x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg6: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg7: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg8: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg9: tensor<3x3x16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg10: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg11: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg12: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg13: tensor<3x3x32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg14: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg15: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg16: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg17: tensor<3x3x16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg18: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg19: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg20: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg21: tensor<2x2x16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg22: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg23: tensor<2x2x16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg24: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg25: tensor<3x3x8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg26: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg27: tensor<3x3x16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg28: tensor<2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg29: tensor<1x1x8x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg30: tensor<4x16x16x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"space"}, {}, {}]>}, %arg31: tensor<4x16x16x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"space"}, {}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, []>}, tensor<8xf32> {jax.result_info = "result[1]['params']['ConvBlock_0']['Conv_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x2x8xf32> {jax.result_info = "result[1]['params']['ConvBlock_0']['Conv_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<8xf32> {jax.result_info = "result[1]['params']['ConvBlock_0']['GroupNorm_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<8xf32> {jax.result_info = "result[1]['params']['ConvBlock_0']['GroupNorm_0']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[1]['params']['ConvBlock_1']['Conv_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x8x16xf32> {jax.result_info = "result[1]['params']['ConvBlock_1']['Conv_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<16xf32> {jax.result_info = "result[1]['params']['ConvBlock_1']['GroupNorm_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[1]['params']['ConvBlock_1']['GroupNorm_0']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[1]['params']['ConvBlock_2']['Conv_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x16x16xf32> {jax.result_info = "result[1]['params']['ConvBlock_2']['Conv_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<16xf32> {jax.result_info = "result[1]['params']['ConvBlock_2']['GroupNorm_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[1]['params']['ConvBlock_2']['GroupNorm_0']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[1]['params']['ConvBlock_3']['Conv_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x32x16xf32> {jax.result_info = "result[1]['params']['ConvBlock_3']['Conv_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<16xf32> {jax.result_info = "result[1]['params']['ConvBlock_3']['GroupNorm_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[1]['params']['ConvBlock_3']['GroupNorm_0']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<8xf32> {jax.result_info = "result[1]['params']['ConvBlock_4']['Conv_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x16x8xf32> {jax.result_info = "result[1]['params']['ConvBlock_4']['Conv_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<8xf32> {jax.result_info = "result[1]['params']['ConvBlock_4']['GroupNorm_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<8xf32> {jax.result_info = "result[1]['params']['ConvBlock_4']['GroupNorm_0']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[1]['params']['ConvTranspose_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<2x2x16x16xf32> {jax.result_info = "result[1]['params']['ConvTranspose_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<8xf32> {jax.result_info = "result[1]['params']['ConvTranspose_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<2x2x16x8xf32> {jax.result_info = "result[1]['params']['ConvTranspose_1']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<8xf32> {jax.result_info = "result[1]['params']['Conv_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x8x8xf32> {jax.result_info = "result[1]['params']['Conv_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<16xf32> {jax.result_info = "result[1]['params']['Conv_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x16x16xf32> {jax.result_info = "result[1]['params']['Conv_1']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<2xf32> {jax.result_info = "result[1]['params']['Conv_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1x1x8x2xf32> {jax.result_info = "result[1]['params']['Conv_2']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}) {
    %0 = stablehlo.convolution(%arg30, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x16x16x2xf32>, tensor<3x3x2x8xf32>) -> tensor<4x16x16x8xf32>
    %1 = stablehlo.reshape %arg0 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<4x16x16x8xf32>
    %3 = stablehlo.add %0, %2 : tensor<4x16x16x8xf32>
    %4 = stablehlo.reshape %3 : (tensor<4x16x16x8xf32>) -> tensor<4x16x16x4x2xf32>
    %5 = chlo.square %4 : tensor<4x16x16x4x2xf32> -> tensor<4x16x16x4x2xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x16x16x4x2xf32>
    %7 = stablehlo.multiply %6, %4 : tensor<4x16x16x4x2xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.add across dimensions = [1, 2, 4] : (tensor<4x16x16x4x2xf32>, tensor<f32>) -> tensor<4x4xf32>
    %cst_1 = stablehlo.constant dense<5.120000e+02> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %10 = stablehlo.divide %8, %9 : tensor<4x4xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%5 init: %cst_2) applies stablehlo.add across dimensions = [1, 2, 4] : (tensor<4x16x16x4x2xf32>, tensor<f32>) -> tensor<4x4xf32>
    %cst_3 = stablehlo.constant dense<5.120000e+02> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %13 = stablehlo.divide %11, %12 : tensor<4x4xf32>
    %14 = chlo.square %10 : tensor<4x4xf32> -> tensor<4x4xf32>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %16 = stablehlo.multiply %15, %10 : tensor<4x4xf32>
    %17 = stablehlo.subtract %13, %14 : tensor<4x4xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %19 = stablehlo.maximum %18, %17 : tensor<4x4xf32>
    %20 = stablehlo.compare EQ, %17, %19, FLOAT : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %23 = stablehlo.select %20, %21, %22 : tensor<4x4xi1>, tensor<4x4xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %25 = stablehlo.compare EQ, %24, %19, FLOAT : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
    %cst_9 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %28 = stablehlo.select %25, %26, %27 : tensor<4x4xi1>, tensor<4x4xf32>
    %29 = stablehlo.divide %23, %28 : tensor<4x4xf32>
    %30 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<4x4xf32>) -> tensor<4x4x2xf32>
    %31 = stablehlo.reshape %30 : (tensor<4x4x2xf32>) -> tensor<4x8xf32>
    %32 = stablehlo.broadcast_in_dim %19, dims = [0, 1] : (tensor<4x4xf32>) -> tensor<4x4x2xf32>
    %33 = stablehlo.reshape %32 : (tensor<4x4x2xf32>) -> tensor<4x8xf32>
    %34 = stablehlo.broadcast_in_dim %31, dims = [0, 3] : (tensor<4x8xf32>) -> tensor<4x1x1x8xf32>
    %35 = stablehlo.broadcast_in_dim %33, dims = [0, 3] : (tensor<4x8xf32>) -> tensor<4x1x1x8xf32>
    %36 = stablehlo.broadcast_in_dim %34, dims = [0, 1, 2, 3] : (tensor<4x1x1x8xf32>) -> tensor<4x16x16x8xf32>
    %37 = stablehlo.subtract %3, %36 : tensor<4x16x16x8xf32>
    %cst_11 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x1x1x8xf32>
    %39 = stablehlo.add %35, %38 : tensor<4x1x1x8xf32>
    %40 = stablehlo.rsqrt %39 : tensor<4x1x1x8xf32>
    %41 = stablehlo.divide %40, %39 : tensor<4x1x1x8xf32>
    %cst_12 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4x1x1x8xf32>
    %43 = stablehlo.multiply %42, %41 : tensor<4x1x1x8xf32>
    %44 = stablehlo.reshape %arg3 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %45 = stablehlo.broadcast_in_dim %44, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<4x1x1x8xf32>
    %46 = stablehlo.multiply %40, %45 : tensor<4x1x1x8xf32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [0, 1, 2, 3] : (tensor<4x1x1x8xf32>) -> tensor<4x16x16x8xf32>
    %48 = stablehlo.multiply %37, %47 : tensor<4x16x16x8xf32>
    %49 = stablehlo.reshape %arg2 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %50 = stablehlo.broadcast_in_dim %49, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<4x16x16x8xf32>
    %51 = stablehlo.add %48, %50 : tensor<4x16x16x8xf32>
    %52:3 = call @silu(%51) : (tensor<4x16x16x8xf32>) -> (tensor<4x16x16x8xf32>, tensor<4x16x16x8xf32>, tensor<4x16x16x8xf32>)
    %53 = stablehlo.convolution(%52#0, %arg25) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x16x16x8xf32>, tensor<3x3x8x8xf32>) -> tensor<4x8x8x8xf32>
    %54 = stablehlo.reshape %arg24 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %55 = stablehlo.broadcast_in_dim %54, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<4x8x8x8xf32>
    %56 = stablehlo.add %53, %55 : tensor<4x8x8x8xf32>
    %57 = stablehlo.convolution(%56, %arg5) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x8xf32>, tensor<3x3x8x16xf32>) -> tensor<4x8x8x16xf32>
    %58 = stablehlo.reshape %arg4 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %59 = stablehlo.broadcast_in_dim %58, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<4x8x8x16xf32>
    %60 = stablehlo.add %57, %59 : tensor<4x8x8x16xf32>
    %61 = stablehlo.reshape %60 : (tensor<4x8x8x16xf32>) -> tensor<4x8x8x4x4xf32>
    %62 = chlo.square %61 : tensor<4x8x8x4x4xf32> -> tensor<4x8x8x4x4xf32>
    %cst_13 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<4x8x8x4x4xf32>
    %64 = stablehlo.multiply %63, %61 : tensor<4x8x8x4x4xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %65 = stablehlo.reduce(%61 init: %cst_14) applies stablehlo.add across dimensions = [1, 2, 4] : (tensor<4x8x8x4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    %cst_15 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %67 = stablehlo.divide %65, %66 : tensor<4x4xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %68 = stablehlo.reduce(%62 init: %cst_16) applies stablehlo.add across dimensions = [1, 2, 4] : (tensor<4x8x8x4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    %cst_17 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %69 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %70 = stablehlo.divide %68, %69 : tensor<4x4xf32>
    %71 = chlo.square %67 : tensor<4x4xf32> -> tensor<4x4xf32>
    %cst_18 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %73 = stablehlo.multiply %72, %67 : tensor<4x4xf32>
    %74 = stablehlo.subtract %70, %71 : tensor<4x4xf32>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %76 = stablehlo.maximum %75, %74 : tensor<4x4xf32>
    %77 = stablehlo.compare EQ, %74, %76, FLOAT : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
    %cst_20 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %78 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %80 = stablehlo.select %77, %78, %79 : tensor<4x4xi1>, tensor<4x4xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %81 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %82 = stablehlo.compare EQ, %81, %76, FLOAT : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
    %cst_23 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %cst_24 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %84 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %85 = stablehlo.select %82, %83, %84 : tensor<4x4xi1>, tensor<4x4xf32>
    %86 = stablehlo.divide %80, %85 : tensor<4x4xf32>
    %87 = stablehlo.broadcast_in_dim %67, dims = [0, 1] : (tensor<4x4xf32>) -> tensor<4x4x4xf32>
    %88 = stablehlo.reshape %87 : (tensor<4x4x4xf32>) -> tensor<4x16xf32>
    %89 = stablehlo.broadcast_in_dim %76, dims = [0, 1] : (tensor<4x4xf32>) -> tensor<4x4x4xf32>
    %90 = stablehlo.reshape %89 : (tensor<4x4x4xf32>) -> tensor<4x16xf32>
    %91 = stablehlo.broadcast_in_dim %88, dims = [0, 3] : (tensor<4x16xf32>) -> tensor<4x1x1x16xf32>
    %92 = stablehlo.broadcast_in_dim %90, dims = [0, 3] : (tensor<4x16xf32>) -> tensor<4x1x1x16xf32>
    %93 = stablehlo.broadcast_in_dim %91, dims = [0, 1, 2, 3] : (tensor<4x1x1x16xf32>) -> tensor<4x8x8x16xf32>
    %94 = stablehlo.subtract %60, %93 : tensor<4x8x8x16xf32>
    %cst_25 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %95 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<4x1x1x16xf32>
    %96 = stablehlo.add %92, %95 : tensor<4x1x1x16xf32>
    %97 = stablehlo.rsqrt %96 : tensor<4x1x1x16xf32>
    %98 = stablehlo.divide %97, %96 : tensor<4x1x1x16xf32>
    %cst_26 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %99 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<4x1x1x16xf32>
    %100 = stablehlo.multiply %99, %98 : tensor<4x1x1x16xf32>
    %101 = stablehlo.reshape %arg7 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %102 = stablehlo.broadcast_in_dim %101, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<4x1x1x16xf32>
    %103 = stablehlo.multiply %97, %102 : tensor<4x1x1x16xf32>
    %104 = stablehlo.broadcast_in_dim %103, dims = [0, 1, 2, 3] : (tensor<4x1x1x16xf32>) -> tensor<4x8x8x16xf32>
    %105 = stablehlo.multiply %94, %104 : tensor<4x8x8x16xf32>
    %106 = stablehlo.reshape %arg6 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %107 = stablehlo.broadcast_in_dim %106, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<4x8x8x16xf32>
    %108 = stablehlo.add %105, %107 : tensor<4x8x8x16xf32>
    %109:3 = call @silu_0(%108) : (tensor<4x8x8x16xf32>) -> (tensor<4x8x8x16xf32>, tensor<4x8x8x16xf32>, tensor<4x8x8x16xf32>)
    %110 = stablehlo.convolution(%109#0, %arg27) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x16xf32>, tensor<3x3x16x16xf32>) -> tensor<4x4x4x16xf32>
    %111 = stablehlo.reshape %arg26 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %112 = stablehlo.broadcast_in_dim %111, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<4x4x4x16xf32>
    %113 = stablehlo.add %110, %112 : tensor<4x4x4x16xf32>
    %114 = stablehlo.convolution(%113, %arg9) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x4x4x16xf32>, tensor<3x3x16x16xf32>) -> tensor<4x4x4x16xf32>
    %115 = stablehlo.reshape %arg8 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %116 = stablehlo.broadcast_in_dim %115, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<4x4x4x16xf32>
    %117 = stablehlo.add %114, %116 : tensor<4x4x4x16xf32>
    %118 = stablehlo.reshape %117 : (tensor<4x4x4x16xf32>) -> tensor<4x4x4x4x4xf32>
    %119 = chlo.square %118 : tensor<4x4x4x4x4xf32> -> tensor<4x4x4x4x4xf32>
    %cst_27 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %120 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<4x4x4x4x4xf32>
    %121 = stablehlo.multiply %120, %118 : tensor<4x4x4x4x4xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %122 = stablehlo.reduce(%118 init: %cst_28) applies stablehlo.add across dimensions = [1, 2, 4] : (tensor<4x4x4x4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    %cst_29 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %123 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %124 = stablehlo.divide %122, %123 : tensor<4x4xf32>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %125 = stablehlo.reduce(%119 init: %cst_30) applies stablehlo.add across dimensions = [1, 2, 4] : (tensor<4x4x4x4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    %cst_31 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %126 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %127 = stablehlo.divide %125, %126 : tensor<4x4xf32>
    %128 = chlo.square %124 : tensor<4x4xf32> -> tensor<4x4xf32>
    %cst_32 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %129 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %130 = stablehlo.multiply %129, %124 : tensor<4x4xf32>
    %131 = stablehlo.subtract %127, %128 : tensor<4x4xf32>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %132 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %133 = stablehlo.maximum %132, %131 : tensor<4x4xf32>
    %134 = stablehlo.compare EQ, %131, %133, FLOAT : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
    %cst_34 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %135 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %136 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %137 = stablehlo.select %134, %135, %136 : tensor<4x4xi1>, tensor<4x4xf32>
    %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %138 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %139 = stablehlo.compare EQ, %138, %133, FLOAT : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
    %cst_37 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %140 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %cst_38 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %141 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %142 = stablehlo.select %139, %140, %141 : tensor<4x4xi1>, tensor<4x4xf32>
    %143 = stablehlo.divide %137, %142 : tensor<4x4xf32>
    %144 = stablehlo.broadcast_in_dim %124, dims = [0, 1] : (tensor<4x4xf32>) -> tensor<4x4x4xf32>
    %145 = stablehlo.reshape %144 : (tensor<4x4x4xf32>) -> tensor<4x16xf32>
    %146 = stablehlo.broadcast_in_dim %133, dims = [0, 1] : (tensor<4x4xf32>) -> tensor<4x4x4xf32>
    %147 = stablehlo.reshape %146 : (tensor<4x4x4xf32>) -> tensor<4x16xf32>
    %148 = stablehlo.broadcast_in_dim %145, dims = [0, 3] : (tensor<4x16xf32>) -> tensor<4x1x1x16xf32>
    %149 = stablehlo.broadcast_in_dim %147, dims = [0, 3] : (tensor<4x16xf32>) -> tensor<4x1x1x16xf32>
    %150 = stablehlo.broadcast_in_dim %148, dims = [0, 1, 2, 3] : (tensor<4x1x1x16xf32>) -> tensor<4x4x4x16xf32>
    %151 = stablehlo.subtract %117, %150 : tensor<4x4x4x16xf32>
    %cst_39 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %152 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<4x1x1x16xf32>
    %153 = stablehlo.add %149, %152 : tensor<4x1x1x16xf32>
    %154 = stablehlo.rsqrt %153 : tensor<4x1x1x16xf32>
    %155 = stablehlo.divide %154, %153 : tensor<4x1x1x16xf32>
    %cst_40 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %156 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<4x1x1x16xf32>
    %157 = stablehlo.multiply %156, %155 : tensor<4x1x1x16xf32>
    %158 = stablehlo.reshape %arg11 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %159 = stablehlo.broadcast_in_dim %158, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<4x1x1x16xf32>
    %160 = stablehlo.multiply %154, %159 : tensor<4x1x1x16xf32>
    %161 = stablehlo.broadcast_in_dim %160, dims = [0, 1, 2, 3] : (tensor<4x1x1x16xf32>) -> tensor<4x4x4x16xf32>
    %162 = stablehlo.multiply %151, %161 : tensor<4x4x4x16xf32>
    %163 = stablehlo.reshape %arg10 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %164 = stablehlo.broadcast_in_dim %163, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<4x4x4x16xf32>
    %165 = stablehlo.add %162, %164 : tensor<4x4x4x16xf32>
    %166:3 = call @silu_1(%165) : (tensor<4x4x4x16xf32>) -> (tensor<4x4x4x16xf32>, tensor<4x4x4x16xf32>, tensor<4x4x4x16xf32>)
    %167 = stablehlo.convolution(%166#0, %arg21) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x4x4x16xf32>, tensor<2x2x16x16xf32>) -> tensor<4x8x8x16xf32>
    %168 = stablehlo.reshape %arg20 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %169 = stablehlo.broadcast_in_dim %168, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<4x8x8x16xf32>
    %170 = stablehlo.add %167, %169 : tensor<4x8x8x16xf32>
    %171 = stablehlo.concatenate %170, %109#0, dim = 3 : (tensor<4x8x8x16xf32>, tensor<4x8x8x16xf32>) -> tensor<4x8x8x32xf32>
    %172 = stablehlo.convolution(%171, %arg13) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x32xf32>, tensor<3x3x32x16xf32>) -> tensor<4x8x8x16xf32>
    %173 = stablehlo.reshape %arg12 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %174 = stablehlo.broadcast_in_dim %173, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<4x8x8x16xf32>
    %175 = stablehlo.add %172, %174 : tensor<4x8x8x16xf32>
    %176 = stablehlo.reshape %175 : (tensor<4x8x8x16xf32>) -> tensor<4x8x8x4x4xf32>
    %177 = chlo.square %176 : tensor<4x8x8x4x4xf32> -> tensor<4x8x8x4x4xf32>
    %cst_41 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %178 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<4x8x8x4x4xf32>
    %179 = stablehlo.multiply %178, %176 : tensor<4x8x8x4x4xf32>
    %cst_42 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %180 = stablehlo.reduce(%176 init: %cst_42) applies stablehlo.add across dimensions = [1, 2, 4] : (tensor<4x8x8x4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    %cst_43 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %181 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %182 = stablehlo.divide %180, %181 : tensor<4x4xf32>
    %cst_44 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %183 = stablehlo.reduce(%177 init: %cst_44) applies stablehlo.add across dimensions = [1, 2, 4] : (tensor<4x8x8x4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    %cst_45 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %184 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %185 = stablehlo.divide %183, %184 : tensor<4x4xf32>
    %186 = chlo.square %182 : tensor<4x4xf32> -> tensor<4x4xf32>
    %cst_46 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %187 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %188 = stablehlo.multiply %187, %182 : tensor<4x4xf32>
    %189 = stablehlo.subtract %185, %186 : tensor<4x4xf32>
    %cst_47 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %190 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %191 = stablehlo.maximum %190, %189 : tensor<4x4xf32>
    %192 = stablehlo.compare EQ, %189, %191, FLOAT : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
    %cst_48 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %193 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %cst_49 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %194 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %195 = stablehlo.select %192, %193, %194 : tensor<4x4xi1>, tensor<4x4xf32>
    %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %196 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %197 = stablehlo.compare EQ, %196, %191, FLOAT : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
    %cst_51 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %198 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %cst_52 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %199 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %200 = stablehlo.select %197, %198, %199 : tensor<4x4xi1>, tensor<4x4xf32>
    %201 = stablehlo.divide %195, %200 : tensor<4x4xf32>
    %202 = stablehlo.broadcast_in_dim %182, dims = [0, 1] : (tensor<4x4xf32>) -> tensor<4x4x4xf32>
    %203 = stablehlo.reshape %202 : (tensor<4x4x4xf32>) -> tensor<4x16xf32>
    %204 = stablehlo.broadcast_in_dim %191, dims = [0, 1] : (tensor<4x4xf32>) -> tensor<4x4x4xf32>
    %205 = stablehlo.reshape %204 : (tensor<4x4x4xf32>) -> tensor<4x16xf32>
    %206 = stablehlo.broadcast_in_dim %203, dims = [0, 3] : (tensor<4x16xf32>) -> tensor<4x1x1x16xf32>
    %207 = stablehlo.broadcast_in_dim %205, dims = [0, 3] : (tensor<4x16xf32>) -> tensor<4x1x1x16xf32>
    %208 = stablehlo.broadcast_in_dim %206, dims = [0, 1, 2, 3] : (tensor<4x1x1x16xf32>) -> tensor<4x8x8x16xf32>
    %209 = stablehlo.subtract %175, %208 : tensor<4x8x8x16xf32>
    %cst_53 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %210 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<4x1x1x16xf32>
    %211 = stablehlo.add %207, %210 : tensor<4x1x1x16xf32>
    %212 = stablehlo.rsqrt %211 : tensor<4x1x1x16xf32>
    %213 = stablehlo.divide %212, %211 : tensor<4x1x1x16xf32>
    %cst_54 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %214 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<4x1x1x16xf32>
    %215 = stablehlo.multiply %214, %213 : tensor<4x1x1x16xf32>
    %216 = stablehlo.reshape %arg15 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %217 = stablehlo.broadcast_in_dim %216, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<4x1x1x16xf32>
    %218 = stablehlo.multiply %212, %217 : tensor<4x1x1x16xf32>
    %219 = stablehlo.broadcast_in_dim %218, dims = [0, 1, 2, 3] : (tensor<4x1x1x16xf32>) -> tensor<4x8x8x16xf32>
    %220 = stablehlo.multiply %209, %219 : tensor<4x8x8x16xf32>
    %221 = stablehlo.reshape %arg14 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %222 = stablehlo.broadcast_in_dim %221, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<4x8x8x16xf32>
    %223 = stablehlo.add %220, %222 : tensor<4x8x8x16xf32>
    %224:3 = call @silu_0(%223) : (tensor<4x8x8x16xf32>) -> (tensor<4x8x8x16xf32>, tensor<4x8x8x16xf32>, tensor<4x8x8x16xf32>)
    %225 = stablehlo.convolution(%224#0, %arg23) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x16xf32>, tensor<2x2x16x8xf32>) -> tensor<4x16x16x8xf32>
    %226 = stablehlo.reshape %arg22 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %227 = stablehlo.broadcast_in_dim %226, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<4x16x16x8xf32>
    %228 = stablehlo.add %225, %227 : tensor<4x16x16x8xf32>
    %229 = stablehlo.concatenate %228, %52#0, dim = 3 : (tensor<4x16x16x8xf32>, tensor<4x16x16x8xf32>) -> tensor<4x16x16x16xf32>
    %230 = stablehlo.convolution(%229, %arg17) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x16x16x16xf32>, tensor<3x3x16x8xf32>) -> tensor<4x16x16x8xf32>
    %231 = stablehlo.reshape %arg16 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %232 = stablehlo.broadcast_in_dim %231, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<4x16x16x8xf32>
    %233 = stablehlo.add %230, %232 : tensor<4x16x16x8xf32>
    %234 = stablehlo.reshape %233 : (tensor<4x16x16x8xf32>) -> tensor<4x16x16x4x2xf32>
    %235 = chlo.square %234 : tensor<4x16x16x4x2xf32> -> tensor<4x16x16x4x2xf32>
    %cst_55 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %236 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<f32>) -> tensor<4x16x16x4x2xf32>
    %237 = stablehlo.multiply %236, %234 : tensor<4x16x16x4x2xf32>
    %cst_56 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %238 = stablehlo.reduce(%234 init: %cst_56) applies stablehlo.add across dimensions = [1, 2, 4] : (tensor<4x16x16x4x2xf32>, tensor<f32>) -> tensor<4x4xf32>
    %cst_57 = stablehlo.constant dense<5.120000e+02> : tensor<f32>
    %239 = stablehlo.broadcast_in_dim %cst_57, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %240 = stablehlo.divide %238, %239 : tensor<4x4xf32>
    %cst_58 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %241 = stablehlo.reduce(%235 init: %cst_58) applies stablehlo.add across dimensions = [1, 2, 4] : (tensor<4x16x16x4x2xf32>, tensor<f32>) -> tensor<4x4xf32>
    %cst_59 = stablehlo.constant dense<5.120000e+02> : tensor<f32>
    %242 = stablehlo.broadcast_in_dim %cst_59, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %243 = stablehlo.divide %241, %242 : tensor<4x4xf32>
    %244 = chlo.square %240 : tensor<4x4xf32> -> tensor<4x4xf32>
    %cst_60 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %245 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %246 = stablehlo.multiply %245, %240 : tensor<4x4xf32>
    %247 = stablehlo.subtract %243, %244 : tensor<4x4xf32>
    %cst_61 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %248 = stablehlo.broadcast_in_dim %cst_61, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %249 = stablehlo.maximum %248, %247 : tensor<4x4xf32>
    %250 = stablehlo.compare EQ, %247, %249, FLOAT : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
    %cst_62 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %251 = stablehlo.broadcast_in_dim %cst_62, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %cst_63 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %252 = stablehlo.broadcast_in_dim %cst_63, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %253 = stablehlo.select %250, %251, %252 : tensor<4x4xi1>, tensor<4x4xf32>
    %cst_64 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %254 = stablehlo.broadcast_in_dim %cst_64, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %255 = stablehlo.compare EQ, %254, %249, FLOAT : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
    %cst_65 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %256 = stablehlo.broadcast_in_dim %cst_65, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %cst_66 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %257 = stablehlo.broadcast_in_dim %cst_66, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %258 = stablehlo.select %255, %256, %257 : tensor<4x4xi1>, tensor<4x4xf32>
    %259 = stablehlo.divide %253, %258 : tensor<4x4xf32>
    %260 = stablehlo.broadcast_in_dim %240, dims = [0, 1] : (tensor<4x4xf32>) -> tensor<4x4x2xf32>
    %261 = stablehlo.reshape %260 : (tensor<4x4x2xf32>) -> tensor<4x8xf32>
    %262 = stablehlo.broadcast_in_dim %249, dims = [0, 1] : (tensor<4x4xf32>) -> tensor<4x4x2xf32>
    %263 = stablehlo.reshape %262 : (tensor<4x4x2xf32>) -> tensor<4x8xf32>
    %264 = stablehlo.broadcast_in_dim %261, dims = [0, 3] : (tensor<4x8xf32>) -> tensor<4x1x1x8xf32>
    %265 = stablehlo.broadcast_in_dim %263, dims = [0, 3] : (tensor<4x8xf32>) -> tensor<4x1x1x8xf32>
    %266 = stablehlo.broadcast_in_dim %264, dims = [0, 1, 2, 3] : (tensor<4x1x1x8xf32>) -> tensor<4x16x16x8xf32>
    %267 = stablehlo.subtract %233, %266 : tensor<4x16x16x8xf32>
    %cst_67 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %268 = stablehlo.broadcast_in_dim %cst_67, dims = [] : (tensor<f32>) -> tensor<4x1x1x8xf32>
    %269 = stablehlo.add %265, %268 : tensor<4x1x1x8xf32>
    %270 = stablehlo.rsqrt %269 : tensor<4x1x1x8xf32>
    %271 = stablehlo.divide %270, %269 : tensor<4x1x1x8xf32>
    %cst_68 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %272 = stablehlo.broadcast_in_dim %cst_68, dims = [] : (tensor<f32>) -> tensor<4x1x1x8xf32>
    %273 = stablehlo.multiply %272, %271 : tensor<4x1x1x8xf32>
    %274 = stablehlo.reshape %arg19 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %275 = stablehlo.broadcast_in_dim %274, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<4x1x1x8xf32>
    %276 = stablehlo.multiply %270, %275 : tensor<4x1x1x8xf32>
    %277 = stablehlo.broadcast_in_dim %276, dims = [0, 1, 2, 3] : (tensor<4x1x1x8xf32>) -> tensor<4x16x16x8xf32>
    %278 = stablehlo.multiply %267, %277 : tensor<4x16x16x8xf32>
    %279 = stablehlo.reshape %arg18 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %280 = stablehlo.broadcast_in_dim %279, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<4x16x16x8xf32>
    %281 = stablehlo.add %278, %280 : tensor<4x16x16x8xf32>
    %282:3 = call @silu(%281) : (tensor<4x16x16x8xf32>) -> (tensor<4x16x16x8xf32>, tensor<4x16x16x8xf32>, tensor<4x16x16x8xf32>)
    %283 = stablehlo.convolution(%282#0, %arg29) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x16x16x8xf32>, tensor<1x1x8x2xf32>) -> tensor<4x16x16x2xf32>
    %284 = stablehlo.reshape %arg28 : (tensor<2xf32>) -> tensor<1x1x1x2xf32>
    %285 = stablehlo.broadcast_in_dim %284, dims = [0, 1, 2, 3] : (tensor<1x1x1x2xf32>) -> tensor<4x16x16x2xf32>
    %286 = stablehlo.add %283, %285 : tensor<4x16x16x2xf32>
    %287 = stablehlo.subtract %286, %arg31 : tensor<4x16x16x2xf32>
    %288 = stablehlo.multiply %287, %287 : tensor<4x16x16x2xf32>
    %cst_69 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %289 = stablehlo.broadcast_in_dim %cst_69, dims = [] : (tensor<f32>) -> tensor<4x16x16x2xf32>
    %290 = stablehlo.multiply %289, %287 : tensor<4x16x16x2xf32>
    %cst_70 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %291 = stablehlo.reduce(%288 init: %cst_70) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<4x16x16x2xf32>, tensor<f32>) -> tensor<f32>
    %cst_71 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
    %292 = stablehlo.divide %291, %cst_71 : tensor<f32>
    %cst_72 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_73 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
    %293 = stablehlo.divide %cst_72, %cst_73 : tensor<f32>
    %294 = stablehlo.broadcast_in_dim %293, dims = [] : (tensor<f32>) -> tensor<4x16x16x2xf32>
    %295 = stablehlo.multiply %294, %290 : tensor<4x16x16x2xf32>
    %cst_74 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %296 = stablehlo.reduce(%295 init: %cst_74) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x16x16x2xf32>, tensor<f32>) -> tensor<2xf32>
    %297 = stablehlo.reshape %296 : (tensor<2xf32>) -> tensor<1x1x1x2xf32>
    %298 = stablehlo.reshape %297 : (tensor<1x1x1x2xf32>) -> tensor<2xf32>
    %299 = stablehlo.convolution(%282#0, %295) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x16x16x8xf32>, tensor<4x16x16x2xf32>) -> tensor<1x1x8x2xf32>
    %300 = stablehlo.reverse %arg29, dims = [0, 1] : tensor<1x1x8x2xf32>
    %301 = stablehlo.convolution(%295, %300) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x16x16x2xf32>, tensor<1x1x8x2xf32>) -> tensor<4x16x16x8xf32>
    %302 = call @silu_2(%282#1, %282#2, %281, %301) : (tensor<4x16x16x8xf32>, tensor<4x16x16x8xf32>, tensor<4x16x16x8xf32>, tensor<4x16x16x8xf32>) -> tensor<4x16x16x8xf32>
    %cst_75 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %303 = stablehlo.reduce(%302 init: %cst_75) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x16x16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %304 = stablehlo.reshape %303 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %305 = stablehlo.reshape %304 : (tensor<1x1x1x8xf32>) -> tensor<8xf32>
    %306 = stablehlo.multiply %267, %302 : tensor<4x16x16x8xf32>
    %cst_76 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %307 = stablehlo.reduce(%306 init: %cst_76) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x16x16x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %308 = stablehlo.reshape %307 : (tensor<4x8xf32>) -> tensor<4x1x1x8xf32>
    %309 = stablehlo.broadcast_in_dim %276, dims = [0, 1, 2, 3] : (tensor<4x1x1x8xf32>) -> tensor<4x16x16x8xf32>
    %310 = stablehlo.multiply %302, %309 : tensor<4x16x16x8xf32>
    %311 = stablehlo.multiply %270, %308 : tensor<4x1x1x8xf32>
    %cst_77 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %312 = stablehlo.reduce(%311 init: %cst_77) applies stablehlo.add across dimensions = [0] : (tensor<4x1x1x8xf32>, tensor<f32>) -> tensor<1x1x8xf32>
    %313 = stablehlo.reshape %312 : (tensor<1x1x8xf32>) -> tensor<1x1x1x8xf32>
    %314 = stablehlo.broadcast_in_dim %274, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<4x1x1x8xf32>
    %315 = stablehlo.multiply %308, %314 : tensor<4x1x1x8xf32>
    %316 = stablehlo.reshape %313 : (tensor<1x1x1x8xf32>) -> tensor<8xf32>
    %317 = stablehlo.multiply %315, %273 : tensor<4x1x1x8xf32>
    %318 = stablehlo.negate %310 : tensor<4x16x16x8xf32>
    %cst_78 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %319 = stablehlo.reduce(%318 init: %cst_78) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x16x16x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %320 = stablehlo.reshape %319 : (tensor<4x8xf32>) -> tensor<4x1x1x8xf32>
    %cst_79 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %321 = stablehlo.reduce(%317 init: %cst_79) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x1x1x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %cst_80 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %322 = stablehlo.reduce(%320 init: %cst_80) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x1x1x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %323 = stablehlo.reshape %321 : (tensor<4x8xf32>) -> tensor<4x4x2xf32>
    %cst_81 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %324 = stablehlo.reduce(%323 init: %cst_81) applies stablehlo.add across dimensions = [2] : (tensor<4x4x2xf32>, tensor<f32>) -> tensor<4x4xf32>
    %325 = stablehlo.reshape %322 : (tensor<4x8xf32>) -> tensor<4x4x2xf32>
    %cst_82 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %326 = stablehlo.reduce(%325 init: %cst_82) applies stablehlo.add across dimensions = [2] : (tensor<4x4x2xf32>, tensor<f32>) -> tensor<4x4xf32>
    %327 = stablehlo.multiply %324, %259 : tensor<4x4xf32>
    %328 = stablehlo.negate %327 : tensor<4x4xf32>
    %329 = stablehlo.multiply %328, %246 : tensor<4x4xf32>
    %330 = stablehlo.add %326, %329 : tensor<4x4xf32>
    %cst_83 = stablehlo.constant dense<5.120000e+02> : tensor<f32>
    %331 = stablehlo.broadcast_in_dim %cst_83, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %332 = stablehlo.divide %327, %331 : tensor<4x4xf32>
    %333 = stablehlo.broadcast_in_dim %332, dims = [0, 3] : (tensor<4x4xf32>) -> tensor<4x16x16x4x2xf32>
    %cst_84 = stablehlo.constant dense<5.120000e+02> : tensor<f32>
    %334 = stablehlo.broadcast_in_dim %cst_84, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %335 = stablehlo.divide %330, %334 : tensor<4x4xf32>
    %336 = stablehlo.broadcast_in_dim %335, dims = [0, 3] : (tensor<4x4xf32>) -> tensor<4x16x16x4x2xf32>
    %337 = stablehlo.multiply %333, %237 : tensor<4x16x16x4x2xf32>
    %338 = stablehlo.add %336, %337 : tensor<4x16x16x4x2xf32>
    %339 = stablehlo.reshape %338 : (tensor<4x16x16x4x2xf32>) -> tensor<4x16x16x8xf32>
    %340 = stablehlo.add %310, %339 : tensor<4x16x16x8xf32>
    %cst_85 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %341 = stablehlo.reduce(%340 init: %cst_85) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x16x16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %342 = stablehlo.reshape %341 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %343 = stablehlo.reshape %342 : (tensor<1x1x1x8xf32>) -> tensor<8xf32>
    %344 = stablehlo.convolution(%229, %340) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x16x16x16xf32>, tensor<4x16x16x8xf32>) -> tensor<3x3x16x8xf32>
    %345 = stablehlo.reverse %arg17, dims = [0, 1] : tensor<3x3x16x8xf32>
    %346 = stablehlo.convolution(%340, %345) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x16x16x8xf32>, tensor<3x3x16x8xf32>) -> tensor<4x16x16x16xf32>
    %347 = stablehlo.slice %346 [0:4, 0:16, 0:16, 0:8] : (tensor<4x16x16x16xf32>) -> tensor<4x16x16x8xf32>
    %348 = stablehlo.slice %346 [0:4, 0:16, 0:16, 8:16] : (tensor<4x16x16x16xf32>) -> tensor<4x16x16x8xf32>
    %cst_86 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %349 = stablehlo.reduce(%347 init: %cst_86) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x16x16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %350 = stablehlo.reshape %349 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %351 = stablehlo.reshape %350 : (tensor<1x1x1x8xf32>) -> tensor<8xf32>
    %352 = stablehlo.convolution(%224#0, %347) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x16xf32>, tensor<4x16x16x8xf32>) -> tensor<2x2x16x8xf32>
    %353 = stablehlo.reverse %arg23, dims = [0, 1] : tensor<2x2x16x8xf32>
    %354 = stablehlo.convolution(%347, %353) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x16x16x8xf32>, tensor<2x2x16x8xf32>) -> tensor<4x8x8x16xf32>
    %355 = call @silu_3(%224#1, %224#2, %223, %354) : (tensor<4x8x8x16xf32>, tensor<4x8x8x16xf32>, tensor<4x8x8x16xf32>, tensor<4x8x8x16xf32>) -> tensor<4x8x8x16xf32>
    %cst_87 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %356 = stablehlo.reduce(%355 init: %cst_87) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x8x8x16xf32>, tensor<f32>) -> tensor<16xf32>
    %357 = stablehlo.reshape %356 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %358 = stablehlo.reshape %357 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %359 = stablehlo.multiply %209, %355 : tensor<4x8x8x16xf32>
    %cst_88 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %360 = stablehlo.reduce(%359 init: %cst_88) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x8x8x16xf32>, tensor<f32>) -> tensor<4x16xf32>
    %361 = stablehlo.reshape %360 : (tensor<4x16xf32>) -> tensor<4x1x1x16xf32>
    %362 = stablehlo.broadcast_in_dim %218, dims = [0, 1, 2, 3] : (tensor<4x1x1x16xf32>) -> tensor<4x8x8x16xf32>
    %363 = stablehlo.multiply %355, %362 : tensor<4x8x8x16xf32>
    %364 = stablehlo.multiply %212, %361 : tensor<4x1x1x16xf32>
    %cst_89 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %365 = stablehlo.reduce(%364 init: %cst_89) applies stablehlo.add across dimensions = [0] : (tensor<4x1x1x16xf32>, tensor<f32>) -> tensor<1x1x16xf32>
    %366 = stablehlo.reshape %365 : (tensor<1x1x16xf32>) -> tensor<1x1x1x16xf32>
    %367 = stablehlo.broadcast_in_dim %216, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<4x1x1x16xf32>
    %368 = stablehlo.multiply %361, %367 : tensor<4x1x1x16xf32>
    %369 = stablehlo.reshape %366 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %370 = stablehlo.multiply %368, %215 : tensor<4x1x1x16xf32>
    %371 = stablehlo.negate %363 : tensor<4x8x8x16xf32>
    %cst_90 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %372 = stablehlo.reduce(%371 init: %cst_90) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x8x8x16xf32>, tensor<f32>) -> tensor<4x16xf32>
    %373 = stablehlo.reshape %372 : (tensor<4x16xf32>) -> tensor<4x1x1x16xf32>
    %cst_91 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %374 = stablehlo.reduce(%370 init: %cst_91) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x1x1x16xf32>, tensor<f32>) -> tensor<4x16xf32>
    %cst_92 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %375 = stablehlo.reduce(%373 init: %cst_92) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x1x1x16xf32>, tensor<f32>) -> tensor<4x16xf32>
    %376 = stablehlo.reshape %374 : (tensor<4x16xf32>) -> tensor<4x4x4xf32>
    %cst_93 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %377 = stablehlo.reduce(%376 init: %cst_93) applies stablehlo.add across dimensions = [2] : (tensor<4x4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    %378 = stablehlo.reshape %375 : (tensor<4x16xf32>) -> tensor<4x4x4xf32>
    %cst_94 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %379 = stablehlo.reduce(%378 init: %cst_94) applies stablehlo.add across dimensions = [2] : (tensor<4x4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    %380 = stablehlo.multiply %377, %201 : tensor<4x4xf32>
    %381 = stablehlo.negate %380 : tensor<4x4xf32>
    %382 = stablehlo.multiply %381, %188 : tensor<4x4xf32>
    %383 = stablehlo.add %379, %382 : tensor<4x4xf32>
    %cst_95 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %384 = stablehlo.broadcast_in_dim %cst_95, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %385 = stablehlo.divide %380, %384 : tensor<4x4xf32>
    %386 = stablehlo.broadcast_in_dim %385, dims = [0, 3] : (tensor<4x4xf32>) -> tensor<4x8x8x4x4xf32>
    %cst_96 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %387 = stablehlo.broadcast_in_dim %cst_96, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %388 = stablehlo.divide %383, %387 : tensor<4x4xf32>
    %389 = stablehlo.broadcast_in_dim %388, dims = [0, 3] : (tensor<4x4xf32>) -> tensor<4x8x8x4x4xf32>
    %390 = stablehlo.multiply %386, %179 : tensor<4x8x8x4x4xf32>
    %391 = stablehlo.add %389, %390 : tensor<4x8x8x4x4xf32>
    %392 = stablehlo.reshape %391 : (tensor<4x8x8x4x4xf32>) -> tensor<4x8x8x16xf32>
    %393 = stablehlo.add %363, %392 : tensor<4x8x8x16xf32>
    %cst_97 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %394 = stablehlo.reduce(%393 init: %cst_97) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x8x8x16xf32>, tensor<f32>) -> tensor<16xf32>
    %395 = stablehlo.reshape %394 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %396 = stablehlo.reshape %395 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %397 = stablehlo.convolution(%171, %393) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x32xf32>, tensor<4x8x8x16xf32>) -> tensor<3x3x32x16xf32>
    %398 = stablehlo.reverse %arg13, dims = [0, 1] : tensor<3x3x32x16xf32>
    %399 = stablehlo.convolution(%393, %398) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x16xf32>, tensor<3x3x32x16xf32>) -> tensor<4x8x8x32xf32>
    %400 = stablehlo.slice %399 [0:4, 0:8, 0:8, 0:16] : (tensor<4x8x8x32xf32>) -> tensor<4x8x8x16xf32>
    %401 = stablehlo.slice %399 [0:4, 0:8, 0:8, 16:32] : (tensor<4x8x8x32xf32>) -> tensor<4x8x8x16xf32>
    %cst_98 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %402 = stablehlo.reduce(%400 init: %cst_98) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x8x8x16xf32>, tensor<f32>) -> tensor<16xf32>
    %403 = stablehlo.reshape %402 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %404 = stablehlo.reshape %403 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %405 = stablehlo.convolution(%166#0, %400) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x4x4x16xf32>, tensor<4x8x8x16xf32>) -> tensor<2x2x16x16xf32>
    %406 = stablehlo.reverse %arg21, dims = [0, 1] : tensor<2x2x16x16xf32>
    %407 = stablehlo.convolution(%400, %406) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x16xf32>, tensor<2x2x16x16xf32>) -> tensor<4x4x4x16xf32>
    %408 = call @silu_4(%166#1, %166#2, %165, %407) : (tensor<4x4x4x16xf32>, tensor<4x4x4x16xf32>, tensor<4x4x4x16xf32>, tensor<4x4x4x16xf32>) -> tensor<4x4x4x16xf32>
    %cst_99 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %409 = stablehlo.reduce(%408 init: %cst_99) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %410 = stablehlo.reshape %409 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %411 = stablehlo.reshape %410 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %412 = stablehlo.multiply %151, %408 : tensor<4x4x4x16xf32>
    %cst_100 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %413 = stablehlo.reduce(%412 init: %cst_100) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x4x4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
    %414 = stablehlo.reshape %413 : (tensor<4x16xf32>) -> tensor<4x1x1x16xf32>
    %415 = stablehlo.broadcast_in_dim %160, dims = [0, 1, 2, 3] : (tensor<4x1x1x16xf32>) -> tensor<4x4x4x16xf32>
    %416 = stablehlo.multiply %408, %415 : tensor<4x4x4x16xf32>
    %417 = stablehlo.multiply %154, %414 : tensor<4x1x1x16xf32>
    %cst_101 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %418 = stablehlo.reduce(%417 init: %cst_101) applies stablehlo.add across dimensions = [0] : (tensor<4x1x1x16xf32>, tensor<f32>) -> tensor<1x1x16xf32>
    %419 = stablehlo.reshape %418 : (tensor<1x1x16xf32>) -> tensor<1x1x1x16xf32>
    %420 = stablehlo.broadcast_in_dim %158, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<4x1x1x16xf32>
    %421 = stablehlo.multiply %414, %420 : tensor<4x1x1x16xf32>
    %422 = stablehlo.reshape %419 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %423 = stablehlo.multiply %421, %157 : tensor<4x1x1x16xf32>
    %424 = stablehlo.negate %416 : tensor<4x4x4x16xf32>
    %cst_102 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %425 = stablehlo.reduce(%424 init: %cst_102) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x4x4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
    %426 = stablehlo.reshape %425 : (tensor<4x16xf32>) -> tensor<4x1x1x16xf32>
    %cst_103 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %427 = stablehlo.reduce(%423 init: %cst_103) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x1x1x16xf32>, tensor<f32>) -> tensor<4x16xf32>
    %cst_104 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %428 = stablehlo.reduce(%426 init: %cst_104) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x1x1x16xf32>, tensor<f32>) -> tensor<4x16xf32>
    %429 = stablehlo.reshape %427 : (tensor<4x16xf32>) -> tensor<4x4x4xf32>
    %cst_105 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %430 = stablehlo.reduce(%429 init: %cst_105) applies stablehlo.add across dimensions = [2] : (tensor<4x4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    %431 = stablehlo.reshape %428 : (tensor<4x16xf32>) -> tensor<4x4x4xf32>
    %cst_106 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %432 = stablehlo.reduce(%431 init: %cst_106) applies stablehlo.add across dimensions = [2] : (tensor<4x4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    %433 = stablehlo.multiply %430, %143 : tensor<4x4xf32>
    %434 = stablehlo.negate %433 : tensor<4x4xf32>
    %435 = stablehlo.multiply %434, %130 : tensor<4x4xf32>
    %436 = stablehlo.add %432, %435 : tensor<4x4xf32>
    %cst_107 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %437 = stablehlo.broadcast_in_dim %cst_107, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %438 = stablehlo.divide %433, %437 : tensor<4x4xf32>
    %439 = stablehlo.broadcast_in_dim %438, dims = [0, 3] : (tensor<4x4xf32>) -> tensor<4x4x4x4x4xf32>
    %cst_108 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %440 = stablehlo.broadcast_in_dim %cst_108, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %441 = stablehlo.divide %436, %440 : tensor<4x4xf32>
    %442 = stablehlo.broadcast_in_dim %441, dims = [0, 3] : (tensor<4x4xf32>) -> tensor<4x4x4x4x4xf32>
    %443 = stablehlo.multiply %439, %121 : tensor<4x4x4x4x4xf32>
    %444 = stablehlo.add %442, %443 : tensor<4x4x4x4x4xf32>
    %445 = stablehlo.reshape %444 : (tensor<4x4x4x4x4xf32>) -> tensor<4x4x4x16xf32>
    %446 = stablehlo.add %416, %445 : tensor<4x4x4x16xf32>
    %cst_109 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %447 = stablehlo.reduce(%446 init: %cst_109) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %448 = stablehlo.reshape %447 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %449 = stablehlo.reshape %448 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %450 = stablehlo.convolution(%113, %446) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x4x4x16xf32>, tensor<4x4x4x16xf32>) -> tensor<3x3x16x16xf32>
    %451 = stablehlo.reverse %arg9, dims = [0, 1] : tensor<3x3x16x16xf32>
    %452 = stablehlo.convolution(%446, %451) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x4x4x16xf32>, tensor<3x3x16x16xf32>) -> tensor<4x4x4x16xf32>
    %cst_110 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %453 = stablehlo.reduce(%452 init: %cst_110) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %454 = stablehlo.reshape %453 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %455 = stablehlo.reshape %454 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %456 = stablehlo.convolution(%109#0, %452) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x16xf32>, tensor<4x4x4x16xf32>) -> tensor<3x3x16x16xf32>
    %457 = stablehlo.reverse %arg27, dims = [0, 1] : tensor<3x3x16x16xf32>
    %458 = stablehlo.convolution(%452, %457) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x4x4x16xf32>, tensor<3x3x16x16xf32>) -> tensor<4x8x8x16xf32>
    %459 = stablehlo.add %401, %458 : tensor<4x8x8x16xf32>
    %460 = call @silu_3(%109#1, %109#2, %108, %459) : (tensor<4x8x8x16xf32>, tensor<4x8x8x16xf32>, tensor<4x8x8x16xf32>, tensor<4x8x8x16xf32>) -> tensor<4x8x8x16xf32>
    %cst_111 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %461 = stablehlo.reduce(%460 init: %cst_111) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x8x8x16xf32>, tensor<f32>) -> tensor<16xf32>
    %462 = stablehlo.reshape %461 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %463 = stablehlo.reshape %462 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %464 = stablehlo.multiply %94, %460 : tensor<4x8x8x16xf32>
    %cst_112 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %465 = stablehlo.reduce(%464 init: %cst_112) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x8x8x16xf32>, tensor<f32>) -> tensor<4x16xf32>
    %466 = stablehlo.reshape %465 : (tensor<4x16xf32>) -> tensor<4x1x1x16xf32>
    %467 = stablehlo.broadcast_in_dim %103, dims = [0, 1, 2, 3] : (tensor<4x1x1x16xf32>) -> tensor<4x8x8x16xf32>
    %468 = stablehlo.multiply %460, %467 : tensor<4x8x8x16xf32>
    %469 = stablehlo.multiply %97, %466 : tensor<4x1x1x16xf32>
    %cst_113 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %470 = stablehlo.reduce(%469 init: %cst_113) applies stablehlo.add across dimensions = [0] : (tensor<4x1x1x16xf32>, tensor<f32>) -> tensor<1x1x16xf32>
    %471 = stablehlo.reshape %470 : (tensor<1x1x16xf32>) -> tensor<1x1x1x16xf32>
    %472 = stablehlo.broadcast_in_dim %101, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<4x1x1x16xf32>
    %473 = stablehlo.multiply %466, %472 : tensor<4x1x1x16xf32>
    %474 = stablehlo.reshape %471 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %475 = stablehlo.multiply %473, %100 : tensor<4x1x1x16xf32>
    %476 = stablehlo.negate %468 : tensor<4x8x8x16xf32>
    %cst_114 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %477 = stablehlo.reduce(%476 init: %cst_114) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x8x8x16xf32>, tensor<f32>) -> tensor<4x16xf32>
    %478 = stablehlo.reshape %477 : (tensor<4x16xf32>) -> tensor<4x1x1x16xf32>
    %cst_115 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %479 = stablehlo.reduce(%475 init: %cst_115) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x1x1x16xf32>, tensor<f32>) -> tensor<4x16xf32>
    %cst_116 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %480 = stablehlo.reduce(%478 init: %cst_116) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x1x1x16xf32>, tensor<f32>) -> tensor<4x16xf32>
    %481 = stablehlo.reshape %479 : (tensor<4x16xf32>) -> tensor<4x4x4xf32>
    %cst_117 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %482 = stablehlo.reduce(%481 init: %cst_117) applies stablehlo.add across dimensions = [2] : (tensor<4x4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    %483 = stablehlo.reshape %480 : (tensor<4x16xf32>) -> tensor<4x4x4xf32>
    %cst_118 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %484 = stablehlo.reduce(%483 init: %cst_118) applies stablehlo.add across dimensions = [2] : (tensor<4x4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    %485 = stablehlo.multiply %482, %86 : tensor<4x4xf32>
    %486 = stablehlo.negate %485 : tensor<4x4xf32>
    %487 = stablehlo.multiply %486, %73 : tensor<4x4xf32>
    %488 = stablehlo.add %484, %487 : tensor<4x4xf32>
    %cst_119 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %489 = stablehlo.broadcast_in_dim %cst_119, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %490 = stablehlo.divide %485, %489 : tensor<4x4xf32>
    %491 = stablehlo.broadcast_in_dim %490, dims = [0, 3] : (tensor<4x4xf32>) -> tensor<4x8x8x4x4xf32>
    %cst_120 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %492 = stablehlo.broadcast_in_dim %cst_120, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %493 = stablehlo.divide %488, %492 : tensor<4x4xf32>
    %494 = stablehlo.broadcast_in_dim %493, dims = [0, 3] : (tensor<4x4xf32>) -> tensor<4x8x8x4x4xf32>
    %495 = stablehlo.multiply %491, %64 : tensor<4x8x8x4x4xf32>
    %496 = stablehlo.add %494, %495 : tensor<4x8x8x4x4xf32>
    %497 = stablehlo.reshape %496 : (tensor<4x8x8x4x4xf32>) -> tensor<4x8x8x16xf32>
    %498 = stablehlo.add %468, %497 : tensor<4x8x8x16xf32>
    %cst_121 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %499 = stablehlo.reduce(%498 init: %cst_121) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x8x8x16xf32>, tensor<f32>) -> tensor<16xf32>
    %500 = stablehlo.reshape %499 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %501 = stablehlo.reshape %500 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %502 = stablehlo.convolution(%56, %498) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x8xf32>, tensor<4x8x8x16xf32>) -> tensor<3x3x8x16xf32>
    %503 = stablehlo.reverse %arg5, dims = [0, 1] : tensor<3x3x8x16xf32>
    %504 = stablehlo.convolution(%498, %503) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x16xf32>, tensor<3x3x8x16xf32>) -> tensor<4x8x8x8xf32>
    %cst_122 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %505 = stablehlo.reduce(%504 init: %cst_122) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %506 = stablehlo.reshape %505 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %507 = stablehlo.reshape %506 : (tensor<1x1x1x8xf32>) -> tensor<8xf32>
    %508 = stablehlo.convolution(%52#0, %504) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x16x16x8xf32>, tensor<4x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %509 = stablehlo.reverse %arg25, dims = [0, 1] : tensor<3x3x8x8xf32>
    %510 = stablehlo.convolution(%504, %509) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<4x16x16x8xf32>
    %511 = stablehlo.add %348, %510 : tensor<4x16x16x8xf32>
    %512 = call @silu_2(%52#1, %52#2, %51, %511) : (tensor<4x16x16x8xf32>, tensor<4x16x16x8xf32>, tensor<4x16x16x8xf32>, tensor<4x16x16x8xf32>) -> tensor<4x16x16x8xf32>
    %cst_123 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %513 = stablehlo.reduce(%512 init: %cst_123) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x16x16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %514 = stablehlo.reshape %513 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %515 = stablehlo.reshape %514 : (tensor<1x1x1x8xf32>) -> tensor<8xf32>
    %516 = stablehlo.multiply %37, %512 : tensor<4x16x16x8xf32>
    %cst_124 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %517 = stablehlo.reduce(%516 init: %cst_124) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x16x16x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %518 = stablehlo.reshape %517 : (tensor<4x8xf32>) -> tensor<4x1x1x8xf32>
    %519 = stablehlo.broadcast_in_dim %46, dims = [0, 1, 2, 3] : (tensor<4x1x1x8xf32>) -> tensor<4x16x16x8xf32>
    %520 = stablehlo.multiply %512, %519 : tensor<4x16x16x8xf32>
    %521 = stablehlo.multiply %40, %518 : tensor<4x1x1x8xf32>
    %cst_125 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %522 = stablehlo.reduce(%521 init: %cst_125) applies stablehlo.add across dimensions = [0] : (tensor<4x1x1x8xf32>, tensor<f32>) -> tensor<1x1x8xf32>
    %523 = stablehlo.reshape %522 : (tensor<1x1x8xf32>) -> tensor<1x1x1x8xf32>
    %524 = stablehlo.broadcast_in_dim %44, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<4x1x1x8xf32>
    %525 = stablehlo.multiply %518, %524 : tensor<4x1x1x8xf32>
    %526 = stablehlo.reshape %523 : (tensor<1x1x1x8xf32>) -> tensor<8xf32>
    %527 = stablehlo.multiply %525, %43 : tensor<4x1x1x8xf32>
    %528 = stablehlo.negate %520 : tensor<4x16x16x8xf32>
    %cst_126 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %529 = stablehlo.reduce(%528 init: %cst_126) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x16x16x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %530 = stablehlo.reshape %529 : (tensor<4x8xf32>) -> tensor<4x1x1x8xf32>
    %cst_127 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %531 = stablehlo.reduce(%527 init: %cst_127) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x1x1x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %cst_128 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %532 = stablehlo.reduce(%530 init: %cst_128) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x1x1x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %533 = stablehlo.reshape %531 : (tensor<4x8xf32>) -> tensor<4x4x2xf32>
    %cst_129 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %534 = stablehlo.reduce(%533 init: %cst_129) applies stablehlo.add across dimensions = [2] : (tensor<4x4x2xf32>, tensor<f32>) -> tensor<4x4xf32>
    %535 = stablehlo.reshape %532 : (tensor<4x8xf32>) -> tensor<4x4x2xf32>
    %cst_130 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %536 = stablehlo.reduce(%535 init: %cst_130) applies stablehlo.add across dimensions = [2] : (tensor<4x4x2xf32>, tensor<f32>) -> tensor<4x4xf32>
    %537 = stablehlo.multiply %534, %29 : tensor<4x4xf32>
    %538 = stablehlo.negate %537 : tensor<4x4xf32>
    %539 = stablehlo.multiply %538, %16 : tensor<4x4xf32>
    %540 = stablehlo.add %536, %539 : tensor<4x4xf32>
    %cst_131 = stablehlo.constant dense<5.120000e+02> : tensor<f32>
    %541 = stablehlo.broadcast_in_dim %cst_131, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %542 = stablehlo.divide %537, %541 : tensor<4x4xf32>
    %543 = stablehlo.broadcast_in_dim %542, dims = [0, 3] : (tensor<4x4xf32>) -> tensor<4x16x16x4x2xf32>
    %cst_132 = stablehlo.constant dense<5.120000e+02> : tensor<f32>
    %544 = stablehlo.broadcast_in_dim %cst_132, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %545 = stablehlo.divide %540, %544 : tensor<4x4xf32>
    %546 = stablehlo.broadcast_in_dim %545, dims = [0, 3] : (tensor<4x4xf32>) -> tensor<4x16x16x4x2xf32>
    %547 = stablehlo.multiply %543, %7 : tensor<4x16x16x4x2xf32>
    %548 = stablehlo.add %546, %547 : tensor<4x16x16x4x2xf32>
    %549 = stablehlo.reshape %548 : (tensor<4x16x16x4x2xf32>) -> tensor<4x16x16x8xf32>
    %550 = stablehlo.add %520, %549 : tensor<4x16x16x8xf32>
    %cst_133 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %551 = stablehlo.reduce(%550 init: %cst_133) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x16x16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %552 = stablehlo.reshape %551 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %553 = stablehlo.reshape %552 : (tensor<1x1x1x8xf32>) -> tensor<8xf32>
    %554 = stablehlo.convolution(%arg30, %550) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x16x16x2xf32>, tensor<4x16x16x8xf32>) -> tensor<3x3x2x8xf32>
    return %292, %553, %554, %515, %526, %501, %502, %463, %474, %449, %450, %411, %422, %396, %397, %358, %369, %343, %344, %305, %316, %404, %405, %351, %352, %507, %508, %455, %456, %298, %299 : tensor<f32>, tensor<8xf32>, tensor<3x3x2x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16xf32>, tensor<3x3x8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<3x3x16x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<3x3x32x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8xf32>, tensor<3x3x16x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16xf32>, tensor<2x2x16x16xf32>, tensor<8xf32>, tensor<2x2x16x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<16xf32>, tensor<3x3x16x16xf32>, tensor<2xf32>, tensor<1x1x8x2xf32>
  }
  func.func private @silu(%arg0: tensor<4x16x16x8xf32>) -> (tensor<4x16x16x8xf32>, tensor<4x16x16x8xf32>, tensor<4x16x16x8xf32>) {
    %0 = stablehlo.negate %arg0 : tensor<4x16x16x8xf32>
    %1 = stablehlo.exponential %0 : tensor<4x16x16x8xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x16x16x8xf32>
    %3 = stablehlo.add %2, %1 : tensor<4x16x16x8xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x16x16x8xf32>
    %5 = stablehlo.divide %4, %3 : tensor<4x16x16x8xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x16x16x8xf32>
    %7 = stablehlo.subtract %6, %5 : tensor<4x16x16x8xf32>
    %8 = stablehlo.multiply %5, %7 : tensor<4x16x16x8xf32>
    %9 = stablehlo.multiply %arg0, %5 : tensor<4x16x16x8xf32>
    return %9, %8, %5 : tensor<4x16x16x8xf32>, tensor<4x16x16x8xf32>, tensor<4x16x16x8xf32>
  }
  func.func private @silu_0(%arg0: tensor<4x8x8x16xf32>) -> (tensor<4x8x8x16xf32>, tensor<4x8x8x16xf32>, tensor<4x8x8x16xf32>) {
    %0 = stablehlo.negate %arg0 : tensor<4x8x8x16xf32>
    %1 = stablehlo.exponential %0 : tensor<4x8x8x16xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8x8x16xf32>
    %3 = stablehlo.add %2, %1 : tensor<4x8x8x16xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x8x8x16xf32>
    %5 = stablehlo.divide %4, %3 : tensor<4x8x8x16xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x8x8x16xf32>
    %7 = stablehlo.subtract %6, %5 : tensor<4x8x8x16xf32>
    %8 = stablehlo.multiply %5, %7 : tensor<4x8x8x16xf32>
    %9 = stablehlo.multiply %arg0, %5 : tensor<4x8x8x16xf32>
    return %9, %8, %5 : tensor<4x8x8x16xf32>, tensor<4x8x8x16xf32>, tensor<4x8x8x16xf32>
  }
  func.func private @silu_1(%arg0: tensor<4x4x4x16xf32>) -> (tensor<4x4x4x16xf32>, tensor<4x4x4x16xf32>, tensor<4x4x4x16xf32>) {
    %0 = stablehlo.negate %arg0 : tensor<4x4x4x16xf32>
    %1 = stablehlo.exponential %0 : tensor<4x4x4x16xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4x4x16xf32>
    %3 = stablehlo.add %2, %1 : tensor<4x4x4x16xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x4x4x16xf32>
    %5 = stablehlo.divide %4, %3 : tensor<4x4x4x16xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x4x4x16xf32>
    %7 = stablehlo.subtract %6, %5 : tensor<4x4x4x16xf32>
    %8 = stablehlo.multiply %5, %7 : tensor<4x4x4x16xf32>
    %9 = stablehlo.multiply %arg0, %5 : tensor<4x4x4x16xf32>
    return %9, %8, %5 : tensor<4x4x4x16xf32>, tensor<4x4x4x16xf32>, tensor<4x4x4x16xf32>
  }
  func.func private @silu_2(%arg0: tensor<4x16x16x8xf32>, %arg1: tensor<4x16x16x8xf32>, %arg2: tensor<4x16x16x8xf32>, %arg3: tensor<4x16x16x8xf32>) -> tensor<4x16x16x8xf32> {
    %0 = stablehlo.multiply %arg2, %arg3 : tensor<4x16x16x8xf32>
    %1 = stablehlo.multiply %arg3, %arg1 : tensor<4x16x16x8xf32>
    %2 = stablehlo.multiply %0, %arg0 : tensor<4x16x16x8xf32>
    %3 = stablehlo.add %1, %2 : tensor<4x16x16x8xf32>
    return %3 : tensor<4x16x16x8xf32>
  }
  func.func private @silu_3(%arg0: tensor<4x8x8x16xf32>, %arg1: tensor<4x8x8x16xf32>, %arg2: tensor<4x8x8x16xf32>, %arg3: tensor<4x8x8x16xf32>) -> tensor<4x8x8x16xf32> {
    %0 = stablehlo.multiply %arg2, %arg3 : tensor<4x8x8x16xf32>
    %1 = stablehlo.multiply %arg3, %arg1 : tensor<4x8x8x16xf32>
    %2 = stablehlo.multiply %0, %arg0 : tensor<4x8x8x16xf32>
    %3 = stablehlo.add %1, %2 : tensor<4x8x8x16xf32>
    return %3 : tensor<4x8x8x16xf32>
  }
  func.func private @silu_4(%arg0: tensor<4x4x4x16xf32>, %arg1: tensor<4x4x4x16xf32>, %arg2: tensor<4x4x4x16xf32>, %arg3: tensor<4x4x4x16xf32>) -> tensor<4x4x4x16xf32> {
    %0 = stablehlo.multiply %arg2, %arg3 : tensor<4x4x4x16xf32>
    %1 = stablehlo.multiply %arg3, %arg1 : tensor<4x4x4x16xf32>
    %2 = stablehlo.multiply %0, %arg0 : tensor<4x4x4x16xf32>
    %3 = stablehlo.add %1, %2 : tensor<4x4x4x16xf32>
    return %3 : tensor<4x4x4x16xf32>
  }
}
