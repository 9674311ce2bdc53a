module @jit_vit_loss_and_grad attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, %arg1: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg2: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg3: tensor<64x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg4: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg5: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg6: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg7: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg8: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg9: tensor<32x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg10: tensor<96xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, %arg11: tensor<32x96xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg12: tensor<1x1x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}, %arg13: tensor<10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg14: tensor<32x10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg15: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg16: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg17: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg18: tensor<4x4x3x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg19: tensor<1x17x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}, %arg20: tensor<8x16x16x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {}, {}]>}, %arg21: tensor<8xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}) -> (tensor<f32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, []>}, tensor<64xf32> {jax.result_info = "result[1]['blocks'][0]['fc1']['bias'].value", sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, tensor<32x64xf32> {jax.result_info = "result[1]['blocks'][0]['fc1']['kernel'].value", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, tensor<32xf32> {jax.result_info = "result[1]['blocks'][0]['fc2']['bias'].value", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<64x32xf32> {jax.result_info = "result[1]['blocks'][0]['fc2']['kernel'].value", sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, tensor<32xf32> {jax.result_info = "result[1]['blocks'][0]['ln1']['bias'].value", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32xf32> {jax.result_info = "result[1]['blocks'][0]['ln1']['scale'].value", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32xf32> {jax.result_info = "result[1]['blocks'][0]['ln2']['bias'].value", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32xf32> {jax.result_info = "result[1]['blocks'][0]['ln2']['scale'].value", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32xf32> {jax.result_info = "result[1]['blocks'][0]['proj']['bias'].value", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32x32xf32> {jax.result_info = "result[1]['blocks'][0]['proj']['kernel'].value", sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, tensor<96xf32> {jax.result_info = "result[1]['blocks'][0]['qkv']['bias'].value", sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, tensor<32x96xf32> {jax.result_info = "result[1]['blocks'][0]['qkv']['kernel'].value", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, tensor<1x1x32xf32> {jax.result_info = "result[1]['cls'].value", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}, tensor<10xf32> {jax.result_info = "result[1]['head']['bias'].value", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32x10xf32> {jax.result_info = "result[1]['head']['kernel'].value", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<32xf32> {jax.result_info = "result[1]['ln']['bias'].value", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32xf32> {jax.result_info = "result[1]['ln']['scale'].value", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32xf32> {jax.result_info = "result[1]['patch']['bias'].value", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<4x4x3x32xf32> {jax.result_info = "result[1]['patch']['kernel'].value", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<1x17x32xf32> {jax.result_info = "result[1]['pos'].value", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) {
    %0 = stablehlo.convolution(%arg20, %arg18) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [4, 4], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x16x16x3xf32>, tensor<4x4x3x32xf32>) -> tensor<8x4x4x32xf32>
    %1 = stablehlo.reshape %arg17 : (tensor<32xf32>) -> tensor<1x1x1x32xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<8x4x4x32xf32>
    %3 = stablehlo.add %0, %2 : tensor<8x4x4x32xf32>
    %4 = stablehlo.reshape %3 : (tensor<8x4x4x32xf32>) -> tensor<8x16x32xf32>
    %5 = stablehlo.broadcast_in_dim %arg12, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x1x32xf32>
    %6 = stablehlo.concatenate %5, %4, dim = 1 : (tensor<8x1x32xf32>, tensor<8x16x32xf32>) -> tensor<8x17x32xf32>
    %7 = stablehlo.broadcast_in_dim %arg19, dims = [0, 1, 2] : (tensor<1x17x32xf32>) -> tensor<8x17x32xf32>
    %8 = stablehlo.add %6, %7 : tensor<8x17x32xf32>
    %9 = chlo.square %8 : tensor<8x17x32xf32> -> tensor<8x17x32xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x17x32xf32>
    %11 = stablehlo.multiply %10, %8 : tensor<8x17x32xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.reduce(%8 init: %cst_0) applies stablehlo.add across dimensions = [2] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<8x17xf32>
    %cst_1 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %14 = stablehlo.divide %12, %13 : tensor<8x17xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.reduce(%9 init: %cst_2) applies stablehlo.add across dimensions = [2] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<8x17xf32>
    %cst_3 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %17 = stablehlo.divide %15, %16 : tensor<8x17xf32>
    %18 = chlo.square %14 : tensor<8x17xf32> -> tensor<8x17xf32>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %20 = stablehlo.multiply %19, %14 : tensor<8x17xf32>
    %21 = stablehlo.subtract %17, %18 : tensor<8x17xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %23 = stablehlo.maximum %22, %21 : tensor<8x17xf32>
    %24 = stablehlo.compare EQ, %21, %23, FLOAT : (tensor<8x17xf32>, tensor<8x17xf32>) -> tensor<8x17xi1>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %27 = stablehlo.select %24, %25, %26 : tensor<8x17xi1>, tensor<8x17xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %29 = stablehlo.compare EQ, %28, %23, FLOAT : (tensor<8x17xf32>, tensor<8x17xf32>) -> tensor<8x17xi1>
    %cst_9 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %32 = stablehlo.select %29, %30, %31 : tensor<8x17xi1>, tensor<8x17xf32>
    %33 = stablehlo.divide %27, %32 : tensor<8x17xf32>
    %34 = stablehlo.reshape %14 : (tensor<8x17xf32>) -> tensor<8x17x1xf32>
    %35 = stablehlo.reshape %23 : (tensor<8x17xf32>) -> tensor<8x17x1xf32>
    %36 = stablehlo.broadcast_in_dim %34, dims = [0, 1, 2] : (tensor<8x17x1xf32>) -> tensor<8x17x32xf32>
    %37 = stablehlo.subtract %8, %36 : tensor<8x17x32xf32>
    %cst_11 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<8x17x1xf32>
    %39 = stablehlo.add %35, %38 : tensor<8x17x1xf32>
    %40 = stablehlo.rsqrt %39 : tensor<8x17x1xf32>
    %41 = stablehlo.divide %40, %39 : tensor<8x17x1xf32>
    %cst_12 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<8x17x1xf32>
    %43 = stablehlo.multiply %42, %41 : tensor<8x17x1xf32>
    %44 = stablehlo.reshape %arg5 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %45 = stablehlo.broadcast_in_dim %40, dims = [0, 1, 2] : (tensor<8x17x1xf32>) -> tensor<8x17x32xf32>
    %46 = stablehlo.broadcast_in_dim %44, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x17x32xf32>
    %47 = stablehlo.multiply %45, %46 : tensor<8x17x32xf32>
    %48 = stablehlo.multiply %37, %47 : tensor<8x17x32xf32>
    %49 = stablehlo.reshape %arg4 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %50 = stablehlo.broadcast_in_dim %49, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x17x32xf32>
    %51 = stablehlo.add %48, %50 : tensor<8x17x32xf32>
    %52 = stablehlo.dot_general %51, %arg11, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x17x32xf32>, tensor<32x96xf32>) -> tensor<8x17x96xf32>
    %53 = stablehlo.reshape %arg10 : (tensor<96xf32>) -> tensor<1x1x96xf32>
    %54 = stablehlo.broadcast_in_dim %53, dims = [0, 1, 2] : (tensor<1x1x96xf32>) -> tensor<8x17x96xf32>
    %55 = stablehlo.add %52, %54 : tensor<8x17x96xf32>
    %56 = stablehlo.slice %55 [0:8, 0:17, 0:32] : (tensor<8x17x96xf32>) -> tensor<8x17x32xf32>
    %57 = stablehlo.slice %55 [0:8, 0:17, 32:64] : (tensor<8x17x96xf32>) -> tensor<8x17x32xf32>
    %58 = stablehlo.slice %55 [0:8, 0:17, 64:96] : (tensor<8x17x96xf32>) -> tensor<8x17x32xf32>
    %59 = stablehlo.reshape %56 : (tensor<8x17x32xf32>) -> tensor<8x17x4x8xf32>
    %60 = stablehlo.reshape %57 : (tensor<8x17x32xf32>) -> tensor<8x17x4x8xf32>
    %61 = stablehlo.reshape %58 : (tensor<8x17x32xf32>) -> tensor<8x17x4x8xf32>
    %62 = stablehlo.dot_general %59, %60, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x17x4x8xf32>, tensor<8x17x4x8xf32>) -> tensor<8x4x17x17xf32>
    %cst_13 = stablehlo.constant dense<0.353553385> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<8x4x17x17xf32>
    %64 = stablehlo.multiply %62, %63 : tensor<8x4x17x17xf32>
    %cst_14 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %65 = stablehlo.reduce(%64 init: %cst_14) applies stablehlo.maximum across dimensions = [3] : (tensor<8x4x17x17xf32>, tensor<f32>) -> tensor<8x4x17xf32>
    %cst_15 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<8x4x17xf32>
    %67 = stablehlo.maximum %66, %65 : tensor<8x4x17xf32>
    %68 = stablehlo.broadcast_in_dim %67, dims = [0, 1, 2] : (tensor<8x4x17xf32>) -> tensor<8x4x17x1xf32>
    %69 = stablehlo.broadcast_in_dim %68, dims = [0, 1, 2, 3] : (tensor<8x4x17x1xf32>) -> tensor<8x4x17x17xf32>
    %70 = stablehlo.subtract %64, %69 : tensor<8x4x17x17xf32>
    %71 = stablehlo.exponential %70 : tensor<8x4x17x17xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %72 = stablehlo.reduce(%71 init: %cst_16) applies stablehlo.add across dimensions = [3] : (tensor<8x4x17x17xf32>, tensor<f32>) -> tensor<8x4x17xf32>
    %73 = stablehlo.broadcast_in_dim %72, dims = [0, 1, 2] : (tensor<8x4x17xf32>) -> tensor<8x4x17x1xf32>
    %74 = stablehlo.broadcast_in_dim %73, dims = [0, 1, 2, 3] : (tensor<8x4x17x1xf32>) -> tensor<8x4x17x17xf32>
    %75 = stablehlo.divide %71, %74 : tensor<8x4x17x17xf32>
    %76 = stablehlo.multiply %73, %73 : tensor<8x4x17x1xf32>
    %cst_17 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %77 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<8x4x17x1xf32>
    %78 = stablehlo.divide %77, %76 : tensor<8x4x17x1xf32>
    %79 = stablehlo.dot_general %61, %75, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x17x4x8xf32>, tensor<8x4x17x17xf32>) -> tensor<8x4x8x17xf32>
    %80 = stablehlo.transpose %79, dims = [0, 3, 1, 2] : (tensor<8x4x8x17xf32>) -> tensor<8x17x4x8xf32>
    %81 = stablehlo.reshape %80 : (tensor<8x17x4x8xf32>) -> tensor<8x17x32xf32>
    %82 = stablehlo.dot_general %81, %arg9, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x17x32xf32>, tensor<32x32xf32>) -> tensor<8x17x32xf32>
    %83 = stablehlo.reshape %arg8 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %84 = stablehlo.broadcast_in_dim %83, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x17x32xf32>
    %85 = stablehlo.add %82, %84 : tensor<8x17x32xf32>
    %86 = stablehlo.add %8, %85 : tensor<8x17x32xf32>
    %87 = chlo.square %86 : tensor<8x17x32xf32> -> tensor<8x17x32xf32>
    %cst_18 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %88 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<8x17x32xf32>
    %89 = stablehlo.multiply %88, %86 : tensor<8x17x32xf32>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %90 = stablehlo.reduce(%86 init: %cst_19) applies stablehlo.add across dimensions = [2] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<8x17xf32>
    %cst_20 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %92 = stablehlo.divide %90, %91 : tensor<8x17xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %93 = stablehlo.reduce(%87 init: %cst_21) applies stablehlo.add across dimensions = [2] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<8x17xf32>
    %cst_22 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %94 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %95 = stablehlo.divide %93, %94 : tensor<8x17xf32>
    %96 = chlo.square %92 : tensor<8x17xf32> -> tensor<8x17xf32>
    %cst_23 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %97 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %98 = stablehlo.multiply %97, %92 : tensor<8x17xf32>
    %99 = stablehlo.subtract %95, %96 : tensor<8x17xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %101 = stablehlo.maximum %100, %99 : tensor<8x17xf32>
    %102 = stablehlo.compare EQ, %99, %101, FLOAT : (tensor<8x17xf32>, tensor<8x17xf32>) -> tensor<8x17xi1>
    %cst_25 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %103 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %105 = stablehlo.select %102, %103, %104 : tensor<8x17xi1>, tensor<8x17xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %106 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %107 = stablehlo.compare EQ, %106, %101, FLOAT : (tensor<8x17xf32>, tensor<8x17xf32>) -> tensor<8x17xi1>
    %cst_28 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %108 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %cst_29 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %109 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %110 = stablehlo.select %107, %108, %109 : tensor<8x17xi1>, tensor<8x17xf32>
    %111 = stablehlo.divide %105, %110 : tensor<8x17xf32>
    %112 = stablehlo.reshape %92 : (tensor<8x17xf32>) -> tensor<8x17x1xf32>
    %113 = stablehlo.reshape %101 : (tensor<8x17xf32>) -> tensor<8x17x1xf32>
    %114 = stablehlo.broadcast_in_dim %112, dims = [0, 1, 2] : (tensor<8x17x1xf32>) -> tensor<8x17x32xf32>
    %115 = stablehlo.subtract %86, %114 : tensor<8x17x32xf32>
    %cst_30 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %116 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<8x17x1xf32>
    %117 = stablehlo.add %113, %116 : tensor<8x17x1xf32>
    %118 = stablehlo.rsqrt %117 : tensor<8x17x1xf32>
    %119 = stablehlo.divide %118, %117 : tensor<8x17x1xf32>
    %cst_31 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %120 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<8x17x1xf32>
    %121 = stablehlo.multiply %120, %119 : tensor<8x17x1xf32>
    %122 = stablehlo.reshape %arg7 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %123 = stablehlo.broadcast_in_dim %118, dims = [0, 1, 2] : (tensor<8x17x1xf32>) -> tensor<8x17x32xf32>
    %124 = stablehlo.broadcast_in_dim %122, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x17x32xf32>
    %125 = stablehlo.multiply %123, %124 : tensor<8x17x32xf32>
    %126 = stablehlo.multiply %115, %125 : tensor<8x17x32xf32>
    %127 = stablehlo.reshape %arg6 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %128 = stablehlo.broadcast_in_dim %127, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x17x32xf32>
    %129 = stablehlo.add %126, %128 : tensor<8x17x32xf32>
    %130 = stablehlo.dot_general %129, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x17x32xf32>, tensor<32x64xf32>) -> tensor<8x17x64xf32>
    %131 = stablehlo.reshape %arg0 : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %132 = stablehlo.broadcast_in_dim %131, dims = [0, 1, 2] : (tensor<1x1x64xf32>) -> tensor<8x17x64xf32>
    %133 = stablehlo.add %130, %132 : tensor<8x17x64xf32>
    %134 = stablehlo.multiply %133, %133 : tensor<8x17x64xf32>
    %135 = stablehlo.multiply %134, %133 : tensor<8x17x64xf32>
    %136 = stablehlo.multiply %133, %133 : tensor<8x17x64xf32>
    %cst_32 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %137 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<8x17x64xf32>
    %138 = stablehlo.multiply %137, %136 : tensor<8x17x64xf32>
    %cst_33 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %139 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<8x17x64xf32>
    %140 = stablehlo.multiply %139, %135 : tensor<8x17x64xf32>
    %141 = stablehlo.add %133, %140 : tensor<8x17x64xf32>
    %cst_34 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %142 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<8x17x64xf32>
    %143 = stablehlo.multiply %142, %141 : tensor<8x17x64xf32>
    %144 = stablehlo.tanh %143 : tensor<8x17x64xf32>
    %cst_35 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %145 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<8x17x64xf32>
    %146 = stablehlo.subtract %145, %144 : tensor<8x17x64xf32>
    %cst_36 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %147 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<8x17x64xf32>
    %148 = stablehlo.add %147, %144 : tensor<8x17x64xf32>
    %cst_37 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %149 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<8x17x64xf32>
    %150 = stablehlo.multiply %149, %148 : tensor<8x17x64xf32>
    %151 = stablehlo.multiply %133, %150 : tensor<8x17x64xf32>
    %152 = stablehlo.dot_general %151, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x17x64xf32>, tensor<64x32xf32>) -> tensor<8x17x32xf32>
    %153 = stablehlo.reshape %arg2 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %154 = stablehlo.broadcast_in_dim %153, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x17x32xf32>
    %155 = stablehlo.add %152, %154 : tensor<8x17x32xf32>
    %156 = stablehlo.add %86, %155 : tensor<8x17x32xf32>
    %157 = chlo.square %156 : tensor<8x17x32xf32> -> tensor<8x17x32xf32>
    %cst_38 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %158 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<8x17x32xf32>
    %159 = stablehlo.multiply %158, %156 : tensor<8x17x32xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %160 = stablehlo.reduce(%156 init: %cst_39) applies stablehlo.add across dimensions = [2] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<8x17xf32>
    %cst_40 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %161 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %162 = stablehlo.divide %160, %161 : tensor<8x17xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %163 = stablehlo.reduce(%157 init: %cst_41) applies stablehlo.add across dimensions = [2] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<8x17xf32>
    %cst_42 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %164 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %165 = stablehlo.divide %163, %164 : tensor<8x17xf32>
    %166 = chlo.square %162 : tensor<8x17xf32> -> tensor<8x17xf32>
    %cst_43 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %167 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %168 = stablehlo.multiply %167, %162 : tensor<8x17xf32>
    %169 = stablehlo.subtract %165, %166 : tensor<8x17xf32>
    %cst_44 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %170 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %171 = stablehlo.maximum %170, %169 : tensor<8x17xf32>
    %172 = stablehlo.compare EQ, %169, %171, FLOAT : (tensor<8x17xf32>, tensor<8x17xf32>) -> tensor<8x17xi1>
    %cst_45 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %173 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %cst_46 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %174 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %175 = stablehlo.select %172, %173, %174 : tensor<8x17xi1>, tensor<8x17xf32>
    %cst_47 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %176 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %177 = stablehlo.compare EQ, %176, %171, FLOAT : (tensor<8x17xf32>, tensor<8x17xf32>) -> tensor<8x17xi1>
    %cst_48 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %178 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %cst_49 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %179 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %180 = stablehlo.select %177, %178, %179 : tensor<8x17xi1>, tensor<8x17xf32>
    %181 = stablehlo.divide %175, %180 : tensor<8x17xf32>
    %182 = stablehlo.reshape %162 : (tensor<8x17xf32>) -> tensor<8x17x1xf32>
    %183 = stablehlo.reshape %171 : (tensor<8x17xf32>) -> tensor<8x17x1xf32>
    %184 = stablehlo.broadcast_in_dim %182, dims = [0, 1, 2] : (tensor<8x17x1xf32>) -> tensor<8x17x32xf32>
    %185 = stablehlo.subtract %156, %184 : tensor<8x17x32xf32>
    %cst_50 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %186 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<8x17x1xf32>
    %187 = stablehlo.add %183, %186 : tensor<8x17x1xf32>
    %188 = stablehlo.rsqrt %187 : tensor<8x17x1xf32>
    %189 = stablehlo.divide %188, %187 : tensor<8x17x1xf32>
    %cst_51 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %190 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<8x17x1xf32>
    %191 = stablehlo.multiply %190, %189 : tensor<8x17x1xf32>
    %192 = stablehlo.reshape %arg16 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %193 = stablehlo.broadcast_in_dim %188, dims = [0, 1, 2] : (tensor<8x17x1xf32>) -> tensor<8x17x32xf32>
    %194 = stablehlo.broadcast_in_dim %192, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x17x32xf32>
    %195 = stablehlo.multiply %193, %194 : tensor<8x17x32xf32>
    %196 = stablehlo.multiply %185, %195 : tensor<8x17x32xf32>
    %197 = stablehlo.reshape %arg15 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %198 = stablehlo.broadcast_in_dim %197, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x17x32xf32>
    %199 = stablehlo.add %196, %198 : tensor<8x17x32xf32>
    %200 = stablehlo.slice %199 [0:8, 0:1, 0:32] : (tensor<8x17x32xf32>) -> tensor<8x1x32xf32>
    %201 = stablehlo.reshape %200 : (tensor<8x1x32xf32>) -> tensor<8x32xf32>
    %202 = stablehlo.dot_general %201, %arg14, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x10xf32>) -> tensor<8x10xf32>
    %203 = stablehlo.reshape %arg13 : (tensor<10xf32>) -> tensor<1x10xf32>
    %204 = stablehlo.broadcast_in_dim %203, dims = [0, 1] : (tensor<1x10xf32>) -> tensor<8x10xf32>
    %205 = stablehlo.add %202, %204 : tensor<8x10xf32>
    %206 = stablehlo.broadcast_in_dim %arg21, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %207:2 = call @take_along_axis(%205, %206) : (tensor<8x10xf32>, tensor<8x1xi32>) -> (tensor<8x1xf32>, tensor<8x1x1xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %208:2 = call @_take(%207#0, %c) : (tensor<8x1xf32>, tensor<i32>) -> (tensor<8xf32>, tensor<1xi32>)
    %cst_52 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %209 = stablehlo.reduce(%205 init: %cst_52) applies stablehlo.maximum across dimensions = [1] : (tensor<8x10xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_53 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %210 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %211 = stablehlo.maximum %210, %209 : tensor<8xf32>
    %212 = stablehlo.is_finite %211 : (tensor<8xf32>) -> tensor<8xi1>
    %cst_54 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %213 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %214 = stablehlo.select %212, %211, %213 : tensor<8xi1>, tensor<8xf32>
    %215 = stablehlo.broadcast_in_dim %214, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %216 = stablehlo.broadcast_in_dim %215, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x10xf32>
    %217 = stablehlo.subtract %205, %216 : tensor<8x10xf32>
    %218 = stablehlo.exponential %217 : tensor<8x10xf32>
    %cst_55 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %219 = stablehlo.reduce(%218 init: %cst_55) applies stablehlo.add across dimensions = [1] : (tensor<8x10xf32>, tensor<f32>) -> tensor<8xf32>
    %220 = stablehlo.abs %219 : tensor<8xf32>
    %cst_56 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %221 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %222 = stablehlo.compare GE, %219, %221, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %223 = stablehlo.log %220 : tensor<8xf32>
    %224 = stablehlo.add %223, %214 : tensor<8xf32>
    %225 = stablehlo.subtract %224, %208#0 : tensor<8xf32>
    %cst_57 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %226 = stablehlo.reduce(%225 init: %cst_57) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %cst_58 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %227 = stablehlo.divide %226, %cst_58 : tensor<f32>
    %cst_59 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_60 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %228 = stablehlo.divide %cst_59, %cst_60 : tensor<f32>
    %229 = stablehlo.broadcast_in_dim %228, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %230 = stablehlo.negate %229 : tensor<8xf32>
    %231 = stablehlo.divide %229, %220 : tensor<8xf32>
    %cst_61 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %232 = stablehlo.broadcast_in_dim %cst_61, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %233 = stablehlo.select %222, %232, %231 : tensor<8xi1>, tensor<8xf32>
    %234 = stablehlo.select %222, %231, %232 : tensor<8xi1>, tensor<8xf32>
    %235 = stablehlo.negate %233 : tensor<8xf32>
    %236 = stablehlo.add %234, %235 : tensor<8xf32>
    %237 = stablehlo.broadcast_in_dim %236, dims = [0] : (tensor<8xf32>) -> tensor<8x10xf32>
    %238 = stablehlo.multiply %237, %218 : tensor<8x10xf32>
    %239 = call @_take_0(%208#1, %230) : (tensor<1xi32>, tensor<8xf32>) -> tensor<8x1xf32>
    %240 = call @take_along_axis_1(%207#1, %239) : (tensor<8x1x1xi32>, tensor<8x1xf32>) -> tensor<8x10xf32>
    %241 = stablehlo.add %238, %240 : tensor<8x10xf32>
    %cst_62 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %242 = stablehlo.reduce(%241 init: %cst_62) applies stablehlo.add across dimensions = [0] : (tensor<8x10xf32>, tensor<f32>) -> tensor<10xf32>
    %243 = stablehlo.reshape %242 : (tensor<10xf32>) -> tensor<1x10xf32>
    %244 = stablehlo.reshape %243 : (tensor<1x10xf32>) -> tensor<10xf32>
    %245 = stablehlo.dot_general %241, %201, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x10xf32>, tensor<8x32xf32>) -> tensor<10x32xf32>
    %246 = stablehlo.transpose %245, dims = [1, 0] : (tensor<10x32xf32>) -> tensor<32x10xf32>
    %247 = stablehlo.dot_general %241, %arg14, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x10xf32>, tensor<32x10xf32>) -> tensor<8x32xf32>
    %248 = stablehlo.broadcast_in_dim %247, dims = [0, 2] : (tensor<8x32xf32>) -> tensor<8x1x32xf32>
    %cst_63 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %249 = stablehlo.pad %248, %cst_63, low = [0, 0, 0], high = [0, 16, 0], interior = [0, 0, 0] : (tensor<8x1x32xf32>, tensor<f32>) -> tensor<8x17x32xf32>
    %cst_64 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %250 = stablehlo.reduce(%249 init: %cst_64) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<32xf32>
    %251 = stablehlo.reshape %250 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %252 = stablehlo.reshape %251 : (tensor<1x1x32xf32>) -> tensor<32xf32>
    %253 = stablehlo.multiply %185, %249 : tensor<8x17x32xf32>
    %254 = stablehlo.multiply %249, %195 : tensor<8x17x32xf32>
    %255 = stablehlo.broadcast_in_dim %188, dims = [0, 1, 2] : (tensor<8x17x1xf32>) -> tensor<8x17x32xf32>
    %256 = stablehlo.multiply %255, %253 : tensor<8x17x32xf32>
    %cst_65 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %257 = stablehlo.reduce(%256 init: %cst_65) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<32xf32>
    %258 = stablehlo.reshape %257 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %259 = stablehlo.broadcast_in_dim %192, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x17x32xf32>
    %260 = stablehlo.multiply %253, %259 : tensor<8x17x32xf32>
    %cst_66 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %261 = stablehlo.reduce(%260 init: %cst_66) applies stablehlo.add across dimensions = [2] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<8x17xf32>
    %262 = stablehlo.reshape %261 : (tensor<8x17xf32>) -> tensor<8x17x1xf32>
    %263 = stablehlo.reshape %258 : (tensor<1x1x32xf32>) -> tensor<32xf32>
    %264 = stablehlo.multiply %262, %191 : tensor<8x17x1xf32>
    %265 = stablehlo.negate %254 : tensor<8x17x32xf32>
    %cst_67 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %266 = stablehlo.reduce(%265 init: %cst_67) applies stablehlo.add across dimensions = [2] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<8x17xf32>
    %267 = stablehlo.reshape %266 : (tensor<8x17xf32>) -> tensor<8x17x1xf32>
    %268 = stablehlo.reshape %264 : (tensor<8x17x1xf32>) -> tensor<8x17xf32>
    %269 = stablehlo.reshape %267 : (tensor<8x17x1xf32>) -> tensor<8x17xf32>
    %270 = stablehlo.multiply %268, %181 : tensor<8x17xf32>
    %271 = stablehlo.negate %270 : tensor<8x17xf32>
    %272 = stablehlo.multiply %271, %168 : tensor<8x17xf32>
    %273 = stablehlo.add %269, %272 : tensor<8x17xf32>
    %cst_68 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %274 = stablehlo.broadcast_in_dim %cst_68, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %275 = stablehlo.divide %270, %274 : tensor<8x17xf32>
    %276 = stablehlo.broadcast_in_dim %275, dims = [0, 1] : (tensor<8x17xf32>) -> tensor<8x17x32xf32>
    %cst_69 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %277 = stablehlo.broadcast_in_dim %cst_69, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %278 = stablehlo.divide %273, %277 : tensor<8x17xf32>
    %279 = stablehlo.broadcast_in_dim %278, dims = [0, 1] : (tensor<8x17xf32>) -> tensor<8x17x32xf32>
    %280 = stablehlo.add %254, %279 : tensor<8x17x32xf32>
    %281 = stablehlo.multiply %276, %159 : tensor<8x17x32xf32>
    %282 = stablehlo.add %280, %281 : tensor<8x17x32xf32>
    %cst_70 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %283 = stablehlo.reduce(%282 init: %cst_70) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<32xf32>
    %284 = stablehlo.reshape %283 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %285 = stablehlo.reshape %284 : (tensor<1x1x32xf32>) -> tensor<32xf32>
    %286 = stablehlo.dot_general %282, %151, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x17x32xf32>, tensor<8x17x64xf32>) -> tensor<32x64xf32>
    %287 = stablehlo.transpose %286, dims = [1, 0] : (tensor<32x64xf32>) -> tensor<64x32xf32>
    %288 = stablehlo.dot_general %282, %arg3, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x17x32xf32>, tensor<64x32xf32>) -> tensor<8x17x64xf32>
    %289 = stablehlo.multiply %133, %288 : tensor<8x17x64xf32>
    %290 = stablehlo.multiply %288, %150 : tensor<8x17x64xf32>
    %cst_71 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %291 = stablehlo.broadcast_in_dim %cst_71, dims = [] : (tensor<f32>) -> tensor<8x17x64xf32>
    %292 = stablehlo.multiply %291, %289 : tensor<8x17x64xf32>
    %293 = stablehlo.multiply %292, %146 : tensor<8x17x64xf32>
    %294 = stablehlo.multiply %293, %144 : tensor<8x17x64xf32>
    %295 = stablehlo.add %293, %294 : tensor<8x17x64xf32>
    %cst_72 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %296 = stablehlo.broadcast_in_dim %cst_72, dims = [] : (tensor<f32>) -> tensor<8x17x64xf32>
    %297 = stablehlo.multiply %296, %295 : tensor<8x17x64xf32>
    %298 = stablehlo.add %290, %297 : tensor<8x17x64xf32>
    %cst_73 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %299 = stablehlo.broadcast_in_dim %cst_73, dims = [] : (tensor<f32>) -> tensor<8x17x64xf32>
    %300 = stablehlo.multiply %299, %297 : tensor<8x17x64xf32>
    %301 = stablehlo.multiply %300, %138 : tensor<8x17x64xf32>
    %302 = stablehlo.add %298, %301 : tensor<8x17x64xf32>
    %cst_74 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %303 = stablehlo.reduce(%302 init: %cst_74) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x17x64xf32>, tensor<f32>) -> tensor<64xf32>
    %304 = stablehlo.reshape %303 : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %305 = stablehlo.reshape %304 : (tensor<1x1x64xf32>) -> tensor<64xf32>
    %306 = stablehlo.dot_general %302, %129, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x17x64xf32>, tensor<8x17x32xf32>) -> tensor<64x32xf32>
    %307 = stablehlo.transpose %306, dims = [1, 0] : (tensor<64x32xf32>) -> tensor<32x64xf32>
    %308 = stablehlo.dot_general %302, %arg1, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x17x64xf32>, tensor<32x64xf32>) -> tensor<8x17x32xf32>
    %cst_75 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %309 = stablehlo.reduce(%308 init: %cst_75) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<32xf32>
    %310 = stablehlo.reshape %309 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %311 = stablehlo.reshape %310 : (tensor<1x1x32xf32>) -> tensor<32xf32>
    %312 = stablehlo.multiply %115, %308 : tensor<8x17x32xf32>
    %313 = stablehlo.multiply %308, %125 : tensor<8x17x32xf32>
    %314 = stablehlo.broadcast_in_dim %118, dims = [0, 1, 2] : (tensor<8x17x1xf32>) -> tensor<8x17x32xf32>
    %315 = stablehlo.multiply %314, %312 : tensor<8x17x32xf32>
    %cst_76 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %316 = stablehlo.reduce(%315 init: %cst_76) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<32xf32>
    %317 = stablehlo.reshape %316 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %318 = stablehlo.broadcast_in_dim %122, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x17x32xf32>
    %319 = stablehlo.multiply %312, %318 : tensor<8x17x32xf32>
    %cst_77 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %320 = stablehlo.reduce(%319 init: %cst_77) applies stablehlo.add across dimensions = [2] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<8x17xf32>
    %321 = stablehlo.reshape %320 : (tensor<8x17xf32>) -> tensor<8x17x1xf32>
    %322 = stablehlo.reshape %317 : (tensor<1x1x32xf32>) -> tensor<32xf32>
    %323 = stablehlo.multiply %321, %121 : tensor<8x17x1xf32>
    %324 = stablehlo.negate %313 : tensor<8x17x32xf32>
    %cst_78 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %325 = stablehlo.reduce(%324 init: %cst_78) applies stablehlo.add across dimensions = [2] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<8x17xf32>
    %326 = stablehlo.reshape %325 : (tensor<8x17xf32>) -> tensor<8x17x1xf32>
    %327 = stablehlo.add %282, %313 : tensor<8x17x32xf32>
    %328 = stablehlo.reshape %323 : (tensor<8x17x1xf32>) -> tensor<8x17xf32>
    %329 = stablehlo.reshape %326 : (tensor<8x17x1xf32>) -> tensor<8x17xf32>
    %330 = stablehlo.multiply %328, %111 : tensor<8x17xf32>
    %331 = stablehlo.negate %330 : tensor<8x17xf32>
    %332 = stablehlo.multiply %331, %98 : tensor<8x17xf32>
    %333 = stablehlo.add %329, %332 : tensor<8x17xf32>
    %cst_79 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %334 = stablehlo.broadcast_in_dim %cst_79, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %335 = stablehlo.divide %330, %334 : tensor<8x17xf32>
    %336 = stablehlo.broadcast_in_dim %335, dims = [0, 1] : (tensor<8x17xf32>) -> tensor<8x17x32xf32>
    %cst_80 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %337 = stablehlo.broadcast_in_dim %cst_80, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %338 = stablehlo.divide %333, %337 : tensor<8x17xf32>
    %339 = stablehlo.broadcast_in_dim %338, dims = [0, 1] : (tensor<8x17xf32>) -> tensor<8x17x32xf32>
    %340 = stablehlo.add %327, %339 : tensor<8x17x32xf32>
    %341 = stablehlo.multiply %336, %89 : tensor<8x17x32xf32>
    %342 = stablehlo.add %340, %341 : tensor<8x17x32xf32>
    %cst_81 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %343 = stablehlo.reduce(%342 init: %cst_81) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<32xf32>
    %344 = stablehlo.reshape %343 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %345 = stablehlo.reshape %344 : (tensor<1x1x32xf32>) -> tensor<32xf32>
    %346 = stablehlo.dot_general %342, %81, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x17x32xf32>, tensor<8x17x32xf32>) -> tensor<32x32xf32>
    %347 = stablehlo.transpose %346, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
    %348 = stablehlo.dot_general %342, %arg9, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x17x32xf32>, tensor<32x32xf32>) -> tensor<8x17x32xf32>
    %349 = stablehlo.reshape %348 : (tensor<8x17x32xf32>) -> tensor<8x17x4x8xf32>
    %350 = stablehlo.transpose %349, dims = [0, 2, 3, 1] : (tensor<8x17x4x8xf32>) -> tensor<8x4x8x17xf32>
    %351 = stablehlo.dot_general %350, %61, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x4x8x17xf32>, tensor<8x17x4x8xf32>) -> tensor<8x4x17x17xf32>
    %352 = stablehlo.dot_general %350, %75, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<8x4x8x17xf32>, tensor<8x4x17x17xf32>) -> tensor<8x4x8x17xf32>
    %353 = stablehlo.transpose %352, dims = [0, 3, 1, 2] : (tensor<8x4x8x17xf32>) -> tensor<8x17x4x8xf32>
    %354 = stablehlo.broadcast_in_dim %78, dims = [0, 1, 2, 3] : (tensor<8x4x17x1xf32>) -> tensor<8x4x17x17xf32>
    %355 = stablehlo.multiply %351, %354 : tensor<8x4x17x17xf32>
    %356 = stablehlo.multiply %355, %71 : tensor<8x4x17x17xf32>
    %cst_82 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %357 = stablehlo.reduce(%356 init: %cst_82) applies stablehlo.add across dimensions = [3] : (tensor<8x4x17x17xf32>, tensor<f32>) -> tensor<8x4x17xf32>
    %358 = stablehlo.reshape %357 : (tensor<8x4x17xf32>) -> tensor<8x4x17x1xf32>
    %359 = stablehlo.negate %358 : tensor<8x4x17x1xf32>
    %360 = stablehlo.broadcast_in_dim %73, dims = [0, 1, 2, 3] : (tensor<8x4x17x1xf32>) -> tensor<8x4x17x17xf32>
    %361 = stablehlo.divide %351, %360 : tensor<8x4x17x17xf32>
    %cst_83 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %362 = stablehlo.reduce(%359 init: %cst_83) applies stablehlo.add across dimensions = [3] : (tensor<8x4x17x1xf32>, tensor<f32>) -> tensor<8x4x17xf32>
    %363 = stablehlo.broadcast_in_dim %362, dims = [0, 1, 2] : (tensor<8x4x17xf32>) -> tensor<8x4x17x17xf32>
    %364 = stablehlo.add %361, %363 : tensor<8x4x17x17xf32>
    %365 = stablehlo.multiply %364, %71 : tensor<8x4x17x17xf32>
    %cst_84 = stablehlo.constant dense<0.353553385> : tensor<f32>
    %366 = stablehlo.broadcast_in_dim %cst_84, dims = [] : (tensor<f32>) -> tensor<8x4x17x17xf32>
    %367 = stablehlo.multiply %365, %366 : tensor<8x4x17x17xf32>
    %368 = stablehlo.dot_general %367, %59, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x4x17x17xf32>, tensor<8x17x4x8xf32>) -> tensor<8x4x17x8xf32>
    %369 = stablehlo.transpose %368, dims = [0, 2, 1, 3] : (tensor<8x4x17x8xf32>) -> tensor<8x17x4x8xf32>
    %370 = stablehlo.dot_general %367, %60, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x4x17x17xf32>, tensor<8x17x4x8xf32>) -> tensor<8x4x17x8xf32>
    %371 = stablehlo.transpose %370, dims = [0, 2, 1, 3] : (tensor<8x4x17x8xf32>) -> tensor<8x17x4x8xf32>
    %372 = stablehlo.reshape %353 : (tensor<8x17x4x8xf32>) -> tensor<8x17x32xf32>
    %373 = stablehlo.reshape %369 : (tensor<8x17x4x8xf32>) -> tensor<8x17x32xf32>
    %374 = stablehlo.reshape %371 : (tensor<8x17x4x8xf32>) -> tensor<8x17x32xf32>
    %375 = stablehlo.concatenate %374, %373, %372, dim = 2 : (tensor<8x17x32xf32>, tensor<8x17x32xf32>, tensor<8x17x32xf32>) -> tensor<8x17x96xf32>
    %cst_85 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %376 = stablehlo.reduce(%375 init: %cst_85) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x17x96xf32>, tensor<f32>) -> tensor<96xf32>
    %377 = stablehlo.reshape %376 : (tensor<96xf32>) -> tensor<1x1x96xf32>
    %378 = stablehlo.reshape %377 : (tensor<1x1x96xf32>) -> tensor<96xf32>
    %379 = stablehlo.dot_general %375, %51, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x17x96xf32>, tensor<8x17x32xf32>) -> tensor<96x32xf32>
    %380 = stablehlo.transpose %379, dims = [1, 0] : (tensor<96x32xf32>) -> tensor<32x96xf32>
    %381 = stablehlo.dot_general %375, %arg11, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x17x96xf32>, tensor<32x96xf32>) -> tensor<8x17x32xf32>
    %cst_86 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %382 = stablehlo.reduce(%381 init: %cst_86) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<32xf32>
    %383 = stablehlo.reshape %382 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %384 = stablehlo.reshape %383 : (tensor<1x1x32xf32>) -> tensor<32xf32>
    %385 = stablehlo.multiply %37, %381 : tensor<8x17x32xf32>
    %386 = stablehlo.multiply %381, %47 : tensor<8x17x32xf32>
    %387 = stablehlo.broadcast_in_dim %40, dims = [0, 1, 2] : (tensor<8x17x1xf32>) -> tensor<8x17x32xf32>
    %388 = stablehlo.multiply %387, %385 : tensor<8x17x32xf32>
    %cst_87 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %389 = stablehlo.reduce(%388 init: %cst_87) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<32xf32>
    %390 = stablehlo.reshape %389 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %391 = stablehlo.broadcast_in_dim %44, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x17x32xf32>
    %392 = stablehlo.multiply %385, %391 : tensor<8x17x32xf32>
    %cst_88 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %393 = stablehlo.reduce(%392 init: %cst_88) applies stablehlo.add across dimensions = [2] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<8x17xf32>
    %394 = stablehlo.reshape %393 : (tensor<8x17xf32>) -> tensor<8x17x1xf32>
    %395 = stablehlo.reshape %390 : (tensor<1x1x32xf32>) -> tensor<32xf32>
    %396 = stablehlo.multiply %394, %43 : tensor<8x17x1xf32>
    %397 = stablehlo.negate %386 : tensor<8x17x32xf32>
    %cst_89 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %398 = stablehlo.reduce(%397 init: %cst_89) applies stablehlo.add across dimensions = [2] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<8x17xf32>
    %399 = stablehlo.reshape %398 : (tensor<8x17xf32>) -> tensor<8x17x1xf32>
    %400 = stablehlo.add %342, %386 : tensor<8x17x32xf32>
    %401 = stablehlo.reshape %396 : (tensor<8x17x1xf32>) -> tensor<8x17xf32>
    %402 = stablehlo.reshape %399 : (tensor<8x17x1xf32>) -> tensor<8x17xf32>
    %403 = stablehlo.multiply %401, %33 : tensor<8x17xf32>
    %404 = stablehlo.negate %403 : tensor<8x17xf32>
    %405 = stablehlo.multiply %404, %20 : tensor<8x17xf32>
    %406 = stablehlo.add %402, %405 : tensor<8x17xf32>
    %cst_90 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %407 = stablehlo.broadcast_in_dim %cst_90, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %408 = stablehlo.divide %403, %407 : tensor<8x17xf32>
    %409 = stablehlo.broadcast_in_dim %408, dims = [0, 1] : (tensor<8x17xf32>) -> tensor<8x17x32xf32>
    %cst_91 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %410 = stablehlo.broadcast_in_dim %cst_91, dims = [] : (tensor<f32>) -> tensor<8x17xf32>
    %411 = stablehlo.divide %406, %410 : tensor<8x17xf32>
    %412 = stablehlo.broadcast_in_dim %411, dims = [0, 1] : (tensor<8x17xf32>) -> tensor<8x17x32xf32>
    %413 = stablehlo.add %400, %412 : tensor<8x17x32xf32>
    %414 = stablehlo.multiply %409, %11 : tensor<8x17x32xf32>
    %415 = stablehlo.add %413, %414 : tensor<8x17x32xf32>
    %cst_92 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %416 = stablehlo.reduce(%415 init: %cst_92) applies stablehlo.add across dimensions = [0] : (tensor<8x17x32xf32>, tensor<f32>) -> tensor<17x32xf32>
    %417 = stablehlo.reshape %416 : (tensor<17x32xf32>) -> tensor<1x17x32xf32>
    %418 = stablehlo.slice %415 [0:8, 0:1, 0:32] : (tensor<8x17x32xf32>) -> tensor<8x1x32xf32>
    %419 = stablehlo.slice %415 [0:8, 1:17, 0:32] : (tensor<8x17x32xf32>) -> tensor<8x16x32xf32>
    %cst_93 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %420 = stablehlo.reduce(%418 init: %cst_93) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %421 = stablehlo.broadcast_in_dim %420, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %422 = stablehlo.reshape %419 : (tensor<8x16x32xf32>) -> tensor<8x4x4x32xf32>
    %cst_94 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %423 = stablehlo.reduce(%422 init: %cst_94) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<8x4x4x32xf32>, tensor<f32>) -> tensor<32xf32>
    %424 = stablehlo.reshape %423 : (tensor<32xf32>) -> tensor<1x1x1x32xf32>
    %425 = stablehlo.reshape %424 : (tensor<1x1x1x32xf32>) -> tensor<32xf32>
    %426 = stablehlo.convolution(%arg20, %422) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [4, 4], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x16x16x3xf32>, tensor<8x4x4x32xf32>) -> tensor<4x4x3x32xf32>
    return %227, %305, %307, %285, %287, %384, %395, %311, %322, %345, %347, %378, %380, %421, %244, %246, %252, %263, %425, %426, %417 : tensor<f32>, tensor<64xf32>, tensor<32x64xf32>, tensor<32xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<96xf32>, tensor<32x96xf32>, tensor<1x1x32xf32>, tensor<10xf32>, tensor<32x10xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<4x4x3x32xf32>, tensor<1x17x32xf32>
  }
  func.func private @take_along_axis(%arg0: tensor<8x10xf32>, %arg1: tensor<8x1xi32>) -> (tensor<8x1xf32>, tensor<8x1x1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x1xi1>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<8x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<8x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<8x1xi1>, tensor<8x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<8x1xi32>) -> tensor<8x1x1xi32>
    %c_1 = stablehlo.constant dense<9> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<8x1x1xi32>, tensor<8x1x1xi32>) -> tensor<8x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<8x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<8x1x1xi32>, tensor<8x1x1xi32>) -> tensor<8x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<8x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<8x1x1xi1>, tensor<i1>) -> tensor<8x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<8x10xf32>, tensor<8x1x1xi32>) -> tensor<8x1xf32>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<8x1xi1>, tensor<8x1xf32>
    return %15, %5 : tensor<8x1xf32>, tensor<8x1x1xi32>
  }
  func.func private @_take(%arg0: tensor<8x1xf32>, %arg1: tensor<i32>) -> (tensor<8xf32>, tensor<1xi32>) {
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
    %10 = "stablehlo.gather"(%arg0, %4) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = false, slice_sizes = array<i64: 8, 1>}> : (tensor<8x1xf32>, tensor<1xi32>) -> tensor<8xf32>
    %11 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<8xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %13 = stablehlo.select %11, %10, %12 : tensor<8xi1>, tensor<8xf32>
    return %13, %3 : tensor<8xf32>, tensor<1xi32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @_take_0(%arg0: tensor<1xi32>, %arg1: tensor<8xf32>) -> tensor<8x1xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<8x1xf32>, tensor<1xi32>, tensor<8xf32>) -> tensor<8x1xf32>
    return %1 : tensor<8x1xf32>
  }
  func.func private @take_along_axis_1(%arg0: tensor<8x1x1xi32>, %arg1: tensor<8x1xf32>) -> tensor<8x10xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x10xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<8x10xf32>, tensor<8x1x1xi32>, tensor<8x1xf32>) -> tensor<8x10xf32>
    return %1 : tensor<8x10xf32>
  }
}
