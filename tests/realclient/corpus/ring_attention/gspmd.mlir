module @jit_ring_attention_grad attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x32x2x8xf32> {mhlo.sharding = "{devices=[2,4,1,1]<=[8]}"}, %arg1: tensor<4x32x2x8xf32> {mhlo.sharding = "{devices=[2,4,1,1]<=[8]}"}, %arg2: tensor<4x32x2x8xf32> {mhlo.sharding = "{devices=[2,4,1,1]<=[8]}"}) -> (tensor<f32> {jax.result_info = "result[0]", mhlo.sharding = "{replicated}"}, tensor<4x32x2x8xf32> {jax.result_info = "result[1][0]", mhlo.sharding = "{devices=[2,4,1,1]<=[8]}"}, tensor<4x32x2x8xf32> {jax.result_info = "result[1][1]", mhlo.sharding = "{devices=[2,4,1,1]<=[8]}"}, tensor<4x32x2x8xf32> {jax.result_info = "result[1][2]", mhlo.sharding = "{devices=[2,4,1,1]<=[8]}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,4,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x32x2x8xf32>) -> tensor<4x32x2x8xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x32x2x8xf32>) -> tensor<4x8x2x8xf32>
    %2 = stablehlo.custom_call @Sharding(%arg1) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,4,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x32x2x8xf32>) -> tensor<4x32x2x8xf32>
    %3 = stablehlo.custom_call @SPMDFullToShardShape(%2) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x32x2x8xf32>) -> tensor<4x8x2x8xf32>
    %4 = stablehlo.custom_call @Sharding(%arg2) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,4,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x32x2x8xf32>) -> tensor<4x32x2x8xf32>
    %5 = stablehlo.custom_call @SPMDFullToShardShape(%4) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x32x2x8xf32>) -> tensor<4x8x2x8xf32>
    %6:17 = call @shmap_body(%1, %3, %5) : (tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>) -> (tensor<1xf32>, tensor<4x4x8x2x8xf32>, tensor<4x4x2x8x8xi1>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x1xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x8x2x8xf32>, tensor<4x2x8x1xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8x1xf32>, tensor<4x8x2x8xf32>)
    %7 = stablehlo.custom_call @Sharding(%6#0) {backend_config = "unspecified_dims=[0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<1xf32>) -> tensor<1xf32>
    %8 = stablehlo.custom_call @SPMDShardToFullShape(%7) {backend_config = "unspecified_dims=[0]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<1xf32>) -> tensor<4xf32>
    %9 = stablehlo.custom_call @Sharding(%6#1) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x8x2x8xf32>) -> tensor<4x4x8x2x8xf32>
    %10 = stablehlo.custom_call @SPMDShardToFullShape(%9) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[4,1,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x4x8x2x8xf32>) -> tensor<16x4x8x2x8xf32>
    %11 = stablehlo.custom_call @Sharding(%6#2) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x8xi1>) -> tensor<4x4x2x8x8xi1>
    %12 = stablehlo.custom_call @SPMDShardToFullShape(%11) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[4,1,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x4x2x8x8xi1>) -> tensor<16x4x2x8x8xi1>
    %13 = stablehlo.custom_call @Sharding(%6#3) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x8xf32>) -> tensor<4x4x2x8x8xf32>
    %14 = stablehlo.custom_call @SPMDShardToFullShape(%13) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[4,1,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x4x2x8x8xf32>) -> tensor<16x4x2x8x8xf32>
    %15 = stablehlo.custom_call @Sharding(%6#4) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %16 = stablehlo.custom_call @SPMDShardToFullShape(%15) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[4,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x4x2x8xf32>) -> tensor<16x4x2x8xf32>
    %17 = stablehlo.custom_call @Sharding(%6#5) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %18 = stablehlo.custom_call @SPMDShardToFullShape(%17) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[4,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x4x2x8xf32>) -> tensor<16x4x2x8xf32>
    %19 = stablehlo.custom_call @Sharding(%6#6) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %20 = stablehlo.custom_call @SPMDShardToFullShape(%19) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[4,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x4x2x8xf32>) -> tensor<16x4x2x8xf32>
    %21 = stablehlo.custom_call @Sharding(%6#7) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x8xf32>) -> tensor<4x4x2x8x8xf32>
    %22 = stablehlo.custom_call @SPMDShardToFullShape(%21) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[4,1,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x4x2x8x8xf32>) -> tensor<16x4x2x8x8xf32>
    %23 = stablehlo.custom_call @Sharding(%6#8) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %24 = stablehlo.custom_call @SPMDShardToFullShape(%23) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[4,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x4x2x8xf32>) -> tensor<16x4x2x8xf32>
    %25 = stablehlo.custom_call @Sharding(%6#9) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %26 = stablehlo.custom_call @SPMDShardToFullShape(%25) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[4,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x4x2x8xf32>) -> tensor<16x4x2x8xf32>
    %27 = stablehlo.custom_call @Sharding(%6#10) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x1xf32>) -> tensor<4x4x2x8x1xf32>
    %28 = stablehlo.custom_call @SPMDShardToFullShape(%27) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[4,1,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x4x2x8x1xf32>) -> tensor<16x4x2x8x1xf32>
    %29 = stablehlo.custom_call @Sharding(%6#11) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x8xf32>) -> tensor<4x4x2x8x8xf32>
    %30 = stablehlo.custom_call @SPMDShardToFullShape(%29) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[4,1,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x4x2x8x8xf32>) -> tensor<16x4x2x8x8xf32>
    %31 = stablehlo.custom_call @Sharding(%6#12) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x8x2x8xf32>) -> tensor<4x4x8x2x8xf32>
    %32 = stablehlo.custom_call @SPMDShardToFullShape(%31) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[4,1,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x4x8x2x8xf32>) -> tensor<16x4x8x2x8xf32>
    %33 = stablehlo.custom_call @Sharding(%6#13) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %34 = stablehlo.custom_call @SPMDShardToFullShape(%33) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[4,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x2x8x1xf32>) -> tensor<16x2x8x1xf32>
    %35 = stablehlo.custom_call @Sharding(%6#14) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %36 = stablehlo.custom_call @SPMDShardToFullShape(%35) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[4,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x2x8x8xf32>) -> tensor<16x2x8x8xf32>
    %37 = stablehlo.custom_call @Sharding(%6#15) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %38 = stablehlo.custom_call @SPMDShardToFullShape(%37) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[4,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x2x8x1xf32>) -> tensor<16x2x8x1xf32>
    %39 = stablehlo.custom_call @Sharding(%6#16) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %40 = stablehlo.custom_call @SPMDShardToFullShape(%39) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,4,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x8x2x8xf32>) -> tensor<4x32x2x8xf32>
    %41 = stablehlo.multiply %40, %40 : tensor<4x32x2x8xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x32x2x8xf32>
    %43 = stablehlo.multiply %42, %40 : tensor<4x32x2x8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %44 = stablehlo.reduce(%41 init: %cst_0) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<4x32x2x8xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x32x2x8xf32>
    %46 = stablehlo.multiply %45, %43 : tensor<4x32x2x8xf32>
    %47 = stablehlo.custom_call @Sharding(%46) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,4,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x32x2x8xf32>) -> tensor<4x32x2x8xf32>
    %48 = stablehlo.custom_call @SPMDFullToShardShape(%47) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x32x2x8xf32>) -> tensor<4x8x2x8xf32>
    %49 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,4,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x32x2x8xf32>) -> tensor<4x32x2x8xf32>
    %50 = stablehlo.custom_call @SPMDFullToShardShape(%49) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x32x2x8xf32>) -> tensor<4x8x2x8xf32>
    %51 = stablehlo.custom_call @Sharding(%8) {backend_config = "unspecified_dims=[0]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4xf32>) -> tensor<4xf32>
    %52 = stablehlo.custom_call @SPMDFullToShardShape(%51) {backend_config = "unspecified_dims=[0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4xf32>) -> tensor<1xf32>
    %53 = stablehlo.custom_call @Sharding(%10) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[4,1,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<16x4x8x2x8xf32>) -> tensor<16x4x8x2x8xf32>
    %54 = stablehlo.custom_call @SPMDFullToShardShape(%53) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<16x4x8x2x8xf32>) -> tensor<4x4x8x2x8xf32>
    %55 = stablehlo.custom_call @Sharding(%12) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[4,1,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<16x4x2x8x8xi1>) -> tensor<16x4x2x8x8xi1>
    %56 = stablehlo.custom_call @SPMDFullToShardShape(%55) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<16x4x2x8x8xi1>) -> tensor<4x4x2x8x8xi1>
    %57 = stablehlo.custom_call @Sharding(%14) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[4,1,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<16x4x2x8x8xf32>) -> tensor<16x4x2x8x8xf32>
    %58 = stablehlo.custom_call @SPMDFullToShardShape(%57) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<16x4x2x8x8xf32>) -> tensor<4x4x2x8x8xf32>
    %59 = stablehlo.custom_call @Sharding(%16) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[4,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<16x4x2x8xf32>) -> tensor<16x4x2x8xf32>
    %60 = stablehlo.custom_call @SPMDFullToShardShape(%59) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<16x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %61 = stablehlo.custom_call @Sharding(%18) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[4,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<16x4x2x8xf32>) -> tensor<16x4x2x8xf32>
    %62 = stablehlo.custom_call @SPMDFullToShardShape(%61) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<16x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %63 = stablehlo.custom_call @Sharding(%20) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[4,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<16x4x2x8xf32>) -> tensor<16x4x2x8xf32>
    %64 = stablehlo.custom_call @SPMDFullToShardShape(%63) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<16x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %65 = stablehlo.custom_call @Sharding(%22) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[4,1,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<16x4x2x8x8xf32>) -> tensor<16x4x2x8x8xf32>
    %66 = stablehlo.custom_call @SPMDFullToShardShape(%65) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<16x4x2x8x8xf32>) -> tensor<4x4x2x8x8xf32>
    %67 = stablehlo.custom_call @Sharding(%24) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[4,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<16x4x2x8xf32>) -> tensor<16x4x2x8xf32>
    %68 = stablehlo.custom_call @SPMDFullToShardShape(%67) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<16x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %69 = stablehlo.custom_call @Sharding(%26) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[4,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<16x4x2x8xf32>) -> tensor<16x4x2x8xf32>
    %70 = stablehlo.custom_call @SPMDFullToShardShape(%69) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<16x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %71 = stablehlo.custom_call @Sharding(%28) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[4,1,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<16x4x2x8x1xf32>) -> tensor<16x4x2x8x1xf32>
    %72 = stablehlo.custom_call @SPMDFullToShardShape(%71) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<16x4x2x8x1xf32>) -> tensor<4x4x2x8x1xf32>
    %73 = stablehlo.custom_call @Sharding(%30) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[4,1,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<16x4x2x8x8xf32>) -> tensor<16x4x2x8x8xf32>
    %74 = stablehlo.custom_call @SPMDFullToShardShape(%73) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<16x4x2x8x8xf32>) -> tensor<4x4x2x8x8xf32>
    %75 = stablehlo.custom_call @Sharding(%32) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[4,1,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<16x4x8x2x8xf32>) -> tensor<16x4x8x2x8xf32>
    %76 = stablehlo.custom_call @SPMDFullToShardShape(%75) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<16x4x8x2x8xf32>) -> tensor<4x4x8x2x8xf32>
    %77 = stablehlo.custom_call @Sharding(%34) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[4,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<16x2x8x1xf32>) -> tensor<16x2x8x1xf32>
    %78 = stablehlo.custom_call @SPMDFullToShardShape(%77) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<16x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %79 = stablehlo.custom_call @Sharding(%36) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[4,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<16x2x8x8xf32>) -> tensor<16x2x8x8xf32>
    %80 = stablehlo.custom_call @SPMDFullToShardShape(%79) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<16x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %81 = stablehlo.custom_call @Sharding(%38) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[4,1,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<16x2x8x1xf32>) -> tensor<16x2x8x1xf32>
    %82 = stablehlo.custom_call @SPMDFullToShardShape(%81) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<16x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %83:3 = call @shmap_body_8(%48, %50, %52, %54, %56, %58, %60, %62, %64, %66, %68, %70, %72, %74, %76, %78, %80, %82) : (tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<1xf32>, tensor<4x4x8x2x8xf32>, tensor<4x4x2x8x8xi1>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x1xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x8x2x8xf32>, tensor<4x2x8x1xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8x1xf32>) -> (tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>)
    %84 = stablehlo.custom_call @Sharding(%83#0) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %85 = stablehlo.custom_call @SPMDShardToFullShape(%84) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,4,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x8x2x8xf32>) -> tensor<4x32x2x8xf32>
    %86 = stablehlo.custom_call @Sharding(%83#1) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %87 = stablehlo.custom_call @SPMDShardToFullShape(%86) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,4,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x8x2x8xf32>) -> tensor<4x32x2x8xf32>
    %88 = stablehlo.custom_call @Sharding(%83#2) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %89 = stablehlo.custom_call @SPMDShardToFullShape(%88) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,4,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} : (tensor<4x8x2x8xf32>) -> tensor<4x32x2x8xf32>
    return %44, %85, %87, %89 : tensor<f32>, tensor<4x32x2x8xf32>, tensor<4x32x2x8xf32>, tensor<4x32x2x8xf32>
  }
  func.func private @shmap_body(%arg0: tensor<4x8x2x8xf32>, %arg1: tensor<4x8x2x8xf32>, %arg2: tensor<4x8x2x8xf32>) -> (tensor<1xf32> {jax.result_info = "[('seq',)]"}, tensor<4x4x8x2x8xf32> {jax.result_info = "[('seq',), None, None, None, None]"}, tensor<4x4x2x8x8xi1> {jax.result_info = "[('seq',), None, None, None, None]"}, tensor<4x4x2x8x8xf32> {jax.result_info = "[('seq',), None, None, None, None]"}, tensor<4x4x2x8xf32> {jax.result_info = "[('seq',), None, None, None]"}, tensor<4x4x2x8xf32> {jax.result_info = "[('seq',), None, None, None]"}, tensor<4x4x2x8xf32> {jax.result_info = "[('seq',), None, None, None]"}, tensor<4x4x2x8x8xf32> {jax.result_info = "[('seq',), None, None, None, None]"}, tensor<4x4x2x8xf32> {jax.result_info = "[('seq',), None, None, None]"}, tensor<4x4x2x8xf32> {jax.result_info = "[('seq',), None, None, None]"}, tensor<4x4x2x8x1xf32> {jax.result_info = "[('seq',), None, None, None, None]"}, tensor<4x4x2x8x8xf32> {jax.result_info = "[('seq',), None, None, None, None]"}, tensor<4x4x8x2x8xf32> {jax.result_info = "[('seq',), None, None, None, None]"}, tensor<4x2x8x1xf32> {jax.result_info = "[('seq',), None, None, None]"}, tensor<4x2x8x8xf32> {jax.result_info = "[('seq',), None, None, None]"}, tensor<4x2x8x1xf32> {jax.result_info = "[('seq',), None, None, None]"}, tensor<4x8x2x8xf32> {jax.result_info = "[None, ('seq',), None, None]"}) {
    %0 = call @shmap_body_0() : () -> tensor<i32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.custom_call @SPMDShardToFullShape(%1) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %c = stablehlo.constant dense<8> : tensor<i32>
    %3 = stablehlo.multiply %2, %c : tensor<i32>
    %4 = stablehlo.custom_call @Sharding(%3) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %5 = stablehlo.iota dim = 0 : tensor<8xi32>
    %6 = stablehlo.custom_call @Sharding(%5) {backend_config = "unspecified_dims=[0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<8xi32>) -> tensor<8xi32>
    %7 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %8 = stablehlo.custom_call @Sharding(%7) {backend_config = "unspecified_dims=[0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<8xi32>) -> tensor<8xi32>
    %9 = stablehlo.add %8, %6 : tensor<8xi32>
    %10 = stablehlo.custom_call @Sharding(%9) {backend_config = "unspecified_dims=[0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<8xi32>) -> tensor<8xi32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x2x8x8xf32>
    %12 = stablehlo.custom_call @Sharding(%11) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %cst_0 = stablehlo.constant dense<-1.000000e+30> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
    %14 = stablehlo.custom_call @Sharding(%13) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
    %16 = stablehlo.custom_call @Sharding(%15) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %c_2 = stablehlo.constant dense<4> : tensor<i32>
    %17:5 = call @remainder(%c_2) : (tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i1>, tensor<i32>, tensor<i32>)
    %c_3 = stablehlo.constant dense<8> : tensor<i32>
    %18 = stablehlo.iota dim = 0 : tensor<8xi32>
    %19 = stablehlo.custom_call @Sharding(%18) {backend_config = "unspecified_dims=[0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<8xi32>) -> tensor<8xi32>
    %cst_4 = stablehlo.constant dense<0.353553385> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %21 = stablehlo.custom_call @Sharding(%20) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<8x1xi32>) -> tensor<8x1xi32>
    %cst_5 = stablehlo.constant dense<-1.000000e+30> : tensor<f32>
    %22 = call @_where_1(%cst_5) : (tensor<f32>) -> tensor<4x2x8x8xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
    %24 = stablehlo.custom_call @Sharding(%23) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
    %26 = stablehlo.custom_call @Sharding(%25) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %cst_8 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
    %28 = stablehlo.custom_call @Sharding(%27) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
    %30 = stablehlo.custom_call @Sharding(%29) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
    %32 = stablehlo.custom_call @Sharding(%31) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
    %34 = stablehlo.custom_call @Sharding(%33) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %cst_12 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
    %36 = stablehlo.custom_call @Sharding(%35) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %cst_13 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
    %38 = stablehlo.custom_call @Sharding(%37) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %c_14 = stablehlo.constant dense<0> : tensor<i32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4x4x8x2x8xf32>
    %40 = stablehlo.custom_call @Sharding(%39) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x8x2x8xf32>) -> tensor<4x4x8x2x8xf32>
    %c_16 = stablehlo.constant dense<false> : tensor<i1>
    %41 = stablehlo.broadcast_in_dim %c_16, dims = [] : (tensor<i1>) -> tensor<4x4x2x8x8xi1>
    %42 = stablehlo.custom_call @Sharding(%41) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x8xi1>) -> tensor<4x4x2x8x8xi1>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4x4x2x8x8xf32>
    %44 = stablehlo.custom_call @Sharding(%43) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x8xf32>) -> tensor<4x4x2x8x8xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<4x4x2x8xf32>
    %46 = stablehlo.custom_call @Sharding(%45) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %47 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<4x4x2x8xf32>
    %48 = stablehlo.custom_call @Sharding(%47) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %49 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<4x4x2x8xf32>
    %50 = stablehlo.custom_call @Sharding(%49) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %51 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<4x4x2x8x8xf32>
    %52 = stablehlo.custom_call @Sharding(%51) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x8xf32>) -> tensor<4x4x2x8x8xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<4x4x2x8xf32>
    %54 = stablehlo.custom_call @Sharding(%53) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %55 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<4x4x2x8xf32>
    %56 = stablehlo.custom_call @Sharding(%55) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<4x4x2x8x1xf32>
    %58 = stablehlo.custom_call @Sharding(%57) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x1xf32>) -> tensor<4x4x2x8x1xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<4x4x2x8x8xf32>
    %60 = stablehlo.custom_call @Sharding(%59) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x8xf32>) -> tensor<4x4x2x8x8xf32>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<4x4x8x2x8xf32>
    %62 = stablehlo.custom_call @Sharding(%61) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x8x2x8xf32>) -> tensor<4x4x8x2x8xf32>
    %c_27 = stablehlo.constant dense<0> : tensor<i32>
    %63:39 = stablehlo.while(%iterArg = %21, %iterArg_29 = %2, %iterArg_30 = %17#0, %iterArg_31 = %17#1, %iterArg_32 = %17#2, %iterArg_33 = %17#3, %iterArg_34 = %17#4, %iterArg_35 = %c_3, %iterArg_36 = %19, %iterArg_37 = %arg0, %iterArg_38 = %cst_4, %iterArg_39 = %22, %iterArg_40 = %26, %iterArg_41 = %24, %iterArg_42 = %30, %iterArg_43 = %28, %iterArg_44 = %34, %iterArg_45 = %32, %iterArg_46 = %38, %iterArg_47 = %36, %iterArg_48 = %c_27, %iterArg_49 = %c_14, %iterArg_50 = %12, %iterArg_51 = %14, %iterArg_52 = %16, %iterArg_53 = %arg1, %iterArg_54 = %arg2, %iterArg_55 = %40, %iterArg_56 = %42, %iterArg_57 = %44, %iterArg_58 = %46, %iterArg_59 = %48, %iterArg_60 = %50, %iterArg_61 = %52, %iterArg_62 = %54, %iterArg_63 = %56, %iterArg_64 = %58, %iterArg_65 = %60, %iterArg_66 = %62) : tensor<8x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i1>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<8xi32>, tensor<4x8x2x8xf32>, tensor<f32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<i32>, tensor<i32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x4x8x2x8xf32>, tensor<4x4x2x8x8xi1>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x1xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x8x2x8xf32>
    cond {
      %c_67 = stablehlo.constant dense<4> : tensor<i32>
      %100 = stablehlo.custom_call @Sharding(%iterArg_48) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
      %101 = stablehlo.custom_call @Sharding(%c_67) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
      %102 = stablehlo.compare LT, %100, %101, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %102 : tensor<i1>
    } do {
      %100:18 = func.call @closed_call(%iterArg, %iterArg_29, %iterArg_30, %iterArg_31, %iterArg_32, %iterArg_33, %iterArg_34, %iterArg_35, %iterArg_36, %iterArg_37, %iterArg_38, %iterArg_39, %iterArg_40, %iterArg_41, %iterArg_42, %iterArg_43, %iterArg_44, %iterArg_45, %iterArg_46, %iterArg_47, %iterArg_49, %iterArg_50, %iterArg_51, %iterArg_52, %iterArg_53, %iterArg_54) : (tensor<8x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i1>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<8xi32>, tensor<4x8x2x8xf32>, tensor<f32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<i32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>) -> (tensor<i32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x2x8x8xi1>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8x1xf32>, tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>)
      %101 = func.call @dynamic_update_index_in_dim(%iterArg_55, %100#6, %iterArg_48) : (tensor<4x4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<i32>) -> tensor<4x4x8x2x8xf32>
      %102 = func.call @dynamic_update_index_in_dim_4(%iterArg_56, %100#7, %iterArg_48) : (tensor<4x4x2x8x8xi1>, tensor<4x2x8x8xi1>, tensor<i32>) -> tensor<4x4x2x8x8xi1>
      %103 = func.call @dynamic_update_index_in_dim_5(%iterArg_57, %100#8, %iterArg_48) : (tensor<4x4x2x8x8xf32>, tensor<4x2x8x8xf32>, tensor<i32>) -> tensor<4x4x2x8x8xf32>
      %104 = func.call @dynamic_update_index_in_dim_6(%iterArg_58, %100#9, %iterArg_48) : (tensor<4x4x2x8xf32>, tensor<4x2x8xf32>, tensor<i32>) -> tensor<4x4x2x8xf32>
      %105 = func.call @dynamic_update_index_in_dim_6(%iterArg_59, %100#10, %iterArg_48) : (tensor<4x4x2x8xf32>, tensor<4x2x8xf32>, tensor<i32>) -> tensor<4x4x2x8xf32>
      %106 = func.call @dynamic_update_index_in_dim_6(%iterArg_60, %100#11, %iterArg_48) : (tensor<4x4x2x8xf32>, tensor<4x2x8xf32>, tensor<i32>) -> tensor<4x4x2x8xf32>
      %107 = func.call @dynamic_update_index_in_dim_5(%iterArg_61, %100#12, %iterArg_48) : (tensor<4x4x2x8x8xf32>, tensor<4x2x8x8xf32>, tensor<i32>) -> tensor<4x4x2x8x8xf32>
      %108 = func.call @dynamic_update_index_in_dim_6(%iterArg_62, %100#13, %iterArg_48) : (tensor<4x4x2x8xf32>, tensor<4x2x8xf32>, tensor<i32>) -> tensor<4x4x2x8xf32>
      %109 = func.call @dynamic_update_index_in_dim_6(%iterArg_63, %100#14, %iterArg_48) : (tensor<4x4x2x8xf32>, tensor<4x2x8xf32>, tensor<i32>) -> tensor<4x4x2x8xf32>
      %110 = func.call @dynamic_update_index_in_dim_7(%iterArg_64, %100#15, %iterArg_48) : (tensor<4x4x2x8x1xf32>, tensor<4x2x8x1xf32>, tensor<i32>) -> tensor<4x4x2x8x1xf32>
      %111 = func.call @dynamic_update_index_in_dim_5(%iterArg_65, %100#16, %iterArg_48) : (tensor<4x4x2x8x8xf32>, tensor<4x2x8x8xf32>, tensor<i32>) -> tensor<4x4x2x8x8xf32>
      %112 = func.call @dynamic_update_index_in_dim(%iterArg_66, %100#17, %iterArg_48) : (tensor<4x4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<i32>) -> tensor<4x4x8x2x8xf32>
      %c_67 = stablehlo.constant dense<1> : tensor<i32>
      %113 = stablehlo.custom_call @Sharding(%iterArg_48) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
      %114 = stablehlo.custom_call @Sharding(%c_67) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
      %115 = stablehlo.add %113, %114 : tensor<i32>
      %116 = stablehlo.custom_call @Sharding(%115) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
      stablehlo.return %iterArg, %iterArg_29, %iterArg_30, %iterArg_31, %iterArg_32, %iterArg_33, %iterArg_34, %iterArg_35, %iterArg_36, %iterArg_37, %iterArg_38, %iterArg_39, %iterArg_40, %iterArg_41, %iterArg_42, %iterArg_43, %iterArg_44, %iterArg_45, %iterArg_46, %iterArg_47, %116, %100#0, %100#1, %100#2, %100#3, %100#4, %100#5, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112 : tensor<8x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i1>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<8xi32>, tensor<4x8x2x8xf32>, tensor<f32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<i32>, tensor<i32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x4x8x2x8xf32>, tensor<4x4x2x8x8xi1>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x1xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x8x2x8xf32>
    }
    %64 = stablehlo.custom_call @Sharding(%63#20) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %65 = stablehlo.custom_call @Sharding(%63#21) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %66 = stablehlo.custom_call @Sharding(%63#22) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %67 = stablehlo.custom_call @Sharding(%63#23) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %68 = stablehlo.custom_call @Sharding(%63#24) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %69 = stablehlo.custom_call @Sharding(%63#25) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %70 = stablehlo.custom_call @Sharding(%63#26) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %71 = stablehlo.custom_call @Sharding(%63#27) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x8x2x8xf32>) -> tensor<4x4x8x2x8xf32>
    %72 = stablehlo.custom_call @Sharding(%63#28) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x8xi1>) -> tensor<4x4x2x8x8xi1>
    %73 = stablehlo.custom_call @Sharding(%63#29) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x8xf32>) -> tensor<4x4x2x8x8xf32>
    %74 = stablehlo.custom_call @Sharding(%63#30) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %75 = stablehlo.custom_call @Sharding(%63#31) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %76 = stablehlo.custom_call @Sharding(%63#32) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %77 = stablehlo.custom_call @Sharding(%63#33) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x8xf32>) -> tensor<4x4x2x8x8xf32>
    %78 = stablehlo.custom_call @Sharding(%63#34) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %79 = stablehlo.custom_call @Sharding(%63#35) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %80 = stablehlo.custom_call @Sharding(%63#36) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x1xf32>) -> tensor<4x4x2x8x1xf32>
    %81 = stablehlo.custom_call @Sharding(%63#37) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x8xf32>) -> tensor<4x4x2x8x8xf32>
    %82 = stablehlo.custom_call @Sharding(%63#38) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x8x2x8xf32>) -> tensor<4x4x8x2x8xf32>
    %83 = stablehlo.broadcast_in_dim %68, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
    %84 = stablehlo.custom_call @Sharding(%83) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %85 = stablehlo.broadcast_in_dim %84, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
    %86 = stablehlo.custom_call @Sharding(%85) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %87 = stablehlo.divide %66, %86 : tensor<4x2x8x8xf32>
    %88 = stablehlo.custom_call @Sharding(%87) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %89 = stablehlo.multiply %84, %84 : tensor<4x2x8x1xf32>
    %90 = stablehlo.custom_call @Sharding(%89) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %cst_28 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<4x2x8x1xf32>
    %92 = stablehlo.custom_call @Sharding(%91) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %93 = stablehlo.divide %92, %90 : tensor<4x2x8x1xf32>
    %94 = stablehlo.custom_call @Sharding(%93) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %95 = stablehlo.custom_call @Sharding(%94) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %96 = stablehlo.transpose %88, dims = [0, 2, 1, 3] : (tensor<4x2x8x8xf32>) -> tensor<4x8x2x8xf32>
    %97 = stablehlo.custom_call @Sharding(%96) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %98 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %99 = stablehlo.custom_call @Sharding(%98) {backend_config = "unspecified_dims=[0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<1xf32>) -> tensor<1xf32>
    return %99, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %84, %66, %95, %97 : tensor<1xf32>, tensor<4x4x8x2x8xf32>, tensor<4x4x2x8x8xi1>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x1xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x8x2x8xf32>, tensor<4x2x8x1xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8x1xf32>, tensor<4x8x2x8xf32>
  }
  func.func private @shmap_body_0() -> (tensor<i32> {jax.result_info = "[]"}) {
    %c = stablehlo.constant dense<1> : tensor<ui32>
    %c_0 = stablehlo.constant dense<4> : tensor<ui32>
    %0 = stablehlo.partition_id : tensor<ui32>
    %1 = stablehlo.divide %0, %c : tensor<ui32>
    %2 = stablehlo.remainder %1, %c_0 : tensor<ui32>
    %3 = stablehlo.convert %2 : (tensor<ui32>) -> tensor<i32>
    return %3 : tensor<i32>
  }
  func.func private @remainder(%arg0: tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i1>, tensor<i32>, tensor<i32>) {
    %0 = stablehlo.convert %arg0 : tensor<i32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.compare EQ, %1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %3 = call @_where(%2, %c_0, %1) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare LT, %3, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    return %3, %c_2, %4, %c_1, %3 : tensor<i32>, tensor<i32>, tensor<i1>, tensor<i32>, tensor<i32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    return %1 : tensor<i32>
  }
  func.func private @_where_1(%arg0: tensor<f32>) -> tensor<4x2x8x8xf32> {
    %0 = stablehlo.convert %arg0 : tensor<f32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<f32>) -> tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<4x2x8x8xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    return %3 : tensor<4x2x8x8xf32>
  }
  func.func private @closed_call(%arg0: tensor<8x1xi32>, %arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<i32>, %arg4: tensor<i1>, %arg5: tensor<i32>, %arg6: tensor<i32>, %arg7: tensor<i32>, %arg8: tensor<8xi32>, %arg9: tensor<4x8x2x8xf32>, %arg10: tensor<f32>, %arg11: tensor<4x2x8x8xf32>, %arg12: tensor<4x2x8xf32>, %arg13: tensor<4x2x8xf32>, %arg14: tensor<4x2x8xf32>, %arg15: tensor<4x2x8xf32>, %arg16: tensor<4x2x8xf32>, %arg17: tensor<4x2x8xf32>, %arg18: tensor<4x2x8xf32>, %arg19: tensor<4x2x8xf32>, %arg20: tensor<i32>, %arg21: tensor<4x2x8x8xf32>, %arg22: tensor<4x2x8xf32>, %arg23: tensor<4x2x8xf32>, %arg24: tensor<4x8x2x8xf32>, %arg25: tensor<4x8x2x8xf32>) -> (tensor<i32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x2x8x8xi1>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8x1xf32>, tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.custom_call @Sharding(%arg20) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %1 = stablehlo.custom_call @Sharding(%c) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.add %0, %1 : tensor<i32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %4 = stablehlo.convert %arg20 : tensor<i32>
    %5 = stablehlo.custom_call @Sharding(%4) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %6 = stablehlo.subtract %arg1, %5 : tensor<i32>
    %7 = stablehlo.custom_call @Sharding(%6) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %8 = call @remainder_2(%7, %arg2, %arg3, %arg4, %arg5, %arg6) : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %9 = stablehlo.multiply %8, %arg7 : tensor<i32>
    %10 = stablehlo.custom_call @Sharding(%9) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %12 = stablehlo.custom_call @Sharding(%11) {backend_config = "unspecified_dims=[0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<8xi32>) -> tensor<8xi32>
    %13 = stablehlo.add %12, %arg8 : tensor<8xi32>
    %14 = stablehlo.custom_call @Sharding(%13) {backend_config = "unspecified_dims=[0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<8xi32>) -> tensor<8xi32>
    %15 = stablehlo.dot_general %arg9, %arg24, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %16 = stablehlo.custom_call @Sharding(%15) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %17 = stablehlo.broadcast_in_dim %arg10, dims = [] : (tensor<f32>) -> tensor<4x2x8x8xf32>
    %18 = stablehlo.custom_call @Sharding(%17) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %19 = stablehlo.multiply %16, %18 : tensor<4x2x8x8xf32>
    %20 = stablehlo.custom_call @Sharding(%19) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %21 = stablehlo.broadcast_in_dim %14, dims = [1] : (tensor<8xi32>) -> tensor<1x8xi32>
    %22 = stablehlo.custom_call @Sharding(%21) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<1x8xi32>) -> tensor<1x8xi32>
    %23 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<8x1xi32>) -> tensor<8x8xi32>
    %24 = stablehlo.custom_call @Sharding(%23) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<8x8xi32>) -> tensor<8x8xi32>
    %25 = stablehlo.broadcast_in_dim %22, dims = [0, 1] : (tensor<1x8xi32>) -> tensor<8x8xi32>
    %26 = stablehlo.custom_call @Sharding(%25) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<8x8xi32>) -> tensor<8x8xi32>
    %27 = stablehlo.compare GE, %24, %26, SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %28:2 = call @_where_3(%27, %20, %arg11) : (tensor<8x8xi1>, tensor<4x2x8x8xf32>, tensor<4x2x8x8xf32>) -> (tensor<4x2x8x8xf32>, tensor<4x2x8x8xi1>)
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %29 = stablehlo.reduce(%28#0 init: %cst) applies stablehlo.maximum across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %30 = stablehlo.custom_call @Sharding(%29) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %31 = stablehlo.reshape %30 : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
    %32 = stablehlo.custom_call @Sharding(%31) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
    %34 = stablehlo.custom_call @Sharding(%33) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %35 = stablehlo.compare EQ, %28#0, %34, FLOAT : (tensor<4x2x8x8xf32>, tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xi1>
    %36 = stablehlo.convert %35 : (tensor<4x2x8x8xi1>) -> tensor<4x2x8x8xf32>
    %37 = stablehlo.custom_call @Sharding(%36) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %38 = stablehlo.reduce(%37 init: %cst_0) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %39 = stablehlo.custom_call @Sharding(%38) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %40 = stablehlo.maximum %arg22, %30 : tensor<4x2x8xf32>
    %41 = stablehlo.custom_call @Sharding(%40) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %42 = stablehlo.compare EQ, %arg22, %41, FLOAT : (tensor<4x2x8xf32>, tensor<4x2x8xf32>) -> tensor<4x2x8xi1>
    %43 = stablehlo.select %42, %arg13, %arg12 : tensor<4x2x8xi1>, tensor<4x2x8xf32>
    %44 = stablehlo.custom_call @Sharding(%43) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %45 = stablehlo.compare EQ, %30, %41, FLOAT : (tensor<4x2x8xf32>, tensor<4x2x8xf32>) -> tensor<4x2x8xi1>
    %46 = stablehlo.select %45, %arg15, %arg14 : tensor<4x2x8xi1>, tensor<4x2x8xf32>
    %47 = stablehlo.custom_call @Sharding(%46) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %48 = stablehlo.divide %44, %47 : tensor<4x2x8xf32>
    %49 = stablehlo.custom_call @Sharding(%48) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %50 = stablehlo.compare EQ, %30, %41, FLOAT : (tensor<4x2x8xf32>, tensor<4x2x8xf32>) -> tensor<4x2x8xi1>
    %51 = stablehlo.select %50, %arg17, %arg16 : tensor<4x2x8xi1>, tensor<4x2x8xf32>
    %52 = stablehlo.custom_call @Sharding(%51) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %53 = stablehlo.compare EQ, %arg22, %41, FLOAT : (tensor<4x2x8xf32>, tensor<4x2x8xf32>) -> tensor<4x2x8xi1>
    %54 = stablehlo.select %53, %arg19, %arg18 : tensor<4x2x8xi1>, tensor<4x2x8xf32>
    %55 = stablehlo.custom_call @Sharding(%54) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %56 = stablehlo.divide %52, %55 : tensor<4x2x8xf32>
    %57 = stablehlo.custom_call @Sharding(%56) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %58 = stablehlo.broadcast_in_dim %41, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
    %59 = stablehlo.custom_call @Sharding(%58) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %60 = stablehlo.broadcast_in_dim %59, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
    %61 = stablehlo.custom_call @Sharding(%60) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %62 = stablehlo.subtract %28#0, %61 : tensor<4x2x8x8xf32>
    %63 = stablehlo.custom_call @Sharding(%62) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %64 = stablehlo.exponential %63 : tensor<4x2x8x8xf32>
    %65 = stablehlo.custom_call @Sharding(%64) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %66 = stablehlo.subtract %arg22, %41 : tensor<4x2x8xf32>
    %67 = stablehlo.custom_call @Sharding(%66) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %68 = stablehlo.exponential %67 : tensor<4x2x8xf32>
    %69 = stablehlo.custom_call @Sharding(%68) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %70 = stablehlo.multiply %arg23, %69 : tensor<4x2x8xf32>
    %71 = stablehlo.custom_call @Sharding(%70) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %72 = stablehlo.reduce(%65 init: %cst_1) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %73 = stablehlo.custom_call @Sharding(%72) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %74 = stablehlo.add %71, %73 : tensor<4x2x8xf32>
    %75 = stablehlo.custom_call @Sharding(%74) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %76 = stablehlo.broadcast_in_dim %69, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
    %77 = stablehlo.custom_call @Sharding(%76) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %78 = stablehlo.broadcast_in_dim %77, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
    %79 = stablehlo.custom_call @Sharding(%78) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %80 = stablehlo.multiply %arg21, %79 : tensor<4x2x8x8xf32>
    %81 = stablehlo.custom_call @Sharding(%80) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %82 = stablehlo.dot_general %65, %arg25, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %83 = stablehlo.custom_call @Sharding(%82) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %84 = stablehlo.add %81, %83 : tensor<4x2x8x8xf32>
    %85 = stablehlo.custom_call @Sharding(%84) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %86 = "stablehlo.collective_permute"(%arg24) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0], [4, 5], [5, 6], [6, 7], [7, 4]]> : tensor<8x2xi64>}> : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %87 = "stablehlo.collective_permute"(%arg25) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0], [4, 5], [5, 6], [6, 7], [7, 4]]> : tensor<8x2xi64>}> : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    return %3, %85, %41, %75, %86, %87, %arg24, %28#1, %37, %39, %49, %57, %65, %69, %arg23, %77, %arg21, %arg25 : tensor<i32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x2x8x8xi1>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8x1xf32>, tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>
  }
  func.func private @remainder_2(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<i1>, %arg4: tensor<i32>, %arg5: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.remainder %arg0, %arg1 : tensor<i32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare NE, %1, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.compare LT, %1, %arg2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %4 = stablehlo.compare NE, %3, %arg3, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %5 = stablehlo.and %4, %2 : tensor<i1>
    %6 = stablehlo.custom_call @Sharding(%5) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i1>) -> tensor<i1>
    %7 = stablehlo.add %1, %arg5 : tensor<i32>
    %8 = stablehlo.custom_call @Sharding(%7) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %9 = stablehlo.select %6, %8, %1 : tensor<i1>, tensor<i32>
    %10 = stablehlo.custom_call @Sharding(%9) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    return %10 : tensor<i32>
  }
  func.func private @_where_3(%arg0: tensor<8x8xi1>, %arg1: tensor<4x2x8x8xf32>, %arg2: tensor<4x2x8x8xf32>) -> (tensor<4x2x8x8xf32>, tensor<4x2x8x8xi1>) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<4x2x8x8xi1>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xi1>) -> tensor<4x2x8x8xi1>
    %2 = stablehlo.select %1, %arg1, %arg2 : tensor<4x2x8x8xi1>, tensor<4x2x8x8xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    return %3, %1 : tensor<4x2x8x8xf32>, tensor<4x2x8x8xi1>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<4x4x8x2x8xf32>, %arg1: tensor<4x8x2x8xf32>, %arg2: tensor<i32>) -> tensor<4x4x8x2x8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3, 4] : (tensor<4x8x2x8xf32>) -> tensor<1x4x8x2x8xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<1x4x8x2x8xf32>) -> tensor<1x4x8x2x8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.dynamic_update_slice %arg0, %1, %arg2, %c, %c_0, %c_1, %c_2 : (tensor<4x4x8x2x8xf32>, tensor<1x4x8x2x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x4x8x2x8xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x8x2x8xf32>) -> tensor<4x4x8x2x8xf32>
    return %3 : tensor<4x4x8x2x8xf32>
  }
  func.func private @dynamic_update_index_in_dim_4(%arg0: tensor<4x4x2x8x8xi1>, %arg1: tensor<4x2x8x8xi1>, %arg2: tensor<i32>) -> tensor<4x4x2x8x8xi1> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3, 4] : (tensor<4x2x8x8xi1>) -> tensor<1x4x2x8x8xi1>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<1x4x2x8x8xi1>) -> tensor<1x4x2x8x8xi1>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.dynamic_update_slice %arg0, %1, %arg2, %c, %c_0, %c_1, %c_2 : (tensor<4x4x2x8x8xi1>, tensor<1x4x2x8x8xi1>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x4x2x8x8xi1>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x8xi1>) -> tensor<4x4x2x8x8xi1>
    return %3 : tensor<4x4x2x8x8xi1>
  }
  func.func private @dynamic_update_index_in_dim_5(%arg0: tensor<4x4x2x8x8xf32>, %arg1: tensor<4x2x8x8xf32>, %arg2: tensor<i32>) -> tensor<4x4x2x8x8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3, 4] : (tensor<4x2x8x8xf32>) -> tensor<1x4x2x8x8xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<1x4x2x8x8xf32>) -> tensor<1x4x2x8x8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.dynamic_update_slice %arg0, %1, %arg2, %c, %c_0, %c_1, %c_2 : (tensor<4x4x2x8x8xf32>, tensor<1x4x2x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x4x2x8x8xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x8xf32>) -> tensor<4x4x2x8x8xf32>
    return %3 : tensor<4x4x2x8x8xf32>
  }
  func.func private @dynamic_update_index_in_dim_6(%arg0: tensor<4x4x2x8xf32>, %arg1: tensor<4x2x8xf32>, %arg2: tensor<i32>) -> tensor<4x4x2x8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<4x2x8xf32>) -> tensor<1x4x2x8xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.dynamic_update_slice %arg0, %1, %arg2, %c, %c_0, %c_1 : (tensor<4x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x4x2x8xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    return %3 : tensor<4x4x2x8xf32>
  }
  func.func private @dynamic_update_index_in_dim_7(%arg0: tensor<4x4x2x8x1xf32>, %arg1: tensor<4x2x8x1xf32>, %arg2: tensor<i32>) -> tensor<4x4x2x8x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3, 4] : (tensor<4x2x8x1xf32>) -> tensor<1x4x2x8x1xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<1x4x2x8x1xf32>) -> tensor<1x4x2x8x1xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.dynamic_update_slice %arg0, %1, %arg2, %c, %c_0, %c_1, %c_2 : (tensor<4x4x2x8x1xf32>, tensor<1x4x2x8x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x4x2x8x1xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x4x2x8x1xf32>) -> tensor<4x4x2x8x1xf32>
    return %3 : tensor<4x4x2x8x1xf32>
  }
  func.func private @shmap_body_8(%arg0: tensor<4x8x2x8xf32>, %arg1: tensor<4x8x2x8xf32>, %arg2: tensor<1xf32>, %arg3: tensor<4x4x8x2x8xf32>, %arg4: tensor<4x4x2x8x8xi1>, %arg5: tensor<4x4x2x8x8xf32>, %arg6: tensor<4x4x2x8xf32>, %arg7: tensor<4x4x2x8xf32>, %arg8: tensor<4x4x2x8xf32>, %arg9: tensor<4x4x2x8x8xf32>, %arg10: tensor<4x4x2x8xf32>, %arg11: tensor<4x4x2x8xf32>, %arg12: tensor<4x4x2x8x1xf32>, %arg13: tensor<4x4x2x8x8xf32>, %arg14: tensor<4x4x8x2x8xf32>, %arg15: tensor<4x2x8x1xf32>, %arg16: tensor<4x2x8x8xf32>, %arg17: tensor<4x2x8x1xf32>) -> (tensor<4x8x2x8xf32> {jax.result_info = "[None, ('seq',), None, None]"}, tensor<4x8x2x8xf32> {jax.result_info = "[None, ('seq',), None, None]"}, tensor<4x8x2x8xf32> {jax.result_info = "[None, ('seq',), None, None]"}) {
    %0 = stablehlo.reshape %arg2 : (tensor<1xf32>) -> tensor<f32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<f32>) -> tensor<f32>
    %2 = stablehlo.transpose %arg0, dims = [0, 2, 1, 3] : (tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %4 = stablehlo.broadcast_in_dim %arg17, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
    %5 = stablehlo.custom_call @Sharding(%4) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %6 = stablehlo.multiply %3, %5 : tensor<4x2x8x8xf32>
    %7 = stablehlo.custom_call @Sharding(%6) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %8 = stablehlo.multiply %7, %arg16 : tensor<4x2x8x8xf32>
    %9 = stablehlo.custom_call @Sharding(%8) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %11 = stablehlo.custom_call @Sharding(%10) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %12 = stablehlo.reshape %11 : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
    %13 = stablehlo.custom_call @Sharding(%12) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %14 = stablehlo.negate %13 : tensor<4x2x8x1xf32>
    %15 = stablehlo.custom_call @Sharding(%14) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %16 = stablehlo.broadcast_in_dim %arg15, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
    %17 = stablehlo.custom_call @Sharding(%16) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %18 = stablehlo.divide %3, %17 : tensor<4x2x8x8xf32>
    %19 = stablehlo.custom_call @Sharding(%18) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.reduce(%15 init: %cst_0) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x1xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %21 = stablehlo.custom_call @Sharding(%20) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
    %23 = stablehlo.custom_call @Sharding(%22) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x8x2x8xf32>
    %25 = stablehlo.custom_call @Sharding(%24) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x8x2x8xf32>
    %27 = stablehlo.custom_call @Sharding(%26) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x8x2x8xf32>
    %29 = stablehlo.custom_call @Sharding(%28) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %30:21 = stablehlo.while(%iterArg = %arg3, %iterArg_5 = %arg4, %iterArg_6 = %arg5, %iterArg_7 = %arg6, %iterArg_8 = %arg7, %iterArg_9 = %arg8, %iterArg_10 = %arg9, %iterArg_11 = %arg10, %iterArg_12 = %arg11, %iterArg_13 = %arg12, %iterArg_14 = %arg13, %iterArg_15 = %arg14, %iterArg_16 = %arg1, %iterArg_17 = %1, %iterArg_18 = %c, %iterArg_19 = %29, %iterArg_20 = %19, %iterArg_21 = %23, %iterArg_22 = %21, %iterArg_23 = %25, %iterArg_24 = %27) : tensor<4x4x8x2x8xf32>, tensor<4x4x2x8x8xi1>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x1xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<f32>, tensor<i32>, tensor<4x8x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>
    cond {
      %c_25 = stablehlo.constant dense<4> : tensor<i32>
      %38 = stablehlo.custom_call @Sharding(%iterArg_18) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
      %39 = stablehlo.custom_call @Sharding(%c_25) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
      %40 = stablehlo.compare LT, %38, %39, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %40 : tensor<i1>
    } do {
      %c_25 = stablehlo.constant dense<4> : tensor<i32>
      %38 = stablehlo.subtract %c_25, %iterArg_18 : tensor<i32>
      %c_26 = stablehlo.constant dense<1> : tensor<i32>
      %39 = stablehlo.subtract %38, %c_26 : tensor<i32>
      %40 = func.call @dynamic_index_in_dim(%iterArg, %39) : (tensor<4x4x8x2x8xf32>, tensor<i32>) -> tensor<4x8x2x8xf32>
      %41 = func.call @dynamic_index_in_dim_9(%iterArg_5, %39) : (tensor<4x4x2x8x8xi1>, tensor<i32>) -> tensor<4x2x8x8xi1>
      %42 = func.call @dynamic_index_in_dim_10(%iterArg_6, %39) : (tensor<4x4x2x8x8xf32>, tensor<i32>) -> tensor<4x2x8x8xf32>
      %43 = func.call @dynamic_index_in_dim_11(%iterArg_7, %39) : (tensor<4x4x2x8xf32>, tensor<i32>) -> tensor<4x2x8xf32>
      %44 = func.call @dynamic_index_in_dim_11(%iterArg_8, %39) : (tensor<4x4x2x8xf32>, tensor<i32>) -> tensor<4x2x8xf32>
      %45 = func.call @dynamic_index_in_dim_11(%iterArg_9, %39) : (tensor<4x4x2x8xf32>, tensor<i32>) -> tensor<4x2x8xf32>
      %46 = func.call @dynamic_index_in_dim_10(%iterArg_10, %39) : (tensor<4x4x2x8x8xf32>, tensor<i32>) -> tensor<4x2x8x8xf32>
      %47 = func.call @dynamic_index_in_dim_11(%iterArg_11, %39) : (tensor<4x4x2x8xf32>, tensor<i32>) -> tensor<4x2x8xf32>
      %48 = func.call @dynamic_index_in_dim_11(%iterArg_12, %39) : (tensor<4x4x2x8xf32>, tensor<i32>) -> tensor<4x2x8xf32>
      %49 = func.call @dynamic_index_in_dim_12(%iterArg_13, %39) : (tensor<4x4x2x8x1xf32>, tensor<i32>) -> tensor<4x2x8x1xf32>
      %50 = func.call @dynamic_index_in_dim_10(%iterArg_14, %39) : (tensor<4x4x2x8x8xf32>, tensor<i32>) -> tensor<4x2x8x8xf32>
      %51 = func.call @dynamic_index_in_dim(%iterArg_15, %39) : (tensor<4x4x8x2x8xf32>, tensor<i32>) -> tensor<4x8x2x8xf32>
      %52:6 = func.call @closed_call_13(%iterArg_16, %iterArg_17, %iterArg_19, %iterArg_20, %iterArg_21, %iterArg_22, %iterArg_23, %iterArg_24, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51) : (tensor<4x8x2x8xf32>, tensor<f32>, tensor<4x8x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x2x8x8xi1>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8x1xf32>, tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>) -> (tensor<4x8x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>)
      %c_27 = stablehlo.constant dense<1> : tensor<i32>
      %53 = stablehlo.custom_call @Sharding(%iterArg_18) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
      %54 = stablehlo.custom_call @Sharding(%c_27) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
      %55 = stablehlo.add %53, %54 : tensor<i32>
      %56 = stablehlo.custom_call @Sharding(%55) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
      stablehlo.return %iterArg, %iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11, %iterArg_12, %iterArg_13, %iterArg_14, %iterArg_15, %iterArg_16, %iterArg_17, %56, %52#0, %52#1, %52#2, %52#3, %52#4, %52#5 : tensor<4x4x8x2x8xf32>, tensor<4x4x2x8x8xi1>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x1xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<f32>, tensor<i32>, tensor<4x8x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>
    }
    %31 = stablehlo.custom_call @Sharding(%30#14) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %32 = stablehlo.custom_call @Sharding(%30#15) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %33 = stablehlo.custom_call @Sharding(%30#16) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %34 = stablehlo.custom_call @Sharding(%30#17) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %35 = stablehlo.custom_call @Sharding(%30#18) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %36 = stablehlo.custom_call @Sharding(%30#19) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %37 = stablehlo.custom_call @Sharding(%30#20) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    return %32, %36, %37 : tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<4x4x8x2x8xf32>, %arg1: tensor<i32>) -> tensor<4x8x2x8xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, %c_2, sizes = [1, 4, 8, 2, 8] : (tensor<4x4x8x2x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x8x2x8xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<1x4x8x2x8xf32>) -> tensor<1x4x8x2x8xf32>
    %2 = stablehlo.reshape %1 : (tensor<1x4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    return %3 : tensor<4x8x2x8xf32>
  }
  func.func private @dynamic_index_in_dim_9(%arg0: tensor<4x4x2x8x8xi1>, %arg1: tensor<i32>) -> tensor<4x2x8x8xi1> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, %c_2, sizes = [1, 4, 2, 8, 8] : (tensor<4x4x2x8x8xi1>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x2x8x8xi1>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<1x4x2x8x8xi1>) -> tensor<1x4x2x8x8xi1>
    %2 = stablehlo.reshape %1 : (tensor<1x4x2x8x8xi1>) -> tensor<4x2x8x8xi1>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xi1>) -> tensor<4x2x8x8xi1>
    return %3 : tensor<4x2x8x8xi1>
  }
  func.func private @dynamic_index_in_dim_10(%arg0: tensor<4x4x2x8x8xf32>, %arg1: tensor<i32>) -> tensor<4x2x8x8xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, %c_2, sizes = [1, 4, 2, 8, 8] : (tensor<4x4x2x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x2x8x8xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<1x4x2x8x8xf32>) -> tensor<1x4x2x8x8xf32>
    %2 = stablehlo.reshape %1 : (tensor<1x4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    return %3 : tensor<4x2x8x8xf32>
  }
  func.func private @dynamic_index_in_dim_11(%arg0: tensor<4x4x2x8xf32>, %arg1: tensor<i32>) -> tensor<4x2x8xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 4, 2, 8] : (tensor<4x4x2x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x2x8xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32>
    %2 = stablehlo.reshape %1 : (tensor<1x4x2x8xf32>) -> tensor<4x2x8xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    return %3 : tensor<4x2x8xf32>
  }
  func.func private @dynamic_index_in_dim_12(%arg0: tensor<4x4x2x8x1xf32>, %arg1: tensor<i32>) -> tensor<4x2x8x1xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, %c_2, sizes = [1, 4, 2, 8, 1] : (tensor<4x4x2x8x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x2x8x1xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "unspecified_dims=[0,1,2,3,4]", mhlo.sharding = "{devices=[1,1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<1x4x2x8x1xf32>) -> tensor<1x4x2x8x1xf32>
    %2 = stablehlo.reshape %1 : (tensor<1x4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    return %3 : tensor<4x2x8x1xf32>
  }
  func.func private @closed_call_13(%arg0: tensor<4x8x2x8xf32>, %arg1: tensor<f32>, %arg2: tensor<4x8x2x8xf32>, %arg3: tensor<4x2x8x8xf32>, %arg4: tensor<4x2x8xf32>, %arg5: tensor<4x2x8xf32>, %arg6: tensor<4x8x2x8xf32>, %arg7: tensor<4x8x2x8xf32>, %arg8: tensor<4x8x2x8xf32>, %arg9: tensor<4x2x8x8xi1>, %arg10: tensor<4x2x8x8xf32>, %arg11: tensor<4x2x8xf32>, %arg12: tensor<4x2x8xf32>, %arg13: tensor<4x2x8xf32>, %arg14: tensor<4x2x8x8xf32>, %arg15: tensor<4x2x8xf32>, %arg16: tensor<4x2x8xf32>, %arg17: tensor<4x2x8x1xf32>, %arg18: tensor<4x2x8x8xf32>, %arg19: tensor<4x8x2x8xf32>) -> (tensor<4x8x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>) {
    %0 = "stablehlo.collective_permute"(%arg7) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [0, 3], [5, 4], [6, 5], [7, 6], [4, 7]]> : tensor<8x2xi64>}> : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %1 = "stablehlo.collective_permute"(%arg6) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [0, 3], [5, 4], [6, 5], [7, 6], [4, 7]]> : tensor<8x2xi64>}> : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %2 = stablehlo.dot_general %arg3, %arg14, batching_dims = [0, 1] x [0, 1], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %4 = stablehlo.transpose %3, dims = [0, 3, 1, 2] : (tensor<4x2x8x8xf32>) -> tensor<4x8x2x8xf32>
    %5 = stablehlo.custom_call @Sharding(%4) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %6 = stablehlo.add %0, %5 : tensor<4x8x2x8xf32>
    %7 = stablehlo.custom_call @Sharding(%6) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %8 = stablehlo.dot_general %arg3, %arg19, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %9 = stablehlo.custom_call @Sharding(%8) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %10 = stablehlo.multiply %arg18, %arg3 : tensor<4x2x8x8xf32>
    %11 = stablehlo.custom_call @Sharding(%10) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.reduce(%11 init: %cst) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %13 = stablehlo.custom_call @Sharding(%12) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %14 = stablehlo.reshape %13 : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
    %15 = stablehlo.custom_call @Sharding(%14) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %16 = stablehlo.broadcast_in_dim %arg17, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
    %17 = stablehlo.custom_call @Sharding(%16) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %18 = stablehlo.multiply %arg3, %17 : tensor<4x2x8x8xf32>
    %19 = stablehlo.custom_call @Sharding(%18) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.reduce(%15 init: %cst_0) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x1xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %21 = stablehlo.custom_call @Sharding(%20) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %22 = stablehlo.broadcast_in_dim %arg5, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x8xf32>
    %23 = stablehlo.custom_call @Sharding(%22) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %24 = stablehlo.add %9, %23 : tensor<4x2x8x8xf32>
    %25 = stablehlo.custom_call @Sharding(%24) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %26 = stablehlo.multiply %arg16, %arg5 : tensor<4x2x8xf32>
    %27 = stablehlo.custom_call @Sharding(%26) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %28 = stablehlo.add %21, %27 : tensor<4x2x8xf32>
    %29 = stablehlo.custom_call @Sharding(%28) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %30 = stablehlo.multiply %arg5, %arg15 : tensor<4x2x8xf32>
    %31 = stablehlo.custom_call @Sharding(%30) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %32 = stablehlo.multiply %29, %arg15 : tensor<4x2x8xf32>
    %33 = stablehlo.custom_call @Sharding(%32) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %34 = stablehlo.negate %33 : tensor<4x2x8xf32>
    %35 = stablehlo.custom_call @Sharding(%34) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %36 = stablehlo.add %arg4, %35 : tensor<4x2x8xf32>
    %37 = stablehlo.custom_call @Sharding(%36) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %38 = stablehlo.multiply %25, %arg14 : tensor<4x2x8x8xf32>
    %39 = stablehlo.custom_call @Sharding(%38) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %40 = stablehlo.negate %39 : tensor<4x2x8x8xf32>
    %41 = stablehlo.custom_call @Sharding(%40) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %42 = stablehlo.reduce(%41 init: %cst_1) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %43 = stablehlo.custom_call @Sharding(%42) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %44 = stablehlo.reshape %43 : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
    %45 = stablehlo.custom_call @Sharding(%44) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %46 = stablehlo.reduce(%45 init: %cst_2) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x1xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %47 = stablehlo.custom_call @Sharding(%46) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %48 = stablehlo.add %37, %47 : tensor<4x2x8xf32>
    %49 = stablehlo.custom_call @Sharding(%48) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %50 = stablehlo.multiply %49, %arg13 : tensor<4x2x8xf32>
    %51 = stablehlo.custom_call @Sharding(%50) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %52 = stablehlo.multiply %49, %arg12 : tensor<4x2x8xf32>
    %53 = stablehlo.custom_call @Sharding(%52) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %54 = stablehlo.add %33, %53 : tensor<4x2x8xf32>
    %55 = stablehlo.custom_call @Sharding(%54) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %56 = stablehlo.divide %51, %arg11 : tensor<4x2x8xf32>
    %57 = stablehlo.custom_call @Sharding(%56) {backend_config = "unspecified_dims=[0,1,2]", mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
    %58 = stablehlo.broadcast_in_dim %57, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x8xf32>
    %59 = stablehlo.custom_call @Sharding(%58) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %60 = stablehlo.multiply %59, %arg10 : tensor<4x2x8x8xf32>
    %61 = stablehlo.custom_call @Sharding(%60) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %62 = stablehlo.add %39, %61 : tensor<4x2x8x8xf32>
    %63 = stablehlo.custom_call @Sharding(%62) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %64 = call @_where_14(%arg9, %63) : (tensor<4x2x8x8xi1>, tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %65 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<4x2x8x8xf32>
    %66 = stablehlo.custom_call @Sharding(%65) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %67 = stablehlo.multiply %64, %66 : tensor<4x2x8x8xf32>
    %68 = stablehlo.custom_call @Sharding(%67) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %69 = stablehlo.dot_general %68, %arg0, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %70 = stablehlo.custom_call @Sharding(%69) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %71 = stablehlo.transpose %70, dims = [0, 2, 1, 3] : (tensor<4x2x8x8xf32>) -> tensor<4x8x2x8xf32>
    %72 = stablehlo.custom_call @Sharding(%71) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %73 = stablehlo.add %1, %72 : tensor<4x8x2x8xf32>
    %74 = stablehlo.custom_call @Sharding(%73) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %75 = stablehlo.dot_general %68, %arg8, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %76 = stablehlo.custom_call @Sharding(%75) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %77 = stablehlo.transpose %76, dims = [0, 2, 1, 3] : (tensor<4x2x8x8xf32>) -> tensor<4x8x2x8xf32>
    %78 = stablehlo.custom_call @Sharding(%77) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %79 = stablehlo.add %arg2, %78 : tensor<4x8x2x8xf32>
    %80 = stablehlo.custom_call @Sharding(%79) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    return %80, %19, %55, %31, %74, %7 : tensor<4x8x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>
  }
  func.func private @_where_14(%arg0: tensor<4x2x8x8xi1>, %arg1: tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x2x8x8xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<4x2x8x8xi1>, tensor<4x2x8x8xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1,2,3]", mhlo.sharding = "{devices=[1,1,1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    return %3 : tensor<4x2x8x8xf32>
  }
}
