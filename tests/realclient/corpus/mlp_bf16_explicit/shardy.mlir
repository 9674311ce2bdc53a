module @jit_mlp_bf16_train_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, %arg1: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg2: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg3: tensor<64x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg4: tensor<i32> {sdy.sharding = #sdy.sharding<@mesh, []>}, %arg5: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, %arg6: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg7: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg8: tensor<64x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg9: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, %arg10: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg11: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg12: tensor<64x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg13: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg14: tensor<16xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}) -> (tensor<64xf32> {jax.result_info = "result[0]['params']['fc1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, tensor<32x64xf32> {jax.result_info = "result[0]['params']['fc1']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, tensor<8xf32> {jax.result_info = "result[0]['params']['fc2_bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<64x8xf32> {jax.result_info = "result[0]['params']['fc2_kernel']", sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, tensor<i32> {jax.result_info = "result[1][0].count", sdy.sharding = #sdy.sharding<@mesh, []>}, tensor<64xf32> {jax.result_info = "result[1][0].mu['params']['fc1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, tensor<32x64xf32> {jax.result_info = "result[1][0].mu['params']['fc1']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, tensor<8xf32> {jax.result_info = "result[1][0].mu['params']['fc2_bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<64x8xf32> {jax.result_info = "result[1][0].mu['params']['fc2_kernel']", sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, tensor<64xf32> {jax.result_info = "result[1][0].nu['params']['fc1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, tensor<32x64xf32> {jax.result_info = "result[1][0].nu['params']['fc1']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, tensor<8xf32> {jax.result_info = "result[1][0].nu['params']['fc2_bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<64x8xf32> {jax.result_info = "result[1][0].nu['params']['fc2_kernel']", sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, tensor<f32> {jax.result_info = "result[2]", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.convert %arg13 : (tensor<16x32xf32>) -> tensor<16x32xbf16>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {}]> : tensor<16x32xbf16>
    %2 = stablehlo.convert %arg1 : (tensor<32x64xf32>) -> tensor<32x64xbf16>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {"model"}]> : tensor<32x64xbf16>
    %4 = stablehlo.convert %arg0 : (tensor<64xf32>) -> tensor<64xbf16>
    %5 = sdy.sharding_constraint %4 <@mesh, [{"model"}]> : tensor<64xbf16>
    %6 = stablehlo.dot_general %1, %3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xbf16>, tensor<32x64xbf16>) -> tensor<16x64xbf16>
    %7 = sdy.sharding_constraint %6 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %8 = stablehlo.reshape %5 : (tensor<64xbf16>) -> tensor<1x64xbf16>
    %9 = sdy.sharding_constraint %8 <@mesh, [{}, {"model"}]> : tensor<1x64xbf16>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<1x64xbf16>) -> tensor<16x64xbf16>
    %11 = sdy.sharding_constraint %10 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %12 = stablehlo.add %7, %11 : tensor<16x64xbf16>
    %13 = sdy.sharding_constraint %12 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %14 = stablehlo.multiply %13, %13 : tensor<16x64xbf16>
    %15 = stablehlo.multiply %14, %13 : tensor<16x64xbf16>
    %16 = sdy.sharding_constraint %15 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %17 = stablehlo.multiply %13, %13 : tensor<16x64xbf16>
    %18 = sdy.sharding_constraint %17 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<bf16>
    %19 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<16x64xbf16>
    %20 = sdy.sharding_constraint %19 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %21 = stablehlo.multiply %20, %18 : tensor<16x64xbf16>
    %22 = sdy.sharding_constraint %21 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %cst_0 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %23 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<16x64xbf16>
    %24 = sdy.sharding_constraint %23 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %25 = stablehlo.multiply %24, %16 : tensor<16x64xbf16>
    %26 = sdy.sharding_constraint %25 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %27 = stablehlo.add %13, %26 : tensor<16x64xbf16>
    %28 = sdy.sharding_constraint %27 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %cst_1 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %29 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<bf16>) -> tensor<16x64xbf16>
    %30 = sdy.sharding_constraint %29 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %31 = stablehlo.multiply %30, %28 : tensor<16x64xbf16>
    %32 = sdy.sharding_constraint %31 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %33 = stablehlo.tanh %32 : tensor<16x64xbf16>
    %34 = sdy.sharding_constraint %33 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %35 = sdy.sharding_constraint %cst_2 <@mesh, []> : tensor<bf16>
    %36 = stablehlo.broadcast_in_dim %35, dims = [] : (tensor<bf16>) -> tensor<16x64xbf16>
    %37 = sdy.sharding_constraint %36 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %38 = stablehlo.subtract %37, %34 : tensor<16x64xbf16>
    %39 = sdy.sharding_constraint %38 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %40 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<bf16>) -> tensor<16x64xbf16>
    %41 = sdy.sharding_constraint %40 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %42 = stablehlo.add %41, %34 : tensor<16x64xbf16>
    %43 = sdy.sharding_constraint %42 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %44 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<bf16>) -> tensor<16x64xbf16>
    %45 = sdy.sharding_constraint %44 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %46 = stablehlo.multiply %45, %43 : tensor<16x64xbf16>
    %47 = sdy.sharding_constraint %46 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %48 = stablehlo.multiply %13, %47 : tensor<16x64xbf16>
    %49 = sdy.sharding_constraint %48 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %50 = sdy.sharding_constraint %49 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %51 = stablehlo.convert %arg3 : (tensor<64x8xf32>) -> tensor<64x8xbf16>
    %52 = sdy.sharding_constraint %51 <@mesh, [{"model"}, {}]> : tensor<64x8xbf16>
    %53 = stablehlo.dot_general %50, %52, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xbf16>, tensor<64x8xbf16>) -> tensor<16x8xbf16>
    %54 = sdy.sharding_constraint %53 <@mesh, [{"data"}, {}]> : tensor<16x8xbf16>
    %55 = stablehlo.convert %54 : (tensor<16x8xbf16>) -> tensor<16x8xf32>
    %56 = sdy.sharding_constraint %55 <@mesh, [{"data"}, {}]> : tensor<16x8xf32>
    %57 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %58 = sdy.sharding_constraint %57 <@mesh, [{}, {}]> : tensor<1x8xf32>
    %59 = stablehlo.broadcast_in_dim %58, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<16x8xf32>
    %60 = sdy.sharding_constraint %59 <@mesh, [{"data"}, {}]> : tensor<16x8xf32>
    %61 = stablehlo.add %56, %60 : tensor<16x8xf32>
    %62 = sdy.sharding_constraint %61 <@mesh, [{"data"}, {}]> : tensor<16x8xf32>
    %63 = stablehlo.broadcast_in_dim %arg14, dims = [0] : (tensor<16xi32>) -> tensor<16x1xi32>
    %64 = sdy.sharding_constraint %63 <@mesh, [{"data"}, {}]> : tensor<16x1xi32>
    %65:2 = call @take_along_axis(%62, %64) : (tensor<16x8xf32>, tensor<16x1xi32>) -> (tensor<16x1xf32>, tensor<16x1x1xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %66:2 = call @_take(%65#0, %c) : (tensor<16x1xf32>, tensor<i32>) -> (tensor<16xf32>, tensor<1xi32>)
    %cst_5 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %67 = stablehlo.reduce(%62 init: %cst_5) applies stablehlo.maximum across dimensions = [1] : (tensor<16x8xf32>, tensor<f32>) -> tensor<16xf32>
    %68 = sdy.sharding_constraint %67 <@mesh, [{"data"}]> : tensor<16xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %69 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %70 = sdy.sharding_constraint %69 <@mesh, [{"data"}]> : tensor<16xf32>
    %71 = stablehlo.maximum %70, %68 : tensor<16xf32>
    %72 = sdy.sharding_constraint %71 <@mesh, [{"data"}]> : tensor<16xf32>
    %73 = stablehlo.is_finite %72 : (tensor<16xf32>) -> tensor<16xi1>
    %74 = sdy.sharding_constraint %73 <@mesh, [{"data"}]> : tensor<16xi1>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %76 = sdy.sharding_constraint %75 <@mesh, [{"data"}]> : tensor<16xf32>
    %77 = stablehlo.select %74, %72, %76 : tensor<16xi1>, tensor<16xf32>
    %78 = sdy.sharding_constraint %77 <@mesh, [{"data"}]> : tensor<16xf32>
    %79 = stablehlo.broadcast_in_dim %78, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
    %80 = sdy.sharding_constraint %79 <@mesh, [{"data"}, {}]> : tensor<16x1xf32>
    %81 = stablehlo.broadcast_in_dim %80, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x8xf32>
    %82 = sdy.sharding_constraint %81 <@mesh, [{"data"}, {}]> : tensor<16x8xf32>
    %83 = stablehlo.subtract %62, %82 : tensor<16x8xf32>
    %84 = sdy.sharding_constraint %83 <@mesh, [{"data"}, {}]> : tensor<16x8xf32>
    %85 = stablehlo.exponential %84 : tensor<16x8xf32>
    %86 = sdy.sharding_constraint %85 <@mesh, [{"data"}, {}]> : tensor<16x8xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %87 = stablehlo.reduce(%86 init: %cst_8) applies stablehlo.add across dimensions = [1] : (tensor<16x8xf32>, tensor<f32>) -> tensor<16xf32>
    %88 = sdy.sharding_constraint %87 <@mesh, [{"data"}]> : tensor<16xf32>
    %89 = stablehlo.abs %88 : tensor<16xf32>
    %90 = sdy.sharding_constraint %89 <@mesh, [{"data"}]> : tensor<16xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %91 = sdy.sharding_constraint %cst_9 <@mesh, []> : tensor<f32>
    %92 = stablehlo.broadcast_in_dim %91, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %93 = sdy.sharding_constraint %92 <@mesh, [{"data"}]> : tensor<16xf32>
    %94 = stablehlo.compare GE, %88, %93, FLOAT : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xi1>
    %95 = stablehlo.log %90 : tensor<16xf32>
    %96 = sdy.sharding_constraint %95 <@mesh, [{"data"}]> : tensor<16xf32>
    %97 = stablehlo.add %96, %78 : tensor<16xf32>
    %98 = sdy.sharding_constraint %97 <@mesh, [{"data"}]> : tensor<16xf32>
    %99 = stablehlo.subtract %98, %66#0 : tensor<16xf32>
    %100 = sdy.sharding_constraint %99 <@mesh, [{"data"}]> : tensor<16xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %101 = stablehlo.reduce(%100 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<16xf32>, tensor<f32>) -> tensor<f32>
    %102 = sdy.sharding_constraint %101 <@mesh, []> : tensor<f32>
    %cst_11 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %103 = sdy.sharding_constraint %cst_11 <@mesh, []> : tensor<f32>
    %104 = stablehlo.divide %102, %103 : tensor<f32>
    %105 = sdy.sharding_constraint %104 <@mesh, []> : tensor<f32>
    %cst_12 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %106 = sdy.sharding_constraint %cst_12 <@mesh, []> : tensor<f32>
    %cst_13 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %107 = sdy.sharding_constraint %cst_13 <@mesh, []> : tensor<f32>
    %108 = stablehlo.divide %106, %107 : tensor<f32>
    %109 = sdy.sharding_constraint %108 <@mesh, []> : tensor<f32>
    %110 = stablehlo.broadcast_in_dim %109, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %111 = sdy.sharding_constraint %110 <@mesh, [{"data"}]> : tensor<16xf32>
    %112 = stablehlo.negate %111 : tensor<16xf32>
    %113 = sdy.sharding_constraint %112 <@mesh, [{"data"}]> : tensor<16xf32>
    %114 = stablehlo.divide %111, %90 : tensor<16xf32>
    %115 = sdy.sharding_constraint %114 <@mesh, [{"data"}]> : tensor<16xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %116 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %117 = sdy.sharding_constraint %116 <@mesh, [{"data"}]> : tensor<16xf32>
    %118 = stablehlo.select %94, %117, %115 : tensor<16xi1>, tensor<16xf32>
    %119 = sdy.sharding_constraint %118 <@mesh, [{"data"}]> : tensor<16xf32>
    %120 = stablehlo.select %94, %115, %117 : tensor<16xi1>, tensor<16xf32>
    %121 = sdy.sharding_constraint %120 <@mesh, [{"data"}]> : tensor<16xf32>
    %122 = stablehlo.negate %119 : tensor<16xf32>
    %123 = sdy.sharding_constraint %122 <@mesh, [{"data"}]> : tensor<16xf32>
    %124 = stablehlo.add %121, %123 : tensor<16xf32>
    %125 = sdy.sharding_constraint %124 <@mesh, [{"data"}]> : tensor<16xf32>
    %126 = stablehlo.broadcast_in_dim %125, dims = [0] : (tensor<16xf32>) -> tensor<16x8xf32>
    %127 = sdy.sharding_constraint %126 <@mesh, [{"data"}, {}]> : tensor<16x8xf32>
    %128 = stablehlo.multiply %127, %86 : tensor<16x8xf32>
    %129 = sdy.sharding_constraint %128 <@mesh, [{"data"}, {}]> : tensor<16x8xf32>
    %130 = call @_take_0(%66#1, %113) : (tensor<1xi32>, tensor<16xf32>) -> tensor<16x1xf32>
    %131 = call @take_along_axis_1(%65#1, %130) : (tensor<16x1x1xi32>, tensor<16x1xf32>) -> tensor<16x8xf32>
    %132 = stablehlo.add %129, %131 : tensor<16x8xf32>
    %133 = sdy.sharding_constraint %132 <@mesh, [{"data"}, {}]> : tensor<16x8xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %134 = stablehlo.reduce(%133 init: %cst_15) applies stablehlo.add across dimensions = [0] : (tensor<16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %135 = sdy.sharding_constraint %134 <@mesh, [{}]> : tensor<8xf32>
    %136 = stablehlo.reshape %135 : (tensor<8xf32>) -> tensor<1x8xf32>
    %137 = sdy.sharding_constraint %136 <@mesh, [{}, {}]> : tensor<1x8xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %138 = stablehlo.reduce(%137 init: %cst_16) applies stablehlo.add across dimensions = [0] : (tensor<1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %139 = sdy.sharding_constraint %138 <@mesh, [{}]> : tensor<8xf32>
    %140 = stablehlo.convert %133 : (tensor<16x8xf32>) -> tensor<16x8xbf16>
    %141 = sdy.sharding_constraint %140 <@mesh, [{"data"}, {}]> : tensor<16x8xbf16>
    %142 = stablehlo.dot_general %141, %50, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x8xbf16>, tensor<16x64xbf16>) -> tensor<8x64xbf16>
    %143 = sdy.sharding_constraint %142 <@mesh, [{}, {"model"}]> : tensor<8x64xbf16>
    %144 = stablehlo.transpose %143, dims = [1, 0] : (tensor<8x64xbf16>) -> tensor<64x8xbf16>
    %145 = sdy.sharding_constraint %144 <@mesh, [{"model"}, {}]> : tensor<64x8xbf16>
    %146 = stablehlo.dot_general %141, %52, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x8xbf16>, tensor<64x8xbf16>) -> tensor<16x64xbf16>
    %147 = sdy.sharding_constraint %146 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %148 = stablehlo.convert %145 : (tensor<64x8xbf16>) -> tensor<64x8xf32>
    %149 = sdy.sharding_constraint %148 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %150 = sdy.sharding_constraint %147 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %151 = stablehlo.multiply %13, %150 : tensor<16x64xbf16>
    %152 = sdy.sharding_constraint %151 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %153 = stablehlo.multiply %150, %47 : tensor<16x64xbf16>
    %154 = sdy.sharding_constraint %153 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %cst_17 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %155 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<bf16>) -> tensor<16x64xbf16>
    %156 = sdy.sharding_constraint %155 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %157 = stablehlo.multiply %156, %152 : tensor<16x64xbf16>
    %158 = sdy.sharding_constraint %157 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %159 = stablehlo.multiply %158, %39 : tensor<16x64xbf16>
    %160 = sdy.sharding_constraint %159 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %161 = stablehlo.multiply %160, %34 : tensor<16x64xbf16>
    %162 = sdy.sharding_constraint %161 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %163 = stablehlo.add %160, %162 : tensor<16x64xbf16>
    %164 = sdy.sharding_constraint %163 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %cst_18 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %165 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<bf16>) -> tensor<16x64xbf16>
    %166 = sdy.sharding_constraint %165 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %167 = stablehlo.multiply %166, %164 : tensor<16x64xbf16>
    %168 = sdy.sharding_constraint %167 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %169 = stablehlo.add %154, %168 : tensor<16x64xbf16>
    %170 = sdy.sharding_constraint %169 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %cst_19 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %171 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<bf16>) -> tensor<16x64xbf16>
    %172 = sdy.sharding_constraint %171 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %173 = stablehlo.multiply %172, %168 : tensor<16x64xbf16>
    %174 = sdy.sharding_constraint %173 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %175 = stablehlo.multiply %174, %22 : tensor<16x64xbf16>
    %176 = sdy.sharding_constraint %175 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %177 = stablehlo.add %170, %176 : tensor<16x64xbf16>
    %178 = sdy.sharding_constraint %177 <@mesh, [{"data"}, {"model"}]> : tensor<16x64xbf16>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %179 = stablehlo.reduce(%178 init: %cst_20) applies stablehlo.add across dimensions = [0] : (tensor<16x64xbf16>, tensor<bf16>) -> tensor<64xbf16>
    %180 = sdy.sharding_constraint %179 <@mesh, [{"model"}]> : tensor<64xbf16>
    %181 = stablehlo.reshape %180 : (tensor<64xbf16>) -> tensor<1x64xbf16>
    %182 = sdy.sharding_constraint %181 <@mesh, [{}, {"model"}]> : tensor<1x64xbf16>
    %183 = stablehlo.reshape %182 : (tensor<1x64xbf16>) -> tensor<64xbf16>
    %184 = sdy.sharding_constraint %183 <@mesh, [{"model"}]> : tensor<64xbf16>
    %185 = stablehlo.dot_general %178, %1, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xbf16>, tensor<16x32xbf16>) -> tensor<64x32xbf16>
    %186 = sdy.sharding_constraint %185 <@mesh, [{"model"}, {}]> : tensor<64x32xbf16>
    %187 = stablehlo.transpose %186, dims = [1, 0] : (tensor<64x32xbf16>) -> tensor<32x64xbf16>
    %188 = sdy.sharding_constraint %187 <@mesh, [{}, {"model"}]> : tensor<32x64xbf16>
    %189 = stablehlo.convert %184 : (tensor<64xbf16>) -> tensor<64xf32>
    %190 = sdy.sharding_constraint %189 <@mesh, [{"model"}]> : tensor<64xf32>
    %191 = stablehlo.convert %188 : (tensor<32x64xbf16>) -> tensor<32x64xf32>
    %192 = sdy.sharding_constraint %191 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %193 = sdy.sharding_constraint %190 <@mesh, [{"model"}]> : tensor<64xf32>
    %cst_21 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %194 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %195 = sdy.sharding_constraint %194 <@mesh, [{"model"}]> : tensor<64xf32>
    %196 = stablehlo.multiply %195, %193 : tensor<64xf32>
    %197 = sdy.sharding_constraint %196 <@mesh, [{"model"}]> : tensor<64xf32>
    %cst_22 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %198 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %199 = sdy.sharding_constraint %198 <@mesh, [{"model"}]> : tensor<64xf32>
    %200 = stablehlo.multiply %199, %arg5 : tensor<64xf32>
    %201 = sdy.sharding_constraint %200 <@mesh, [{"model"}]> : tensor<64xf32>
    %202 = stablehlo.add %197, %201 : tensor<64xf32>
    %203 = sdy.sharding_constraint %202 <@mesh, [{"model"}]> : tensor<64xf32>
    %204 = sdy.sharding_constraint %192 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %cst_23 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %205 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %206 = sdy.sharding_constraint %205 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %207 = stablehlo.multiply %206, %204 : tensor<32x64xf32>
    %208 = sdy.sharding_constraint %207 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %cst_24 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %209 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %210 = sdy.sharding_constraint %209 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %211 = stablehlo.multiply %210, %arg6 : tensor<32x64xf32>
    %212 = sdy.sharding_constraint %211 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %213 = stablehlo.add %208, %212 : tensor<32x64xf32>
    %214 = sdy.sharding_constraint %213 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %215 = sdy.sharding_constraint %139 <@mesh, [{}]> : tensor<8xf32>
    %cst_25 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %216 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %217 = sdy.sharding_constraint %216 <@mesh, [{}]> : tensor<8xf32>
    %218 = stablehlo.multiply %217, %215 : tensor<8xf32>
    %219 = sdy.sharding_constraint %218 <@mesh, [{}]> : tensor<8xf32>
    %cst_26 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %220 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %221 = sdy.sharding_constraint %220 <@mesh, [{}]> : tensor<8xf32>
    %222 = stablehlo.multiply %221, %arg7 : tensor<8xf32>
    %223 = sdy.sharding_constraint %222 <@mesh, [{}]> : tensor<8xf32>
    %224 = stablehlo.add %219, %223 : tensor<8xf32>
    %225 = sdy.sharding_constraint %224 <@mesh, [{}]> : tensor<8xf32>
    %226 = sdy.sharding_constraint %149 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %cst_27 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %227 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %228 = sdy.sharding_constraint %227 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %229 = stablehlo.multiply %228, %226 : tensor<64x8xf32>
    %230 = sdy.sharding_constraint %229 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %cst_28 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %231 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %232 = sdy.sharding_constraint %231 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %233 = stablehlo.multiply %232, %arg8 : tensor<64x8xf32>
    %234 = sdy.sharding_constraint %233 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %235 = stablehlo.add %230, %234 : tensor<64x8xf32>
    %236 = sdy.sharding_constraint %235 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %237 = stablehlo.multiply %190, %190 : tensor<64xf32>
    %238 = sdy.sharding_constraint %237 <@mesh, [{"model"}]> : tensor<64xf32>
    %cst_29 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %239 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %240 = sdy.sharding_constraint %239 <@mesh, [{"model"}]> : tensor<64xf32>
    %241 = stablehlo.multiply %240, %238 : tensor<64xf32>
    %242 = sdy.sharding_constraint %241 <@mesh, [{"model"}]> : tensor<64xf32>
    %cst_30 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %243 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %244 = sdy.sharding_constraint %243 <@mesh, [{"model"}]> : tensor<64xf32>
    %245 = stablehlo.multiply %244, %arg9 : tensor<64xf32>
    %246 = sdy.sharding_constraint %245 <@mesh, [{"model"}]> : tensor<64xf32>
    %247 = stablehlo.add %242, %246 : tensor<64xf32>
    %248 = sdy.sharding_constraint %247 <@mesh, [{"model"}]> : tensor<64xf32>
    %249 = stablehlo.multiply %192, %192 : tensor<32x64xf32>
    %250 = sdy.sharding_constraint %249 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %cst_31 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %251 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %252 = sdy.sharding_constraint %251 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %253 = stablehlo.multiply %252, %250 : tensor<32x64xf32>
    %254 = sdy.sharding_constraint %253 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %cst_32 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %255 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %256 = sdy.sharding_constraint %255 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %257 = stablehlo.multiply %256, %arg10 : tensor<32x64xf32>
    %258 = sdy.sharding_constraint %257 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %259 = stablehlo.add %254, %258 : tensor<32x64xf32>
    %260 = sdy.sharding_constraint %259 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %261 = stablehlo.multiply %139, %139 : tensor<8xf32>
    %262 = sdy.sharding_constraint %261 <@mesh, [{}]> : tensor<8xf32>
    %cst_33 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %263 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %264 = sdy.sharding_constraint %263 <@mesh, [{}]> : tensor<8xf32>
    %265 = stablehlo.multiply %264, %262 : tensor<8xf32>
    %266 = sdy.sharding_constraint %265 <@mesh, [{}]> : tensor<8xf32>
    %cst_34 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %267 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %268 = sdy.sharding_constraint %267 <@mesh, [{}]> : tensor<8xf32>
    %269 = stablehlo.multiply %268, %arg11 : tensor<8xf32>
    %270 = sdy.sharding_constraint %269 <@mesh, [{}]> : tensor<8xf32>
    %271 = stablehlo.add %266, %270 : tensor<8xf32>
    %272 = sdy.sharding_constraint %271 <@mesh, [{}]> : tensor<8xf32>
    %273 = stablehlo.multiply %149, %149 : tensor<64x8xf32>
    %274 = sdy.sharding_constraint %273 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %cst_35 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %275 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %276 = sdy.sharding_constraint %275 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %277 = stablehlo.multiply %276, %274 : tensor<64x8xf32>
    %278 = sdy.sharding_constraint %277 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %cst_36 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %279 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %280 = sdy.sharding_constraint %279 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %281 = stablehlo.multiply %280, %arg12 : tensor<64x8xf32>
    %282 = sdy.sharding_constraint %281 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %283 = stablehlo.add %278, %282 : tensor<64x8xf32>
    %284 = sdy.sharding_constraint %283 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %c_37 = stablehlo.constant dense<2147483647> : tensor<i32>
    %285 = sdy.sharding_constraint %c_37 <@mesh, []> : tensor<i32>
    %286 = stablehlo.compare LT, %arg4, %285, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_38 = stablehlo.constant dense<1> : tensor<i32>
    %287 = sdy.sharding_constraint %c_38 <@mesh, []> : tensor<i32>
    %288 = stablehlo.add %arg4, %287 : tensor<i32>
    %289 = sdy.sharding_constraint %288 <@mesh, []> : tensor<i32>
    %c_39 = stablehlo.constant dense<2147483647> : tensor<i32>
    %290 = call @_where_2(%286, %289, %c_39) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %cst_40 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %291 = stablehlo.convert %290 : (tensor<i32>) -> tensor<f32>
    %292 = sdy.sharding_constraint %cst_40 <@mesh, []> : tensor<f32>
    %293 = stablehlo.power %292, %291 : tensor<f32>
    %294 = sdy.sharding_constraint %293 <@mesh, []> : tensor<f32>
    %cst_41 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %295 = sdy.sharding_constraint %cst_41 <@mesh, []> : tensor<f32>
    %296 = stablehlo.subtract %295, %294 : tensor<f32>
    %297 = sdy.sharding_constraint %296 <@mesh, []> : tensor<f32>
    %298 = stablehlo.broadcast_in_dim %297, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %299 = sdy.sharding_constraint %298 <@mesh, [{"model"}]> : tensor<64xf32>
    %300 = stablehlo.divide %203, %299 : tensor<64xf32>
    %301 = sdy.sharding_constraint %300 <@mesh, [{"model"}]> : tensor<64xf32>
    %302 = stablehlo.broadcast_in_dim %297, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %303 = sdy.sharding_constraint %302 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %304 = stablehlo.divide %214, %303 : tensor<32x64xf32>
    %305 = sdy.sharding_constraint %304 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %306 = stablehlo.broadcast_in_dim %297, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %307 = sdy.sharding_constraint %306 <@mesh, [{}]> : tensor<8xf32>
    %308 = stablehlo.divide %225, %307 : tensor<8xf32>
    %309 = sdy.sharding_constraint %308 <@mesh, [{}]> : tensor<8xf32>
    %310 = stablehlo.broadcast_in_dim %297, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %311 = sdy.sharding_constraint %310 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %312 = stablehlo.divide %236, %311 : tensor<64x8xf32>
    %313 = sdy.sharding_constraint %312 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %cst_42 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %314 = stablehlo.convert %290 : (tensor<i32>) -> tensor<f32>
    %315 = sdy.sharding_constraint %cst_42 <@mesh, []> : tensor<f32>
    %316 = stablehlo.power %315, %314 : tensor<f32>
    %317 = sdy.sharding_constraint %316 <@mesh, []> : tensor<f32>
    %cst_43 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %318 = sdy.sharding_constraint %cst_43 <@mesh, []> : tensor<f32>
    %319 = stablehlo.subtract %318, %317 : tensor<f32>
    %320 = sdy.sharding_constraint %319 <@mesh, []> : tensor<f32>
    %321 = stablehlo.broadcast_in_dim %320, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %322 = sdy.sharding_constraint %321 <@mesh, [{"model"}]> : tensor<64xf32>
    %323 = stablehlo.divide %248, %322 : tensor<64xf32>
    %324 = sdy.sharding_constraint %323 <@mesh, [{"model"}]> : tensor<64xf32>
    %325 = stablehlo.broadcast_in_dim %320, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %326 = sdy.sharding_constraint %325 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %327 = stablehlo.divide %260, %326 : tensor<32x64xf32>
    %328 = sdy.sharding_constraint %327 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %329 = stablehlo.broadcast_in_dim %320, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %330 = sdy.sharding_constraint %329 <@mesh, [{}]> : tensor<8xf32>
    %331 = stablehlo.divide %272, %330 : tensor<8xf32>
    %332 = sdy.sharding_constraint %331 <@mesh, [{}]> : tensor<8xf32>
    %333 = stablehlo.broadcast_in_dim %320, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %334 = sdy.sharding_constraint %333 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %335 = stablehlo.divide %284, %334 : tensor<64x8xf32>
    %336 = sdy.sharding_constraint %335 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %cst_44 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %337 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %338 = sdy.sharding_constraint %337 <@mesh, [{"model"}]> : tensor<64xf32>
    %339 = stablehlo.add %324, %338 : tensor<64xf32>
    %340 = sdy.sharding_constraint %339 <@mesh, [{"model"}]> : tensor<64xf32>
    %341 = stablehlo.sqrt %340 : tensor<64xf32>
    %342 = sdy.sharding_constraint %341 <@mesh, [{"model"}]> : tensor<64xf32>
    %cst_45 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %343 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %344 = sdy.sharding_constraint %343 <@mesh, [{"model"}]> : tensor<64xf32>
    %345 = stablehlo.add %342, %344 : tensor<64xf32>
    %346 = sdy.sharding_constraint %345 <@mesh, [{"model"}]> : tensor<64xf32>
    %347 = stablehlo.divide %301, %346 : tensor<64xf32>
    %348 = sdy.sharding_constraint %347 <@mesh, [{"model"}]> : tensor<64xf32>
    %cst_46 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %349 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %350 = sdy.sharding_constraint %349 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %351 = stablehlo.add %328, %350 : tensor<32x64xf32>
    %352 = sdy.sharding_constraint %351 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %353 = stablehlo.sqrt %352 : tensor<32x64xf32>
    %354 = sdy.sharding_constraint %353 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %cst_47 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %355 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %356 = sdy.sharding_constraint %355 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %357 = stablehlo.add %354, %356 : tensor<32x64xf32>
    %358 = sdy.sharding_constraint %357 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %359 = stablehlo.divide %305, %358 : tensor<32x64xf32>
    %360 = sdy.sharding_constraint %359 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %cst_48 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %361 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %362 = sdy.sharding_constraint %361 <@mesh, [{}]> : tensor<8xf32>
    %363 = stablehlo.add %332, %362 : tensor<8xf32>
    %364 = sdy.sharding_constraint %363 <@mesh, [{}]> : tensor<8xf32>
    %365 = stablehlo.sqrt %364 : tensor<8xf32>
    %366 = sdy.sharding_constraint %365 <@mesh, [{}]> : tensor<8xf32>
    %cst_49 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %367 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %368 = sdy.sharding_constraint %367 <@mesh, [{}]> : tensor<8xf32>
    %369 = stablehlo.add %366, %368 : tensor<8xf32>
    %370 = sdy.sharding_constraint %369 <@mesh, [{}]> : tensor<8xf32>
    %371 = stablehlo.divide %309, %370 : tensor<8xf32>
    %372 = sdy.sharding_constraint %371 <@mesh, [{}]> : tensor<8xf32>
    %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %373 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %374 = sdy.sharding_constraint %373 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %375 = stablehlo.add %336, %374 : tensor<64x8xf32>
    %376 = sdy.sharding_constraint %375 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %377 = stablehlo.sqrt %376 : tensor<64x8xf32>
    %378 = sdy.sharding_constraint %377 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %cst_51 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %379 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %380 = sdy.sharding_constraint %379 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %381 = stablehlo.add %378, %380 : tensor<64x8xf32>
    %382 = sdy.sharding_constraint %381 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %383 = stablehlo.divide %313, %382 : tensor<64x8xf32>
    %384 = sdy.sharding_constraint %383 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %cst_52 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %385 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %386 = sdy.sharding_constraint %385 <@mesh, [{"model"}]> : tensor<64xf32>
    %387 = stablehlo.multiply %386, %arg0 : tensor<64xf32>
    %388 = sdy.sharding_constraint %387 <@mesh, [{"model"}]> : tensor<64xf32>
    %389 = stablehlo.add %348, %388 : tensor<64xf32>
    %390 = sdy.sharding_constraint %389 <@mesh, [{"model"}]> : tensor<64xf32>
    %cst_53 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %391 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %392 = sdy.sharding_constraint %391 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %393 = stablehlo.multiply %392, %arg1 : tensor<32x64xf32>
    %394 = sdy.sharding_constraint %393 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %395 = stablehlo.add %360, %394 : tensor<32x64xf32>
    %396 = sdy.sharding_constraint %395 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %cst_54 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %397 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %398 = sdy.sharding_constraint %397 <@mesh, [{}]> : tensor<8xf32>
    %399 = stablehlo.multiply %398, %arg2 : tensor<8xf32>
    %400 = sdy.sharding_constraint %399 <@mesh, [{}]> : tensor<8xf32>
    %401 = stablehlo.add %372, %400 : tensor<8xf32>
    %402 = sdy.sharding_constraint %401 <@mesh, [{}]> : tensor<8xf32>
    %cst_55 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %403 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %404 = sdy.sharding_constraint %403 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %405 = stablehlo.multiply %404, %arg3 : tensor<64x8xf32>
    %406 = sdy.sharding_constraint %405 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %407 = stablehlo.add %384, %406 : tensor<64x8xf32>
    %408 = sdy.sharding_constraint %407 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %cst_56 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %409 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %410 = sdy.sharding_constraint %409 <@mesh, [{"model"}]> : tensor<64xf32>
    %411 = stablehlo.multiply %410, %390 : tensor<64xf32>
    %412 = sdy.sharding_constraint %411 <@mesh, [{"model"}]> : tensor<64xf32>
    %cst_57 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %413 = stablehlo.broadcast_in_dim %cst_57, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %414 = sdy.sharding_constraint %413 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %415 = stablehlo.multiply %414, %396 : tensor<32x64xf32>
    %416 = sdy.sharding_constraint %415 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %cst_58 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %417 = stablehlo.broadcast_in_dim %cst_58, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %418 = sdy.sharding_constraint %417 <@mesh, [{}]> : tensor<8xf32>
    %419 = stablehlo.multiply %418, %402 : tensor<8xf32>
    %420 = sdy.sharding_constraint %419 <@mesh, [{}]> : tensor<8xf32>
    %cst_59 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %421 = stablehlo.broadcast_in_dim %cst_59, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %422 = sdy.sharding_constraint %421 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %423 = stablehlo.multiply %422, %408 : tensor<64x8xf32>
    %424 = sdy.sharding_constraint %423 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    %425 = stablehlo.add %arg0, %412 : tensor<64xf32>
    %426 = sdy.sharding_constraint %425 <@mesh, [{"model"}]> : tensor<64xf32>
    %427 = stablehlo.add %arg1, %416 : tensor<32x64xf32>
    %428 = sdy.sharding_constraint %427 <@mesh, [{}, {"model"}]> : tensor<32x64xf32>
    %429 = stablehlo.add %arg2, %420 : tensor<8xf32>
    %430 = sdy.sharding_constraint %429 <@mesh, [{}]> : tensor<8xf32>
    %431 = stablehlo.add %arg3, %424 : tensor<64x8xf32>
    %432 = sdy.sharding_constraint %431 <@mesh, [{"model"}, {}]> : tensor<64x8xf32>
    return %426, %428, %430, %432, %290, %203, %214, %225, %236, %248, %260, %272, %284, %105 : tensor<64xf32>, tensor<32x64xf32>, tensor<8xf32>, tensor<64x8xf32>, tensor<i32>, tensor<64xf32>, tensor<32x64xf32>, tensor<8xf32>, tensor<64x8xf32>, tensor<64xf32>, tensor<32x64xf32>, tensor<8xf32>, tensor<64x8xf32>, tensor<f32>
  }
  func.func private @take_along_axis(%arg0: tensor<16x8xf32>, %arg1: tensor<16x1xi32>) -> (tensor<16x1xf32>, tensor<16x1x1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<16x1xi32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {}]> : tensor<16x1xi32>
    %2 = stablehlo.compare LT, %arg1, %1, SIGNED : (tensor<16x1xi32>, tensor<16x1xi32>) -> tensor<16x1xi1>
    %c_0 = stablehlo.constant dense<8> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<16x1xi32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{"data"}, {}]> : tensor<16x1xi32>
    %5 = stablehlo.add %arg1, %4 : tensor<16x1xi32>
    %6 = sdy.sharding_constraint %5 <@mesh, [{"data"}, {}]> : tensor<16x1xi32>
    %7 = stablehlo.select %2, %6, %arg1 : tensor<16x1xi1>, tensor<16x1xi32>
    %8 = sdy.sharding_constraint %7 <@mesh, [{"data"}, {}]> : tensor<16x1xi32>
    %9 = stablehlo.reshape %8 : (tensor<16x1xi32>) -> tensor<16x1x1xi32>
    %10 = sdy.sharding_constraint %9 <@mesh, [{"data"}, {}, {}]> : tensor<16x1x1xi32>
    %c_1 = stablehlo.constant dense<7> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<16x1x1xi32>
    %12 = sdy.sharding_constraint %11 <@mesh, [{"data"}, {}, {}]> : tensor<16x1x1xi32>
    %13 = stablehlo.compare GE, %10, %12, SIGNED : (tensor<16x1x1xi32>, tensor<16x1x1xi32>) -> tensor<16x1x1xi1>
    %14 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %15 = sdy.sharding_constraint %14 <@mesh, [{}, {}, {}]> : tensor<1x1x1xi32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<16x1x1xi32>
    %17 = sdy.sharding_constraint %16 <@mesh, [{"data"}, {}, {}]> : tensor<16x1x1xi32>
    %18 = stablehlo.compare LE, %10, %17, SIGNED : (tensor<16x1x1xi32>, tensor<16x1x1xi32>) -> tensor<16x1x1xi1>
    %19 = stablehlo.and %13, %18 : tensor<16x1x1xi1>
    %20 = sdy.sharding_constraint %19 <@mesh, [{"data"}, {}, {}]> : tensor<16x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %21 = stablehlo.reduce(%20 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<16x1x1xi1>, tensor<i1>) -> tensor<16x1xi1>
    %22 = sdy.sharding_constraint %21 <@mesh, [{"data"}, {}]> : tensor<16x1xi1>
    %23 = "stablehlo.gather"(%arg0, %10) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<16x8xf32>, tensor<16x1x1xi32>) -> tensor<16x1xf32>
    %24 = sdy.sharding_constraint %23 <@mesh, [{"data"}, {}]> : tensor<16x1xf32>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x1xf32>
    %26 = sdy.sharding_constraint %25 <@mesh, [{"data"}, {}]> : tensor<16x1xf32>
    %27 = stablehlo.select %22, %24, %26 : tensor<16x1xi1>, tensor<16x1xf32>
    %28 = sdy.sharding_constraint %27 <@mesh, [{"data"}, {}]> : tensor<16x1xf32>
    return %28, %10 : tensor<16x1xf32>, tensor<16x1x1xi32>
  }
  func.func private @_take(%arg0: tensor<16x1xf32>, %arg1: tensor<i32>) -> (tensor<16xf32>, tensor<1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = sdy.sharding_constraint %arg1 <@mesh, []> : tensor<i32>
    %1 = sdy.sharding_constraint %c <@mesh, []> : tensor<i32>
    %2 = stablehlo.compare LT, %0, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %3 = sdy.sharding_constraint %arg1 <@mesh, []> : tensor<i32>
    %4 = sdy.sharding_constraint %c_0 <@mesh, []> : tensor<i32>
    %5 = stablehlo.add %3, %4 : tensor<i32>
    %6 = sdy.sharding_constraint %5 <@mesh, []> : tensor<i32>
    %7 = call @_where(%2, %6, %arg1) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %9 = sdy.sharding_constraint %8 <@mesh, [{}]> : tensor<1xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<1xi32>
    %10 = stablehlo.convert %9 : tensor<1xi32>
    %11 = sdy.sharding_constraint %10 <@mesh, [{}]> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %12 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %13 = sdy.sharding_constraint %12 <@mesh, [{}]> : tensor<1xi32>
    %14 = stablehlo.compare GE, %11, %13, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %15 = sdy.sharding_constraint %c_1 <@mesh, [{}]> : tensor<1xi32>
    %16 = stablehlo.compare LE, %11, %15, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %17 = stablehlo.and %14, %16 : tensor<1xi1>
    %18 = sdy.sharding_constraint %17 <@mesh, [{}]> : tensor<1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %19 = stablehlo.reduce(%18 init: %c_3) applies stablehlo.and across dimensions = [0] : (tensor<1xi1>, tensor<i1>) -> tensor<i1>
    %20 = sdy.sharding_constraint %19 <@mesh, []> : tensor<i1>
    %21 = "stablehlo.gather"(%arg0, %11) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = false, slice_sizes = array<i64: 16, 1>}> : (tensor<16x1xf32>, tensor<1xi32>) -> tensor<16xf32>
    %22 = sdy.sharding_constraint %21 <@mesh, [{"data"}]> : tensor<16xf32>
    %23 = stablehlo.broadcast_in_dim %20, dims = [] : (tensor<i1>) -> tensor<16xi1>
    %24 = sdy.sharding_constraint %23 <@mesh, [{"data"}]> : tensor<16xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %26 = sdy.sharding_constraint %25 <@mesh, [{"data"}]> : tensor<16xf32>
    %27 = stablehlo.select %24, %22, %26 : tensor<16xi1>, tensor<16xf32>
    %28 = sdy.sharding_constraint %27 <@mesh, [{"data"}]> : tensor<16xf32>
    return %28, %9 : tensor<16xf32>, tensor<1xi32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    %1 = sdy.sharding_constraint %0 <@mesh, []> : tensor<i32>
    return %1 : tensor<i32>
  }
  func.func private @_take_0(%arg0: tensor<1xi32>, %arg1: tensor<16xf32>) -> tensor<16x1xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x1xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {}]> : tensor<16x1xf32>
    %2 = "stablehlo.scatter"(%1, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %4 = sdy.sharding_constraint %arg2 <@mesh, []> : tensor<f32>
      %5 = sdy.sharding_constraint %arg3 <@mesh, []> : tensor<f32>
      %6 = stablehlo.add %4, %5 : tensor<f32>
      %7 = sdy.sharding_constraint %6 <@mesh, []> : tensor<f32>
      stablehlo.return %7 : tensor<f32>
    }) : (tensor<16x1xf32>, tensor<1xi32>, tensor<16xf32>) -> tensor<16x1xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{"data"}, {}]> : tensor<16x1xf32>
    return %3 : tensor<16x1xf32>
  }
  func.func private @take_along_axis_1(%arg0: tensor<16x1x1xi32>, %arg1: tensor<16x1xf32>) -> tensor<16x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {}]> : tensor<16x8xf32>
    %2 = "stablehlo.scatter"(%1, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %4 = sdy.sharding_constraint %arg2 <@mesh, []> : tensor<f32>
      %5 = sdy.sharding_constraint %arg3 <@mesh, []> : tensor<f32>
      %6 = stablehlo.add %4, %5 : tensor<f32>
      %7 = sdy.sharding_constraint %6 <@mesh, []> : tensor<f32>
      stablehlo.return %7 : tensor<f32>
    }) : (tensor<16x8xf32>, tensor<16x1x1xi32>, tensor<16x1xf32>) -> tensor<16x8xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{"data"}, {}]> : tensor<16x8xf32>
    return %3 : tensor<16x8xf32>
  }
  func.func private @_where_2(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    %1 = sdy.sharding_constraint %0 <@mesh, []> : tensor<i32>
    return %1 : tensor<i32>
  }
}
