module @jit_moe_train_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "expert"=4]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "expert", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4x16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"expert"}, {}, {}]>}, %arg2: tensor<4x32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"expert"}, {}, {}]>}, %arg3: tensor<i32> {sdy.sharding = #sdy.sharding<@mesh, []>}, %arg4: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg5: tensor<4x16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"expert"}, {}, {}]>}, %arg6: tensor<4x32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"expert"}, {}, {}]>}, %arg7: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg8: tensor<4x16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"expert"}, {}, {}]>}, %arg9: tensor<4x32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"expert"}, {}, {}]>}, %arg10: tensor<4x16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {}]>}, %arg11: tensor<4x16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {}]>}) -> (tensor<16x4xf32> {jax.result_info = "result[0].gate", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<4x16x32xf32> {jax.result_info = "result[0].w_in", sdy.sharding = #sdy.sharding<@mesh, [{"expert"}, {}, {}]>}, tensor<4x32x16xf32> {jax.result_info = "result[0].w_out", sdy.sharding = #sdy.sharding<@mesh, [{"expert"}, {}, {}]>}, tensor<i32> {jax.result_info = "result[1][0].count", sdy.sharding = #sdy.sharding<@mesh, []>}, tensor<16x4xf32> {jax.result_info = "result[1][0].mu.gate", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<4x16x32xf32> {jax.result_info = "result[1][0].mu.w_in", sdy.sharding = #sdy.sharding<@mesh, [{"expert"}, {}, {}]>}, tensor<4x32x16xf32> {jax.result_info = "result[1][0].mu.w_out", sdy.sharding = #sdy.sharding<@mesh, [{"expert"}, {}, {}]>}, tensor<16x4xf32> {jax.result_info = "result[1][0].nu.gate", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<4x16x32xf32> {jax.result_info = "result[1][0].nu.w_in", sdy.sharding = #sdy.sharding<@mesh, [{"expert"}, {}, {}]>}, tensor<4x32x16xf32> {jax.result_info = "result[1][0].nu.w_out", sdy.sharding = #sdy.sharding<@mesh, [{"expert"}, {}, {}]>}, tensor<f32> {jax.result_info = "result[2]", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.dot_general %arg10, %arg0, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16x16xf32>, tensor<16x4xf32>) -> tensor<4x16x4xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.maximum across dimensions = [2] : (tensor<4x16x4xf32>, tensor<f32>) -> tensor<4x16xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %3 = stablehlo.maximum %2, %1 : tensor<4x16xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<4x16xf32>) -> tensor<4x16x1xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1, 2] : (tensor<4x16x1xf32>) -> tensor<4x16x4xf32>
    %6 = stablehlo.subtract %0, %5 : tensor<4x16x4xf32>
    %7 = stablehlo.exponential %6 : tensor<4x16x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%7 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<4x16x4xf32>, tensor<f32>) -> tensor<4x16xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<4x16xf32>) -> tensor<4x16x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<4x16x1xf32>) -> tensor<4x16x4xf32>
    %11 = stablehlo.divide %7, %10 : tensor<4x16x4xf32>
    %12 = stablehlo.multiply %9, %9 : tensor<4x16x1xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x16x1xf32>
    %14 = stablehlo.divide %13, %12 : tensor<4x16x1xf32>
    %values, %indices = chlo.top_k(%11, k = 2) : tensor<4x16x4xf32> -> (tensor<4x16x2xf32>, tensor<4x16x2xi32>)
    %15 = stablehlo.reshape %indices : (tensor<4x16x2xi32>) -> tensor<4x16x2x1xi32>
    %16 = call @_one_hot(%indices) : (tensor<4x16x2xi32>) -> tensor<4x16x2x4xf32>
    %17 = stablehlo.transpose %16, dims = [0, 2, 1, 3] : (tensor<4x16x2x4xf32>) -> tensor<4x2x16x4xf32>
    %18 = stablehlo.reshape %17 : (tensor<4x2x16x4xf32>) -> tensor<4x32x4xf32>
    %19 = call @cumsum(%18) : (tensor<4x32x4xf32>) -> tensor<4x32x4xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x32x4xf32>
    %21 = stablehlo.subtract %19, %20 : tensor<4x32x4xf32>
    %22 = stablehlo.multiply %21, %18 : tensor<4x32x4xf32>
    %23 = stablehlo.reshape %22 : (tensor<4x32x4xf32>) -> tensor<4x2x16x4xf32>
    %24 = stablehlo.transpose %23, dims = [0, 2, 1, 3] : (tensor<4x2x16x4xf32>) -> tensor<4x16x2x4xf32>
    %cst_4 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x16x2x4xf32>
    %26 = stablehlo.compare LT, %24, %25, FLOAT : (tensor<4x16x2x4xf32>, tensor<4x16x2x4xf32>) -> tensor<4x16x2x4xi1>
    %27 = stablehlo.convert %26 : (tensor<4x16x2x4xi1>) -> tensor<4x16x2x4xf32>
    %28 = stablehlo.multiply %16, %27 : tensor<4x16x2x4xf32>
    %29 = stablehlo.multiply %24, %28 : tensor<4x16x2x4xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %30 = stablehlo.reduce(%29 init: %cst_5) applies stablehlo.add across dimensions = [3] : (tensor<4x16x2x4xf32>, tensor<f32>) -> tensor<4x16x2xf32>
    %31 = stablehlo.convert %30 : (tensor<4x16x2xf32>) -> tensor<4x16x2xi32>
    %32 = call @_one_hot_1(%31) : (tensor<4x16x2xi32>) -> tensor<4x16x2x16xf32>
    %33 = stablehlo.dot_general %values, %32, batching_dims = [0, 1, 2] x [0, 1, 2], contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<4x16x2xf32>, tensor<4x16x2x16xf32>) -> tensor<4x16x2x16xf32>
    %34 = stablehlo.dot_general %28, %33, batching_dims = [0, 1] x [0, 1], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x16x2x4xf32>, tensor<4x16x2x16xf32>) -> tensor<4x16x4x16xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x16x4x16xf32>
    %36 = stablehlo.compare GT, %34, %35, FLOAT : (tensor<4x16x4x16xf32>, tensor<4x16x4x16xf32>) -> tensor<4x16x4x16xi1>
    %37 = stablehlo.convert %36 : (tensor<4x16x4x16xi1>) -> tensor<4x16x4x16xf32>
    %38 = stablehlo.dot_general %arg10, %37, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x16x16xf32>, tensor<4x16x4x16xf32>) -> tensor<4x16x4x16xf32>
    %39 = stablehlo.transpose %38, dims = [2, 0, 3, 1] : (tensor<4x16x4x16xf32>) -> tensor<4x4x16x16xf32>
    %40 = sdy.sharding_constraint %39 <@mesh, [{"expert"}, {}, {}, {}]> : tensor<4x4x16x16xf32>
    %41 = stablehlo.dot_general %40, %arg1, batching_dims = [0] x [0], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x4x16x16xf32>, tensor<4x16x32xf32>) -> tensor<4x4x16x32xf32>
    %42 = call @relu(%41) : (tensor<4x4x16x32xf32>) -> tensor<4x4x16x32xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x4x16x32xf32>
    %44 = stablehlo.compare GT, %41, %43, FLOAT : (tensor<4x4x16x32xf32>, tensor<4x4x16x32xf32>) -> tensor<4x4x16x32xi1>
    %45 = stablehlo.dot_general %42, %arg2, batching_dims = [0] x [0], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x4x16x32xf32>, tensor<4x32x16xf32>) -> tensor<4x4x16x16xf32>
    %46 = stablehlo.dot_general %34, %45, batching_dims = [0] x [1], contracting_dims = [3, 2] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x16x4x16xf32>, tensor<4x4x16x16xf32>) -> tensor<4x16x16xf32>
    %47 = stablehlo.slice %16 [0:4, 0:16, 0:1, 0:4] : (tensor<4x16x2x4xf32>) -> tensor<4x16x1x4xf32>
    %48 = stablehlo.reshape %47 : (tensor<4x16x1x4xf32>) -> tensor<4x16x4xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %49 = stablehlo.reduce(%48 init: %cst_8) applies stablehlo.add across dimensions = [1] : (tensor<4x16x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    %cst_9 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %50 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %51 = stablehlo.divide %49, %50 : tensor<4x4xf32>
    %52 = stablehlo.subtract %46, %arg11 : tensor<4x16x16xf32>
    %53 = stablehlo.multiply %52, %52 : tensor<4x16x16xf32>
    %cst_10 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4x16x16xf32>
    %55 = stablehlo.multiply %54, %52 : tensor<4x16x16xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %56 = stablehlo.reduce(%53 init: %cst_11) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x16x16xf32>, tensor<f32>) -> tensor<f32>
    %cst_12 = stablehlo.constant dense<1.024000e+03> : tensor<f32>
    %57 = stablehlo.divide %56, %cst_12 : tensor<f32>
    %cst_13 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %58 = stablehlo.reduce(%cst_13 init: %cst_14) applies stablehlo.add across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %cst_15 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %59 = stablehlo.multiply %cst_15, %58 : tensor<f32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %60 = stablehlo.reduce(%59 init: %cst_16) applies stablehlo.add across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %cst_17 = stablehlo.constant dense<1.024000e+03> : tensor<f32>
    %61 = stablehlo.divide %cst_13, %cst_17 : tensor<f32>
    %62 = stablehlo.broadcast_in_dim %61, dims = [] : (tensor<f32>) -> tensor<4x16x16xf32>
    %63 = stablehlo.multiply %62, %55 : tensor<4x16x16xf32>
    %cst_18 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %64 = stablehlo.multiply %60, %cst_18 : tensor<f32>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %65 = stablehlo.reduce(%64 init: %cst_19) applies stablehlo.add across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %cst_20 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %66 = stablehlo.divide %65, %cst_20 : tensor<f32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %67 = stablehlo.reduce(%66 init: %cst_21) applies stablehlo.add across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %68 = stablehlo.broadcast_in_dim %67, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %69 = stablehlo.multiply %68, %51 : tensor<4x4xf32>
    %cst_22 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %71 = stablehlo.divide %69, %70 : tensor<4x4xf32>
    %72 = stablehlo.broadcast_in_dim %71, dims = [0, 2] : (tensor<4x4xf32>) -> tensor<4x16x4xf32>
    %73 = stablehlo.dot_general %63, %34, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x16x16xf32>, tensor<4x16x4x16xf32>) -> tensor<4x16x4x16xf32>
    %74 = stablehlo.transpose %73, dims = [2, 0, 3, 1] : (tensor<4x16x4x16xf32>) -> tensor<4x4x16x16xf32>
    %75 = stablehlo.dot_general %63, %45, batching_dims = [0] x [1], contracting_dims = [2] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x16x16xf32>, tensor<4x4x16x16xf32>) -> tensor<4x16x4x16xf32>
    %76 = stablehlo.dot_general %74, %42, batching_dims = [0] x [0], contracting_dims = [1, 2] x [1, 2], precision = [DEFAULT, DEFAULT] : (tensor<4x4x16x16xf32>, tensor<4x4x16x32xf32>) -> tensor<4x16x32xf32>
    %77 = stablehlo.transpose %76, dims = [0, 2, 1] : (tensor<4x16x32xf32>) -> tensor<4x32x16xf32>
    %78 = stablehlo.dot_general %74, %arg2, batching_dims = [0] x [0], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x4x16x16xf32>, tensor<4x32x16xf32>) -> tensor<4x4x16x32xf32>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<4x4x16x32xf32>
    %80 = stablehlo.select %44, %78, %79 : tensor<4x4x16x32xi1>, tensor<4x4x16x32xf32>
    %81 = stablehlo.dot_general %80, %40, batching_dims = [0] x [0], contracting_dims = [1, 2] x [1, 2], precision = [DEFAULT, DEFAULT] : (tensor<4x4x16x32xf32>, tensor<4x4x16x16xf32>) -> tensor<4x32x16xf32>
    %82 = stablehlo.transpose %81, dims = [0, 2, 1] : (tensor<4x32x16xf32>) -> tensor<4x16x32xf32>
    %83 = stablehlo.dot_general %75, %28, batching_dims = [0, 1] x [0, 1], contracting_dims = [2] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x16x4x16xf32>, tensor<4x16x2x4xf32>) -> tensor<4x16x16x2xf32>
    %84 = stablehlo.transpose %83, dims = [0, 1, 3, 2] : (tensor<4x16x16x2xf32>) -> tensor<4x16x2x16xf32>
    %85 = stablehlo.dot_general %84, %32, batching_dims = [0, 1, 2] x [0, 1, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x16x2x16xf32>, tensor<4x16x2x16xf32>) -> tensor<4x16x2xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %86 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<4x16x4xf32>
    %87 = "stablehlo.scatter"(%86, %15, %85) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [2], input_batching_dims = [0, 1], scatter_indices_batching_dims = [0, 1], scatter_dims_to_operand_dims = [2], index_vector_dim = 3>, unique_indices = false}> ({
    ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
      %184 = stablehlo.add %arg12, %arg13 : tensor<f32>
      stablehlo.return %184 : tensor<f32>
    }) : (tensor<4x16x4xf32>, tensor<4x16x2x1xi32>, tensor<4x16x2xf32>) -> tensor<4x16x4xf32>
    %88 = stablehlo.add %72, %87 : tensor<4x16x4xf32>
    %89 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2] : (tensor<4x16x1xf32>) -> tensor<4x16x4xf32>
    %90 = stablehlo.multiply %88, %89 : tensor<4x16x4xf32>
    %91 = stablehlo.multiply %90, %7 : tensor<4x16x4xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %92 = stablehlo.reduce(%91 init: %cst_25) applies stablehlo.add across dimensions = [2] : (tensor<4x16x4xf32>, tensor<f32>) -> tensor<4x16xf32>
    %93 = stablehlo.reshape %92 : (tensor<4x16xf32>) -> tensor<4x16x1xf32>
    %94 = stablehlo.negate %93 : tensor<4x16x1xf32>
    %95 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<4x16x1xf32>) -> tensor<4x16x4xf32>
    %96 = stablehlo.divide %88, %95 : tensor<4x16x4xf32>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %97 = stablehlo.reduce(%94 init: %cst_26) applies stablehlo.add across dimensions = [2] : (tensor<4x16x1xf32>, tensor<f32>) -> tensor<4x16xf32>
    %98 = stablehlo.broadcast_in_dim %97, dims = [0, 1] : (tensor<4x16xf32>) -> tensor<4x16x4xf32>
    %99 = stablehlo.add %96, %98 : tensor<4x16x4xf32>
    %100 = stablehlo.multiply %99, %7 : tensor<4x16x4xf32>
    %101 = stablehlo.dot_general %100, %arg10, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x16x4xf32>, tensor<4x16x16xf32>) -> tensor<4x16xf32>
    %102 = stablehlo.transpose %101, dims = [1, 0] : (tensor<4x16xf32>) -> tensor<16x4xf32>
    %cst_27 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %103 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %104 = stablehlo.multiply %103, %102 : tensor<16x4xf32>
    %cst_28 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %105 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %106 = stablehlo.multiply %105, %arg4 : tensor<16x4xf32>
    %107 = stablehlo.add %104, %106 : tensor<16x4xf32>
    %cst_29 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %108 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<4x16x32xf32>
    %109 = stablehlo.multiply %108, %82 : tensor<4x16x32xf32>
    %cst_30 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %110 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<4x16x32xf32>
    %111 = stablehlo.multiply %110, %arg5 : tensor<4x16x32xf32>
    %112 = stablehlo.add %109, %111 : tensor<4x16x32xf32>
    %cst_31 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %113 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<4x32x16xf32>
    %114 = stablehlo.multiply %113, %77 : tensor<4x32x16xf32>
    %cst_32 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %115 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<4x32x16xf32>
    %116 = stablehlo.multiply %115, %arg6 : tensor<4x32x16xf32>
    %117 = stablehlo.add %114, %116 : tensor<4x32x16xf32>
    %118 = stablehlo.multiply %102, %102 : tensor<16x4xf32>
    %cst_33 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %119 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %120 = stablehlo.multiply %119, %118 : tensor<16x4xf32>
    %cst_34 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %121 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %122 = stablehlo.multiply %121, %arg7 : tensor<16x4xf32>
    %123 = stablehlo.add %120, %122 : tensor<16x4xf32>
    %124 = stablehlo.multiply %82, %82 : tensor<4x16x32xf32>
    %cst_35 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %125 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<4x16x32xf32>
    %126 = stablehlo.multiply %125, %124 : tensor<4x16x32xf32>
    %cst_36 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %127 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<4x16x32xf32>
    %128 = stablehlo.multiply %127, %arg8 : tensor<4x16x32xf32>
    %129 = stablehlo.add %126, %128 : tensor<4x16x32xf32>
    %130 = stablehlo.multiply %77, %77 : tensor<4x32x16xf32>
    %cst_37 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %131 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<4x32x16xf32>
    %132 = stablehlo.multiply %131, %130 : tensor<4x32x16xf32>
    %cst_38 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %133 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<4x32x16xf32>
    %134 = stablehlo.multiply %133, %arg9 : tensor<4x32x16xf32>
    %135 = stablehlo.add %132, %134 : tensor<4x32x16xf32>
    %c = stablehlo.constant dense<2147483647> : tensor<i32>
    %136 = stablehlo.compare LT, %arg3, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_39 = stablehlo.constant dense<1> : tensor<i32>
    %137 = stablehlo.add %arg3, %c_39 : tensor<i32>
    %c_40 = stablehlo.constant dense<2147483647> : tensor<i32>
    %138 = call @_where(%136, %137, %c_40) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %cst_41 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %139 = stablehlo.convert %138 : (tensor<i32>) -> tensor<f32>
    %140 = stablehlo.power %cst_41, %139 : tensor<f32>
    %cst_42 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %141 = stablehlo.subtract %cst_42, %140 : tensor<f32>
    %142 = stablehlo.broadcast_in_dim %141, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %143 = stablehlo.divide %107, %142 : tensor<16x4xf32>
    %144 = stablehlo.broadcast_in_dim %141, dims = [] : (tensor<f32>) -> tensor<4x16x32xf32>
    %145 = stablehlo.divide %112, %144 : tensor<4x16x32xf32>
    %146 = stablehlo.broadcast_in_dim %141, dims = [] : (tensor<f32>) -> tensor<4x32x16xf32>
    %147 = stablehlo.divide %117, %146 : tensor<4x32x16xf32>
    %cst_43 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %148 = stablehlo.convert %138 : (tensor<i32>) -> tensor<f32>
    %149 = stablehlo.power %cst_43, %148 : tensor<f32>
    %cst_44 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %150 = stablehlo.subtract %cst_44, %149 : tensor<f32>
    %151 = stablehlo.broadcast_in_dim %150, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %152 = stablehlo.divide %123, %151 : tensor<16x4xf32>
    %153 = stablehlo.broadcast_in_dim %150, dims = [] : (tensor<f32>) -> tensor<4x16x32xf32>
    %154 = stablehlo.divide %129, %153 : tensor<4x16x32xf32>
    %155 = stablehlo.broadcast_in_dim %150, dims = [] : (tensor<f32>) -> tensor<4x32x16xf32>
    %156 = stablehlo.divide %135, %155 : tensor<4x32x16xf32>
    %cst_45 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %157 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %158 = stablehlo.add %152, %157 : tensor<16x4xf32>
    %159 = stablehlo.sqrt %158 : tensor<16x4xf32>
    %cst_46 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %160 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %161 = stablehlo.add %159, %160 : tensor<16x4xf32>
    %162 = stablehlo.divide %143, %161 : tensor<16x4xf32>
    %cst_47 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %163 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<4x16x32xf32>
    %164 = stablehlo.add %154, %163 : tensor<4x16x32xf32>
    %165 = stablehlo.sqrt %164 : tensor<4x16x32xf32>
    %cst_48 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %166 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<4x16x32xf32>
    %167 = stablehlo.add %165, %166 : tensor<4x16x32xf32>
    %168 = stablehlo.divide %145, %167 : tensor<4x16x32xf32>
    %cst_49 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %169 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<4x32x16xf32>
    %170 = stablehlo.add %156, %169 : tensor<4x32x16xf32>
    %171 = stablehlo.sqrt %170 : tensor<4x32x16xf32>
    %cst_50 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %172 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<4x32x16xf32>
    %173 = stablehlo.add %171, %172 : tensor<4x32x16xf32>
    %174 = stablehlo.divide %147, %173 : tensor<4x32x16xf32>
    %cst_51 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %175 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %176 = stablehlo.multiply %175, %162 : tensor<16x4xf32>
    %cst_52 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %177 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<4x16x32xf32>
    %178 = stablehlo.multiply %177, %168 : tensor<4x16x32xf32>
    %cst_53 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %179 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<4x32x16xf32>
    %180 = stablehlo.multiply %179, %174 : tensor<4x32x16xf32>
    %181 = stablehlo.add %arg0, %176 : tensor<16x4xf32>
    %182 = stablehlo.add %arg1, %178 : tensor<4x16x32xf32>
    %183 = stablehlo.add %arg2, %180 : tensor<4x32x16xf32>
    return %181, %182, %183, %138, %107, %112, %117, %123, %129, %135, %57 : tensor<16x4xf32>, tensor<4x16x32xf32>, tensor<4x32x16xf32>, tensor<i32>, tensor<16x4xf32>, tensor<4x16x32xf32>, tensor<4x32x16xf32>, tensor<16x4xf32>, tensor<4x16x32xf32>, tensor<4x32x16xf32>, tensor<f32>
  }
  func.func private @_one_hot(%arg0: tensor<4x16x2xi32>) -> tensor<4x16x2x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2] : (tensor<4x16x2xi32>) -> tensor<4x16x2x1xi32>
    %1 = stablehlo.iota dim = 3 : tensor<1x1x1x4xi32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1, 2, 3] : (tensor<4x16x2x1xi32>) -> tensor<4x16x2x4xi32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xi32>) -> tensor<4x16x2x4xi32>
    %4 = stablehlo.compare EQ, %2, %3, SIGNED : (tensor<4x16x2x4xi32>, tensor<4x16x2x4xi32>) -> tensor<4x16x2x4xi1>
    %5 = stablehlo.convert %4 : (tensor<4x16x2x4xi1>) -> tensor<4x16x2x4xf32>
    return %5 : tensor<4x16x2x4xf32>
  }
  func.func private @cumsum(%arg0: tensor<4x32x4xf32>) -> tensor<4x32x4xf32> {
    %0 = call @cumsum_0(%arg0) : (tensor<4x32x4xf32>) -> tensor<4x32x4xf32>
    return %0 : tensor<4x32x4xf32>
  }
  func.func private @cumsum_0(%arg0: tensor<4x32x4xf32>) -> tensor<4x32x4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1, 1>, padding = dense<[[0, 0], [31, 0], [0, 0]]> : tensor<3x2xi64>, window_dilations = array<i64: 1, 1, 1>, window_dimensions = array<i64: 1, 32, 1>, window_strides = array<i64: 1, 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<4x32x4xf32>, tensor<f32>) -> tensor<4x32x4xf32>
    return %1 : tensor<4x32x4xf32>
  }
  func.func private @_one_hot_1(%arg0: tensor<4x16x2xi32>) -> tensor<4x16x2x16xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2] : (tensor<4x16x2xi32>) -> tensor<4x16x2x1xi32>
    %1 = stablehlo.iota dim = 3 : tensor<1x1x1x16xi32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1, 2, 3] : (tensor<4x16x2x1xi32>) -> tensor<4x16x2x16xi32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xi32>) -> tensor<4x16x2x16xi32>
    %4 = stablehlo.compare EQ, %2, %3, SIGNED : (tensor<4x16x2x16xi32>, tensor<4x16x2x16xi32>) -> tensor<4x16x2x16xi1>
    %5 = stablehlo.convert %4 : (tensor<4x16x2x16xi1>) -> tensor<4x16x2x16xf32>
    return %5 : tensor<4x16x2x16xf32>
  }
  func.func private @relu(%arg0: tensor<4x4x16x32xf32>) -> tensor<4x4x16x32xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4x16x32xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<4x4x16x32xf32>
    return %1 : tensor<4x4x16x32xf32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
}
