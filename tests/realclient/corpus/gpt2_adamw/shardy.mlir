module @jit_gpt2_train_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<2x96xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>, tf.aliasing_output = 0 : i32}, %arg1: tensor<2x32x96xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"model"}]>, tf.aliasing_output = 1 : i32}, %arg2: tensor<2x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>, tf.aliasing_output = 2 : i32}, %arg3: tensor<2x32x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"model"}]>, tf.aliasing_output = 3 : i32}, %arg4: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 4 : i32}, %arg5: tensor<2x32x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>, tf.aliasing_output = 5 : i32}, %arg6: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 6 : i32}, %arg7: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 7 : i32}, %arg8: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 8 : i32}, %arg9: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 9 : i32}, %arg10: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 10 : i32}, %arg11: tensor<2x128x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>, tf.aliasing_output = 11 : i32}, %arg12: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 12 : i32}, %arg13: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 13 : i32}, %arg14: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 14 : i32}, %arg15: tensor<64x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>, tf.aliasing_output = 15 : i32}, %arg16: tensor<i32> {sdy.sharding = #sdy.sharding<@mesh, []>, tf.aliasing_output = 16 : i32}, %arg17: tensor<2x96xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>, tf.aliasing_output = 17 : i32}, %arg18: tensor<2x32x96xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"model"}]>, tf.aliasing_output = 18 : i32}, %arg19: tensor<2x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>, tf.aliasing_output = 19 : i32}, %arg20: tensor<2x32x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"model"}]>, tf.aliasing_output = 20 : i32}, %arg21: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 21 : i32}, %arg22: tensor<2x32x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>, tf.aliasing_output = 22 : i32}, %arg23: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 23 : i32}, %arg24: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 24 : i32}, %arg25: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 25 : i32}, %arg26: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 26 : i32}, %arg27: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 27 : i32}, %arg28: tensor<2x128x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>, tf.aliasing_output = 28 : i32}, %arg29: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 29 : i32}, %arg30: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 30 : i32}, %arg31: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 31 : i32}, %arg32: tensor<64x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>, tf.aliasing_output = 32 : i32}, %arg33: tensor<2x96xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>, tf.aliasing_output = 33 : i32}, %arg34: tensor<2x32x96xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"model"}]>, tf.aliasing_output = 34 : i32}, %arg35: tensor<2x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>, tf.aliasing_output = 35 : i32}, %arg36: tensor<2x32x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"model"}]>, tf.aliasing_output = 36 : i32}, %arg37: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 37 : i32}, %arg38: tensor<2x32x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>, tf.aliasing_output = 38 : i32}, %arg39: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 39 : i32}, %arg40: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 40 : i32}, %arg41: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 41 : i32}, %arg42: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 42 : i32}, %arg43: tensor<2x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 43 : i32}, %arg44: tensor<2x128x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>, tf.aliasing_output = 44 : i32}, %arg45: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 45 : i32}, %arg46: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 46 : i32}, %arg47: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 47 : i32}, %arg48: tensor<64x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>, tf.aliasing_output = 48 : i32}, %arg49: tensor<8x17xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<2x96xf32> {jax.result_info = "result[0]['params']['h']['c_attn']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, tensor<2x32x96xf32> {jax.result_info = "result[0]['params']['h']['c_attn']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"model"}]>}, tensor<2x128xf32> {jax.result_info = "result[0]['params']['h']['c_fc']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, tensor<2x32x128xf32> {jax.result_info = "result[0]['params']['h']['c_fc']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"model"}]>}, tensor<2x32xf32> {jax.result_info = "result[0]['params']['h']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x32x32xf32> {jax.result_info = "result[0]['params']['h']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}, tensor<2x32xf32> {jax.result_info = "result[0]['params']['h']['ln_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x32xf32> {jax.result_info = "result[0]['params']['h']['ln_1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x32xf32> {jax.result_info = "result[0]['params']['h']['ln_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x32xf32> {jax.result_info = "result[0]['params']['h']['ln_2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x32xf32> {jax.result_info = "result[0]['params']['h']['mlp_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x128x32xf32> {jax.result_info = "result[0]['params']['h']['mlp_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}, tensor<32xf32> {jax.result_info = "result[0]['params']['ln_f']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32xf32> {jax.result_info = "result[0]['params']['ln_f']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16x32xf32> {jax.result_info = "result[0]['params']['wpe']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<64x32xf32> {jax.result_info = "result[0]['params']['wte']['embedding']", sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, tensor<i32> {jax.result_info = "result[1][0].count", sdy.sharding = #sdy.sharding<@mesh, []>}, tensor<2x96xf32> {jax.result_info = "result[1][0].mu['params']['h']['c_attn']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, tensor<2x32x96xf32> {jax.result_info = "result[1][0].mu['params']['h']['c_attn']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"model"}]>}, tensor<2x128xf32> {jax.result_info = "result[1][0].mu['params']['h']['c_fc']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, tensor<2x32x128xf32> {jax.result_info = "result[1][0].mu['params']['h']['c_fc']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"model"}]>}, tensor<2x32xf32> {jax.result_info = "result[1][0].mu['params']['h']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x32x32xf32> {jax.result_info = "result[1][0].mu['params']['h']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}, tensor<2x32xf32> {jax.result_info = "result[1][0].mu['params']['h']['ln_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x32xf32> {jax.result_info = "result[1][0].mu['params']['h']['ln_1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x32xf32> {jax.result_info = "result[1][0].mu['params']['h']['ln_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x32xf32> {jax.result_info = "result[1][0].mu['params']['h']['ln_2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x32xf32> {jax.result_info = "result[1][0].mu['params']['h']['mlp_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x128x32xf32> {jax.result_info = "result[1][0].mu['params']['h']['mlp_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}, tensor<32xf32> {jax.result_info = "result[1][0].mu['params']['ln_f']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32xf32> {jax.result_info = "result[1][0].mu['params']['ln_f']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16x32xf32> {jax.result_info = "result[1][0].mu['params']['wpe']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<64x32xf32> {jax.result_info = "result[1][0].mu['params']['wte']['embedding']", sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, tensor<2x96xf32> {jax.result_info = "result[1][0].nu['params']['h']['c_attn']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, tensor<2x32x96xf32> {jax.result_info = "result[1][0].nu['params']['h']['c_attn']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"model"}]>}, tensor<2x128xf32> {jax.result_info = "result[1][0].nu['params']['h']['c_fc']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, tensor<2x32x128xf32> {jax.result_info = "result[1][0].nu['params']['h']['c_fc']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"model"}]>}, tensor<2x32xf32> {jax.result_info = "result[1][0].nu['params']['h']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x32x32xf32> {jax.result_info = "result[1][0].nu['params']['h']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}, tensor<2x32xf32> {jax.result_info = "result[1][0].nu['params']['h']['ln_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x32xf32> {jax.result_info = "result[1][0].nu['params']['h']['ln_1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x32xf32> {jax.result_info = "result[1][0].nu['params']['h']['ln_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x32xf32> {jax.result_info = "result[1][0].nu['params']['h']['ln_2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x32xf32> {jax.result_info = "result[1][0].nu['params']['h']['mlp_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x128x32xf32> {jax.result_info = "result[1][0].nu['params']['h']['mlp_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}, tensor<32xf32> {jax.result_info = "result[1][0].nu['params']['ln_f']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32xf32> {jax.result_info = "result[1][0].nu['params']['ln_f']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16x32xf32> {jax.result_info = "result[1][0].nu['params']['wpe']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<64x32xf32> {jax.result_info = "result[1][0].nu['params']['wte']['embedding']", sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, tensor<f32> {jax.result_info = "result[2]", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.slice %arg49 [0:8, 0:16] : (tensor<8x17xi32>) -> tensor<8x16xi32>
    %1:2 = call @_take(%arg15, %0) : (tensor<64x32xf32>, tensor<8x16xi32>) -> (tensor<8x16x32xf32>, tensor<8x16x1xi32>)
    %2 = stablehlo.broadcast_in_dim %arg14, dims = [1, 2] : (tensor<16x32xf32>) -> tensor<1x16x32xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1, 2] : (tensor<1x16x32xf32>) -> tensor<8x16x32xf32>
    %4 = stablehlo.add %1#0, %3 : tensor<8x16x32xf32>
    %cst = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %5 = stablehlo.sqrt %cst : tensor<f32>
    %6 = stablehlo.convert %5 : tensor<f32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %7 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<16x16xi1>
    %8 = call @tril(%7) : (tensor<16x16xi1>) -> tensor<16x16xi1>
    %cst_0 = stablehlo.constant dense<-3.40282347E+38> : tensor<f32>
    %9:2 = call @_where_0(%8, %cst_0) : (tensor<16x16xi1>, tensor<f32>) -> (tensor<8x4x16x16xi1>, tensor<8x4x16x16xf32>)
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x8x16x32xf32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %11:18 = stablehlo.while(%iterArg = %arg0, %iterArg_186 = %arg1, %iterArg_187 = %arg2, %iterArg_188 = %arg3, %iterArg_189 = %arg4, %iterArg_190 = %arg5, %iterArg_191 = %arg6, %iterArg_192 = %arg7, %iterArg_193 = %arg8, %iterArg_194 = %arg9, %iterArg_195 = %arg10, %iterArg_196 = %arg11, %iterArg_197 = %6, %iterArg_198 = %9#0, %iterArg_199 = %9#1, %iterArg_200 = %c_2, %iterArg_201 = %4, %iterArg_202 = %10) : tensor<2x96xf32>, tensor<2x32x96xf32>, tensor<2x128xf32>, tensor<2x32x128xf32>, tensor<2x32xf32>, tensor<2x32x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x128x32xf32>, tensor<f32>, tensor<8x4x16x16xi1>, tensor<8x4x16x16xf32>, tensor<i32>, tensor<8x16x32xf32>, tensor<2x8x16x32xf32>
    cond {
      %c_203 = stablehlo.constant dense<2> : tensor<i32>
      %590 = stablehlo.compare LT, %iterArg_200, %c_203, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %590 : tensor<i1>
    } do {
      %590 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_200) : (tensor<2x96xf32>, tensor<i32>) -> tensor<96xf32>
      %591 = func.call @dynamic_index_in_dim_1(%iterArg_186, %iterArg_200) : (tensor<2x32x96xf32>, tensor<i32>) -> tensor<32x96xf32>
      %592 = func.call @dynamic_index_in_dim_2(%iterArg_187, %iterArg_200) : (tensor<2x128xf32>, tensor<i32>) -> tensor<128xf32>
      %593 = func.call @dynamic_index_in_dim_3(%iterArg_188, %iterArg_200) : (tensor<2x32x128xf32>, tensor<i32>) -> tensor<32x128xf32>
      %594 = func.call @dynamic_index_in_dim_4(%iterArg_189, %iterArg_200) : (tensor<2x32xf32>, tensor<i32>) -> tensor<32xf32>
      %595 = func.call @dynamic_index_in_dim_5(%iterArg_190, %iterArg_200) : (tensor<2x32x32xf32>, tensor<i32>) -> tensor<32x32xf32>
      %596 = func.call @dynamic_index_in_dim_4(%iterArg_191, %iterArg_200) : (tensor<2x32xf32>, tensor<i32>) -> tensor<32xf32>
      %597 = func.call @dynamic_index_in_dim_4(%iterArg_192, %iterArg_200) : (tensor<2x32xf32>, tensor<i32>) -> tensor<32xf32>
      %598 = func.call @dynamic_index_in_dim_4(%iterArg_193, %iterArg_200) : (tensor<2x32xf32>, tensor<i32>) -> tensor<32xf32>
      %599 = func.call @dynamic_index_in_dim_4(%iterArg_194, %iterArg_200) : (tensor<2x32xf32>, tensor<i32>) -> tensor<32xf32>
      %600 = func.call @dynamic_index_in_dim_4(%iterArg_195, %iterArg_200) : (tensor<2x32xf32>, tensor<i32>) -> tensor<32xf32>
      %601 = func.call @dynamic_index_in_dim_6(%iterArg_196, %iterArg_200) : (tensor<2x128x32xf32>, tensor<i32>) -> tensor<128x32xf32>
      %602:2 = func.call @closed_call(%iterArg_197, %iterArg_198, %iterArg_199, %iterArg_201, %590, %591, %592, %593, %594, %595, %596, %597, %598, %599, %600, %601) : (tensor<f32>, tensor<8x4x16x16xi1>, tensor<8x4x16x16xf32>, tensor<8x16x32xf32>, tensor<96xf32>, tensor<32x96xf32>, tensor<128xf32>, tensor<32x128xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<128x32xf32>) -> (tensor<8x16x32xf32>, tensor<8x16x32xf32>)
      %603 = func.call @dynamic_update_index_in_dim(%iterArg_202, %602#1, %iterArg_200) : (tensor<2x8x16x32xf32>, tensor<8x16x32xf32>, tensor<i32>) -> tensor<2x8x16x32xf32>
      %c_203 = stablehlo.constant dense<1> : tensor<i32>
      %604 = stablehlo.add %iterArg_200, %c_203 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_186, %iterArg_187, %iterArg_188, %iterArg_189, %iterArg_190, %iterArg_191, %iterArg_192, %iterArg_193, %iterArg_194, %iterArg_195, %iterArg_196, %iterArg_197, %iterArg_198, %iterArg_199, %604, %602#0, %603 : tensor<2x96xf32>, tensor<2x32x96xf32>, tensor<2x128xf32>, tensor<2x32x128xf32>, tensor<2x32xf32>, tensor<2x32x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x128x32xf32>, tensor<f32>, tensor<8x4x16x16xi1>, tensor<8x4x16x16xf32>, tensor<i32>, tensor<8x16x32xf32>, tensor<2x8x16x32xf32>
    }
    %12 = chlo.square %11#16 : tensor<8x16x32xf32> -> tensor<8x16x32xf32>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8x16x32xf32>
    %14 = stablehlo.multiply %13, %11#16 : tensor<8x16x32xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.reduce(%11#16 init: %cst_4) applies stablehlo.add across dimensions = [2] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<8x16xf32>
    %cst_5 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %17 = stablehlo.divide %15, %16 : tensor<8x16xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.reduce(%12 init: %cst_6) applies stablehlo.add across dimensions = [2] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<8x16xf32>
    %cst_7 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %20 = stablehlo.divide %18, %19 : tensor<8x16xf32>
    %21 = chlo.square %17 : tensor<8x16xf32> -> tensor<8x16xf32>
    %cst_8 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %23 = stablehlo.multiply %22, %17 : tensor<8x16xf32>
    %24 = stablehlo.subtract %20, %21 : tensor<8x16xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %26 = stablehlo.maximum %25, %24 : tensor<8x16xf32>
    %27 = stablehlo.compare EQ, %24, %26, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %30 = stablehlo.select %27, %28, %29 : tensor<8x16xi1>, tensor<8x16xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %32 = stablehlo.compare EQ, %31, %26, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %cst_13 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %34 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %35 = stablehlo.select %32, %33, %34 : tensor<8x16xi1>, tensor<8x16xf32>
    %36 = stablehlo.divide %30, %35 : tensor<8x16xf32>
    %37 = stablehlo.broadcast_in_dim %17, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %38 = stablehlo.broadcast_in_dim %26, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %39 = stablehlo.broadcast_in_dim %37, dims = [0, 1, 2] : (tensor<8x16x1xf32>) -> tensor<8x16x32xf32>
    %40 = stablehlo.subtract %11#16, %39 : tensor<8x16x32xf32>
    %cst_15 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<8x16x1xf32>
    %42 = stablehlo.add %38, %41 : tensor<8x16x1xf32>
    %43 = stablehlo.rsqrt %42 : tensor<8x16x1xf32>
    %44 = stablehlo.divide %43, %42 : tensor<8x16x1xf32>
    %cst_16 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<8x16x1xf32>
    %46 = stablehlo.multiply %45, %44 : tensor<8x16x1xf32>
    %47 = stablehlo.reshape %arg13 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %48 = stablehlo.broadcast_in_dim %43, dims = [0, 1, 2] : (tensor<8x16x1xf32>) -> tensor<8x16x32xf32>
    %49 = stablehlo.broadcast_in_dim %47, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x16x32xf32>
    %50 = stablehlo.multiply %48, %49 : tensor<8x16x32xf32>
    %51 = stablehlo.multiply %40, %50 : tensor<8x16x32xf32>
    %52 = stablehlo.reshape %arg12 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %53 = stablehlo.broadcast_in_dim %52, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x16x32xf32>
    %54 = stablehlo.add %51, %53 : tensor<8x16x32xf32>
    %55 = stablehlo.transpose %arg15, dims = [1, 0] : (tensor<64x32xf32>) -> tensor<32x64xf32>
    %56 = stablehlo.dot_general %54, %55, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16x32xf32>, tensor<32x64xf32>) -> tensor<8x16x64xf32>
    %57 = stablehlo.slice %arg49 [0:8, 1:17] : (tensor<8x17xi32>) -> tensor<8x16xi32>
    %58 = stablehlo.broadcast_in_dim %57, dims = [0, 1] : (tensor<8x16xi32>) -> tensor<8x16x1xi32>
    %59:2 = call @take_along_axis(%56, %58) : (tensor<8x16x64xf32>, tensor<8x16x1xi32>) -> (tensor<8x16x1xf32>, tensor<8x16x1x1xi32>)
    %c_17 = stablehlo.constant dense<0> : tensor<i32>
    %60:2 = call @_take_8(%59#0, %c_17) : (tensor<8x16x1xf32>, tensor<i32>) -> (tensor<8x16xf32>, tensor<1xi32>)
    %cst_18 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %61 = stablehlo.reduce(%56 init: %cst_18) applies stablehlo.maximum across dimensions = [2] : (tensor<8x16x64xf32>, tensor<f32>) -> tensor<8x16xf32>
    %cst_19 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %62 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %63 = stablehlo.maximum %62, %61 : tensor<8x16xf32>
    %64 = stablehlo.is_finite %63 : (tensor<8x16xf32>) -> tensor<8x16xi1>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %65 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %66 = stablehlo.select %64, %63, %65 : tensor<8x16xi1>, tensor<8x16xf32>
    %67 = stablehlo.broadcast_in_dim %66, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %68 = stablehlo.broadcast_in_dim %67, dims = [0, 1, 2] : (tensor<8x16x1xf32>) -> tensor<8x16x64xf32>
    %69 = stablehlo.subtract %56, %68 : tensor<8x16x64xf32>
    %70 = stablehlo.exponential %69 : tensor<8x16x64xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %71 = stablehlo.reduce(%70 init: %cst_21) applies stablehlo.add across dimensions = [2] : (tensor<8x16x64xf32>, tensor<f32>) -> tensor<8x16xf32>
    %72 = stablehlo.abs %71 : tensor<8x16xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %73 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %74 = stablehlo.compare GE, %71, %73, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %75 = stablehlo.log %72 : tensor<8x16xf32>
    %76 = stablehlo.add %75, %66 : tensor<8x16xf32>
    %77 = stablehlo.subtract %76, %60#0 : tensor<8x16xf32>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %78 = stablehlo.reduce(%77 init: %cst_23) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<f32>
    %cst_24 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %79 = stablehlo.divide %78, %cst_24 : tensor<f32>
    %cst_25 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_26 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %80 = stablehlo.divide %cst_25, %cst_26 : tensor<f32>
    %81 = stablehlo.broadcast_in_dim %80, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %82 = stablehlo.negate %81 : tensor<8x16xf32>
    %83 = stablehlo.divide %81, %72 : tensor<8x16xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %84 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %85 = stablehlo.select %74, %84, %83 : tensor<8x16xi1>, tensor<8x16xf32>
    %86 = stablehlo.select %74, %83, %84 : tensor<8x16xi1>, tensor<8x16xf32>
    %87 = stablehlo.negate %85 : tensor<8x16xf32>
    %88 = stablehlo.add %86, %87 : tensor<8x16xf32>
    %89 = stablehlo.broadcast_in_dim %88, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x64xf32>
    %90 = stablehlo.multiply %89, %70 : tensor<8x16x64xf32>
    %91 = call @_take_10(%60#1, %82) : (tensor<1xi32>, tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %92 = call @take_along_axis_11(%59#1, %91) : (tensor<8x16x1x1xi32>, tensor<8x16x1xf32>) -> tensor<8x16x64xf32>
    %93 = stablehlo.add %90, %92 : tensor<8x16x64xf32>
    %94 = stablehlo.dot_general %93, %54, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x64xf32>, tensor<8x16x32xf32>) -> tensor<64x32xf32>
    %95 = stablehlo.transpose %94, dims = [1, 0] : (tensor<64x32xf32>) -> tensor<32x64xf32>
    %96 = stablehlo.dot_general %93, %55, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x64xf32>, tensor<32x64xf32>) -> tensor<8x16x32xf32>
    %97 = stablehlo.transpose %95, dims = [1, 0] : (tensor<32x64xf32>) -> tensor<64x32xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %98 = stablehlo.reduce(%96 init: %cst_28) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %99 = stablehlo.reshape %98 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %100 = stablehlo.reshape %99 : (tensor<1x1x32xf32>) -> tensor<32xf32>
    %101 = stablehlo.multiply %40, %96 : tensor<8x16x32xf32>
    %102 = stablehlo.multiply %96, %50 : tensor<8x16x32xf32>
    %103 = stablehlo.broadcast_in_dim %43, dims = [0, 1, 2] : (tensor<8x16x1xf32>) -> tensor<8x16x32xf32>
    %104 = stablehlo.multiply %103, %101 : tensor<8x16x32xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %105 = stablehlo.reduce(%104 init: %cst_29) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %106 = stablehlo.reshape %105 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %107 = stablehlo.broadcast_in_dim %47, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x16x32xf32>
    %108 = stablehlo.multiply %101, %107 : tensor<8x16x32xf32>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %109 = stablehlo.reduce(%108 init: %cst_30) applies stablehlo.add across dimensions = [2] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<8x16xf32>
    %110 = stablehlo.reshape %109 : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %111 = stablehlo.reshape %106 : (tensor<1x1x32xf32>) -> tensor<32xf32>
    %112 = stablehlo.multiply %110, %46 : tensor<8x16x1xf32>
    %113 = stablehlo.negate %102 : tensor<8x16x32xf32>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %114 = stablehlo.reduce(%113 init: %cst_31) applies stablehlo.add across dimensions = [2] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<8x16xf32>
    %115 = stablehlo.reshape %114 : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %116 = stablehlo.reduce(%112 init: %cst_32) applies stablehlo.add across dimensions = [2] : (tensor<8x16x1xf32>, tensor<f32>) -> tensor<8x16xf32>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %117 = stablehlo.reduce(%115 init: %cst_33) applies stablehlo.add across dimensions = [2] : (tensor<8x16x1xf32>, tensor<f32>) -> tensor<8x16xf32>
    %118 = stablehlo.multiply %116, %36 : tensor<8x16xf32>
    %119 = stablehlo.negate %118 : tensor<8x16xf32>
    %120 = stablehlo.multiply %119, %23 : tensor<8x16xf32>
    %121 = stablehlo.add %117, %120 : tensor<8x16xf32>
    %cst_34 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %122 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %123 = stablehlo.divide %118, %122 : tensor<8x16xf32>
    %124 = stablehlo.broadcast_in_dim %123, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x32xf32>
    %cst_35 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %125 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %126 = stablehlo.divide %121, %125 : tensor<8x16xf32>
    %127 = stablehlo.broadcast_in_dim %126, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x32xf32>
    %128 = stablehlo.add %102, %127 : tensor<8x16x32xf32>
    %129 = stablehlo.multiply %124, %14 : tensor<8x16x32xf32>
    %130 = stablehlo.add %128, %129 : tensor<8x16x32xf32>
    %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %131 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<2x96xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %132 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<2x32x96xf32>
    %cst_38 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %133 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<2x128xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %134 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<2x32x128xf32>
    %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %135 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %136 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<2x32x32xf32>
    %cst_42 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %137 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %138 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %cst_44 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %139 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %cst_45 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %140 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %cst_46 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %141 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %cst_47 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %142 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<2x128x32xf32>
    %c_48 = stablehlo.constant dense<0> : tensor<i32>
    %143:26 = stablehlo.while(%iterArg = %arg0, %iterArg_186 = %arg1, %iterArg_187 = %arg2, %iterArg_188 = %arg3, %iterArg_189 = %arg4, %iterArg_190 = %arg5, %iterArg_191 = %arg6, %iterArg_192 = %arg7, %iterArg_193 = %arg8, %iterArg_194 = %arg9, %iterArg_195 = %arg11, %iterArg_196 = %11#17, %iterArg_197 = %c_48, %iterArg_198 = %130, %iterArg_199 = %131, %iterArg_200 = %132, %iterArg_201 = %133, %iterArg_202 = %134, %iterArg_203 = %135, %iterArg_204 = %136, %iterArg_205 = %137, %iterArg_206 = %138, %iterArg_207 = %139, %iterArg_208 = %140, %iterArg_209 = %141, %iterArg_210 = %142) : tensor<2x96xf32>, tensor<2x32x96xf32>, tensor<2x128xf32>, tensor<2x32x128xf32>, tensor<2x32xf32>, tensor<2x32x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x128x32xf32>, tensor<2x8x16x32xf32>, tensor<i32>, tensor<8x16x32xf32>, tensor<2x96xf32>, tensor<2x32x96xf32>, tensor<2x128xf32>, tensor<2x32x128xf32>, tensor<2x32xf32>, tensor<2x32x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x128x32xf32>
    cond {
      %c_211 = stablehlo.constant dense<2> : tensor<i32>
      %590 = stablehlo.compare LT, %iterArg_197, %c_211, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %590 : tensor<i1>
    } do {
      %c_211 = stablehlo.constant dense<2> : tensor<i32>
      %590 = stablehlo.subtract %c_211, %iterArg_197 : tensor<i32>
      %c_212 = stablehlo.constant dense<1> : tensor<i32>
      %591 = stablehlo.subtract %590, %c_212 : tensor<i32>
      %592 = func.call @dynamic_index_in_dim(%iterArg, %591) : (tensor<2x96xf32>, tensor<i32>) -> tensor<96xf32>
      %593 = func.call @dynamic_index_in_dim_1(%iterArg_186, %591) : (tensor<2x32x96xf32>, tensor<i32>) -> tensor<32x96xf32>
      %594 = func.call @dynamic_index_in_dim_2(%iterArg_187, %591) : (tensor<2x128xf32>, tensor<i32>) -> tensor<128xf32>
      %595 = func.call @dynamic_index_in_dim_3(%iterArg_188, %591) : (tensor<2x32x128xf32>, tensor<i32>) -> tensor<32x128xf32>
      %596 = func.call @dynamic_index_in_dim_4(%iterArg_189, %591) : (tensor<2x32xf32>, tensor<i32>) -> tensor<32xf32>
      %597 = func.call @dynamic_index_in_dim_5(%iterArg_190, %591) : (tensor<2x32x32xf32>, tensor<i32>) -> tensor<32x32xf32>
      %598 = func.call @dynamic_index_in_dim_4(%iterArg_191, %591) : (tensor<2x32xf32>, tensor<i32>) -> tensor<32xf32>
      %599 = func.call @dynamic_index_in_dim_4(%iterArg_192, %591) : (tensor<2x32xf32>, tensor<i32>) -> tensor<32xf32>
      %600 = func.call @dynamic_index_in_dim_4(%iterArg_193, %591) : (tensor<2x32xf32>, tensor<i32>) -> tensor<32xf32>
      %601 = func.call @dynamic_index_in_dim_4(%iterArg_194, %591) : (tensor<2x32xf32>, tensor<i32>) -> tensor<32xf32>
      %602 = func.call @dynamic_index_in_dim_6(%iterArg_195, %591) : (tensor<2x128x32xf32>, tensor<i32>) -> tensor<128x32xf32>
      %603 = func.call @dynamic_index_in_dim_12(%iterArg_196, %591) : (tensor<2x8x16x32xf32>, tensor<i32>) -> tensor<8x16x32xf32>
      %604:13 = func.call @closed_call_13(%iterArg_198, %592, %593, %594, %595, %596, %597, %598, %599, %600, %601, %602, %603) : (tensor<8x16x32xf32>, tensor<96xf32>, tensor<32x96xf32>, tensor<128xf32>, tensor<32x128xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<128x32xf32>, tensor<8x16x32xf32>) -> (tensor<8x16x32xf32>, tensor<96xf32>, tensor<32x96xf32>, tensor<128xf32>, tensor<32x128xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<128x32xf32>)
      %605 = func.call @dynamic_update_index_in_dim_17(%iterArg_199, %604#1, %591) : (tensor<2x96xf32>, tensor<96xf32>, tensor<i32>) -> tensor<2x96xf32>
      %606 = func.call @dynamic_update_index_in_dim_18(%iterArg_200, %604#2, %591) : (tensor<2x32x96xf32>, tensor<32x96xf32>, tensor<i32>) -> tensor<2x32x96xf32>
      %607 = func.call @dynamic_update_index_in_dim_19(%iterArg_201, %604#3, %591) : (tensor<2x128xf32>, tensor<128xf32>, tensor<i32>) -> tensor<2x128xf32>
      %608 = func.call @dynamic_update_index_in_dim_20(%iterArg_202, %604#4, %591) : (tensor<2x32x128xf32>, tensor<32x128xf32>, tensor<i32>) -> tensor<2x32x128xf32>
      %609 = func.call @dynamic_update_index_in_dim_21(%iterArg_203, %604#5, %591) : (tensor<2x32xf32>, tensor<32xf32>, tensor<i32>) -> tensor<2x32xf32>
      %610 = func.call @dynamic_update_index_in_dim_22(%iterArg_204, %604#6, %591) : (tensor<2x32x32xf32>, tensor<32x32xf32>, tensor<i32>) -> tensor<2x32x32xf32>
      %611 = func.call @dynamic_update_index_in_dim_21(%iterArg_205, %604#7, %591) : (tensor<2x32xf32>, tensor<32xf32>, tensor<i32>) -> tensor<2x32xf32>
      %612 = func.call @dynamic_update_index_in_dim_21(%iterArg_206, %604#8, %591) : (tensor<2x32xf32>, tensor<32xf32>, tensor<i32>) -> tensor<2x32xf32>
      %613 = func.call @dynamic_update_index_in_dim_21(%iterArg_207, %604#9, %591) : (tensor<2x32xf32>, tensor<32xf32>, tensor<i32>) -> tensor<2x32xf32>
      %614 = func.call @dynamic_update_index_in_dim_21(%iterArg_208, %604#10, %591) : (tensor<2x32xf32>, tensor<32xf32>, tensor<i32>) -> tensor<2x32xf32>
      %615 = func.call @dynamic_update_index_in_dim_21(%iterArg_209, %604#11, %591) : (tensor<2x32xf32>, tensor<32xf32>, tensor<i32>) -> tensor<2x32xf32>
      %616 = func.call @dynamic_update_index_in_dim_23(%iterArg_210, %604#12, %591) : (tensor<2x128x32xf32>, tensor<128x32xf32>, tensor<i32>) -> tensor<2x128x32xf32>
      %c_213 = stablehlo.constant dense<1> : tensor<i32>
      %617 = stablehlo.add %iterArg_197, %c_213 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_186, %iterArg_187, %iterArg_188, %iterArg_189, %iterArg_190, %iterArg_191, %iterArg_192, %iterArg_193, %iterArg_194, %iterArg_195, %iterArg_196, %617, %604#0, %605, %606, %607, %608, %609, %610, %611, %612, %613, %614, %615, %616 : tensor<2x96xf32>, tensor<2x32x96xf32>, tensor<2x128xf32>, tensor<2x32x128xf32>, tensor<2x32xf32>, tensor<2x32x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x128x32xf32>, tensor<2x8x16x32xf32>, tensor<i32>, tensor<8x16x32xf32>, tensor<2x96xf32>, tensor<2x32x96xf32>, tensor<2x128xf32>, tensor<2x32x128xf32>, tensor<2x32xf32>, tensor<2x32x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x128x32xf32>
    }
    %cst_49 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %144 = stablehlo.reduce(%143#13 init: %cst_49) applies stablehlo.add across dimensions = [0] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
    %145 = stablehlo.reshape %144 : (tensor<16x32xf32>) -> tensor<1x16x32xf32>
    %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %146 = stablehlo.reduce(%145 init: %cst_50) applies stablehlo.add across dimensions = [0] : (tensor<1x16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
    %147 = call @_take_24(%1#1, %143#13) : (tensor<8x16x1xi32>, tensor<8x16x32xf32>) -> tensor<64x32xf32>
    %148 = stablehlo.add %97, %147 : tensor<64x32xf32>
    %cst_51 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %149 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<2x96xf32>
    %150 = stablehlo.multiply %149, %143#14 : tensor<2x96xf32>
    %cst_52 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %151 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<2x96xf32>
    %152 = stablehlo.multiply %151, %arg17 : tensor<2x96xf32>
    %153 = stablehlo.add %150, %152 : tensor<2x96xf32>
    %cst_53 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %154 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<2x32x96xf32>
    %155 = stablehlo.multiply %154, %143#15 : tensor<2x32x96xf32>
    %cst_54 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %156 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<2x32x96xf32>
    %157 = stablehlo.multiply %156, %arg18 : tensor<2x32x96xf32>
    %158 = stablehlo.add %155, %157 : tensor<2x32x96xf32>
    %cst_55 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %159 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<f32>) -> tensor<2x128xf32>
    %160 = stablehlo.multiply %159, %143#16 : tensor<2x128xf32>
    %cst_56 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %161 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<f32>) -> tensor<2x128xf32>
    %162 = stablehlo.multiply %161, %arg19 : tensor<2x128xf32>
    %163 = stablehlo.add %160, %162 : tensor<2x128xf32>
    %cst_57 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %164 = stablehlo.broadcast_in_dim %cst_57, dims = [] : (tensor<f32>) -> tensor<2x32x128xf32>
    %165 = stablehlo.multiply %164, %143#17 : tensor<2x32x128xf32>
    %cst_58 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %166 = stablehlo.broadcast_in_dim %cst_58, dims = [] : (tensor<f32>) -> tensor<2x32x128xf32>
    %167 = stablehlo.multiply %166, %arg20 : tensor<2x32x128xf32>
    %168 = stablehlo.add %165, %167 : tensor<2x32x128xf32>
    %cst_59 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %169 = stablehlo.broadcast_in_dim %cst_59, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %170 = stablehlo.multiply %169, %143#18 : tensor<2x32xf32>
    %cst_60 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %171 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %172 = stablehlo.multiply %171, %arg21 : tensor<2x32xf32>
    %173 = stablehlo.add %170, %172 : tensor<2x32xf32>
    %cst_61 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %174 = stablehlo.broadcast_in_dim %cst_61, dims = [] : (tensor<f32>) -> tensor<2x32x32xf32>
    %175 = stablehlo.multiply %174, %143#19 : tensor<2x32x32xf32>
    %cst_62 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %176 = stablehlo.broadcast_in_dim %cst_62, dims = [] : (tensor<f32>) -> tensor<2x32x32xf32>
    %177 = stablehlo.multiply %176, %arg22 : tensor<2x32x32xf32>
    %178 = stablehlo.add %175, %177 : tensor<2x32x32xf32>
    %cst_63 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %179 = stablehlo.broadcast_in_dim %cst_63, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %180 = stablehlo.multiply %179, %143#20 : tensor<2x32xf32>
    %cst_64 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %181 = stablehlo.broadcast_in_dim %cst_64, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %182 = stablehlo.multiply %181, %arg23 : tensor<2x32xf32>
    %183 = stablehlo.add %180, %182 : tensor<2x32xf32>
    %cst_65 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %184 = stablehlo.broadcast_in_dim %cst_65, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %185 = stablehlo.multiply %184, %143#21 : tensor<2x32xf32>
    %cst_66 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %186 = stablehlo.broadcast_in_dim %cst_66, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %187 = stablehlo.multiply %186, %arg24 : tensor<2x32xf32>
    %188 = stablehlo.add %185, %187 : tensor<2x32xf32>
    %cst_67 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %189 = stablehlo.broadcast_in_dim %cst_67, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %190 = stablehlo.multiply %189, %143#22 : tensor<2x32xf32>
    %cst_68 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %191 = stablehlo.broadcast_in_dim %cst_68, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %192 = stablehlo.multiply %191, %arg25 : tensor<2x32xf32>
    %193 = stablehlo.add %190, %192 : tensor<2x32xf32>
    %cst_69 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %194 = stablehlo.broadcast_in_dim %cst_69, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %195 = stablehlo.multiply %194, %143#23 : tensor<2x32xf32>
    %cst_70 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %196 = stablehlo.broadcast_in_dim %cst_70, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %197 = stablehlo.multiply %196, %arg26 : tensor<2x32xf32>
    %198 = stablehlo.add %195, %197 : tensor<2x32xf32>
    %cst_71 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %199 = stablehlo.broadcast_in_dim %cst_71, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %200 = stablehlo.multiply %199, %143#24 : tensor<2x32xf32>
    %cst_72 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %201 = stablehlo.broadcast_in_dim %cst_72, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %202 = stablehlo.multiply %201, %arg27 : tensor<2x32xf32>
    %203 = stablehlo.add %200, %202 : tensor<2x32xf32>
    %cst_73 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %204 = stablehlo.broadcast_in_dim %cst_73, dims = [] : (tensor<f32>) -> tensor<2x128x32xf32>
    %205 = stablehlo.multiply %204, %143#25 : tensor<2x128x32xf32>
    %cst_74 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %206 = stablehlo.broadcast_in_dim %cst_74, dims = [] : (tensor<f32>) -> tensor<2x128x32xf32>
    %207 = stablehlo.multiply %206, %arg28 : tensor<2x128x32xf32>
    %208 = stablehlo.add %205, %207 : tensor<2x128x32xf32>
    %cst_75 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %209 = stablehlo.broadcast_in_dim %cst_75, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %210 = stablehlo.multiply %209, %100 : tensor<32xf32>
    %cst_76 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %211 = stablehlo.broadcast_in_dim %cst_76, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %212 = stablehlo.multiply %211, %arg29 : tensor<32xf32>
    %213 = stablehlo.add %210, %212 : tensor<32xf32>
    %cst_77 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %214 = stablehlo.broadcast_in_dim %cst_77, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %215 = stablehlo.multiply %214, %111 : tensor<32xf32>
    %cst_78 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %216 = stablehlo.broadcast_in_dim %cst_78, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %217 = stablehlo.multiply %216, %arg30 : tensor<32xf32>
    %218 = stablehlo.add %215, %217 : tensor<32xf32>
    %cst_79 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %219 = stablehlo.broadcast_in_dim %cst_79, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %220 = stablehlo.multiply %219, %146 : tensor<16x32xf32>
    %cst_80 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %221 = stablehlo.broadcast_in_dim %cst_80, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %222 = stablehlo.multiply %221, %arg31 : tensor<16x32xf32>
    %223 = stablehlo.add %220, %222 : tensor<16x32xf32>
    %cst_81 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %224 = stablehlo.broadcast_in_dim %cst_81, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %225 = stablehlo.multiply %224, %148 : tensor<64x32xf32>
    %cst_82 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %226 = stablehlo.broadcast_in_dim %cst_82, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %227 = stablehlo.multiply %226, %arg32 : tensor<64x32xf32>
    %228 = stablehlo.add %225, %227 : tensor<64x32xf32>
    %229 = stablehlo.multiply %143#14, %143#14 : tensor<2x96xf32>
    %cst_83 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %230 = stablehlo.broadcast_in_dim %cst_83, dims = [] : (tensor<f32>) -> tensor<2x96xf32>
    %231 = stablehlo.multiply %230, %229 : tensor<2x96xf32>
    %cst_84 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %232 = stablehlo.broadcast_in_dim %cst_84, dims = [] : (tensor<f32>) -> tensor<2x96xf32>
    %233 = stablehlo.multiply %232, %arg33 : tensor<2x96xf32>
    %234 = stablehlo.add %231, %233 : tensor<2x96xf32>
    %235 = stablehlo.multiply %143#15, %143#15 : tensor<2x32x96xf32>
    %cst_85 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %236 = stablehlo.broadcast_in_dim %cst_85, dims = [] : (tensor<f32>) -> tensor<2x32x96xf32>
    %237 = stablehlo.multiply %236, %235 : tensor<2x32x96xf32>
    %cst_86 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %238 = stablehlo.broadcast_in_dim %cst_86, dims = [] : (tensor<f32>) -> tensor<2x32x96xf32>
    %239 = stablehlo.multiply %238, %arg34 : tensor<2x32x96xf32>
    %240 = stablehlo.add %237, %239 : tensor<2x32x96xf32>
    %241 = stablehlo.multiply %143#16, %143#16 : tensor<2x128xf32>
    %cst_87 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %242 = stablehlo.broadcast_in_dim %cst_87, dims = [] : (tensor<f32>) -> tensor<2x128xf32>
    %243 = stablehlo.multiply %242, %241 : tensor<2x128xf32>
    %cst_88 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %244 = stablehlo.broadcast_in_dim %cst_88, dims = [] : (tensor<f32>) -> tensor<2x128xf32>
    %245 = stablehlo.multiply %244, %arg35 : tensor<2x128xf32>
    %246 = stablehlo.add %243, %245 : tensor<2x128xf32>
    %247 = stablehlo.multiply %143#17, %143#17 : tensor<2x32x128xf32>
    %cst_89 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %248 = stablehlo.broadcast_in_dim %cst_89, dims = [] : (tensor<f32>) -> tensor<2x32x128xf32>
    %249 = stablehlo.multiply %248, %247 : tensor<2x32x128xf32>
    %cst_90 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %250 = stablehlo.broadcast_in_dim %cst_90, dims = [] : (tensor<f32>) -> tensor<2x32x128xf32>
    %251 = stablehlo.multiply %250, %arg36 : tensor<2x32x128xf32>
    %252 = stablehlo.add %249, %251 : tensor<2x32x128xf32>
    %253 = stablehlo.multiply %143#18, %143#18 : tensor<2x32xf32>
    %cst_91 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %254 = stablehlo.broadcast_in_dim %cst_91, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %255 = stablehlo.multiply %254, %253 : tensor<2x32xf32>
    %cst_92 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %256 = stablehlo.broadcast_in_dim %cst_92, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %257 = stablehlo.multiply %256, %arg37 : tensor<2x32xf32>
    %258 = stablehlo.add %255, %257 : tensor<2x32xf32>
    %259 = stablehlo.multiply %143#19, %143#19 : tensor<2x32x32xf32>
    %cst_93 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %260 = stablehlo.broadcast_in_dim %cst_93, dims = [] : (tensor<f32>) -> tensor<2x32x32xf32>
    %261 = stablehlo.multiply %260, %259 : tensor<2x32x32xf32>
    %cst_94 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %262 = stablehlo.broadcast_in_dim %cst_94, dims = [] : (tensor<f32>) -> tensor<2x32x32xf32>
    %263 = stablehlo.multiply %262, %arg38 : tensor<2x32x32xf32>
    %264 = stablehlo.add %261, %263 : tensor<2x32x32xf32>
    %265 = stablehlo.multiply %143#20, %143#20 : tensor<2x32xf32>
    %cst_95 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %266 = stablehlo.broadcast_in_dim %cst_95, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %267 = stablehlo.multiply %266, %265 : tensor<2x32xf32>
    %cst_96 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %268 = stablehlo.broadcast_in_dim %cst_96, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %269 = stablehlo.multiply %268, %arg39 : tensor<2x32xf32>
    %270 = stablehlo.add %267, %269 : tensor<2x32xf32>
    %271 = stablehlo.multiply %143#21, %143#21 : tensor<2x32xf32>
    %cst_97 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %272 = stablehlo.broadcast_in_dim %cst_97, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %273 = stablehlo.multiply %272, %271 : tensor<2x32xf32>
    %cst_98 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %274 = stablehlo.broadcast_in_dim %cst_98, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %275 = stablehlo.multiply %274, %arg40 : tensor<2x32xf32>
    %276 = stablehlo.add %273, %275 : tensor<2x32xf32>
    %277 = stablehlo.multiply %143#22, %143#22 : tensor<2x32xf32>
    %cst_99 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %278 = stablehlo.broadcast_in_dim %cst_99, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %279 = stablehlo.multiply %278, %277 : tensor<2x32xf32>
    %cst_100 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %280 = stablehlo.broadcast_in_dim %cst_100, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %281 = stablehlo.multiply %280, %arg41 : tensor<2x32xf32>
    %282 = stablehlo.add %279, %281 : tensor<2x32xf32>
    %283 = stablehlo.multiply %143#23, %143#23 : tensor<2x32xf32>
    %cst_101 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %284 = stablehlo.broadcast_in_dim %cst_101, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %285 = stablehlo.multiply %284, %283 : tensor<2x32xf32>
    %cst_102 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %286 = stablehlo.broadcast_in_dim %cst_102, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %287 = stablehlo.multiply %286, %arg42 : tensor<2x32xf32>
    %288 = stablehlo.add %285, %287 : tensor<2x32xf32>
    %289 = stablehlo.multiply %143#24, %143#24 : tensor<2x32xf32>
    %cst_103 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %290 = stablehlo.broadcast_in_dim %cst_103, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %291 = stablehlo.multiply %290, %289 : tensor<2x32xf32>
    %cst_104 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %292 = stablehlo.broadcast_in_dim %cst_104, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %293 = stablehlo.multiply %292, %arg43 : tensor<2x32xf32>
    %294 = stablehlo.add %291, %293 : tensor<2x32xf32>
    %295 = stablehlo.multiply %143#25, %143#25 : tensor<2x128x32xf32>
    %cst_105 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %296 = stablehlo.broadcast_in_dim %cst_105, dims = [] : (tensor<f32>) -> tensor<2x128x32xf32>
    %297 = stablehlo.multiply %296, %295 : tensor<2x128x32xf32>
    %cst_106 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %298 = stablehlo.broadcast_in_dim %cst_106, dims = [] : (tensor<f32>) -> tensor<2x128x32xf32>
    %299 = stablehlo.multiply %298, %arg44 : tensor<2x128x32xf32>
    %300 = stablehlo.add %297, %299 : tensor<2x128x32xf32>
    %301 = stablehlo.multiply %100, %100 : tensor<32xf32>
    %cst_107 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %302 = stablehlo.broadcast_in_dim %cst_107, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %303 = stablehlo.multiply %302, %301 : tensor<32xf32>
    %cst_108 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %304 = stablehlo.broadcast_in_dim %cst_108, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %305 = stablehlo.multiply %304, %arg45 : tensor<32xf32>
    %306 = stablehlo.add %303, %305 : tensor<32xf32>
    %307 = stablehlo.multiply %111, %111 : tensor<32xf32>
    %cst_109 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %308 = stablehlo.broadcast_in_dim %cst_109, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %309 = stablehlo.multiply %308, %307 : tensor<32xf32>
    %cst_110 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %310 = stablehlo.broadcast_in_dim %cst_110, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %311 = stablehlo.multiply %310, %arg46 : tensor<32xf32>
    %312 = stablehlo.add %309, %311 : tensor<32xf32>
    %313 = stablehlo.multiply %146, %146 : tensor<16x32xf32>
    %cst_111 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %314 = stablehlo.broadcast_in_dim %cst_111, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %315 = stablehlo.multiply %314, %313 : tensor<16x32xf32>
    %cst_112 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %316 = stablehlo.broadcast_in_dim %cst_112, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %317 = stablehlo.multiply %316, %arg47 : tensor<16x32xf32>
    %318 = stablehlo.add %315, %317 : tensor<16x32xf32>
    %319 = stablehlo.multiply %148, %148 : tensor<64x32xf32>
    %cst_113 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %320 = stablehlo.broadcast_in_dim %cst_113, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %321 = stablehlo.multiply %320, %319 : tensor<64x32xf32>
    %cst_114 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %322 = stablehlo.broadcast_in_dim %cst_114, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %323 = stablehlo.multiply %322, %arg48 : tensor<64x32xf32>
    %324 = stablehlo.add %321, %323 : tensor<64x32xf32>
    %c_115 = stablehlo.constant dense<2147483647> : tensor<i32>
    %325 = stablehlo.compare LT, %arg16, %c_115, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_116 = stablehlo.constant dense<1> : tensor<i32>
    %326 = stablehlo.add %arg16, %c_116 : tensor<i32>
    %c_117 = stablehlo.constant dense<2147483647> : tensor<i32>
    %327 = call @_where_25(%325, %326, %c_117) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %cst_118 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %328 = stablehlo.convert %327 : (tensor<i32>) -> tensor<f32>
    %329 = stablehlo.power %cst_118, %328 : tensor<f32>
    %cst_119 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %330 = stablehlo.subtract %cst_119, %329 : tensor<f32>
    %331 = stablehlo.broadcast_in_dim %330, dims = [] : (tensor<f32>) -> tensor<2x96xf32>
    %332 = stablehlo.divide %153, %331 : tensor<2x96xf32>
    %333 = stablehlo.broadcast_in_dim %330, dims = [] : (tensor<f32>) -> tensor<2x32x96xf32>
    %334 = stablehlo.divide %158, %333 : tensor<2x32x96xf32>
    %335 = stablehlo.broadcast_in_dim %330, dims = [] : (tensor<f32>) -> tensor<2x128xf32>
    %336 = stablehlo.divide %163, %335 : tensor<2x128xf32>
    %337 = stablehlo.broadcast_in_dim %330, dims = [] : (tensor<f32>) -> tensor<2x32x128xf32>
    %338 = stablehlo.divide %168, %337 : tensor<2x32x128xf32>
    %339 = stablehlo.broadcast_in_dim %330, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %340 = stablehlo.divide %173, %339 : tensor<2x32xf32>
    %341 = stablehlo.broadcast_in_dim %330, dims = [] : (tensor<f32>) -> tensor<2x32x32xf32>
    %342 = stablehlo.divide %178, %341 : tensor<2x32x32xf32>
    %343 = stablehlo.broadcast_in_dim %330, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %344 = stablehlo.divide %183, %343 : tensor<2x32xf32>
    %345 = stablehlo.broadcast_in_dim %330, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %346 = stablehlo.divide %188, %345 : tensor<2x32xf32>
    %347 = stablehlo.broadcast_in_dim %330, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %348 = stablehlo.divide %193, %347 : tensor<2x32xf32>
    %349 = stablehlo.broadcast_in_dim %330, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %350 = stablehlo.divide %198, %349 : tensor<2x32xf32>
    %351 = stablehlo.broadcast_in_dim %330, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %352 = stablehlo.divide %203, %351 : tensor<2x32xf32>
    %353 = stablehlo.broadcast_in_dim %330, dims = [] : (tensor<f32>) -> tensor<2x128x32xf32>
    %354 = stablehlo.divide %208, %353 : tensor<2x128x32xf32>
    %355 = stablehlo.broadcast_in_dim %330, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %356 = stablehlo.divide %213, %355 : tensor<32xf32>
    %357 = stablehlo.broadcast_in_dim %330, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %358 = stablehlo.divide %218, %357 : tensor<32xf32>
    %359 = stablehlo.broadcast_in_dim %330, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %360 = stablehlo.divide %223, %359 : tensor<16x32xf32>
    %361 = stablehlo.broadcast_in_dim %330, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %362 = stablehlo.divide %228, %361 : tensor<64x32xf32>
    %cst_120 = stablehlo.constant dense<0.949999988> : tensor<f32>
    %363 = stablehlo.convert %327 : (tensor<i32>) -> tensor<f32>
    %364 = stablehlo.power %cst_120, %363 : tensor<f32>
    %cst_121 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %365 = stablehlo.subtract %cst_121, %364 : tensor<f32>
    %366 = stablehlo.broadcast_in_dim %365, dims = [] : (tensor<f32>) -> tensor<2x96xf32>
    %367 = stablehlo.divide %234, %366 : tensor<2x96xf32>
    %368 = stablehlo.broadcast_in_dim %365, dims = [] : (tensor<f32>) -> tensor<2x32x96xf32>
    %369 = stablehlo.divide %240, %368 : tensor<2x32x96xf32>
    %370 = stablehlo.broadcast_in_dim %365, dims = [] : (tensor<f32>) -> tensor<2x128xf32>
    %371 = stablehlo.divide %246, %370 : tensor<2x128xf32>
    %372 = stablehlo.broadcast_in_dim %365, dims = [] : (tensor<f32>) -> tensor<2x32x128xf32>
    %373 = stablehlo.divide %252, %372 : tensor<2x32x128xf32>
    %374 = stablehlo.broadcast_in_dim %365, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %375 = stablehlo.divide %258, %374 : tensor<2x32xf32>
    %376 = stablehlo.broadcast_in_dim %365, dims = [] : (tensor<f32>) -> tensor<2x32x32xf32>
    %377 = stablehlo.divide %264, %376 : tensor<2x32x32xf32>
    %378 = stablehlo.broadcast_in_dim %365, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %379 = stablehlo.divide %270, %378 : tensor<2x32xf32>
    %380 = stablehlo.broadcast_in_dim %365, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %381 = stablehlo.divide %276, %380 : tensor<2x32xf32>
    %382 = stablehlo.broadcast_in_dim %365, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %383 = stablehlo.divide %282, %382 : tensor<2x32xf32>
    %384 = stablehlo.broadcast_in_dim %365, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %385 = stablehlo.divide %288, %384 : tensor<2x32xf32>
    %386 = stablehlo.broadcast_in_dim %365, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %387 = stablehlo.divide %294, %386 : tensor<2x32xf32>
    %388 = stablehlo.broadcast_in_dim %365, dims = [] : (tensor<f32>) -> tensor<2x128x32xf32>
    %389 = stablehlo.divide %300, %388 : tensor<2x128x32xf32>
    %390 = stablehlo.broadcast_in_dim %365, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %391 = stablehlo.divide %306, %390 : tensor<32xf32>
    %392 = stablehlo.broadcast_in_dim %365, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %393 = stablehlo.divide %312, %392 : tensor<32xf32>
    %394 = stablehlo.broadcast_in_dim %365, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %395 = stablehlo.divide %318, %394 : tensor<16x32xf32>
    %396 = stablehlo.broadcast_in_dim %365, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %397 = stablehlo.divide %324, %396 : tensor<64x32xf32>
    %cst_122 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %398 = stablehlo.broadcast_in_dim %cst_122, dims = [] : (tensor<f32>) -> tensor<2x96xf32>
    %399 = stablehlo.add %367, %398 : tensor<2x96xf32>
    %400 = stablehlo.sqrt %399 : tensor<2x96xf32>
    %cst_123 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %401 = stablehlo.broadcast_in_dim %cst_123, dims = [] : (tensor<f32>) -> tensor<2x96xf32>
    %402 = stablehlo.add %400, %401 : tensor<2x96xf32>
    %403 = stablehlo.divide %332, %402 : tensor<2x96xf32>
    %cst_124 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %404 = stablehlo.broadcast_in_dim %cst_124, dims = [] : (tensor<f32>) -> tensor<2x32x96xf32>
    %405 = stablehlo.add %369, %404 : tensor<2x32x96xf32>
    %406 = stablehlo.sqrt %405 : tensor<2x32x96xf32>
    %cst_125 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %407 = stablehlo.broadcast_in_dim %cst_125, dims = [] : (tensor<f32>) -> tensor<2x32x96xf32>
    %408 = stablehlo.add %406, %407 : tensor<2x32x96xf32>
    %409 = stablehlo.divide %334, %408 : tensor<2x32x96xf32>
    %cst_126 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %410 = stablehlo.broadcast_in_dim %cst_126, dims = [] : (tensor<f32>) -> tensor<2x128xf32>
    %411 = stablehlo.add %371, %410 : tensor<2x128xf32>
    %412 = stablehlo.sqrt %411 : tensor<2x128xf32>
    %cst_127 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %413 = stablehlo.broadcast_in_dim %cst_127, dims = [] : (tensor<f32>) -> tensor<2x128xf32>
    %414 = stablehlo.add %412, %413 : tensor<2x128xf32>
    %415 = stablehlo.divide %336, %414 : tensor<2x128xf32>
    %cst_128 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %416 = stablehlo.broadcast_in_dim %cst_128, dims = [] : (tensor<f32>) -> tensor<2x32x128xf32>
    %417 = stablehlo.add %373, %416 : tensor<2x32x128xf32>
    %418 = stablehlo.sqrt %417 : tensor<2x32x128xf32>
    %cst_129 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %419 = stablehlo.broadcast_in_dim %cst_129, dims = [] : (tensor<f32>) -> tensor<2x32x128xf32>
    %420 = stablehlo.add %418, %419 : tensor<2x32x128xf32>
    %421 = stablehlo.divide %338, %420 : tensor<2x32x128xf32>
    %cst_130 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %422 = stablehlo.broadcast_in_dim %cst_130, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %423 = stablehlo.add %375, %422 : tensor<2x32xf32>
    %424 = stablehlo.sqrt %423 : tensor<2x32xf32>
    %cst_131 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %425 = stablehlo.broadcast_in_dim %cst_131, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %426 = stablehlo.add %424, %425 : tensor<2x32xf32>
    %427 = stablehlo.divide %340, %426 : tensor<2x32xf32>
    %cst_132 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %428 = stablehlo.broadcast_in_dim %cst_132, dims = [] : (tensor<f32>) -> tensor<2x32x32xf32>
    %429 = stablehlo.add %377, %428 : tensor<2x32x32xf32>
    %430 = stablehlo.sqrt %429 : tensor<2x32x32xf32>
    %cst_133 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %431 = stablehlo.broadcast_in_dim %cst_133, dims = [] : (tensor<f32>) -> tensor<2x32x32xf32>
    %432 = stablehlo.add %430, %431 : tensor<2x32x32xf32>
    %433 = stablehlo.divide %342, %432 : tensor<2x32x32xf32>
    %cst_134 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %434 = stablehlo.broadcast_in_dim %cst_134, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %435 = stablehlo.add %379, %434 : tensor<2x32xf32>
    %436 = stablehlo.sqrt %435 : tensor<2x32xf32>
    %cst_135 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %437 = stablehlo.broadcast_in_dim %cst_135, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %438 = stablehlo.add %436, %437 : tensor<2x32xf32>
    %439 = stablehlo.divide %344, %438 : tensor<2x32xf32>
    %cst_136 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %440 = stablehlo.broadcast_in_dim %cst_136, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %441 = stablehlo.add %381, %440 : tensor<2x32xf32>
    %442 = stablehlo.sqrt %441 : tensor<2x32xf32>
    %cst_137 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %443 = stablehlo.broadcast_in_dim %cst_137, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %444 = stablehlo.add %442, %443 : tensor<2x32xf32>
    %445 = stablehlo.divide %346, %444 : tensor<2x32xf32>
    %cst_138 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %446 = stablehlo.broadcast_in_dim %cst_138, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %447 = stablehlo.add %383, %446 : tensor<2x32xf32>
    %448 = stablehlo.sqrt %447 : tensor<2x32xf32>
    %cst_139 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %449 = stablehlo.broadcast_in_dim %cst_139, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %450 = stablehlo.add %448, %449 : tensor<2x32xf32>
    %451 = stablehlo.divide %348, %450 : tensor<2x32xf32>
    %cst_140 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %452 = stablehlo.broadcast_in_dim %cst_140, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %453 = stablehlo.add %385, %452 : tensor<2x32xf32>
    %454 = stablehlo.sqrt %453 : tensor<2x32xf32>
    %cst_141 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %455 = stablehlo.broadcast_in_dim %cst_141, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %456 = stablehlo.add %454, %455 : tensor<2x32xf32>
    %457 = stablehlo.divide %350, %456 : tensor<2x32xf32>
    %cst_142 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %458 = stablehlo.broadcast_in_dim %cst_142, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %459 = stablehlo.add %387, %458 : tensor<2x32xf32>
    %460 = stablehlo.sqrt %459 : tensor<2x32xf32>
    %cst_143 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %461 = stablehlo.broadcast_in_dim %cst_143, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %462 = stablehlo.add %460, %461 : tensor<2x32xf32>
    %463 = stablehlo.divide %352, %462 : tensor<2x32xf32>
    %cst_144 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %464 = stablehlo.broadcast_in_dim %cst_144, dims = [] : (tensor<f32>) -> tensor<2x128x32xf32>
    %465 = stablehlo.add %389, %464 : tensor<2x128x32xf32>
    %466 = stablehlo.sqrt %465 : tensor<2x128x32xf32>
    %cst_145 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %467 = stablehlo.broadcast_in_dim %cst_145, dims = [] : (tensor<f32>) -> tensor<2x128x32xf32>
    %468 = stablehlo.add %466, %467 : tensor<2x128x32xf32>
    %469 = stablehlo.divide %354, %468 : tensor<2x128x32xf32>
    %cst_146 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %470 = stablehlo.broadcast_in_dim %cst_146, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %471 = stablehlo.add %391, %470 : tensor<32xf32>
    %472 = stablehlo.sqrt %471 : tensor<32xf32>
    %cst_147 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %473 = stablehlo.broadcast_in_dim %cst_147, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %474 = stablehlo.add %472, %473 : tensor<32xf32>
    %475 = stablehlo.divide %356, %474 : tensor<32xf32>
    %cst_148 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %476 = stablehlo.broadcast_in_dim %cst_148, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %477 = stablehlo.add %393, %476 : tensor<32xf32>
    %478 = stablehlo.sqrt %477 : tensor<32xf32>
    %cst_149 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %479 = stablehlo.broadcast_in_dim %cst_149, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %480 = stablehlo.add %478, %479 : tensor<32xf32>
    %481 = stablehlo.divide %358, %480 : tensor<32xf32>
    %cst_150 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %482 = stablehlo.broadcast_in_dim %cst_150, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %483 = stablehlo.add %395, %482 : tensor<16x32xf32>
    %484 = stablehlo.sqrt %483 : tensor<16x32xf32>
    %cst_151 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %485 = stablehlo.broadcast_in_dim %cst_151, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %486 = stablehlo.add %484, %485 : tensor<16x32xf32>
    %487 = stablehlo.divide %360, %486 : tensor<16x32xf32>
    %cst_152 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %488 = stablehlo.broadcast_in_dim %cst_152, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %489 = stablehlo.add %397, %488 : tensor<64x32xf32>
    %490 = stablehlo.sqrt %489 : tensor<64x32xf32>
    %cst_153 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %491 = stablehlo.broadcast_in_dim %cst_153, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %492 = stablehlo.add %490, %491 : tensor<64x32xf32>
    %493 = stablehlo.divide %362, %492 : tensor<64x32xf32>
    %cst_154 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %494 = stablehlo.broadcast_in_dim %cst_154, dims = [] : (tensor<f32>) -> tensor<2x96xf32>
    %495 = stablehlo.multiply %494, %arg0 : tensor<2x96xf32>
    %496 = stablehlo.add %403, %495 : tensor<2x96xf32>
    %cst_155 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %497 = stablehlo.broadcast_in_dim %cst_155, dims = [] : (tensor<f32>) -> tensor<2x32x96xf32>
    %498 = stablehlo.multiply %497, %arg1 : tensor<2x32x96xf32>
    %499 = stablehlo.add %409, %498 : tensor<2x32x96xf32>
    %cst_156 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %500 = stablehlo.broadcast_in_dim %cst_156, dims = [] : (tensor<f32>) -> tensor<2x128xf32>
    %501 = stablehlo.multiply %500, %arg2 : tensor<2x128xf32>
    %502 = stablehlo.add %415, %501 : tensor<2x128xf32>
    %cst_157 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %503 = stablehlo.broadcast_in_dim %cst_157, dims = [] : (tensor<f32>) -> tensor<2x32x128xf32>
    %504 = stablehlo.multiply %503, %arg3 : tensor<2x32x128xf32>
    %505 = stablehlo.add %421, %504 : tensor<2x32x128xf32>
    %cst_158 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %506 = stablehlo.broadcast_in_dim %cst_158, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %507 = stablehlo.multiply %506, %arg4 : tensor<2x32xf32>
    %508 = stablehlo.add %427, %507 : tensor<2x32xf32>
    %cst_159 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %509 = stablehlo.broadcast_in_dim %cst_159, dims = [] : (tensor<f32>) -> tensor<2x32x32xf32>
    %510 = stablehlo.multiply %509, %arg5 : tensor<2x32x32xf32>
    %511 = stablehlo.add %433, %510 : tensor<2x32x32xf32>
    %cst_160 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %512 = stablehlo.broadcast_in_dim %cst_160, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %513 = stablehlo.multiply %512, %arg6 : tensor<2x32xf32>
    %514 = stablehlo.add %439, %513 : tensor<2x32xf32>
    %cst_161 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %515 = stablehlo.broadcast_in_dim %cst_161, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %516 = stablehlo.multiply %515, %arg7 : tensor<2x32xf32>
    %517 = stablehlo.add %445, %516 : tensor<2x32xf32>
    %cst_162 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %518 = stablehlo.broadcast_in_dim %cst_162, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %519 = stablehlo.multiply %518, %arg8 : tensor<2x32xf32>
    %520 = stablehlo.add %451, %519 : tensor<2x32xf32>
    %cst_163 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %521 = stablehlo.broadcast_in_dim %cst_163, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %522 = stablehlo.multiply %521, %arg9 : tensor<2x32xf32>
    %523 = stablehlo.add %457, %522 : tensor<2x32xf32>
    %cst_164 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %524 = stablehlo.broadcast_in_dim %cst_164, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %525 = stablehlo.multiply %524, %arg10 : tensor<2x32xf32>
    %526 = stablehlo.add %463, %525 : tensor<2x32xf32>
    %cst_165 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %527 = stablehlo.broadcast_in_dim %cst_165, dims = [] : (tensor<f32>) -> tensor<2x128x32xf32>
    %528 = stablehlo.multiply %527, %arg11 : tensor<2x128x32xf32>
    %529 = stablehlo.add %469, %528 : tensor<2x128x32xf32>
    %cst_166 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %530 = stablehlo.broadcast_in_dim %cst_166, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %531 = stablehlo.multiply %530, %arg12 : tensor<32xf32>
    %532 = stablehlo.add %475, %531 : tensor<32xf32>
    %cst_167 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %533 = stablehlo.broadcast_in_dim %cst_167, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %534 = stablehlo.multiply %533, %arg13 : tensor<32xf32>
    %535 = stablehlo.add %481, %534 : tensor<32xf32>
    %cst_168 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %536 = stablehlo.broadcast_in_dim %cst_168, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %537 = stablehlo.multiply %536, %arg14 : tensor<16x32xf32>
    %538 = stablehlo.add %487, %537 : tensor<16x32xf32>
    %cst_169 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %539 = stablehlo.broadcast_in_dim %cst_169, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %540 = stablehlo.multiply %539, %arg15 : tensor<64x32xf32>
    %541 = stablehlo.add %493, %540 : tensor<64x32xf32>
    %cst_170 = stablehlo.constant dense<-3.000000e-04> : tensor<f32>
    %542 = stablehlo.broadcast_in_dim %cst_170, dims = [] : (tensor<f32>) -> tensor<2x96xf32>
    %543 = stablehlo.multiply %542, %496 : tensor<2x96xf32>
    %cst_171 = stablehlo.constant dense<-3.000000e-04> : tensor<f32>
    %544 = stablehlo.broadcast_in_dim %cst_171, dims = [] : (tensor<f32>) -> tensor<2x32x96xf32>
    %545 = stablehlo.multiply %544, %499 : tensor<2x32x96xf32>
    %cst_172 = stablehlo.constant dense<-3.000000e-04> : tensor<f32>
    %546 = stablehlo.broadcast_in_dim %cst_172, dims = [] : (tensor<f32>) -> tensor<2x128xf32>
    %547 = stablehlo.multiply %546, %502 : tensor<2x128xf32>
    %cst_173 = stablehlo.constant dense<-3.000000e-04> : tensor<f32>
    %548 = stablehlo.broadcast_in_dim %cst_173, dims = [] : (tensor<f32>) -> tensor<2x32x128xf32>
    %549 = stablehlo.multiply %548, %505 : tensor<2x32x128xf32>
    %cst_174 = stablehlo.constant dense<-3.000000e-04> : tensor<f32>
    %550 = stablehlo.broadcast_in_dim %cst_174, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %551 = stablehlo.multiply %550, %508 : tensor<2x32xf32>
    %cst_175 = stablehlo.constant dense<-3.000000e-04> : tensor<f32>
    %552 = stablehlo.broadcast_in_dim %cst_175, dims = [] : (tensor<f32>) -> tensor<2x32x32xf32>
    %553 = stablehlo.multiply %552, %511 : tensor<2x32x32xf32>
    %cst_176 = stablehlo.constant dense<-3.000000e-04> : tensor<f32>
    %554 = stablehlo.broadcast_in_dim %cst_176, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %555 = stablehlo.multiply %554, %514 : tensor<2x32xf32>
    %cst_177 = stablehlo.constant dense<-3.000000e-04> : tensor<f32>
    %556 = stablehlo.broadcast_in_dim %cst_177, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %557 = stablehlo.multiply %556, %517 : tensor<2x32xf32>
    %cst_178 = stablehlo.constant dense<-3.000000e-04> : tensor<f32>
    %558 = stablehlo.broadcast_in_dim %cst_178, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %559 = stablehlo.multiply %558, %520 : tensor<2x32xf32>
    %cst_179 = stablehlo.constant dense<-3.000000e-04> : tensor<f32>
    %560 = stablehlo.broadcast_in_dim %cst_179, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %561 = stablehlo.multiply %560, %523 : tensor<2x32xf32>
    %cst_180 = stablehlo.constant dense<-3.000000e-04> : tensor<f32>
    %562 = stablehlo.broadcast_in_dim %cst_180, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %563 = stablehlo.multiply %562, %526 : tensor<2x32xf32>
    %cst_181 = stablehlo.constant dense<-3.000000e-04> : tensor<f32>
    %564 = stablehlo.broadcast_in_dim %cst_181, dims = [] : (tensor<f32>) -> tensor<2x128x32xf32>
    %565 = stablehlo.multiply %564, %529 : tensor<2x128x32xf32>
    %cst_182 = stablehlo.constant dense<-3.000000e-04> : tensor<f32>
    %566 = stablehlo.broadcast_in_dim %cst_182, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %567 = stablehlo.multiply %566, %532 : tensor<32xf32>
    %cst_183 = stablehlo.constant dense<-3.000000e-04> : tensor<f32>
    %568 = stablehlo.broadcast_in_dim %cst_183, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %569 = stablehlo.multiply %568, %535 : tensor<32xf32>
    %cst_184 = stablehlo.constant dense<-3.000000e-04> : tensor<f32>
    %570 = stablehlo.broadcast_in_dim %cst_184, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %571 = stablehlo.multiply %570, %538 : tensor<16x32xf32>
    %cst_185 = stablehlo.constant dense<-3.000000e-04> : tensor<f32>
    %572 = stablehlo.broadcast_in_dim %cst_185, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %573 = stablehlo.multiply %572, %541 : tensor<64x32xf32>
    %574 = stablehlo.add %arg0, %543 : tensor<2x96xf32>
    %575 = stablehlo.add %arg1, %545 : tensor<2x32x96xf32>
    %576 = stablehlo.add %arg2, %547 : tensor<2x128xf32>
    %577 = stablehlo.add %arg3, %549 : tensor<2x32x128xf32>
    %578 = stablehlo.add %arg4, %551 : tensor<2x32xf32>
    %579 = stablehlo.add %arg5, %553 : tensor<2x32x32xf32>
    %580 = stablehlo.add %arg6, %555 : tensor<2x32xf32>
    %581 = stablehlo.add %arg7, %557 : tensor<2x32xf32>
    %582 = stablehlo.add %arg8, %559 : tensor<2x32xf32>
    %583 = stablehlo.add %arg9, %561 : tensor<2x32xf32>
    %584 = stablehlo.add %arg10, %563 : tensor<2x32xf32>
    %585 = stablehlo.add %arg11, %565 : tensor<2x128x32xf32>
    %586 = stablehlo.add %arg12, %567 : tensor<32xf32>
    %587 = stablehlo.add %arg13, %569 : tensor<32xf32>
    %588 = stablehlo.add %arg14, %571 : tensor<16x32xf32>
    %589 = stablehlo.add %arg15, %573 : tensor<64x32xf32>
    return %574, %575, %576, %577, %578, %579, %580, %581, %582, %583, %584, %585, %586, %587, %588, %589, %327, %153, %158, %163, %168, %173, %178, %183, %188, %193, %198, %203, %208, %213, %218, %223, %228, %234, %240, %246, %252, %258, %264, %270, %276, %282, %288, %294, %300, %306, %312, %318, %324, %79 : tensor<2x96xf32>, tensor<2x32x96xf32>, tensor<2x128xf32>, tensor<2x32x128xf32>, tensor<2x32xf32>, tensor<2x32x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<16x32xf32>, tensor<64x32xf32>, tensor<i32>, tensor<2x96xf32>, tensor<2x32x96xf32>, tensor<2x128xf32>, tensor<2x32x128xf32>, tensor<2x32xf32>, tensor<2x32x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<16x32xf32>, tensor<64x32xf32>, tensor<2x96xf32>, tensor<2x32x96xf32>, tensor<2x128xf32>, tensor<2x32x128xf32>, tensor<2x32xf32>, tensor<2x32x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<16x32xf32>, tensor<64x32xf32>, tensor<f32>
  }
  func.func private @_take(%arg0: tensor<64x32xf32>, %arg1: tensor<8x16xi32>) -> (tensor<8x16x32xf32>, tensor<8x16x1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi1>
    %c_0 = stablehlo.constant dense<64> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<8x16xi32>
    %4 = call @_where(%1, %3, %arg1) : (tensor<8x16xi1>, tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<8x16xi32>) -> tensor<8x16x1xi32>
    %c_1 = stablehlo.constant dense<63> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8x16x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<8x16x1xi32>, tensor<8x16x1xi32>) -> tensor<8x16x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<8x16x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<8x16x1xi32>, tensor<8x16x1xi32>) -> tensor<8x16x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<8x16x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<8x16x1xi1>, tensor<i1>) -> tensor<8x16xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 32>}> : (tensor<64x32xf32>, tensor<8x16x1xi32>) -> tensor<8x16x32xf32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<8x16xi1>) -> tensor<8x16x32xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16x32xf32>
    %16 = stablehlo.select %14, %13, %15 : tensor<8x16x32xi1>, tensor<8x16x32xf32>
    return %16, %5 : tensor<8x16x32xf32>, tensor<8x16x1xi32>
  }
  func.func private @_where(%arg0: tensor<8x16xi1>, %arg1: tensor<8x16xi32>, %arg2: tensor<8x16xi32>) -> tensor<8x16xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<8x16xi1>, tensor<8x16xi32>
    return %0 : tensor<8x16xi32>
  }
  func.func private @tril(%arg0: tensor<16x16xi1>) -> tensor<16x16xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<16x16xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<16x16xi32>
    %2 = stablehlo.add %0, %1 : tensor<16x16xi32>
    %3 = stablehlo.iota dim = 1 : tensor<16x16xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<16x16xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<16x16xi1>, tensor<16x16xi1>
    return %6 : tensor<16x16xi1>
  }
  func.func private @_where_0(%arg0: tensor<16x16xi1>, %arg1: tensor<f32>) -> (tensor<8x4x16x16xi1>, tensor<8x4x16x16xf32>) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<16x16xi1>) -> tensor<8x4x16x16xi1>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    return %0, %1 : tensor<8x4x16x16xi1>, tensor<8x4x16x16xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<2x96xf32>, %arg1: tensor<i32>) -> tensor<96xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 96] : (tensor<2x96xf32>, tensor<i32>, tensor<i32>) -> tensor<1x96xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x96xf32>) -> tensor<96xf32>
    return %1 : tensor<96xf32>
  }
  func.func private @dynamic_index_in_dim_1(%arg0: tensor<2x32x96xf32>, %arg1: tensor<i32>) -> tensor<32x96xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 32, 96] : (tensor<2x32x96xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x96xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x32x96xf32>) -> tensor<32x96xf32>
    return %1 : tensor<32x96xf32>
  }
  func.func private @dynamic_index_in_dim_2(%arg0: tensor<2x128xf32>, %arg1: tensor<i32>) -> tensor<128xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 128] : (tensor<2x128xf32>, tensor<i32>, tensor<i32>) -> tensor<1x128xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x128xf32>) -> tensor<128xf32>
    return %1 : tensor<128xf32>
  }
  func.func private @dynamic_index_in_dim_3(%arg0: tensor<2x32x128xf32>, %arg1: tensor<i32>) -> tensor<32x128xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 32, 128] : (tensor<2x32x128xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x128xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x32x128xf32>) -> tensor<32x128xf32>
    return %1 : tensor<32x128xf32>
  }
  func.func private @dynamic_index_in_dim_4(%arg0: tensor<2x32xf32>, %arg1: tensor<i32>) -> tensor<32xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 32] : (tensor<2x32xf32>, tensor<i32>, tensor<i32>) -> tensor<1x32xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x32xf32>) -> tensor<32xf32>
    return %1 : tensor<32xf32>
  }
  func.func private @dynamic_index_in_dim_5(%arg0: tensor<2x32x32xf32>, %arg1: tensor<i32>) -> tensor<32x32xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 32, 32] : (tensor<2x32x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x32xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x32x32xf32>) -> tensor<32x32xf32>
    return %1 : tensor<32x32xf32>
  }
  func.func private @dynamic_index_in_dim_6(%arg0: tensor<2x128x32xf32>, %arg1: tensor<i32>) -> tensor<128x32xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 128, 32] : (tensor<2x128x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x32xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x128x32xf32>) -> tensor<128x32xf32>
    return %1 : tensor<128x32xf32>
  }
  func.func private @closed_call(%arg0: tensor<f32>, %arg1: tensor<8x4x16x16xi1>, %arg2: tensor<8x4x16x16xf32>, %arg3: tensor<8x16x32xf32>, %arg4: tensor<96xf32>, %arg5: tensor<32x96xf32>, %arg6: tensor<128xf32>, %arg7: tensor<32x128xf32>, %arg8: tensor<32xf32>, %arg9: tensor<32x32xf32>, %arg10: tensor<32xf32>, %arg11: tensor<32xf32>, %arg12: tensor<32xf32>, %arg13: tensor<32xf32>, %arg14: tensor<32xf32>, %arg15: tensor<128x32xf32>) -> (tensor<8x16x32xf32>, tensor<8x16x32xf32>) {
    %0 = chlo.square %arg3 : tensor<8x16x32xf32> -> tensor<8x16x32xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%arg3 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<8x16xf32>
    %cst_0 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %3 = stablehlo.divide %1, %2 : tensor<8x16xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%0 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<8x16xf32>
    %cst_2 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %6 = stablehlo.divide %4, %5 : tensor<8x16xf32>
    %7 = chlo.square %3 : tensor<8x16xf32> -> tensor<8x16xf32>
    %8 = stablehlo.subtract %6, %7 : tensor<8x16xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %10 = stablehlo.maximum %9, %8 : tensor<8x16xf32>
    %11 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %12 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<8x16x1xf32>) -> tensor<8x16x32xf32>
    %14 = stablehlo.subtract %arg3, %13 : tensor<8x16x32xf32>
    %cst_4 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8x16x1xf32>
    %16 = stablehlo.add %12, %15 : tensor<8x16x1xf32>
    %17 = stablehlo.rsqrt %16 : tensor<8x16x1xf32>
    %18 = stablehlo.reshape %arg11 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %19 = stablehlo.broadcast_in_dim %17, dims = [0, 1, 2] : (tensor<8x16x1xf32>) -> tensor<8x16x32xf32>
    %20 = stablehlo.broadcast_in_dim %18, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x16x32xf32>
    %21 = stablehlo.multiply %19, %20 : tensor<8x16x32xf32>
    %22 = stablehlo.multiply %14, %21 : tensor<8x16x32xf32>
    %23 = stablehlo.reshape %arg10 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x16x32xf32>
    %25 = stablehlo.add %22, %24 : tensor<8x16x32xf32>
    %26 = stablehlo.dot_general %25, %arg5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16x32xf32>, tensor<32x96xf32>) -> tensor<8x16x96xf32>
    %27 = stablehlo.reshape %arg4 : (tensor<96xf32>) -> tensor<1x1x96xf32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [0, 1, 2] : (tensor<1x1x96xf32>) -> tensor<8x16x96xf32>
    %29 = stablehlo.add %26, %28 : tensor<8x16x96xf32>
    %30 = stablehlo.slice %29 [0:8, 0:16, 0:32] : (tensor<8x16x96xf32>) -> tensor<8x16x32xf32>
    %31 = stablehlo.slice %29 [0:8, 0:16, 32:64] : (tensor<8x16x96xf32>) -> tensor<8x16x32xf32>
    %32 = stablehlo.slice %29 [0:8, 0:16, 64:96] : (tensor<8x16x96xf32>) -> tensor<8x16x32xf32>
    %33 = stablehlo.reshape %30 : (tensor<8x16x32xf32>) -> tensor<8x16x4x8xf32>
    %34 = stablehlo.reshape %31 : (tensor<8x16x32xf32>) -> tensor<8x16x4x8xf32>
    %35 = stablehlo.reshape %32 : (tensor<8x16x32xf32>) -> tensor<8x16x4x8xf32>
    %36 = stablehlo.dot_general %33, %34, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x16x4x8xf32>, tensor<8x16x4x8xf32>) -> tensor<8x4x16x16xf32>
    %37 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    %38 = stablehlo.divide %36, %37 : tensor<8x4x16x16xf32>
    %39 = call @_where_7(%38, %arg1, %arg2) : (tensor<8x4x16x16xf32>, tensor<8x4x16x16xi1>, tensor<8x4x16x16xf32>) -> tensor<8x4x16x16xf32>
    %cst_5 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %40 = stablehlo.reduce(%39 init: %cst_5) applies stablehlo.maximum across dimensions = [3] : (tensor<8x4x16x16xf32>, tensor<f32>) -> tensor<8x4x16xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<8x4x16xf32>
    %42 = stablehlo.maximum %41, %40 : tensor<8x4x16xf32>
    %43 = stablehlo.broadcast_in_dim %42, dims = [0, 1, 2] : (tensor<8x4x16xf32>) -> tensor<8x4x16x1xf32>
    %44 = stablehlo.broadcast_in_dim %43, dims = [0, 1, 2, 3] : (tensor<8x4x16x1xf32>) -> tensor<8x4x16x16xf32>
    %45 = stablehlo.subtract %39, %44 : tensor<8x4x16x16xf32>
    %46 = stablehlo.exponential %45 : tensor<8x4x16x16xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %47 = stablehlo.reduce(%46 init: %cst_7) applies stablehlo.add across dimensions = [3] : (tensor<8x4x16x16xf32>, tensor<f32>) -> tensor<8x4x16xf32>
    %48 = stablehlo.broadcast_in_dim %47, dims = [0, 1, 2] : (tensor<8x4x16xf32>) -> tensor<8x4x16x1xf32>
    %49 = stablehlo.broadcast_in_dim %48, dims = [0, 1, 2, 3] : (tensor<8x4x16x1xf32>) -> tensor<8x4x16x16xf32>
    %50 = stablehlo.divide %46, %49 : tensor<8x4x16x16xf32>
    %51 = stablehlo.dot_general %35, %50, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x16x4x8xf32>, tensor<8x4x16x16xf32>) -> tensor<8x4x8x16xf32>
    %52 = stablehlo.transpose %51, dims = [0, 3, 1, 2] : (tensor<8x4x8x16xf32>) -> tensor<8x16x4x8xf32>
    %53 = stablehlo.reshape %52 : (tensor<8x16x4x8xf32>) -> tensor<8x16x32xf32>
    %54 = stablehlo.dot_general %53, %arg9, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16x32xf32>, tensor<32x32xf32>) -> tensor<8x16x32xf32>
    %55 = stablehlo.reshape %arg8 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %56 = stablehlo.broadcast_in_dim %55, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x16x32xf32>
    %57 = stablehlo.add %54, %56 : tensor<8x16x32xf32>
    %58 = stablehlo.add %arg3, %57 : tensor<8x16x32xf32>
    %59 = chlo.square %58 : tensor<8x16x32xf32> -> tensor<8x16x32xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %60 = stablehlo.reduce(%58 init: %cst_8) applies stablehlo.add across dimensions = [2] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<8x16xf32>
    %cst_9 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %62 = stablehlo.divide %60, %61 : tensor<8x16xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %63 = stablehlo.reduce(%59 init: %cst_10) applies stablehlo.add across dimensions = [2] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<8x16xf32>
    %cst_11 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %64 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %65 = stablehlo.divide %63, %64 : tensor<8x16xf32>
    %66 = chlo.square %62 : tensor<8x16xf32> -> tensor<8x16xf32>
    %67 = stablehlo.subtract %65, %66 : tensor<8x16xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %69 = stablehlo.maximum %68, %67 : tensor<8x16xf32>
    %70 = stablehlo.broadcast_in_dim %62, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %71 = stablehlo.broadcast_in_dim %69, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %72 = stablehlo.broadcast_in_dim %70, dims = [0, 1, 2] : (tensor<8x16x1xf32>) -> tensor<8x16x32xf32>
    %73 = stablehlo.subtract %58, %72 : tensor<8x16x32xf32>
    %cst_13 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %74 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<8x16x1xf32>
    %75 = stablehlo.add %71, %74 : tensor<8x16x1xf32>
    %76 = stablehlo.rsqrt %75 : tensor<8x16x1xf32>
    %77 = stablehlo.reshape %arg13 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %78 = stablehlo.broadcast_in_dim %76, dims = [0, 1, 2] : (tensor<8x16x1xf32>) -> tensor<8x16x32xf32>
    %79 = stablehlo.broadcast_in_dim %77, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x16x32xf32>
    %80 = stablehlo.multiply %78, %79 : tensor<8x16x32xf32>
    %81 = stablehlo.multiply %73, %80 : tensor<8x16x32xf32>
    %82 = stablehlo.reshape %arg12 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %83 = stablehlo.broadcast_in_dim %82, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x16x32xf32>
    %84 = stablehlo.add %81, %83 : tensor<8x16x32xf32>
    %85 = stablehlo.dot_general %84, %arg7, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16x32xf32>, tensor<32x128xf32>) -> tensor<8x16x128xf32>
    %86 = stablehlo.reshape %arg6 : (tensor<128xf32>) -> tensor<1x1x128xf32>
    %87 = stablehlo.broadcast_in_dim %86, dims = [0, 1, 2] : (tensor<1x1x128xf32>) -> tensor<8x16x128xf32>
    %88 = stablehlo.add %85, %87 : tensor<8x16x128xf32>
    %89 = stablehlo.multiply %88, %88 : tensor<8x16x128xf32>
    %90 = stablehlo.multiply %89, %88 : tensor<8x16x128xf32>
    %cst_14 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<8x16x128xf32>
    %92 = stablehlo.multiply %91, %90 : tensor<8x16x128xf32>
    %93 = stablehlo.add %88, %92 : tensor<8x16x128xf32>
    %cst_15 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %94 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<8x16x128xf32>
    %95 = stablehlo.multiply %94, %93 : tensor<8x16x128xf32>
    %96 = stablehlo.tanh %95 : tensor<8x16x128xf32>
    %cst_16 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %97 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<8x16x128xf32>
    %98 = stablehlo.add %97, %96 : tensor<8x16x128xf32>
    %cst_17 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %99 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<8x16x128xf32>
    %100 = stablehlo.multiply %99, %98 : tensor<8x16x128xf32>
    %101 = stablehlo.multiply %88, %100 : tensor<8x16x128xf32>
    %102 = stablehlo.dot_general %101, %arg15, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xf32>, tensor<128x32xf32>) -> tensor<8x16x32xf32>
    %103 = stablehlo.reshape %arg14 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %104 = stablehlo.broadcast_in_dim %103, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x16x32xf32>
    %105 = stablehlo.add %102, %104 : tensor<8x16x32xf32>
    %106 = stablehlo.add %58, %105 : tensor<8x16x32xf32>
    return %106, %arg3 : tensor<8x16x32xf32>, tensor<8x16x32xf32>
  }
  func.func private @_where_7(%arg0: tensor<8x4x16x16xf32>, %arg1: tensor<8x4x16x16xi1>, %arg2: tensor<8x4x16x16xf32>) -> tensor<8x4x16x16xf32> {
    %0 = stablehlo.select %arg1, %arg0, %arg2 : tensor<8x4x16x16xi1>, tensor<8x4x16x16xf32>
    return %0 : tensor<8x4x16x16xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<2x8x16x32xf32>, %arg1: tensor<8x16x32xf32>, %arg2: tensor<i32>) -> tensor<2x8x16x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<8x16x32xf32>) -> tensor<1x8x16x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x8x16x32xf32>
    return %1 : tensor<2x8x16x32xf32>
  }
  func.func private @take_along_axis(%arg0: tensor<8x16x64xf32>, %arg1: tensor<8x16x1xi32>) -> (tensor<8x16x1xf32>, tensor<8x16x1x1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8x16x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<8x16x1xi32>, tensor<8x16x1xi32>) -> tensor<8x16x1xi1>
    %c_0 = stablehlo.constant dense<64> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<8x16x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<8x16x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<8x16x1xi1>, tensor<8x16x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<8x16x1xi32>) -> tensor<8x16x1x1xi32>
    %c_1 = stablehlo.constant dense<63> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8x16x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<8x16x1x1xi32>, tensor<8x16x1x1xi32>) -> tensor<8x16x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [3] : (tensor<1xi32>) -> tensor<1x1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2, 3] : (tensor<1x1x1x1xi32>) -> tensor<8x16x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<8x16x1x1xi32>, tensor<8x16x1x1xi32>) -> tensor<8x16x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<8x16x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [3] : (tensor<8x16x1x1xi1>, tensor<i1>) -> tensor<8x16x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [2], operand_batching_dims = [0, 1], start_indices_batching_dims = [0, 1], start_index_map = [2], index_vector_dim = 3>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<8x16x64xf32>, tensor<8x16x1x1xi32>) -> tensor<8x16x1xf32>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16x1xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<8x16x1xi1>, tensor<8x16x1xf32>
    return %15, %5 : tensor<8x16x1xf32>, tensor<8x16x1x1xi32>
  }
  func.func private @_take_8(%arg0: tensor<8x16x1xf32>, %arg1: tensor<i32>) -> (tensor<8x16xf32>, tensor<1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.add %arg1, %c_0 : tensor<i32>
    %2 = call @_where_9(%0, %1, %arg1) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
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
    %10 = "stablehlo.gather"(%arg0, %4) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], collapsed_slice_dims = [2], start_index_map = [2]>, indices_are_sorted = false, slice_sizes = array<i64: 8, 16, 1>}> : (tensor<8x16x1xf32>, tensor<1xi32>) -> tensor<8x16xf32>
    %11 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<8x16xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %13 = stablehlo.select %11, %10, %12 : tensor<8x16xi1>, tensor<8x16xf32>
    return %13, %3 : tensor<8x16xf32>, tensor<1xi32>
  }
  func.func private @_where_9(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @_take_10(%arg0: tensor<1xi32>, %arg1: tensor<8x16xf32>) -> tensor<8x16x1xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16x1xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0, 1], inserted_window_dims = [2], scatter_dims_to_operand_dims = [2]>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<8x16x1xf32>, tensor<1xi32>, tensor<8x16xf32>) -> tensor<8x16x1xf32>
    return %1 : tensor<8x16x1xf32>
  }
  func.func private @take_along_axis_11(%arg0: tensor<8x16x1x1xi32>, %arg1: tensor<8x16x1xf32>) -> tensor<8x16x64xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16x64xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [2], input_batching_dims = [0, 1], scatter_indices_batching_dims = [0, 1], scatter_dims_to_operand_dims = [2], index_vector_dim = 3>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<8x16x64xf32>, tensor<8x16x1x1xi32>, tensor<8x16x1xf32>) -> tensor<8x16x64xf32>
    return %1 : tensor<8x16x64xf32>
  }
  func.func private @dynamic_index_in_dim_12(%arg0: tensor<2x8x16x32xf32>, %arg1: tensor<i32>) -> tensor<8x16x32xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 8, 16, 32] : (tensor<2x8x16x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16x32xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x8x16x32xf32>) -> tensor<8x16x32xf32>
    return %1 : tensor<8x16x32xf32>
  }
  func.func private @closed_call_13(%arg0: tensor<8x16x32xf32>, %arg1: tensor<96xf32>, %arg2: tensor<32x96xf32>, %arg3: tensor<128xf32>, %arg4: tensor<32x128xf32>, %arg5: tensor<32xf32>, %arg6: tensor<32x32xf32>, %arg7: tensor<32xf32>, %arg8: tensor<32xf32>, %arg9: tensor<32xf32>, %arg10: tensor<32xf32>, %arg11: tensor<128x32xf32>, %arg12: tensor<8x16x32xf32>) -> (tensor<8x16x32xf32>, tensor<96xf32>, tensor<32x96xf32>, tensor<128xf32>, tensor<32x128xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<128x32xf32>) {
    %0:13 = stablehlo.optimization_barrier %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg0 : tensor<96xf32>, tensor<32x96xf32>, tensor<128xf32>, tensor<32x128xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<128x32xf32>, tensor<8x16x32xf32>, tensor<8x16x32xf32>
    %1 = chlo.square %0#11 : tensor<8x16x32xf32> -> tensor<8x16x32xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16x32xf32>
    %3 = stablehlo.multiply %2, %0#11 : tensor<8x16x32xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%0#11 init: %cst_0) applies stablehlo.add across dimensions = [2] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<8x16xf32>
    %cst_1 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %6 = stablehlo.divide %4, %5 : tensor<8x16xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%1 init: %cst_2) applies stablehlo.add across dimensions = [2] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<8x16xf32>
    %cst_3 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %9 = stablehlo.divide %7, %8 : tensor<8x16xf32>
    %10 = chlo.square %6 : tensor<8x16xf32> -> tensor<8x16xf32>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %12 = stablehlo.multiply %11, %6 : tensor<8x16xf32>
    %13 = stablehlo.subtract %9, %10 : tensor<8x16xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %15 = stablehlo.maximum %14, %13 : tensor<8x16xf32>
    %16 = stablehlo.compare EQ, %13, %15, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %19 = stablehlo.select %16, %17, %18 : tensor<8x16xi1>, tensor<8x16xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %21 = stablehlo.compare EQ, %20, %15, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %cst_9 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %24 = stablehlo.select %21, %22, %23 : tensor<8x16xi1>, tensor<8x16xf32>
    %25 = stablehlo.divide %19, %24 : tensor<8x16xf32>
    %26 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %27 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %28 = stablehlo.broadcast_in_dim %26, dims = [0, 1, 2] : (tensor<8x16x1xf32>) -> tensor<8x16x32xf32>
    %29 = stablehlo.subtract %0#11, %28 : tensor<8x16x32xf32>
    %cst_11 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<8x16x1xf32>
    %31 = stablehlo.add %27, %30 : tensor<8x16x1xf32>
    %32 = stablehlo.rsqrt %31 : tensor<8x16x1xf32>
    %33 = stablehlo.divide %32, %31 : tensor<8x16x1xf32>
    %cst_12 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %34 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<8x16x1xf32>
    %35 = stablehlo.multiply %34, %33 : tensor<8x16x1xf32>
    %36 = stablehlo.reshape %0#7 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %37 = stablehlo.broadcast_in_dim %32, dims = [0, 1, 2] : (tensor<8x16x1xf32>) -> tensor<8x16x32xf32>
    %38 = stablehlo.broadcast_in_dim %36, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x16x32xf32>
    %39 = stablehlo.multiply %37, %38 : tensor<8x16x32xf32>
    %40 = stablehlo.multiply %29, %39 : tensor<8x16x32xf32>
    %41 = stablehlo.reshape %0#6 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %42 = stablehlo.broadcast_in_dim %41, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x16x32xf32>
    %43 = stablehlo.add %40, %42 : tensor<8x16x32xf32>
    %44 = stablehlo.dot_general %43, %0#1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16x32xf32>, tensor<32x96xf32>) -> tensor<8x16x96xf32>
    %45 = stablehlo.reshape %0#0 : (tensor<96xf32>) -> tensor<1x1x96xf32>
    %46 = stablehlo.broadcast_in_dim %45, dims = [0, 1, 2] : (tensor<1x1x96xf32>) -> tensor<8x16x96xf32>
    %47 = stablehlo.add %44, %46 : tensor<8x16x96xf32>
    %48 = stablehlo.slice %47 [0:8, 0:16, 0:32] : (tensor<8x16x96xf32>) -> tensor<8x16x32xf32>
    %49 = stablehlo.slice %47 [0:8, 0:16, 32:64] : (tensor<8x16x96xf32>) -> tensor<8x16x32xf32>
    %50 = stablehlo.slice %47 [0:8, 0:16, 64:96] : (tensor<8x16x96xf32>) -> tensor<8x16x32xf32>
    %51 = stablehlo.reshape %48 : (tensor<8x16x32xf32>) -> tensor<8x16x4x8xf32>
    %52 = stablehlo.reshape %49 : (tensor<8x16x32xf32>) -> tensor<8x16x4x8xf32>
    %53 = stablehlo.reshape %50 : (tensor<8x16x32xf32>) -> tensor<8x16x4x8xf32>
    %54 = stablehlo.dot_general %51, %52, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x16x4x8xf32>, tensor<8x16x4x8xf32>) -> tensor<8x4x16x16xf32>
    %cst_13 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %55 = stablehlo.sqrt %cst_13 : tensor<f32>
    %56 = stablehlo.convert %55 : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %56, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    %58 = stablehlo.divide %54, %57 : tensor<8x4x16x16xf32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %59 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<16x16xi1>
    %60 = call @tril_14(%59) : (tensor<16x16xi1>) -> tensor<16x16xi1>
    %cst_14 = stablehlo.constant dense<-3.40282347E+38> : tensor<f32>
    %61:2 = call @_where_15(%60, %58, %cst_14) : (tensor<16x16xi1>, tensor<8x4x16x16xf32>, tensor<f32>) -> (tensor<8x4x16x16xf32>, tensor<8x4x16x16xi1>)
    %cst_15 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %62 = stablehlo.reduce(%61#0 init: %cst_15) applies stablehlo.maximum across dimensions = [3] : (tensor<8x4x16x16xf32>, tensor<f32>) -> tensor<8x4x16xf32>
    %cst_16 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<8x4x16xf32>
    %64 = stablehlo.maximum %63, %62 : tensor<8x4x16xf32>
    %65 = stablehlo.broadcast_in_dim %64, dims = [0, 1, 2] : (tensor<8x4x16xf32>) -> tensor<8x4x16x1xf32>
    %66 = stablehlo.broadcast_in_dim %65, dims = [0, 1, 2, 3] : (tensor<8x4x16x1xf32>) -> tensor<8x4x16x16xf32>
    %67 = stablehlo.subtract %61#0, %66 : tensor<8x4x16x16xf32>
    %68 = stablehlo.exponential %67 : tensor<8x4x16x16xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %69 = stablehlo.reduce(%68 init: %cst_17) applies stablehlo.add across dimensions = [3] : (tensor<8x4x16x16xf32>, tensor<f32>) -> tensor<8x4x16xf32>
    %70 = stablehlo.broadcast_in_dim %69, dims = [0, 1, 2] : (tensor<8x4x16xf32>) -> tensor<8x4x16x1xf32>
    %71 = stablehlo.broadcast_in_dim %70, dims = [0, 1, 2, 3] : (tensor<8x4x16x1xf32>) -> tensor<8x4x16x16xf32>
    %72 = stablehlo.divide %68, %71 : tensor<8x4x16x16xf32>
    %73 = stablehlo.multiply %70, %70 : tensor<8x4x16x1xf32>
    %cst_18 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %74 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<8x4x16x1xf32>
    %75 = stablehlo.divide %74, %73 : tensor<8x4x16x1xf32>
    %76 = stablehlo.dot_general %53, %72, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x16x4x8xf32>, tensor<8x4x16x16xf32>) -> tensor<8x4x8x16xf32>
    %77 = stablehlo.transpose %76, dims = [0, 3, 1, 2] : (tensor<8x4x8x16xf32>) -> tensor<8x16x4x8xf32>
    %78 = stablehlo.reshape %77 : (tensor<8x16x4x8xf32>) -> tensor<8x16x32xf32>
    %79 = stablehlo.dot_general %78, %0#5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16x32xf32>, tensor<32x32xf32>) -> tensor<8x16x32xf32>
    %80 = stablehlo.reshape %0#4 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %81 = stablehlo.broadcast_in_dim %80, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x16x32xf32>
    %82 = stablehlo.add %79, %81 : tensor<8x16x32xf32>
    %83 = stablehlo.add %0#11, %82 : tensor<8x16x32xf32>
    %84 = chlo.square %83 : tensor<8x16x32xf32> -> tensor<8x16x32xf32>
    %cst_19 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<8x16x32xf32>
    %86 = stablehlo.multiply %85, %83 : tensor<8x16x32xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %87 = stablehlo.reduce(%83 init: %cst_20) applies stablehlo.add across dimensions = [2] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<8x16xf32>
    %cst_21 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %88 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %89 = stablehlo.divide %87, %88 : tensor<8x16xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %90 = stablehlo.reduce(%84 init: %cst_22) applies stablehlo.add across dimensions = [2] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<8x16xf32>
    %cst_23 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %92 = stablehlo.divide %90, %91 : tensor<8x16xf32>
    %93 = chlo.square %89 : tensor<8x16xf32> -> tensor<8x16xf32>
    %cst_24 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %94 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %95 = stablehlo.multiply %94, %89 : tensor<8x16xf32>
    %96 = stablehlo.subtract %92, %93 : tensor<8x16xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %97 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %98 = stablehlo.maximum %97, %96 : tensor<8x16xf32>
    %99 = stablehlo.compare EQ, %96, %98, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %cst_26 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %101 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %102 = stablehlo.select %99, %100, %101 : tensor<8x16xi1>, tensor<8x16xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %103 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %104 = stablehlo.compare EQ, %103, %98, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %cst_29 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %105 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %cst_30 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %106 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %107 = stablehlo.select %104, %105, %106 : tensor<8x16xi1>, tensor<8x16xf32>
    %108 = stablehlo.divide %102, %107 : tensor<8x16xf32>
    %109 = stablehlo.broadcast_in_dim %89, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %110 = stablehlo.broadcast_in_dim %98, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %111 = stablehlo.broadcast_in_dim %109, dims = [0, 1, 2] : (tensor<8x16x1xf32>) -> tensor<8x16x32xf32>
    %112 = stablehlo.subtract %83, %111 : tensor<8x16x32xf32>
    %cst_31 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %113 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<8x16x1xf32>
    %114 = stablehlo.add %110, %113 : tensor<8x16x1xf32>
    %115 = stablehlo.rsqrt %114 : tensor<8x16x1xf32>
    %116 = stablehlo.divide %115, %114 : tensor<8x16x1xf32>
    %cst_32 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %117 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<8x16x1xf32>
    %118 = stablehlo.multiply %117, %116 : tensor<8x16x1xf32>
    %119 = stablehlo.reshape %0#9 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %120 = stablehlo.broadcast_in_dim %115, dims = [0, 1, 2] : (tensor<8x16x1xf32>) -> tensor<8x16x32xf32>
    %121 = stablehlo.broadcast_in_dim %119, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x16x32xf32>
    %122 = stablehlo.multiply %120, %121 : tensor<8x16x32xf32>
    %123 = stablehlo.multiply %112, %122 : tensor<8x16x32xf32>
    %124 = stablehlo.reshape %0#8 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %125 = stablehlo.broadcast_in_dim %124, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x16x32xf32>
    %126 = stablehlo.add %123, %125 : tensor<8x16x32xf32>
    %127 = stablehlo.dot_general %126, %0#3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16x32xf32>, tensor<32x128xf32>) -> tensor<8x16x128xf32>
    %128 = stablehlo.reshape %0#2 : (tensor<128xf32>) -> tensor<1x1x128xf32>
    %129 = stablehlo.broadcast_in_dim %128, dims = [0, 1, 2] : (tensor<1x1x128xf32>) -> tensor<8x16x128xf32>
    %130 = stablehlo.add %127, %129 : tensor<8x16x128xf32>
    %131 = stablehlo.multiply %130, %130 : tensor<8x16x128xf32>
    %132 = stablehlo.multiply %131, %130 : tensor<8x16x128xf32>
    %133 = stablehlo.multiply %130, %130 : tensor<8x16x128xf32>
    %cst_33 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %134 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<8x16x128xf32>
    %135 = stablehlo.multiply %134, %133 : tensor<8x16x128xf32>
    %cst_34 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %136 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<8x16x128xf32>
    %137 = stablehlo.multiply %136, %132 : tensor<8x16x128xf32>
    %138 = stablehlo.add %130, %137 : tensor<8x16x128xf32>
    %cst_35 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %139 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<8x16x128xf32>
    %140 = stablehlo.multiply %139, %138 : tensor<8x16x128xf32>
    %141 = stablehlo.tanh %140 : tensor<8x16x128xf32>
    %cst_36 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %142 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<8x16x128xf32>
    %143 = stablehlo.subtract %142, %141 : tensor<8x16x128xf32>
    %cst_37 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %144 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<8x16x128xf32>
    %145 = stablehlo.add %144, %141 : tensor<8x16x128xf32>
    %cst_38 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %146 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<8x16x128xf32>
    %147 = stablehlo.multiply %146, %145 : tensor<8x16x128xf32>
    %148 = stablehlo.multiply %130, %147 : tensor<8x16x128xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %149 = stablehlo.reduce(%0#12 init: %cst_39) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %150 = stablehlo.reshape %149 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %151 = stablehlo.reshape %150 : (tensor<1x1x32xf32>) -> tensor<32xf32>
    %152 = stablehlo.dot_general %0#12, %148, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x32xf32>, tensor<8x16x128xf32>) -> tensor<32x128xf32>
    %153 = stablehlo.transpose %152, dims = [1, 0] : (tensor<32x128xf32>) -> tensor<128x32xf32>
    %154 = stablehlo.dot_general %0#12, %0#10, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x32xf32>, tensor<128x32xf32>) -> tensor<8x16x128xf32>
    %155 = stablehlo.multiply %130, %154 : tensor<8x16x128xf32>
    %156 = stablehlo.multiply %154, %147 : tensor<8x16x128xf32>
    %cst_40 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %157 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<8x16x128xf32>
    %158 = stablehlo.multiply %157, %155 : tensor<8x16x128xf32>
    %159 = stablehlo.multiply %158, %143 : tensor<8x16x128xf32>
    %160 = stablehlo.multiply %159, %141 : tensor<8x16x128xf32>
    %161 = stablehlo.add %159, %160 : tensor<8x16x128xf32>
    %cst_41 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %162 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<8x16x128xf32>
    %163 = stablehlo.multiply %162, %161 : tensor<8x16x128xf32>
    %164 = stablehlo.add %156, %163 : tensor<8x16x128xf32>
    %cst_42 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %165 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<8x16x128xf32>
    %166 = stablehlo.multiply %165, %163 : tensor<8x16x128xf32>
    %167 = stablehlo.multiply %166, %135 : tensor<8x16x128xf32>
    %168 = stablehlo.add %164, %167 : tensor<8x16x128xf32>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %169 = stablehlo.reduce(%168 init: %cst_43) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16x128xf32>, tensor<f32>) -> tensor<128xf32>
    %170 = stablehlo.reshape %169 : (tensor<128xf32>) -> tensor<1x1x128xf32>
    %171 = stablehlo.reshape %170 : (tensor<1x1x128xf32>) -> tensor<128xf32>
    %172 = stablehlo.dot_general %168, %126, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xf32>, tensor<8x16x32xf32>) -> tensor<128x32xf32>
    %173 = stablehlo.transpose %172, dims = [1, 0] : (tensor<128x32xf32>) -> tensor<32x128xf32>
    %174 = stablehlo.dot_general %168, %0#3, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xf32>, tensor<32x128xf32>) -> tensor<8x16x32xf32>
    %cst_44 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %175 = stablehlo.reduce(%174 init: %cst_44) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %176 = stablehlo.reshape %175 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %177 = stablehlo.reshape %176 : (tensor<1x1x32xf32>) -> tensor<32xf32>
    %178 = stablehlo.multiply %112, %174 : tensor<8x16x32xf32>
    %179 = stablehlo.multiply %174, %122 : tensor<8x16x32xf32>
    %180 = stablehlo.broadcast_in_dim %115, dims = [0, 1, 2] : (tensor<8x16x1xf32>) -> tensor<8x16x32xf32>
    %181 = stablehlo.multiply %180, %178 : tensor<8x16x32xf32>
    %cst_45 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %182 = stablehlo.reduce(%181 init: %cst_45) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %183 = stablehlo.reshape %182 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %184 = stablehlo.broadcast_in_dim %119, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x16x32xf32>
    %185 = stablehlo.multiply %178, %184 : tensor<8x16x32xf32>
    %cst_46 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %186 = stablehlo.reduce(%185 init: %cst_46) applies stablehlo.add across dimensions = [2] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<8x16xf32>
    %187 = stablehlo.reshape %186 : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %188 = stablehlo.reshape %183 : (tensor<1x1x32xf32>) -> tensor<32xf32>
    %189 = stablehlo.multiply %187, %118 : tensor<8x16x1xf32>
    %190 = stablehlo.negate %179 : tensor<8x16x32xf32>
    %cst_47 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %191 = stablehlo.reduce(%190 init: %cst_47) applies stablehlo.add across dimensions = [2] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<8x16xf32>
    %192 = stablehlo.reshape %191 : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %193 = stablehlo.add %0#12, %179 : tensor<8x16x32xf32>
    %cst_48 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %194 = stablehlo.reduce(%189 init: %cst_48) applies stablehlo.add across dimensions = [2] : (tensor<8x16x1xf32>, tensor<f32>) -> tensor<8x16xf32>
    %cst_49 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %195 = stablehlo.reduce(%192 init: %cst_49) applies stablehlo.add across dimensions = [2] : (tensor<8x16x1xf32>, tensor<f32>) -> tensor<8x16xf32>
    %196 = stablehlo.multiply %194, %108 : tensor<8x16xf32>
    %197 = stablehlo.negate %196 : tensor<8x16xf32>
    %198 = stablehlo.multiply %197, %95 : tensor<8x16xf32>
    %199 = stablehlo.add %195, %198 : tensor<8x16xf32>
    %cst_50 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %200 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %201 = stablehlo.divide %196, %200 : tensor<8x16xf32>
    %202 = stablehlo.broadcast_in_dim %201, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x32xf32>
    %cst_51 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %203 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %204 = stablehlo.divide %199, %203 : tensor<8x16xf32>
    %205 = stablehlo.broadcast_in_dim %204, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x32xf32>
    %206 = stablehlo.add %193, %205 : tensor<8x16x32xf32>
    %207 = stablehlo.multiply %202, %86 : tensor<8x16x32xf32>
    %208 = stablehlo.add %206, %207 : tensor<8x16x32xf32>
    %cst_52 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %209 = stablehlo.reduce(%208 init: %cst_52) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %210 = stablehlo.reshape %209 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %211 = stablehlo.reshape %210 : (tensor<1x1x32xf32>) -> tensor<32xf32>
    %212 = stablehlo.dot_general %208, %78, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x32xf32>, tensor<8x16x32xf32>) -> tensor<32x32xf32>
    %213 = stablehlo.transpose %212, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
    %214 = stablehlo.dot_general %208, %0#5, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x32xf32>, tensor<32x32xf32>) -> tensor<8x16x32xf32>
    %215 = stablehlo.reshape %214 : (tensor<8x16x32xf32>) -> tensor<8x16x4x8xf32>
    %216 = stablehlo.transpose %215, dims = [0, 2, 3, 1] : (tensor<8x16x4x8xf32>) -> tensor<8x4x8x16xf32>
    %217 = stablehlo.dot_general %216, %53, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x4x8x16xf32>, tensor<8x16x4x8xf32>) -> tensor<8x4x16x16xf32>
    %218 = stablehlo.dot_general %216, %72, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<8x4x8x16xf32>, tensor<8x4x16x16xf32>) -> tensor<8x4x8x16xf32>
    %219 = stablehlo.transpose %218, dims = [0, 3, 1, 2] : (tensor<8x4x8x16xf32>) -> tensor<8x16x4x8xf32>
    %220 = stablehlo.broadcast_in_dim %75, dims = [0, 1, 2, 3] : (tensor<8x4x16x1xf32>) -> tensor<8x4x16x16xf32>
    %221 = stablehlo.multiply %217, %220 : tensor<8x4x16x16xf32>
    %222 = stablehlo.multiply %221, %68 : tensor<8x4x16x16xf32>
    %cst_53 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %223 = stablehlo.reduce(%222 init: %cst_53) applies stablehlo.add across dimensions = [3] : (tensor<8x4x16x16xf32>, tensor<f32>) -> tensor<8x4x16xf32>
    %224 = stablehlo.reshape %223 : (tensor<8x4x16xf32>) -> tensor<8x4x16x1xf32>
    %225 = stablehlo.negate %224 : tensor<8x4x16x1xf32>
    %226 = stablehlo.broadcast_in_dim %70, dims = [0, 1, 2, 3] : (tensor<8x4x16x1xf32>) -> tensor<8x4x16x16xf32>
    %227 = stablehlo.divide %217, %226 : tensor<8x4x16x16xf32>
    %cst_54 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %228 = stablehlo.reduce(%225 init: %cst_54) applies stablehlo.add across dimensions = [3] : (tensor<8x4x16x1xf32>, tensor<f32>) -> tensor<8x4x16xf32>
    %229 = stablehlo.broadcast_in_dim %228, dims = [0, 1, 2] : (tensor<8x4x16xf32>) -> tensor<8x4x16x16xf32>
    %230 = stablehlo.add %227, %229 : tensor<8x4x16x16xf32>
    %231 = stablehlo.multiply %230, %68 : tensor<8x4x16x16xf32>
    %232 = call @_where_16(%61#1, %231) : (tensor<8x4x16x16xi1>, tensor<8x4x16x16xf32>) -> tensor<8x4x16x16xf32>
    %233 = stablehlo.broadcast_in_dim %56, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    %234 = stablehlo.divide %232, %233 : tensor<8x4x16x16xf32>
    %235 = stablehlo.dot_general %234, %51, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x4x16x16xf32>, tensor<8x16x4x8xf32>) -> tensor<8x4x16x8xf32>
    %236 = stablehlo.transpose %235, dims = [0, 2, 1, 3] : (tensor<8x4x16x8xf32>) -> tensor<8x16x4x8xf32>
    %237 = stablehlo.dot_general %234, %52, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x4x16x16xf32>, tensor<8x16x4x8xf32>) -> tensor<8x4x16x8xf32>
    %238 = stablehlo.transpose %237, dims = [0, 2, 1, 3] : (tensor<8x4x16x8xf32>) -> tensor<8x16x4x8xf32>
    %239 = stablehlo.reshape %219 : (tensor<8x16x4x8xf32>) -> tensor<8x16x32xf32>
    %240 = stablehlo.reshape %236 : (tensor<8x16x4x8xf32>) -> tensor<8x16x32xf32>
    %241 = stablehlo.reshape %238 : (tensor<8x16x4x8xf32>) -> tensor<8x16x32xf32>
    %242 = stablehlo.concatenate %241, %240, %239, dim = 2 : (tensor<8x16x32xf32>, tensor<8x16x32xf32>, tensor<8x16x32xf32>) -> tensor<8x16x96xf32>
    %cst_55 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %243 = stablehlo.reduce(%242 init: %cst_55) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16x96xf32>, tensor<f32>) -> tensor<96xf32>
    %244 = stablehlo.reshape %243 : (tensor<96xf32>) -> tensor<1x1x96xf32>
    %245 = stablehlo.reshape %244 : (tensor<1x1x96xf32>) -> tensor<96xf32>
    %246 = stablehlo.dot_general %242, %43, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x96xf32>, tensor<8x16x32xf32>) -> tensor<96x32xf32>
    %247 = stablehlo.transpose %246, dims = [1, 0] : (tensor<96x32xf32>) -> tensor<32x96xf32>
    %248 = stablehlo.dot_general %242, %0#1, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x96xf32>, tensor<32x96xf32>) -> tensor<8x16x32xf32>
    %cst_56 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %249 = stablehlo.reduce(%248 init: %cst_56) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %250 = stablehlo.reshape %249 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %251 = stablehlo.reshape %250 : (tensor<1x1x32xf32>) -> tensor<32xf32>
    %252 = stablehlo.multiply %29, %248 : tensor<8x16x32xf32>
    %253 = stablehlo.multiply %248, %39 : tensor<8x16x32xf32>
    %254 = stablehlo.broadcast_in_dim %32, dims = [0, 1, 2] : (tensor<8x16x1xf32>) -> tensor<8x16x32xf32>
    %255 = stablehlo.multiply %254, %252 : tensor<8x16x32xf32>
    %cst_57 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %256 = stablehlo.reduce(%255 init: %cst_57) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %257 = stablehlo.reshape %256 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %258 = stablehlo.broadcast_in_dim %36, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<8x16x32xf32>
    %259 = stablehlo.multiply %252, %258 : tensor<8x16x32xf32>
    %cst_58 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %260 = stablehlo.reduce(%259 init: %cst_58) applies stablehlo.add across dimensions = [2] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<8x16xf32>
    %261 = stablehlo.reshape %260 : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %262 = stablehlo.reshape %257 : (tensor<1x1x32xf32>) -> tensor<32xf32>
    %263 = stablehlo.multiply %261, %35 : tensor<8x16x1xf32>
    %264 = stablehlo.negate %253 : tensor<8x16x32xf32>
    %cst_59 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %265 = stablehlo.reduce(%264 init: %cst_59) applies stablehlo.add across dimensions = [2] : (tensor<8x16x32xf32>, tensor<f32>) -> tensor<8x16xf32>
    %266 = stablehlo.reshape %265 : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %267 = stablehlo.add %208, %253 : tensor<8x16x32xf32>
    %cst_60 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %268 = stablehlo.reduce(%263 init: %cst_60) applies stablehlo.add across dimensions = [2] : (tensor<8x16x1xf32>, tensor<f32>) -> tensor<8x16xf32>
    %cst_61 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %269 = stablehlo.reduce(%266 init: %cst_61) applies stablehlo.add across dimensions = [2] : (tensor<8x16x1xf32>, tensor<f32>) -> tensor<8x16xf32>
    %270 = stablehlo.multiply %268, %25 : tensor<8x16xf32>
    %271 = stablehlo.negate %270 : tensor<8x16xf32>
    %272 = stablehlo.multiply %271, %12 : tensor<8x16xf32>
    %273 = stablehlo.add %269, %272 : tensor<8x16xf32>
    %cst_62 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %274 = stablehlo.broadcast_in_dim %cst_62, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %275 = stablehlo.divide %270, %274 : tensor<8x16xf32>
    %276 = stablehlo.broadcast_in_dim %275, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x32xf32>
    %cst_63 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %277 = stablehlo.broadcast_in_dim %cst_63, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %278 = stablehlo.divide %273, %277 : tensor<8x16xf32>
    %279 = stablehlo.broadcast_in_dim %278, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x32xf32>
    %280 = stablehlo.add %267, %279 : tensor<8x16x32xf32>
    %281 = stablehlo.multiply %276, %3 : tensor<8x16x32xf32>
    %282 = stablehlo.add %280, %281 : tensor<8x16x32xf32>
    return %282, %245, %247, %171, %173, %211, %213, %251, %262, %177, %188, %151, %153 : tensor<8x16x32xf32>, tensor<96xf32>, tensor<32x96xf32>, tensor<128xf32>, tensor<32x128xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<128x32xf32>
  }
  func.func private @tril_14(%arg0: tensor<16x16xi1>) -> tensor<16x16xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<16x16xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<16x16xi32>
    %2 = stablehlo.add %0, %1 : tensor<16x16xi32>
    %3 = stablehlo.iota dim = 1 : tensor<16x16xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<16x16xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<16x16xi1>, tensor<16x16xi1>
    return %6 : tensor<16x16xi1>
  }
  func.func private @_where_15(%arg0: tensor<16x16xi1>, %arg1: tensor<8x4x16x16xf32>, %arg2: tensor<f32>) -> (tensor<8x4x16x16xf32>, tensor<8x4x16x16xi1>) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<16x16xi1>) -> tensor<8x4x16x16xi1>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    %2 = stablehlo.select %0, %arg1, %1 : tensor<8x4x16x16xi1>, tensor<8x4x16x16xf32>
    return %2, %0 : tensor<8x4x16x16xf32>, tensor<8x4x16x16xi1>
  }
  func.func private @_where_16(%arg0: tensor<8x4x16x16xi1>, %arg1: tensor<8x4x16x16xf32>) -> tensor<8x4x16x16xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<8x4x16x16xi1>, tensor<8x4x16x16xf32>
    return %1 : tensor<8x4x16x16xf32>
  }
  func.func private @dynamic_update_index_in_dim_17(%arg0: tensor<2x96xf32>, %arg1: tensor<96xf32>, %arg2: tensor<i32>) -> tensor<2x96xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<96xf32>) -> tensor<1x96xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<2x96xf32>, tensor<1x96xf32>, tensor<i32>, tensor<i32>) -> tensor<2x96xf32>
    return %1 : tensor<2x96xf32>
  }
  func.func private @dynamic_update_index_in_dim_18(%arg0: tensor<2x32x96xf32>, %arg1: tensor<32x96xf32>, %arg2: tensor<i32>) -> tensor<2x32x96xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<32x96xf32>) -> tensor<1x32x96xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x32x96xf32>, tensor<1x32x96xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x32x96xf32>
    return %1 : tensor<2x32x96xf32>
  }
  func.func private @dynamic_update_index_in_dim_19(%arg0: tensor<2x128xf32>, %arg1: tensor<128xf32>, %arg2: tensor<i32>) -> tensor<2x128xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<128xf32>) -> tensor<1x128xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<2x128xf32>, tensor<1x128xf32>, tensor<i32>, tensor<i32>) -> tensor<2x128xf32>
    return %1 : tensor<2x128xf32>
  }
  func.func private @dynamic_update_index_in_dim_20(%arg0: tensor<2x32x128xf32>, %arg1: tensor<32x128xf32>, %arg2: tensor<i32>) -> tensor<2x32x128xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<32x128xf32>) -> tensor<1x32x128xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x32x128xf32>, tensor<1x32x128xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x32x128xf32>
    return %1 : tensor<2x32x128xf32>
  }
  func.func private @dynamic_update_index_in_dim_21(%arg0: tensor<2x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<i32>) -> tensor<2x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<2x32xf32>, tensor<1x32xf32>, tensor<i32>, tensor<i32>) -> tensor<2x32xf32>
    return %1 : tensor<2x32xf32>
  }
  func.func private @dynamic_update_index_in_dim_22(%arg0: tensor<2x32x32xf32>, %arg1: tensor<32x32xf32>, %arg2: tensor<i32>) -> tensor<2x32x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<32x32xf32>) -> tensor<1x32x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x32x32xf32>, tensor<1x32x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x32x32xf32>
    return %1 : tensor<2x32x32xf32>
  }
  func.func private @dynamic_update_index_in_dim_23(%arg0: tensor<2x128x32xf32>, %arg1: tensor<128x32xf32>, %arg2: tensor<i32>) -> tensor<2x128x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<128x32xf32>) -> tensor<1x128x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x128x32xf32>, tensor<1x128x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x128x32xf32>
    return %1 : tensor<2x128x32xf32>
  }
  func.func private @_take_24(%arg0: tensor<8x16x1xi32>, %arg1: tensor<8x16x32xf32>) -> tensor<64x32xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<64x32xf32>, tensor<8x16x1xi32>, tensor<8x16x32xf32>) -> tensor<64x32xf32>
    return %1 : tensor<64x32xf32>
  }
  func.func private @_where_25(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
}
