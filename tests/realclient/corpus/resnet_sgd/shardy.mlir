module @jit_resnet_train_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=8]> {stablehlo.mesh = {axes = [{name = "data", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<i32> {sdy.sharding = #sdy.sharding<@mesh, []>, tf.aliasing_output = 0 : i32}, %arg1: tensor<3x3x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>, tf.aliasing_output = 1 : i32}, %arg2: tensor<3x3x16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>, tf.aliasing_output = 2 : i32}, %arg3: tensor<1x1x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>, tf.aliasing_output = 3 : i32}, %arg4: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 4 : i32}, %arg5: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 5 : i32}, %arg6: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 6 : i32}, %arg7: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 7 : i32}, %arg8: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 8 : i32}, %arg9: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 9 : i32}, %arg10: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 10 : i32}, %arg11: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 11 : i32}, %arg12: tensor<3x3x3x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>, tf.aliasing_output = 12 : i32}, %arg13: tensor<10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 13 : i32}, %arg14: tensor<16x10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 14 : i32}, %arg15: tensor<3x3x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>, tf.aliasing_output = 15 : i32}, %arg16: tensor<3x3x16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>, tf.aliasing_output = 16 : i32}, %arg17: tensor<1x1x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>, tf.aliasing_output = 17 : i32}, %arg18: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 18 : i32}, %arg19: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 19 : i32}, %arg20: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 20 : i32}, %arg21: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 21 : i32}, %arg22: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 22 : i32}, %arg23: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 23 : i32}, %arg24: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 24 : i32}, %arg25: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 25 : i32}, %arg26: tensor<3x3x3x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>, tf.aliasing_output = 26 : i32}, %arg27: tensor<10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 27 : i32}, %arg28: tensor<16x10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 28 : i32}, %arg29: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 29 : i32}, %arg30: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 30 : i32}, %arg31: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 31 : i32}, %arg32: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 32 : i32}, %arg33: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 33 : i32}, %arg34: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 34 : i32}, %arg35: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 35 : i32}, %arg36: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 36 : i32}, %arg37: tensor<16x16x16x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {}, {}]>}, %arg38: tensor<16xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}) -> (tensor<i32> {jax.result_info = "result[0].step", sdy.sharding = #sdy.sharding<@mesh, []>}, tensor<3x3x8x16xf32> {jax.result_info = "result[0].params['BasicBlock_0']['Conv_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<3x3x16x16xf32> {jax.result_info = "result[0].params['BasicBlock_0']['Conv_1']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<1x1x8x16xf32> {jax.result_info = "result[0].params['BasicBlock_0']['Conv_2']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<16xf32> {jax.result_info = "result[0].params['BasicBlock_0']['bn1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[0].params['BasicBlock_0']['bn1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[0].params['BasicBlock_0']['bn2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[0].params['BasicBlock_0']['bn2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[0].params['BasicBlock_0']['bn_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[0].params['BasicBlock_0']['bn_proj']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<8xf32> {jax.result_info = "result[0].params['BatchNorm_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<8xf32> {jax.result_info = "result[0].params['BatchNorm_0']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x3x8xf32> {jax.result_info = "result[0].params['Conv_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<10xf32> {jax.result_info = "result[0].params['Dense_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16x10xf32> {jax.result_info = "result[0].params['Dense_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<3x3x8x16xf32> {jax.result_info = "result[0].opt_state[0].trace['BasicBlock_0']['Conv_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<3x3x16x16xf32> {jax.result_info = "result[0].opt_state[0].trace['BasicBlock_0']['Conv_1']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<1x1x8x16xf32> {jax.result_info = "result[0].opt_state[0].trace['BasicBlock_0']['Conv_2']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<16xf32> {jax.result_info = "result[0].opt_state[0].trace['BasicBlock_0']['bn1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[0].opt_state[0].trace['BasicBlock_0']['bn1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[0].opt_state[0].trace['BasicBlock_0']['bn2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[0].opt_state[0].trace['BasicBlock_0']['bn2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[0].opt_state[0].trace['BasicBlock_0']['bn_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[0].opt_state[0].trace['BasicBlock_0']['bn_proj']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<8xf32> {jax.result_info = "result[0].opt_state[0].trace['BatchNorm_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<8xf32> {jax.result_info = "result[0].opt_state[0].trace['BatchNorm_0']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x3x8xf32> {jax.result_info = "result[0].opt_state[0].trace['Conv_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<10xf32> {jax.result_info = "result[0].opt_state[0].trace['Dense_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16x10xf32> {jax.result_info = "result[0].opt_state[0].trace['Dense_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<16xf32> {jax.result_info = "result[0].batch_stats['BasicBlock_0']['bn1']['mean']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[0].batch_stats['BasicBlock_0']['bn1']['var']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[0].batch_stats['BasicBlock_0']['bn2']['mean']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[0].batch_stats['BasicBlock_0']['bn2']['var']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[0].batch_stats['BasicBlock_0']['bn_proj']['mean']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16xf32> {jax.result_info = "result[0].batch_stats['BasicBlock_0']['bn_proj']['var']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<8xf32> {jax.result_info = "result[0].batch_stats['BatchNorm_0']['mean']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<8xf32> {jax.result_info = "result[0].batch_stats['BatchNorm_0']['var']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<f32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.convolution(%arg37, %arg12) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<16x16x16x3xf32>, tensor<3x3x3x8xf32>) -> tensor<16x16x16x8xf32>
    %1 = chlo.square %0 : tensor<16x16x16x8xf32> -> tensor<16x16x16x8xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x16x16x8xf32>
    %3 = stablehlo.multiply %2, %0 : tensor<16x16x16x8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%0 init: %cst_0) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x16x16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_1 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %6 = stablehlo.divide %4, %5 : tensor<8xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%1 init: %cst_2) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x16x16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_3 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %9 = stablehlo.divide %7, %8 : tensor<8xf32>
    %10 = chlo.square %6 : tensor<8xf32> -> tensor<8xf32>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %12 = stablehlo.multiply %11, %6 : tensor<8xf32>
    %13 = stablehlo.subtract %9, %10 : tensor<8xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %15 = stablehlo.maximum %14, %13 : tensor<8xf32>
    %16 = stablehlo.compare EQ, %13, %15, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %19 = stablehlo.select %16, %17, %18 : tensor<8xi1>, tensor<8xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %21 = stablehlo.compare EQ, %20, %15, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %cst_9 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %24 = stablehlo.select %21, %22, %23 : tensor<8xi1>, tensor<8xf32>
    %25 = stablehlo.divide %19, %24 : tensor<8xf32>
    %cst_11 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %27 = stablehlo.multiply %26, %arg35 : tensor<8xf32>
    %cst_12 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %29 = stablehlo.multiply %28, %6 : tensor<8xf32>
    %30 = stablehlo.add %27, %29 : tensor<8xf32>
    %cst_13 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %32 = stablehlo.multiply %31, %arg36 : tensor<8xf32>
    %cst_14 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %34 = stablehlo.multiply %33, %15 : tensor<8xf32>
    %35 = stablehlo.add %32, %34 : tensor<8xf32>
    %36 = stablehlo.broadcast_in_dim %6, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %37 = stablehlo.broadcast_in_dim %15, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %38 = stablehlo.broadcast_in_dim %36, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<16x16x16x8xf32>
    %39 = stablehlo.subtract %0, %38 : tensor<16x16x16x8xf32>
    %cst_15 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<1x1x1x8xf32>
    %41 = stablehlo.add %37, %40 : tensor<1x1x1x8xf32>
    %42 = stablehlo.rsqrt %41 : tensor<1x1x1x8xf32>
    %43 = stablehlo.divide %42, %41 : tensor<1x1x1x8xf32>
    %cst_16 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<1x1x1x8xf32>
    %45 = stablehlo.multiply %44, %43 : tensor<1x1x1x8xf32>
    %46 = stablehlo.reshape %arg11 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %47 = stablehlo.multiply %42, %46 : tensor<1x1x1x8xf32>
    %48 = stablehlo.broadcast_in_dim %47, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<16x16x16x8xf32>
    %49 = stablehlo.multiply %39, %48 : tensor<16x16x16x8xf32>
    %50 = stablehlo.reshape %arg10 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %51 = stablehlo.broadcast_in_dim %50, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<16x16x16x8xf32>
    %52 = stablehlo.add %49, %51 : tensor<16x16x16x8xf32>
    %53 = call @relu(%52) : (tensor<16x16x16x8xf32>) -> tensor<16x16x16x8xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<16x16x16x8xf32>
    %55 = stablehlo.compare GT, %52, %54, FLOAT : (tensor<16x16x16x8xf32>, tensor<16x16x16x8xf32>) -> tensor<16x16x16x8xi1>
    %cst_18 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %56 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<f32>
    %57 = "stablehlo.reduce_window"(%53, %56) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg39: tensor<f32>, %arg40: tensor<f32>):
      %501 = stablehlo.maximum %arg39, %arg40 : tensor<f32>
      stablehlo.return %501 : tensor<f32>
    }) : (tensor<16x16x16x8xf32>, tensor<f32>) -> tensor<16x8x8x8xf32>
    %58 = stablehlo.convolution(%57, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<16x8x8x8xf32>, tensor<3x3x8x16xf32>) -> tensor<16x4x4x16xf32>
    %59 = chlo.square %58 : tensor<16x4x4x16xf32> -> tensor<16x4x4x16xf32>
    %cst_19 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<16x4x4x16xf32>
    %61 = stablehlo.multiply %60, %58 : tensor<16x4x4x16xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %62 = stablehlo.reduce(%58 init: %cst_20) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_21 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %64 = stablehlo.divide %62, %63 : tensor<16xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %65 = stablehlo.reduce(%59 init: %cst_22) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_23 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %67 = stablehlo.divide %65, %66 : tensor<16xf32>
    %68 = chlo.square %64 : tensor<16xf32> -> tensor<16xf32>
    %cst_24 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %69 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %70 = stablehlo.multiply %69, %64 : tensor<16xf32>
    %71 = stablehlo.subtract %67, %68 : tensor<16xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %73 = stablehlo.maximum %72, %71 : tensor<16xf32>
    %74 = stablehlo.compare EQ, %71, %73, FLOAT : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xi1>
    %cst_26 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %77 = stablehlo.select %74, %75, %76 : tensor<16xi1>, tensor<16xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %78 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %79 = stablehlo.compare EQ, %78, %73, FLOAT : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xi1>
    %cst_29 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %80 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %cst_30 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %81 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %82 = stablehlo.select %79, %80, %81 : tensor<16xi1>, tensor<16xf32>
    %83 = stablehlo.divide %77, %82 : tensor<16xf32>
    %cst_31 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %84 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %85 = stablehlo.multiply %84, %arg29 : tensor<16xf32>
    %cst_32 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %86 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %87 = stablehlo.multiply %86, %64 : tensor<16xf32>
    %88 = stablehlo.add %85, %87 : tensor<16xf32>
    %cst_33 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %89 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %90 = stablehlo.multiply %89, %arg30 : tensor<16xf32>
    %cst_34 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %92 = stablehlo.multiply %91, %73 : tensor<16xf32>
    %93 = stablehlo.add %90, %92 : tensor<16xf32>
    %94 = stablehlo.broadcast_in_dim %64, dims = [3] : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %95 = stablehlo.broadcast_in_dim %73, dims = [3] : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %96 = stablehlo.broadcast_in_dim %94, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<16x4x4x16xf32>
    %97 = stablehlo.subtract %58, %96 : tensor<16x4x4x16xf32>
    %cst_35 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %98 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<1x1x1x16xf32>
    %99 = stablehlo.add %95, %98 : tensor<1x1x1x16xf32>
    %100 = stablehlo.rsqrt %99 : tensor<1x1x1x16xf32>
    %101 = stablehlo.divide %100, %99 : tensor<1x1x1x16xf32>
    %cst_36 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %102 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<1x1x1x16xf32>
    %103 = stablehlo.multiply %102, %101 : tensor<1x1x1x16xf32>
    %104 = stablehlo.reshape %arg5 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %105 = stablehlo.multiply %100, %104 : tensor<1x1x1x16xf32>
    %106 = stablehlo.broadcast_in_dim %105, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<16x4x4x16xf32>
    %107 = stablehlo.multiply %97, %106 : tensor<16x4x4x16xf32>
    %108 = stablehlo.reshape %arg4 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %109 = stablehlo.broadcast_in_dim %108, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<16x4x4x16xf32>
    %110 = stablehlo.add %107, %109 : tensor<16x4x4x16xf32>
    %111 = call @relu_0(%110) : (tensor<16x4x4x16xf32>) -> tensor<16x4x4x16xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %112 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<16x4x4x16xf32>
    %113 = stablehlo.compare GT, %110, %112, FLOAT : (tensor<16x4x4x16xf32>, tensor<16x4x4x16xf32>) -> tensor<16x4x4x16xi1>
    %114 = stablehlo.convolution(%111, %arg2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<16x4x4x16xf32>, tensor<3x3x16x16xf32>) -> tensor<16x4x4x16xf32>
    %115 = chlo.square %114 : tensor<16x4x4x16xf32> -> tensor<16x4x4x16xf32>
    %cst_38 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %116 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<16x4x4x16xf32>
    %117 = stablehlo.multiply %116, %114 : tensor<16x4x4x16xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %118 = stablehlo.reduce(%114 init: %cst_39) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_40 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %119 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %120 = stablehlo.divide %118, %119 : tensor<16xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %121 = stablehlo.reduce(%115 init: %cst_41) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_42 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %122 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %123 = stablehlo.divide %121, %122 : tensor<16xf32>
    %124 = chlo.square %120 : tensor<16xf32> -> tensor<16xf32>
    %cst_43 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %125 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %126 = stablehlo.multiply %125, %120 : tensor<16xf32>
    %127 = stablehlo.subtract %123, %124 : tensor<16xf32>
    %cst_44 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %128 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %129 = stablehlo.maximum %128, %127 : tensor<16xf32>
    %130 = stablehlo.compare EQ, %127, %129, FLOAT : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xi1>
    %cst_45 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %131 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %cst_46 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %132 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %133 = stablehlo.select %130, %131, %132 : tensor<16xi1>, tensor<16xf32>
    %cst_47 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %134 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %135 = stablehlo.compare EQ, %134, %129, FLOAT : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xi1>
    %cst_48 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %136 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %cst_49 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %137 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %138 = stablehlo.select %135, %136, %137 : tensor<16xi1>, tensor<16xf32>
    %139 = stablehlo.divide %133, %138 : tensor<16xf32>
    %cst_50 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %140 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %141 = stablehlo.multiply %140, %arg31 : tensor<16xf32>
    %cst_51 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %142 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %143 = stablehlo.multiply %142, %120 : tensor<16xf32>
    %144 = stablehlo.add %141, %143 : tensor<16xf32>
    %cst_52 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %145 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %146 = stablehlo.multiply %145, %arg32 : tensor<16xf32>
    %cst_53 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %147 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %148 = stablehlo.multiply %147, %129 : tensor<16xf32>
    %149 = stablehlo.add %146, %148 : tensor<16xf32>
    %150 = stablehlo.broadcast_in_dim %120, dims = [3] : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %151 = stablehlo.broadcast_in_dim %129, dims = [3] : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %152 = stablehlo.broadcast_in_dim %150, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<16x4x4x16xf32>
    %153 = stablehlo.subtract %114, %152 : tensor<16x4x4x16xf32>
    %cst_54 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %154 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<1x1x1x16xf32>
    %155 = stablehlo.add %151, %154 : tensor<1x1x1x16xf32>
    %156 = stablehlo.rsqrt %155 : tensor<1x1x1x16xf32>
    %157 = stablehlo.divide %156, %155 : tensor<1x1x1x16xf32>
    %cst_55 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %158 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<f32>) -> tensor<1x1x1x16xf32>
    %159 = stablehlo.multiply %158, %157 : tensor<1x1x1x16xf32>
    %160 = stablehlo.reshape %arg7 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %161 = stablehlo.multiply %156, %160 : tensor<1x1x1x16xf32>
    %162 = stablehlo.broadcast_in_dim %161, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<16x4x4x16xf32>
    %163 = stablehlo.multiply %153, %162 : tensor<16x4x4x16xf32>
    %164 = stablehlo.reshape %arg6 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %165 = stablehlo.broadcast_in_dim %164, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<16x4x4x16xf32>
    %166 = stablehlo.add %163, %165 : tensor<16x4x4x16xf32>
    %167 = stablehlo.convolution(%57, %arg3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<16x8x8x8xf32>, tensor<1x1x8x16xf32>) -> tensor<16x4x4x16xf32>
    %168 = chlo.square %167 : tensor<16x4x4x16xf32> -> tensor<16x4x4x16xf32>
    %cst_56 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %169 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<f32>) -> tensor<16x4x4x16xf32>
    %170 = stablehlo.multiply %169, %167 : tensor<16x4x4x16xf32>
    %cst_57 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %171 = stablehlo.reduce(%167 init: %cst_57) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_58 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %172 = stablehlo.broadcast_in_dim %cst_58, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %173 = stablehlo.divide %171, %172 : tensor<16xf32>
    %cst_59 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %174 = stablehlo.reduce(%168 init: %cst_59) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_60 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %175 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %176 = stablehlo.divide %174, %175 : tensor<16xf32>
    %177 = chlo.square %173 : tensor<16xf32> -> tensor<16xf32>
    %cst_61 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %178 = stablehlo.broadcast_in_dim %cst_61, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %179 = stablehlo.multiply %178, %173 : tensor<16xf32>
    %180 = stablehlo.subtract %176, %177 : tensor<16xf32>
    %cst_62 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %181 = stablehlo.broadcast_in_dim %cst_62, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %182 = stablehlo.maximum %181, %180 : tensor<16xf32>
    %183 = stablehlo.compare EQ, %180, %182, FLOAT : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xi1>
    %cst_63 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %184 = stablehlo.broadcast_in_dim %cst_63, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %cst_64 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %185 = stablehlo.broadcast_in_dim %cst_64, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %186 = stablehlo.select %183, %184, %185 : tensor<16xi1>, tensor<16xf32>
    %cst_65 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %187 = stablehlo.broadcast_in_dim %cst_65, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %188 = stablehlo.compare EQ, %187, %182, FLOAT : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xi1>
    %cst_66 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %189 = stablehlo.broadcast_in_dim %cst_66, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %cst_67 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %190 = stablehlo.broadcast_in_dim %cst_67, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %191 = stablehlo.select %188, %189, %190 : tensor<16xi1>, tensor<16xf32>
    %192 = stablehlo.divide %186, %191 : tensor<16xf32>
    %cst_68 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %193 = stablehlo.broadcast_in_dim %cst_68, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %194 = stablehlo.multiply %193, %arg33 : tensor<16xf32>
    %cst_69 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %195 = stablehlo.broadcast_in_dim %cst_69, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %196 = stablehlo.multiply %195, %173 : tensor<16xf32>
    %197 = stablehlo.add %194, %196 : tensor<16xf32>
    %cst_70 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %198 = stablehlo.broadcast_in_dim %cst_70, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %199 = stablehlo.multiply %198, %arg34 : tensor<16xf32>
    %cst_71 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %200 = stablehlo.broadcast_in_dim %cst_71, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %201 = stablehlo.multiply %200, %182 : tensor<16xf32>
    %202 = stablehlo.add %199, %201 : tensor<16xf32>
    %203 = stablehlo.broadcast_in_dim %173, dims = [3] : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %204 = stablehlo.broadcast_in_dim %182, dims = [3] : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %205 = stablehlo.broadcast_in_dim %203, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<16x4x4x16xf32>
    %206 = stablehlo.subtract %167, %205 : tensor<16x4x4x16xf32>
    %cst_72 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %207 = stablehlo.broadcast_in_dim %cst_72, dims = [] : (tensor<f32>) -> tensor<1x1x1x16xf32>
    %208 = stablehlo.add %204, %207 : tensor<1x1x1x16xf32>
    %209 = stablehlo.rsqrt %208 : tensor<1x1x1x16xf32>
    %210 = stablehlo.divide %209, %208 : tensor<1x1x1x16xf32>
    %cst_73 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %211 = stablehlo.broadcast_in_dim %cst_73, dims = [] : (tensor<f32>) -> tensor<1x1x1x16xf32>
    %212 = stablehlo.multiply %211, %210 : tensor<1x1x1x16xf32>
    %213 = stablehlo.reshape %arg9 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %214 = stablehlo.multiply %209, %213 : tensor<1x1x1x16xf32>
    %215 = stablehlo.broadcast_in_dim %214, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<16x4x4x16xf32>
    %216 = stablehlo.multiply %206, %215 : tensor<16x4x4x16xf32>
    %217 = stablehlo.reshape %arg8 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %218 = stablehlo.broadcast_in_dim %217, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<16x4x4x16xf32>
    %219 = stablehlo.add %216, %218 : tensor<16x4x4x16xf32>
    %220 = stablehlo.add %219, %166 : tensor<16x4x4x16xf32>
    %221 = call @relu_0(%220) : (tensor<16x4x4x16xf32>) -> tensor<16x4x4x16xf32>
    %cst_74 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %222 = stablehlo.broadcast_in_dim %cst_74, dims = [] : (tensor<f32>) -> tensor<16x4x4x16xf32>
    %223 = stablehlo.compare GT, %220, %222, FLOAT : (tensor<16x4x4x16xf32>, tensor<16x4x4x16xf32>) -> tensor<16x4x4x16xi1>
    %cst_75 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %224 = stablehlo.reduce(%221 init: %cst_75) applies stablehlo.add across dimensions = [1, 2] : (tensor<16x4x4x16xf32>, tensor<f32>) -> tensor<16x16xf32>
    %cst_76 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %225 = stablehlo.broadcast_in_dim %cst_76, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %226 = stablehlo.divide %224, %225 : tensor<16x16xf32>
    %227 = stablehlo.dot_general %226, %arg14, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x10xf32>) -> tensor<16x10xf32>
    %228 = stablehlo.reshape %arg13 : (tensor<10xf32>) -> tensor<1x10xf32>
    %229 = stablehlo.broadcast_in_dim %228, dims = [0, 1] : (tensor<1x10xf32>) -> tensor<16x10xf32>
    %230 = stablehlo.add %227, %229 : tensor<16x10xf32>
    %231 = stablehlo.broadcast_in_dim %arg38, dims = [0] : (tensor<16xi32>) -> tensor<16x1xi32>
    %232:2 = call @take_along_axis(%230, %231) : (tensor<16x10xf32>, tensor<16x1xi32>) -> (tensor<16x1xf32>, tensor<16x1x1xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %233:2 = call @_take(%232#0, %c) : (tensor<16x1xf32>, tensor<i32>) -> (tensor<16xf32>, tensor<1xi32>)
    %cst_77 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %234 = stablehlo.reduce(%230 init: %cst_77) applies stablehlo.maximum across dimensions = [1] : (tensor<16x10xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_78 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %235 = stablehlo.broadcast_in_dim %cst_78, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %236 = stablehlo.maximum %235, %234 : tensor<16xf32>
    %237 = stablehlo.is_finite %236 : (tensor<16xf32>) -> tensor<16xi1>
    %cst_79 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %238 = stablehlo.broadcast_in_dim %cst_79, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %239 = stablehlo.select %237, %236, %238 : tensor<16xi1>, tensor<16xf32>
    %240 = stablehlo.broadcast_in_dim %239, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
    %241 = stablehlo.broadcast_in_dim %240, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x10xf32>
    %242 = stablehlo.subtract %230, %241 : tensor<16x10xf32>
    %243 = stablehlo.exponential %242 : tensor<16x10xf32>
    %cst_80 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %244 = stablehlo.reduce(%243 init: %cst_80) applies stablehlo.add across dimensions = [1] : (tensor<16x10xf32>, tensor<f32>) -> tensor<16xf32>
    %245 = stablehlo.abs %244 : tensor<16xf32>
    %cst_81 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %246 = stablehlo.broadcast_in_dim %cst_81, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %247 = stablehlo.compare GE, %244, %246, FLOAT : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xi1>
    %248 = stablehlo.log %245 : tensor<16xf32>
    %249 = stablehlo.add %248, %239 : tensor<16xf32>
    %250 = stablehlo.subtract %249, %233#0 : tensor<16xf32>
    %cst_82 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %251 = stablehlo.reduce(%250 init: %cst_82) applies stablehlo.add across dimensions = [0] : (tensor<16xf32>, tensor<f32>) -> tensor<f32>
    %cst_83 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %252 = stablehlo.divide %251, %cst_83 : tensor<f32>
    %cst_84 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_85 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %253 = stablehlo.divide %cst_84, %cst_85 : tensor<f32>
    %254 = stablehlo.broadcast_in_dim %253, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %255 = stablehlo.negate %254 : tensor<16xf32>
    %256 = stablehlo.divide %254, %245 : tensor<16xf32>
    %cst_86 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %257 = stablehlo.broadcast_in_dim %cst_86, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %258 = stablehlo.select %247, %257, %256 : tensor<16xi1>, tensor<16xf32>
    %259 = stablehlo.select %247, %256, %257 : tensor<16xi1>, tensor<16xf32>
    %260 = stablehlo.negate %258 : tensor<16xf32>
    %261 = stablehlo.add %259, %260 : tensor<16xf32>
    %262 = stablehlo.broadcast_in_dim %261, dims = [0] : (tensor<16xf32>) -> tensor<16x10xf32>
    %263 = stablehlo.multiply %262, %243 : tensor<16x10xf32>
    %264 = call @_take_1(%233#1, %255) : (tensor<1xi32>, tensor<16xf32>) -> tensor<16x1xf32>
    %265 = call @take_along_axis_2(%232#1, %264) : (tensor<16x1x1xi32>, tensor<16x1xf32>) -> tensor<16x10xf32>
    %266 = stablehlo.add %263, %265 : tensor<16x10xf32>
    %cst_87 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %267 = stablehlo.reduce(%266 init: %cst_87) applies stablehlo.add across dimensions = [0] : (tensor<16x10xf32>, tensor<f32>) -> tensor<10xf32>
    %268 = stablehlo.reshape %267 : (tensor<10xf32>) -> tensor<1x10xf32>
    %269 = stablehlo.reshape %268 : (tensor<1x10xf32>) -> tensor<10xf32>
    %270 = stablehlo.dot_general %266, %226, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x10xf32>, tensor<16x16xf32>) -> tensor<10x16xf32>
    %271 = stablehlo.transpose %270, dims = [1, 0] : (tensor<10x16xf32>) -> tensor<16x10xf32>
    %272 = stablehlo.dot_general %266, %arg14, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x10xf32>, tensor<16x10xf32>) -> tensor<16x16xf32>
    %cst_88 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %273 = stablehlo.broadcast_in_dim %cst_88, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %274 = stablehlo.divide %272, %273 : tensor<16x16xf32>
    %275 = stablehlo.broadcast_in_dim %274, dims = [0, 3] : (tensor<16x16xf32>) -> tensor<16x4x4x16xf32>
    %cst_89 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %276 = stablehlo.broadcast_in_dim %cst_89, dims = [] : (tensor<f32>) -> tensor<16x4x4x16xf32>
    %277 = stablehlo.select %223, %275, %276 : tensor<16x4x4x16xi1>, tensor<16x4x4x16xf32>
    %cst_90 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %278 = stablehlo.reduce(%277 init: %cst_90) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %279 = stablehlo.reshape %278 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %280 = stablehlo.reshape %279 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %281 = stablehlo.multiply %206, %277 : tensor<16x4x4x16xf32>
    %cst_91 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %282 = stablehlo.reduce(%281 init: %cst_91) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %283 = stablehlo.reshape %282 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %284 = stablehlo.broadcast_in_dim %214, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<16x4x4x16xf32>
    %285 = stablehlo.multiply %277, %284 : tensor<16x4x4x16xf32>
    %286 = stablehlo.multiply %209, %283 : tensor<1x1x1x16xf32>
    %287 = stablehlo.multiply %283, %213 : tensor<1x1x1x16xf32>
    %288 = stablehlo.reshape %286 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %289 = stablehlo.multiply %287, %212 : tensor<1x1x1x16xf32>
    %290 = stablehlo.negate %285 : tensor<16x4x4x16xf32>
    %cst_92 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %291 = stablehlo.reduce(%290 init: %cst_92) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %292 = stablehlo.reshape %291 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %cst_93 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %293 = stablehlo.reduce(%289 init: %cst_93) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_94 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %294 = stablehlo.reduce(%292 init: %cst_94) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %295 = stablehlo.multiply %293, %192 : tensor<16xf32>
    %296 = stablehlo.negate %295 : tensor<16xf32>
    %297 = stablehlo.multiply %296, %179 : tensor<16xf32>
    %298 = stablehlo.add %294, %297 : tensor<16xf32>
    %cst_95 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %299 = stablehlo.broadcast_in_dim %cst_95, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %300 = stablehlo.divide %295, %299 : tensor<16xf32>
    %301 = stablehlo.broadcast_in_dim %300, dims = [3] : (tensor<16xf32>) -> tensor<16x4x4x16xf32>
    %cst_96 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %302 = stablehlo.broadcast_in_dim %cst_96, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %303 = stablehlo.divide %298, %302 : tensor<16xf32>
    %304 = stablehlo.broadcast_in_dim %303, dims = [3] : (tensor<16xf32>) -> tensor<16x4x4x16xf32>
    %305 = stablehlo.add %285, %304 : tensor<16x4x4x16xf32>
    %306 = stablehlo.multiply %301, %170 : tensor<16x4x4x16xf32>
    %307 = stablehlo.add %305, %306 : tensor<16x4x4x16xf32>
    %308 = stablehlo.convolution(%57, %307) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[0, -1], [0, -1]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<16x8x8x8xf32>, tensor<16x4x4x16xf32>) -> tensor<1x1x8x16xf32>
    %309 = stablehlo.reverse %arg3, dims = [0, 1] : tensor<1x1x8x16xf32>
    %310 = stablehlo.convolution(%307, %309) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 1], [0, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<16x4x4x16xf32>, tensor<1x1x8x16xf32>) -> tensor<16x8x8x8xf32>
    %cst_97 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %311 = stablehlo.reduce(%277 init: %cst_97) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %312 = stablehlo.reshape %311 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %313 = stablehlo.reshape %312 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %314 = stablehlo.multiply %153, %277 : tensor<16x4x4x16xf32>
    %cst_98 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %315 = stablehlo.reduce(%314 init: %cst_98) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %316 = stablehlo.reshape %315 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %317 = stablehlo.broadcast_in_dim %161, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<16x4x4x16xf32>
    %318 = stablehlo.multiply %277, %317 : tensor<16x4x4x16xf32>
    %319 = stablehlo.multiply %156, %316 : tensor<1x1x1x16xf32>
    %320 = stablehlo.multiply %316, %160 : tensor<1x1x1x16xf32>
    %321 = stablehlo.reshape %319 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %322 = stablehlo.multiply %320, %159 : tensor<1x1x1x16xf32>
    %323 = stablehlo.negate %318 : tensor<16x4x4x16xf32>
    %cst_99 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %324 = stablehlo.reduce(%323 init: %cst_99) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %325 = stablehlo.reshape %324 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %cst_100 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %326 = stablehlo.reduce(%322 init: %cst_100) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_101 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %327 = stablehlo.reduce(%325 init: %cst_101) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %328 = stablehlo.multiply %326, %139 : tensor<16xf32>
    %329 = stablehlo.negate %328 : tensor<16xf32>
    %330 = stablehlo.multiply %329, %126 : tensor<16xf32>
    %331 = stablehlo.add %327, %330 : tensor<16xf32>
    %cst_102 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %332 = stablehlo.broadcast_in_dim %cst_102, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %333 = stablehlo.divide %328, %332 : tensor<16xf32>
    %334 = stablehlo.broadcast_in_dim %333, dims = [3] : (tensor<16xf32>) -> tensor<16x4x4x16xf32>
    %cst_103 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %335 = stablehlo.broadcast_in_dim %cst_103, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %336 = stablehlo.divide %331, %335 : tensor<16xf32>
    %337 = stablehlo.broadcast_in_dim %336, dims = [3] : (tensor<16xf32>) -> tensor<16x4x4x16xf32>
    %338 = stablehlo.add %318, %337 : tensor<16x4x4x16xf32>
    %339 = stablehlo.multiply %334, %117 : tensor<16x4x4x16xf32>
    %340 = stablehlo.add %338, %339 : tensor<16x4x4x16xf32>
    %341 = stablehlo.convolution(%111, %340) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<16x4x4x16xf32>, tensor<16x4x4x16xf32>) -> tensor<3x3x16x16xf32>
    %342 = stablehlo.reverse %arg2, dims = [0, 1] : tensor<3x3x16x16xf32>
    %343 = stablehlo.convolution(%340, %342) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<16x4x4x16xf32>, tensor<3x3x16x16xf32>) -> tensor<16x4x4x16xf32>
    %cst_104 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %344 = stablehlo.broadcast_in_dim %cst_104, dims = [] : (tensor<f32>) -> tensor<16x4x4x16xf32>
    %345 = stablehlo.select %113, %343, %344 : tensor<16x4x4x16xi1>, tensor<16x4x4x16xf32>
    %cst_105 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %346 = stablehlo.reduce(%345 init: %cst_105) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %347 = stablehlo.reshape %346 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %348 = stablehlo.reshape %347 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %349 = stablehlo.multiply %97, %345 : tensor<16x4x4x16xf32>
    %cst_106 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %350 = stablehlo.reduce(%349 init: %cst_106) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %351 = stablehlo.reshape %350 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %352 = stablehlo.broadcast_in_dim %105, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<16x4x4x16xf32>
    %353 = stablehlo.multiply %345, %352 : tensor<16x4x4x16xf32>
    %354 = stablehlo.multiply %100, %351 : tensor<1x1x1x16xf32>
    %355 = stablehlo.multiply %351, %104 : tensor<1x1x1x16xf32>
    %356 = stablehlo.reshape %354 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %357 = stablehlo.multiply %355, %103 : tensor<1x1x1x16xf32>
    %358 = stablehlo.negate %353 : tensor<16x4x4x16xf32>
    %cst_107 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %359 = stablehlo.reduce(%358 init: %cst_107) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %360 = stablehlo.reshape %359 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %cst_108 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %361 = stablehlo.reduce(%357 init: %cst_108) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_109 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %362 = stablehlo.reduce(%360 init: %cst_109) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %363 = stablehlo.multiply %361, %83 : tensor<16xf32>
    %364 = stablehlo.negate %363 : tensor<16xf32>
    %365 = stablehlo.multiply %364, %70 : tensor<16xf32>
    %366 = stablehlo.add %362, %365 : tensor<16xf32>
    %cst_110 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %367 = stablehlo.broadcast_in_dim %cst_110, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %368 = stablehlo.divide %363, %367 : tensor<16xf32>
    %369 = stablehlo.broadcast_in_dim %368, dims = [3] : (tensor<16xf32>) -> tensor<16x4x4x16xf32>
    %cst_111 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %370 = stablehlo.broadcast_in_dim %cst_111, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %371 = stablehlo.divide %366, %370 : tensor<16xf32>
    %372 = stablehlo.broadcast_in_dim %371, dims = [3] : (tensor<16xf32>) -> tensor<16x4x4x16xf32>
    %373 = stablehlo.add %353, %372 : tensor<16x4x4x16xf32>
    %374 = stablehlo.multiply %369, %61 : tensor<16x4x4x16xf32>
    %375 = stablehlo.add %373, %374 : tensor<16x4x4x16xf32>
    %376 = stablehlo.convolution(%57, %375) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<16x8x8x8xf32>, tensor<16x4x4x16xf32>) -> tensor<3x3x8x16xf32>
    %377 = stablehlo.reverse %arg1, dims = [0, 1] : tensor<3x3x8x16xf32>
    %378 = stablehlo.convolution(%375, %377) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<16x4x4x16xf32>, tensor<3x3x8x16xf32>) -> tensor<16x8x8x8xf32>
    %379 = stablehlo.add %310, %378 : tensor<16x8x8x8xf32>
    %cst_112 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %380 = stablehlo.pad %53, %cst_112, low = [0, 0, 0, 0], high = [0, 1, 1, 0], interior = [0, 0, 0, 0] : (tensor<16x16x16x8xf32>, tensor<f32>) -> tensor<16x17x17x8xf32>
    %cst_113 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %381 = "stablehlo.select_and_scatter"(%380, %379, %cst_113) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg39: tensor<f32>, %arg40: tensor<f32>):
      %501 = stablehlo.compare GE, %arg39, %arg40, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %501 : tensor<i1>
    }, {
    ^bb0(%arg39: tensor<f32>, %arg40: tensor<f32>):
      %501 = stablehlo.add %arg39, %arg40 : tensor<f32>
      stablehlo.return %501 : tensor<f32>
    }) : (tensor<16x17x17x8xf32>, tensor<16x8x8x8xf32>, tensor<f32>) -> tensor<16x17x17x8xf32>
    %382 = stablehlo.slice %381 [0:16, 0:16, 0:16, 0:8] : (tensor<16x17x17x8xf32>) -> tensor<16x16x16x8xf32>
    %cst_114 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %383 = stablehlo.broadcast_in_dim %cst_114, dims = [] : (tensor<f32>) -> tensor<16x16x16x8xf32>
    %384 = stablehlo.select %55, %382, %383 : tensor<16x16x16x8xi1>, tensor<16x16x16x8xf32>
    %cst_115 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %385 = stablehlo.reduce(%384 init: %cst_115) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x16x16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %386 = stablehlo.reshape %385 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %387 = stablehlo.reshape %386 : (tensor<1x1x1x8xf32>) -> tensor<8xf32>
    %388 = stablehlo.multiply %39, %384 : tensor<16x16x16x8xf32>
    %cst_116 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %389 = stablehlo.reduce(%388 init: %cst_116) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x16x16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %390 = stablehlo.reshape %389 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %391 = stablehlo.broadcast_in_dim %47, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<16x16x16x8xf32>
    %392 = stablehlo.multiply %384, %391 : tensor<16x16x16x8xf32>
    %393 = stablehlo.multiply %42, %390 : tensor<1x1x1x8xf32>
    %394 = stablehlo.multiply %390, %46 : tensor<1x1x1x8xf32>
    %395 = stablehlo.reshape %393 : (tensor<1x1x1x8xf32>) -> tensor<8xf32>
    %396 = stablehlo.multiply %394, %45 : tensor<1x1x1x8xf32>
    %397 = stablehlo.negate %392 : tensor<16x16x16x8xf32>
    %cst_117 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %398 = stablehlo.reduce(%397 init: %cst_117) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x16x16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %399 = stablehlo.reshape %398 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_118 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %400 = stablehlo.reduce(%396 init: %cst_118) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_119 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %401 = stablehlo.reduce(%399 init: %cst_119) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %402 = stablehlo.multiply %400, %25 : tensor<8xf32>
    %403 = stablehlo.negate %402 : tensor<8xf32>
    %404 = stablehlo.multiply %403, %12 : tensor<8xf32>
    %405 = stablehlo.add %401, %404 : tensor<8xf32>
    %cst_120 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %406 = stablehlo.broadcast_in_dim %cst_120, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %407 = stablehlo.divide %402, %406 : tensor<8xf32>
    %408 = stablehlo.broadcast_in_dim %407, dims = [3] : (tensor<8xf32>) -> tensor<16x16x16x8xf32>
    %cst_121 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %409 = stablehlo.broadcast_in_dim %cst_121, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %410 = stablehlo.divide %405, %409 : tensor<8xf32>
    %411 = stablehlo.broadcast_in_dim %410, dims = [3] : (tensor<8xf32>) -> tensor<16x16x16x8xf32>
    %412 = stablehlo.add %392, %411 : tensor<16x16x16x8xf32>
    %413 = stablehlo.multiply %408, %3 : tensor<16x16x16x8xf32>
    %414 = stablehlo.add %412, %413 : tensor<16x16x16x8xf32>
    %415 = stablehlo.convolution(%arg37, %414) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<16x16x16x3xf32>, tensor<16x16x16x8xf32>) -> tensor<3x3x3x8xf32>
    %cst_122 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %416 = stablehlo.broadcast_in_dim %cst_122, dims = [] : (tensor<f32>) -> tensor<3x3x8x16xf32>
    %417 = stablehlo.multiply %416, %arg15 : tensor<3x3x8x16xf32>
    %418 = stablehlo.add %376, %417 : tensor<3x3x8x16xf32>
    %cst_123 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %419 = stablehlo.broadcast_in_dim %cst_123, dims = [] : (tensor<f32>) -> tensor<3x3x16x16xf32>
    %420 = stablehlo.multiply %419, %arg16 : tensor<3x3x16x16xf32>
    %421 = stablehlo.add %341, %420 : tensor<3x3x16x16xf32>
    %cst_124 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %422 = stablehlo.broadcast_in_dim %cst_124, dims = [] : (tensor<f32>) -> tensor<1x1x8x16xf32>
    %423 = stablehlo.multiply %422, %arg17 : tensor<1x1x8x16xf32>
    %424 = stablehlo.add %308, %423 : tensor<1x1x8x16xf32>
    %cst_125 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %425 = stablehlo.broadcast_in_dim %cst_125, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %426 = stablehlo.multiply %425, %arg18 : tensor<16xf32>
    %427 = stablehlo.add %348, %426 : tensor<16xf32>
    %cst_126 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %428 = stablehlo.broadcast_in_dim %cst_126, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %429 = stablehlo.multiply %428, %arg19 : tensor<16xf32>
    %430 = stablehlo.add %356, %429 : tensor<16xf32>
    %cst_127 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %431 = stablehlo.broadcast_in_dim %cst_127, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %432 = stablehlo.multiply %431, %arg20 : tensor<16xf32>
    %433 = stablehlo.add %313, %432 : tensor<16xf32>
    %cst_128 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %434 = stablehlo.broadcast_in_dim %cst_128, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %435 = stablehlo.multiply %434, %arg21 : tensor<16xf32>
    %436 = stablehlo.add %321, %435 : tensor<16xf32>
    %cst_129 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %437 = stablehlo.broadcast_in_dim %cst_129, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %438 = stablehlo.multiply %437, %arg22 : tensor<16xf32>
    %439 = stablehlo.add %280, %438 : tensor<16xf32>
    %cst_130 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %440 = stablehlo.broadcast_in_dim %cst_130, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %441 = stablehlo.multiply %440, %arg23 : tensor<16xf32>
    %442 = stablehlo.add %288, %441 : tensor<16xf32>
    %cst_131 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %443 = stablehlo.broadcast_in_dim %cst_131, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %444 = stablehlo.multiply %443, %arg24 : tensor<8xf32>
    %445 = stablehlo.add %387, %444 : tensor<8xf32>
    %cst_132 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %446 = stablehlo.broadcast_in_dim %cst_132, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %447 = stablehlo.multiply %446, %arg25 : tensor<8xf32>
    %448 = stablehlo.add %395, %447 : tensor<8xf32>
    %cst_133 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %449 = stablehlo.broadcast_in_dim %cst_133, dims = [] : (tensor<f32>) -> tensor<3x3x3x8xf32>
    %450 = stablehlo.multiply %449, %arg26 : tensor<3x3x3x8xf32>
    %451 = stablehlo.add %415, %450 : tensor<3x3x3x8xf32>
    %cst_134 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %452 = stablehlo.broadcast_in_dim %cst_134, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %453 = stablehlo.multiply %452, %arg27 : tensor<10xf32>
    %454 = stablehlo.add %269, %453 : tensor<10xf32>
    %cst_135 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %455 = stablehlo.broadcast_in_dim %cst_135, dims = [] : (tensor<f32>) -> tensor<16x10xf32>
    %456 = stablehlo.multiply %455, %arg28 : tensor<16x10xf32>
    %457 = stablehlo.add %271, %456 : tensor<16x10xf32>
    %cst_136 = stablehlo.constant dense<-1.000000e-01> : tensor<f32>
    %458 = stablehlo.broadcast_in_dim %cst_136, dims = [] : (tensor<f32>) -> tensor<3x3x8x16xf32>
    %459 = stablehlo.multiply %458, %418 : tensor<3x3x8x16xf32>
    %cst_137 = stablehlo.constant dense<-1.000000e-01> : tensor<f32>
    %460 = stablehlo.broadcast_in_dim %cst_137, dims = [] : (tensor<f32>) -> tensor<3x3x16x16xf32>
    %461 = stablehlo.multiply %460, %421 : tensor<3x3x16x16xf32>
    %cst_138 = stablehlo.constant dense<-1.000000e-01> : tensor<f32>
    %462 = stablehlo.broadcast_in_dim %cst_138, dims = [] : (tensor<f32>) -> tensor<1x1x8x16xf32>
    %463 = stablehlo.multiply %462, %424 : tensor<1x1x8x16xf32>
    %cst_139 = stablehlo.constant dense<-1.000000e-01> : tensor<f32>
    %464 = stablehlo.broadcast_in_dim %cst_139, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %465 = stablehlo.multiply %464, %427 : tensor<16xf32>
    %cst_140 = stablehlo.constant dense<-1.000000e-01> : tensor<f32>
    %466 = stablehlo.broadcast_in_dim %cst_140, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %467 = stablehlo.multiply %466, %430 : tensor<16xf32>
    %cst_141 = stablehlo.constant dense<-1.000000e-01> : tensor<f32>
    %468 = stablehlo.broadcast_in_dim %cst_141, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %469 = stablehlo.multiply %468, %433 : tensor<16xf32>
    %cst_142 = stablehlo.constant dense<-1.000000e-01> : tensor<f32>
    %470 = stablehlo.broadcast_in_dim %cst_142, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %471 = stablehlo.multiply %470, %436 : tensor<16xf32>
    %cst_143 = stablehlo.constant dense<-1.000000e-01> : tensor<f32>
    %472 = stablehlo.broadcast_in_dim %cst_143, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %473 = stablehlo.multiply %472, %439 : tensor<16xf32>
    %cst_144 = stablehlo.constant dense<-1.000000e-01> : tensor<f32>
    %474 = stablehlo.broadcast_in_dim %cst_144, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %475 = stablehlo.multiply %474, %442 : tensor<16xf32>
    %cst_145 = stablehlo.constant dense<-1.000000e-01> : tensor<f32>
    %476 = stablehlo.broadcast_in_dim %cst_145, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %477 = stablehlo.multiply %476, %445 : tensor<8xf32>
    %cst_146 = stablehlo.constant dense<-1.000000e-01> : tensor<f32>
    %478 = stablehlo.broadcast_in_dim %cst_146, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %479 = stablehlo.multiply %478, %448 : tensor<8xf32>
    %cst_147 = stablehlo.constant dense<-1.000000e-01> : tensor<f32>
    %480 = stablehlo.broadcast_in_dim %cst_147, dims = [] : (tensor<f32>) -> tensor<3x3x3x8xf32>
    %481 = stablehlo.multiply %480, %451 : tensor<3x3x3x8xf32>
    %cst_148 = stablehlo.constant dense<-1.000000e-01> : tensor<f32>
    %482 = stablehlo.broadcast_in_dim %cst_148, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %483 = stablehlo.multiply %482, %454 : tensor<10xf32>
    %cst_149 = stablehlo.constant dense<-1.000000e-01> : tensor<f32>
    %484 = stablehlo.broadcast_in_dim %cst_149, dims = [] : (tensor<f32>) -> tensor<16x10xf32>
    %485 = stablehlo.multiply %484, %457 : tensor<16x10xf32>
    %486 = stablehlo.add %arg1, %459 : tensor<3x3x8x16xf32>
    %487 = stablehlo.add %arg2, %461 : tensor<3x3x16x16xf32>
    %488 = stablehlo.add %arg3, %463 : tensor<1x1x8x16xf32>
    %489 = stablehlo.add %arg4, %465 : tensor<16xf32>
    %490 = stablehlo.add %arg5, %467 : tensor<16xf32>
    %491 = stablehlo.add %arg6, %469 : tensor<16xf32>
    %492 = stablehlo.add %arg7, %471 : tensor<16xf32>
    %493 = stablehlo.add %arg8, %473 : tensor<16xf32>
    %494 = stablehlo.add %arg9, %475 : tensor<16xf32>
    %495 = stablehlo.add %arg10, %477 : tensor<8xf32>
    %496 = stablehlo.add %arg11, %479 : tensor<8xf32>
    %497 = stablehlo.add %arg12, %481 : tensor<3x3x3x8xf32>
    %498 = stablehlo.add %arg13, %483 : tensor<10xf32>
    %499 = stablehlo.add %arg14, %485 : tensor<16x10xf32>
    %c_150 = stablehlo.constant dense<1> : tensor<i32>
    %500 = stablehlo.add %arg0, %c_150 : tensor<i32>
    return %500, %486, %487, %488, %489, %490, %491, %492, %493, %494, %495, %496, %497, %498, %499, %418, %421, %424, %427, %430, %433, %436, %439, %442, %445, %448, %451, %454, %457, %88, %93, %144, %149, %197, %202, %30, %35, %252 : tensor<i32>, tensor<3x3x8x16xf32>, tensor<3x3x16x16xf32>, tensor<1x1x8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<3x3x3x8xf32>, tensor<10xf32>, tensor<16x10xf32>, tensor<3x3x8x16xf32>, tensor<3x3x16x16xf32>, tensor<1x1x8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<3x3x3x8xf32>, tensor<10xf32>, tensor<16x10xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>
  }
  func.func private @relu(%arg0: tensor<16x16x16x8xf32>) -> tensor<16x16x16x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x16x16x8xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<16x16x16x8xf32>
    return %1 : tensor<16x16x16x8xf32>
  }
  func.func private @relu_0(%arg0: tensor<16x4x4x16xf32>) -> tensor<16x4x4x16xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x4x4x16xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<16x4x4x16xf32>
    return %1 : tensor<16x4x4x16xf32>
  }
  func.func private @take_along_axis(%arg0: tensor<16x10xf32>, %arg1: tensor<16x1xi32>) -> (tensor<16x1xf32>, tensor<16x1x1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<16x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<16x1xi32>, tensor<16x1xi32>) -> tensor<16x1xi1>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<16x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<16x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<16x1xi1>, tensor<16x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<16x1xi32>) -> tensor<16x1x1xi32>
    %c_1 = stablehlo.constant dense<9> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<16x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<16x1x1xi32>, tensor<16x1x1xi32>) -> tensor<16x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<16x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<16x1x1xi32>, tensor<16x1x1xi32>) -> tensor<16x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<16x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<16x1x1xi1>, tensor<i1>) -> tensor<16x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<16x10xf32>, tensor<16x1x1xi32>) -> tensor<16x1xf32>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x1xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<16x1xi1>, tensor<16x1xf32>
    return %15, %5 : tensor<16x1xf32>, tensor<16x1x1xi32>
  }
  func.func private @_take(%arg0: tensor<16x1xf32>, %arg1: tensor<i32>) -> (tensor<16xf32>, tensor<1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.add %arg1, %c_0 : tensor<i32>
    %2 = call @_where(%0, %1, %arg1) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<1xi32>
    %4 = stablehlo.convert %3 : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %6 = stablehlo.compare GE, %4, %5, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %7 = stablehlo.compare LE, %4, %c_1, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %8 = stablehlo.and %6, %7 : tensor<1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %9 = stablehlo.reduce(%8 init: %c_3) applies stablehlo.and across dimensions = [0] : (tensor<1xi1>, tensor<i1>) -> tensor<i1>
    %10 = "stablehlo.gather"(%arg0, %4) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = false, slice_sizes = array<i64: 16, 1>}> : (tensor<16x1xf32>, tensor<1xi32>) -> tensor<16xf32>
    %11 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<16xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %13 = stablehlo.select %11, %10, %12 : tensor<16xi1>, tensor<16xf32>
    return %13, %3 : tensor<16xf32>, tensor<1xi32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @_take_1(%arg0: tensor<1xi32>, %arg1: tensor<16xf32>) -> tensor<16x1xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x1xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<16x1xf32>, tensor<1xi32>, tensor<16xf32>) -> tensor<16x1xf32>
    return %1 : tensor<16x1xf32>
  }
  func.func private @take_along_axis_2(%arg0: tensor<16x1x1xi32>, %arg1: tensor<16x1xf32>) -> tensor<16x10xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x10xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<16x10xf32>, tensor<16x1x1xi32>, tensor<16x1xf32>) -> tensor<16x10xf32>
    return %1 : tensor<16x10xf32>
  }
}
