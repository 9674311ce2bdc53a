module @jit_ring_attention_grad attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "seq"=4]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "seq", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<4x32x2x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"seq"}, {}, {}]>}, %arg1: tensor<4x32x2x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"seq"}, {}, {}]>}, %arg2: tensor<4x32x2x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"seq"}, {}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, []>}, tensor<4x32x2x8xf32> {jax.result_info = "result[1][0]", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"seq"}, {}, {}]>}, tensor<4x32x2x8xf32> {jax.result_info = "result[1][1]", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"seq"}, {}, {}]>}, tensor<4x32x2x8xf32> {jax.result_info = "result[1][2]", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"seq"}, {}, {}]>}) {
    %0:17 = sdy.manual_computation(%arg0, %arg1, %arg2) in_shardings=[<@mesh, [{?}, {"seq", ?}, {?}, {?}]>, <@mesh, [{?}, {"seq", ?}, {?}, {?}]>, <@mesh, [{?}, {"seq", ?}, {?}, {?}]>] out_shardings=[<@mesh, [{"seq", ?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}]>, <@mesh, [{?}, {"seq", ?}, {?}, {?}]>] manual_axes={"seq"} (%arg3: tensor<4x8x2x8xf32>, %arg4: tensor<4x8x2x8xf32>, %arg5: tensor<4x8x2x8xf32>) {
      %8 = sdy.manual_computation() in_shardings=[] out_shardings=[<@mesh, []>] manual_axes={"data"} () {
        %c_32 = stablehlo.constant dense<1> : tensor<ui32>
        %c_33 = stablehlo.constant dense<4> : tensor<ui32>
        %106 = stablehlo.partition_id : tensor<ui32>
        %107 = stablehlo.divide %106, %c_32 : tensor<ui32>
        %108 = stablehlo.remainder %107, %c_33 : tensor<ui32>
        %109 = stablehlo.convert %108 : (tensor<ui32>) -> tensor<i32>
        sdy.return %109 : tensor<i32>
      } : () -> tensor<i32>
      %c = stablehlo.constant dense<8> : tensor<i32>
      %9 = stablehlo.multiply %8, %c : tensor<i32>
      %10 = sdy.sharding_constraint %9 <@mesh, []> : tensor<i32>
      %11 = stablehlo.iota dim = 0 : tensor<8xi32>
      %12 = sdy.sharding_constraint %11 <@mesh, [{?}]> : tensor<8xi32>
      %13 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %14 = sdy.sharding_constraint %13 <@mesh, [{?}]> : tensor<8xi32>
      %15 = stablehlo.add %14, %12 : tensor<8xi32>
      %16 = sdy.sharding_constraint %15 <@mesh, [{?}]> : tensor<8xi32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %17 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x2x8x8xf32>
      %18 = sdy.sharding_constraint %17 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
      %cst_3 = stablehlo.constant dense<-1.000000e+30> : tensor<f32>
      %19 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
      %20 = sdy.sharding_constraint %19 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %21 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
      %22 = sdy.sharding_constraint %21 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %c_5 = stablehlo.constant dense<4> : tensor<i32>
      %23:5 = func.call @remainder(%c_5) : (tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i1>, tensor<i32>, tensor<i32>)
      %c_6 = stablehlo.constant dense<8> : tensor<i32>
      %24 = stablehlo.iota dim = 0 : tensor<8xi32>
      %25 = sdy.sharding_constraint %24 <@mesh, [{?}]> : tensor<8xi32>
      %cst_7 = stablehlo.constant dense<0.353553385> : tensor<f32>
      %26 = stablehlo.broadcast_in_dim %16, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
      %27 = sdy.sharding_constraint %26 <@mesh, [{?}, {?}]> : tensor<8x1xi32>
      %cst_8 = stablehlo.constant dense<-1.000000e+30> : tensor<f32>
      %28 = func.call @_where_0(%cst_8) : (tensor<f32>) -> tensor<4x2x8x8xf32>
      %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %29 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
      %30 = sdy.sharding_constraint %29 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %31 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
      %32 = sdy.sharding_constraint %31 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %cst_11 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %33 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
      %34 = sdy.sharding_constraint %33 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %cst_12 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %35 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
      %36 = sdy.sharding_constraint %35 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %cst_13 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %37 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
      %38 = sdy.sharding_constraint %37 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %39 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
      %40 = sdy.sharding_constraint %39 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %cst_15 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %41 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
      %42 = sdy.sharding_constraint %41 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %cst_16 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %43 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
      %44 = sdy.sharding_constraint %43 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %c_17 = stablehlo.constant dense<0> : tensor<i32>
      %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %45 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<4x4x8x2x8xf32>
      %46 = sdy.sharding_constraint %45 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x8x2x8xf32>
      %c_19 = stablehlo.constant dense<false> : tensor<i1>
      %47 = stablehlo.broadcast_in_dim %c_19, dims = [] : (tensor<i1>) -> tensor<4x4x2x8x8xi1>
      %48 = sdy.sharding_constraint %47 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x2x8x8xi1>
      %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %49 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<4x4x2x8x8xf32>
      %50 = sdy.sharding_constraint %49 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x2x8x8xf32>
      %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %51 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<4x4x2x8xf32>
      %52 = sdy.sharding_constraint %51 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x4x2x8xf32>
      %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %53 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<4x4x2x8xf32>
      %54 = sdy.sharding_constraint %53 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x4x2x8xf32>
      %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %55 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<4x4x2x8xf32>
      %56 = sdy.sharding_constraint %55 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x4x2x8xf32>
      %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %57 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<4x4x2x8x8xf32>
      %58 = sdy.sharding_constraint %57 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x2x8x8xf32>
      %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %59 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<4x4x2x8xf32>
      %60 = sdy.sharding_constraint %59 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x4x2x8xf32>
      %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %61 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<4x4x2x8xf32>
      %62 = sdy.sharding_constraint %61 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x4x2x8xf32>
      %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %63 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<4x4x2x8x1xf32>
      %64 = sdy.sharding_constraint %63 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x2x8x1xf32>
      %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %65 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<4x4x2x8x8xf32>
      %66 = sdy.sharding_constraint %65 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x2x8x8xf32>
      %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %67 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<4x4x8x2x8xf32>
      %68 = sdy.sharding_constraint %67 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x8x2x8xf32>
      %c_30 = stablehlo.constant dense<0> : tensor<i32>
      %69:39 = stablehlo.while(%iterArg = %27, %iterArg_32 = %8, %iterArg_33 = %23#0, %iterArg_34 = %23#1, %iterArg_35 = %23#2, %iterArg_36 = %23#3, %iterArg_37 = %23#4, %iterArg_38 = %c_6, %iterArg_39 = %25, %iterArg_40 = %arg3, %iterArg_41 = %cst_7, %iterArg_42 = %28, %iterArg_43 = %32, %iterArg_44 = %30, %iterArg_45 = %36, %iterArg_46 = %34, %iterArg_47 = %40, %iterArg_48 = %38, %iterArg_49 = %44, %iterArg_50 = %42, %iterArg_51 = %c_30, %iterArg_52 = %c_17, %iterArg_53 = %18, %iterArg_54 = %20, %iterArg_55 = %22, %iterArg_56 = %arg4, %iterArg_57 = %arg5, %iterArg_58 = %46, %iterArg_59 = %48, %iterArg_60 = %50, %iterArg_61 = %52, %iterArg_62 = %54, %iterArg_63 = %56, %iterArg_64 = %58, %iterArg_65 = %60, %iterArg_66 = %62, %iterArg_67 = %64, %iterArg_68 = %66, %iterArg_69 = %68) : tensor<8x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i1>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<8xi32>, tensor<4x8x2x8xf32>, tensor<f32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<i32>, tensor<i32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x4x8x2x8xf32>, tensor<4x4x2x8x8xi1>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x1xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x8x2x8xf32>
      cond {
        %c_70 = stablehlo.constant dense<4> : tensor<i32>
        %106 = sdy.sharding_constraint %iterArg_51 <@mesh, []> : tensor<i32>
        %107 = sdy.sharding_constraint %c_70 <@mesh, []> : tensor<i32>
        %108 = stablehlo.compare LT, %106, %107, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %108 : tensor<i1>
      } do {
        %106:18 = func.call @closed_call(%iterArg, %iterArg_32, %iterArg_33, %iterArg_34, %iterArg_35, %iterArg_36, %iterArg_37, %iterArg_38, %iterArg_39, %iterArg_40, %iterArg_41, %iterArg_42, %iterArg_43, %iterArg_44, %iterArg_45, %iterArg_46, %iterArg_47, %iterArg_48, %iterArg_49, %iterArg_50, %iterArg_52, %iterArg_53, %iterArg_54, %iterArg_55, %iterArg_56, %iterArg_57) : (tensor<8x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i1>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<8xi32>, tensor<4x8x2x8xf32>, tensor<f32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<i32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>) -> (tensor<i32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x2x8x8xi1>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8x1xf32>, tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>)
        %107 = func.call @dynamic_update_index_in_dim(%iterArg_58, %106#6, %iterArg_51) : (tensor<4x4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<i32>) -> tensor<4x4x8x2x8xf32>
        %108 = func.call @dynamic_update_index_in_dim_3(%iterArg_59, %106#7, %iterArg_51) : (tensor<4x4x2x8x8xi1>, tensor<4x2x8x8xi1>, tensor<i32>) -> tensor<4x4x2x8x8xi1>
        %109 = func.call @dynamic_update_index_in_dim_4(%iterArg_60, %106#8, %iterArg_51) : (tensor<4x4x2x8x8xf32>, tensor<4x2x8x8xf32>, tensor<i32>) -> tensor<4x4x2x8x8xf32>
        %110 = func.call @dynamic_update_index_in_dim_5(%iterArg_61, %106#9, %iterArg_51) : (tensor<4x4x2x8xf32>, tensor<4x2x8xf32>, tensor<i32>) -> tensor<4x4x2x8xf32>
        %111 = func.call @dynamic_update_index_in_dim_5(%iterArg_62, %106#10, %iterArg_51) : (tensor<4x4x2x8xf32>, tensor<4x2x8xf32>, tensor<i32>) -> tensor<4x4x2x8xf32>
        %112 = func.call @dynamic_update_index_in_dim_5(%iterArg_63, %106#11, %iterArg_51) : (tensor<4x4x2x8xf32>, tensor<4x2x8xf32>, tensor<i32>) -> tensor<4x4x2x8xf32>
        %113 = func.call @dynamic_update_index_in_dim_4(%iterArg_64, %106#12, %iterArg_51) : (tensor<4x4x2x8x8xf32>, tensor<4x2x8x8xf32>, tensor<i32>) -> tensor<4x4x2x8x8xf32>
        %114 = func.call @dynamic_update_index_in_dim_5(%iterArg_65, %106#13, %iterArg_51) : (tensor<4x4x2x8xf32>, tensor<4x2x8xf32>, tensor<i32>) -> tensor<4x4x2x8xf32>
        %115 = func.call @dynamic_update_index_in_dim_5(%iterArg_66, %106#14, %iterArg_51) : (tensor<4x4x2x8xf32>, tensor<4x2x8xf32>, tensor<i32>) -> tensor<4x4x2x8xf32>
        %116 = func.call @dynamic_update_index_in_dim_6(%iterArg_67, %106#15, %iterArg_51) : (tensor<4x4x2x8x1xf32>, tensor<4x2x8x1xf32>, tensor<i32>) -> tensor<4x4x2x8x1xf32>
        %117 = func.call @dynamic_update_index_in_dim_4(%iterArg_68, %106#16, %iterArg_51) : (tensor<4x4x2x8x8xf32>, tensor<4x2x8x8xf32>, tensor<i32>) -> tensor<4x4x2x8x8xf32>
        %118 = func.call @dynamic_update_index_in_dim(%iterArg_69, %106#17, %iterArg_51) : (tensor<4x4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<i32>) -> tensor<4x4x8x2x8xf32>
        %c_70 = stablehlo.constant dense<1> : tensor<i32>
        %119 = sdy.sharding_constraint %iterArg_51 <@mesh, []> : tensor<i32>
        %120 = sdy.sharding_constraint %c_70 <@mesh, []> : tensor<i32>
        %121 = stablehlo.add %119, %120 : tensor<i32>
        %122 = sdy.sharding_constraint %121 <@mesh, []> : tensor<i32>
        stablehlo.return %iterArg, %iterArg_32, %iterArg_33, %iterArg_34, %iterArg_35, %iterArg_36, %iterArg_37, %iterArg_38, %iterArg_39, %iterArg_40, %iterArg_41, %iterArg_42, %iterArg_43, %iterArg_44, %iterArg_45, %iterArg_46, %iterArg_47, %iterArg_48, %iterArg_49, %iterArg_50, %122, %106#0, %106#1, %106#2, %106#3, %106#4, %106#5, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118 : tensor<8x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i1>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<8xi32>, tensor<4x8x2x8xf32>, tensor<f32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<i32>, tensor<i32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x4x8x2x8xf32>, tensor<4x4x2x8x8xi1>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x1xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x8x2x8xf32>
      }
      %70 = sdy.sharding_constraint %69#20 <@mesh, []> : tensor<i32>
      %71 = sdy.sharding_constraint %69#21 <@mesh, []> : tensor<i32>
      %72 = sdy.sharding_constraint %69#22 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
      %73 = sdy.sharding_constraint %69#23 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %74 = sdy.sharding_constraint %69#24 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %75 = sdy.sharding_constraint %69#25 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x8x2x8xf32>
      %76 = sdy.sharding_constraint %69#26 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x8x2x8xf32>
      %77 = sdy.sharding_constraint %69#27 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x8x2x8xf32>
      %78 = sdy.sharding_constraint %69#28 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x2x8x8xi1>
      %79 = sdy.sharding_constraint %69#29 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x2x8x8xf32>
      %80 = sdy.sharding_constraint %69#30 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x4x2x8xf32>
      %81 = sdy.sharding_constraint %69#31 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x4x2x8xf32>
      %82 = sdy.sharding_constraint %69#32 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x4x2x8xf32>
      %83 = sdy.sharding_constraint %69#33 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x2x8x8xf32>
      %84 = sdy.sharding_constraint %69#34 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x4x2x8xf32>
      %85 = sdy.sharding_constraint %69#35 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x4x2x8xf32>
      %86 = sdy.sharding_constraint %69#36 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x2x8x1xf32>
      %87 = sdy.sharding_constraint %69#37 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x2x8x8xf32>
      %88 = sdy.sharding_constraint %69#38 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x8x2x8xf32>
      %89 = stablehlo.broadcast_in_dim %74, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
      %90 = sdy.sharding_constraint %89 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x1xf32>
      %91 = stablehlo.broadcast_in_dim %90, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
      %92 = sdy.sharding_constraint %91 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
      %93 = stablehlo.divide %72, %92 : tensor<4x2x8x8xf32>
      %94 = sdy.sharding_constraint %93 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
      %95 = stablehlo.multiply %90, %90 : tensor<4x2x8x1xf32>
      %96 = sdy.sharding_constraint %95 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x1xf32>
      %cst_31 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %97 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<4x2x8x1xf32>
      %98 = sdy.sharding_constraint %97 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x1xf32>
      %99 = stablehlo.divide %98, %96 : tensor<4x2x8x1xf32>
      %100 = sdy.sharding_constraint %99 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x1xf32>
      %101 = sdy.sharding_constraint %100 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x1xf32>
      %102 = stablehlo.transpose %94, dims = [0, 2, 1, 3] : (tensor<4x2x8x8xf32>) -> tensor<4x8x2x8xf32>
      %103 = sdy.sharding_constraint %102 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x8x2x8xf32>
      %104 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<1xf32>
      %105 = sdy.sharding_constraint %104 <@mesh, [{?}]> : tensor<1xf32>
      sdy.return %105, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %90, %72, %101, %103 : tensor<1xf32>, tensor<4x4x8x2x8xf32>, tensor<4x4x2x8x8xi1>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x1xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x8x2x8xf32>, tensor<4x2x8x1xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8x1xf32>, tensor<4x8x2x8xf32>
    } : (tensor<4x32x2x8xf32>, tensor<4x32x2x8xf32>, tensor<4x32x2x8xf32>) -> (tensor<4xf32>, tensor<16x4x8x2x8xf32>, tensor<16x4x2x8x8xi1>, tensor<16x4x2x8x8xf32>, tensor<16x4x2x8xf32>, tensor<16x4x2x8xf32>, tensor<16x4x2x8xf32>, tensor<16x4x2x8x8xf32>, tensor<16x4x2x8xf32>, tensor<16x4x2x8xf32>, tensor<16x4x2x8x1xf32>, tensor<16x4x2x8x8xf32>, tensor<16x4x8x2x8xf32>, tensor<16x2x8x1xf32>, tensor<16x2x8x8xf32>, tensor<16x2x8x1xf32>, tensor<4x32x2x8xf32>)
    %1 = stablehlo.multiply %0#16, %0#16 : tensor<4x32x2x8xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x32x2x8xf32>
    %3 = stablehlo.multiply %2, %0#16 : tensor<4x32x2x8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<4x32x2x8xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x32x2x8xf32>
    %6 = stablehlo.multiply %5, %3 : tensor<4x32x2x8xf32>
    %7:3 = sdy.manual_computation(%6, %arg0, %0#0, %0#1, %0#2, %0#3, %0#4, %0#5, %0#6, %0#7, %0#8, %0#9, %0#10, %0#11, %0#12, %0#13, %0#14, %0#15) in_shardings=[<@mesh, [{?}, {"seq", ?}, {?}, {?}]>, <@mesh, [{?}, {"seq", ?}, {?}, {?}]>, <@mesh, [{"seq", ?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}]>, <@mesh, [{"seq", ?}, {?}, {?}, {?}]>] out_shardings=[<@mesh, [{?}, {"seq", ?}, {?}, {?}]>, <@mesh, [{?}, {"seq", ?}, {?}, {?}]>, <@mesh, [{?}, {"seq", ?}, {?}, {?}]>] manual_axes={"seq"} (%arg3: tensor<4x8x2x8xf32>, %arg4: tensor<4x8x2x8xf32>, %arg5: tensor<1xf32>, %arg6: tensor<4x4x8x2x8xf32>, %arg7: tensor<4x4x2x8x8xi1>, %arg8: tensor<4x4x2x8x8xf32>, %arg9: tensor<4x4x2x8xf32>, %arg10: tensor<4x4x2x8xf32>, %arg11: tensor<4x4x2x8xf32>, %arg12: tensor<4x4x2x8x8xf32>, %arg13: tensor<4x4x2x8xf32>, %arg14: tensor<4x4x2x8xf32>, %arg15: tensor<4x4x2x8x1xf32>, %arg16: tensor<4x4x2x8x8xf32>, %arg17: tensor<4x4x8x2x8xf32>, %arg18: tensor<4x2x8x1xf32>, %arg19: tensor<4x2x8x8xf32>, %arg20: tensor<4x2x8x1xf32>) {
      %8 = stablehlo.reshape %arg5 : (tensor<1xf32>) -> tensor<f32>
      %9 = sdy.sharding_constraint %8 <@mesh, []> : tensor<f32>
      %10 = stablehlo.transpose %arg3, dims = [0, 2, 1, 3] : (tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
      %11 = sdy.sharding_constraint %10 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
      %12 = stablehlo.broadcast_in_dim %arg20, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
      %13 = sdy.sharding_constraint %12 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
      %14 = stablehlo.multiply %11, %13 : tensor<4x2x8x8xf32>
      %15 = sdy.sharding_constraint %14 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
      %16 = stablehlo.multiply %15, %arg19 : tensor<4x2x8x8xf32>
      %17 = sdy.sharding_constraint %16 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %18 = stablehlo.reduce(%17 init: %cst_2) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
      %19 = sdy.sharding_constraint %18 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %20 = stablehlo.reshape %19 : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
      %21 = sdy.sharding_constraint %20 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x1xf32>
      %22 = stablehlo.negate %21 : tensor<4x2x8x1xf32>
      %23 = sdy.sharding_constraint %22 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x1xf32>
      %24 = stablehlo.broadcast_in_dim %arg18, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
      %25 = sdy.sharding_constraint %24 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
      %26 = stablehlo.divide %11, %25 : tensor<4x2x8x8xf32>
      %27 = sdy.sharding_constraint %26 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %28 = stablehlo.reduce(%23 init: %cst_3) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x1xf32>, tensor<f32>) -> tensor<4x2x8xf32>
      %29 = sdy.sharding_constraint %28 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %30 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
      %31 = sdy.sharding_constraint %30 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %32 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x8x2x8xf32>
      %33 = sdy.sharding_constraint %32 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x8x2x8xf32>
      %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %34 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x8x2x8xf32>
      %35 = sdy.sharding_constraint %34 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x8x2x8xf32>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %36 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x8x2x8xf32>
      %37 = sdy.sharding_constraint %36 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x8x2x8xf32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %38:21 = stablehlo.while(%iterArg = %arg6, %iterArg_8 = %arg7, %iterArg_9 = %arg8, %iterArg_10 = %arg9, %iterArg_11 = %arg10, %iterArg_12 = %arg11, %iterArg_13 = %arg12, %iterArg_14 = %arg13, %iterArg_15 = %arg14, %iterArg_16 = %arg15, %iterArg_17 = %arg16, %iterArg_18 = %arg17, %iterArg_19 = %arg4, %iterArg_20 = %9, %iterArg_21 = %c, %iterArg_22 = %37, %iterArg_23 = %27, %iterArg_24 = %31, %iterArg_25 = %29, %iterArg_26 = %33, %iterArg_27 = %35) : tensor<4x4x8x2x8xf32>, tensor<4x4x2x8x8xi1>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x1xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<f32>, tensor<i32>, tensor<4x8x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>
      cond {
        %c_28 = stablehlo.constant dense<4> : tensor<i32>
        %46 = sdy.sharding_constraint %iterArg_21 <@mesh, []> : tensor<i32>
        %47 = sdy.sharding_constraint %c_28 <@mesh, []> : tensor<i32>
        %48 = stablehlo.compare LT, %46, %47, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %48 : tensor<i1>
      } do {
        %c_28 = stablehlo.constant dense<4> : tensor<i32>
        %46 = stablehlo.subtract %c_28, %iterArg_21 : tensor<i32>
        %c_29 = stablehlo.constant dense<1> : tensor<i32>
        %47 = stablehlo.subtract %46, %c_29 : tensor<i32>
        %48 = func.call @dynamic_index_in_dim(%iterArg, %47) : (tensor<4x4x8x2x8xf32>, tensor<i32>) -> tensor<4x8x2x8xf32>
        %49 = func.call @dynamic_index_in_dim_7(%iterArg_8, %47) : (tensor<4x4x2x8x8xi1>, tensor<i32>) -> tensor<4x2x8x8xi1>
        %50 = func.call @dynamic_index_in_dim_8(%iterArg_9, %47) : (tensor<4x4x2x8x8xf32>, tensor<i32>) -> tensor<4x2x8x8xf32>
        %51 = func.call @dynamic_index_in_dim_9(%iterArg_10, %47) : (tensor<4x4x2x8xf32>, tensor<i32>) -> tensor<4x2x8xf32>
        %52 = func.call @dynamic_index_in_dim_9(%iterArg_11, %47) : (tensor<4x4x2x8xf32>, tensor<i32>) -> tensor<4x2x8xf32>
        %53 = func.call @dynamic_index_in_dim_9(%iterArg_12, %47) : (tensor<4x4x2x8xf32>, tensor<i32>) -> tensor<4x2x8xf32>
        %54 = func.call @dynamic_index_in_dim_8(%iterArg_13, %47) : (tensor<4x4x2x8x8xf32>, tensor<i32>) -> tensor<4x2x8x8xf32>
        %55 = func.call @dynamic_index_in_dim_9(%iterArg_14, %47) : (tensor<4x4x2x8xf32>, tensor<i32>) -> tensor<4x2x8xf32>
        %56 = func.call @dynamic_index_in_dim_9(%iterArg_15, %47) : (tensor<4x4x2x8xf32>, tensor<i32>) -> tensor<4x2x8xf32>
        %57 = func.call @dynamic_index_in_dim_10(%iterArg_16, %47) : (tensor<4x4x2x8x1xf32>, tensor<i32>) -> tensor<4x2x8x1xf32>
        %58 = func.call @dynamic_index_in_dim_8(%iterArg_17, %47) : (tensor<4x4x2x8x8xf32>, tensor<i32>) -> tensor<4x2x8x8xf32>
        %59 = func.call @dynamic_index_in_dim(%iterArg_18, %47) : (tensor<4x4x8x2x8xf32>, tensor<i32>) -> tensor<4x8x2x8xf32>
        %60:6 = func.call @closed_call_11(%iterArg_19, %iterArg_20, %iterArg_22, %iterArg_23, %iterArg_24, %iterArg_25, %iterArg_26, %iterArg_27, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59) : (tensor<4x8x2x8xf32>, tensor<f32>, tensor<4x8x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x2x8x8xi1>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8x1xf32>, tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>) -> (tensor<4x8x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>)
        %c_30 = stablehlo.constant dense<1> : tensor<i32>
        %61 = sdy.sharding_constraint %iterArg_21 <@mesh, []> : tensor<i32>
        %62 = sdy.sharding_constraint %c_30 <@mesh, []> : tensor<i32>
        %63 = stablehlo.add %61, %62 : tensor<i32>
        %64 = sdy.sharding_constraint %63 <@mesh, []> : tensor<i32>
        stablehlo.return %iterArg, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11, %iterArg_12, %iterArg_13, %iterArg_14, %iterArg_15, %iterArg_16, %iterArg_17, %iterArg_18, %iterArg_19, %iterArg_20, %64, %60#0, %60#1, %60#2, %60#3, %60#4, %60#5 : tensor<4x4x8x2x8xf32>, tensor<4x4x2x8x8xi1>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8xf32>, tensor<4x4x2x8x1xf32>, tensor<4x4x2x8x8xf32>, tensor<4x4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<f32>, tensor<i32>, tensor<4x8x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>
      }
      %39 = sdy.sharding_constraint %38#14 <@mesh, []> : tensor<i32>
      %40 = sdy.sharding_constraint %38#15 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x8x2x8xf32>
      %41 = sdy.sharding_constraint %38#16 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
      %42 = sdy.sharding_constraint %38#17 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %43 = sdy.sharding_constraint %38#18 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
      %44 = sdy.sharding_constraint %38#19 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x8x2x8xf32>
      %45 = sdy.sharding_constraint %38#20 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x8x2x8xf32>
      sdy.return %40, %44, %45 : tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>
    } : (tensor<4x32x2x8xf32>, tensor<4x32x2x8xf32>, tensor<4xf32>, tensor<16x4x8x2x8xf32>, tensor<16x4x2x8x8xi1>, tensor<16x4x2x8x8xf32>, tensor<16x4x2x8xf32>, tensor<16x4x2x8xf32>, tensor<16x4x2x8xf32>, tensor<16x4x2x8x8xf32>, tensor<16x4x2x8xf32>, tensor<16x4x2x8xf32>, tensor<16x4x2x8x1xf32>, tensor<16x4x2x8x8xf32>, tensor<16x4x8x2x8xf32>, tensor<16x2x8x1xf32>, tensor<16x2x8x8xf32>, tensor<16x2x8x1xf32>) -> (tensor<4x32x2x8xf32>, tensor<4x32x2x8xf32>, tensor<4x32x2x8xf32>)
    return %4, %7#0, %7#1, %7#2 : tensor<f32>, tensor<4x32x2x8xf32>, tensor<4x32x2x8xf32>, tensor<4x32x2x8xf32>
  }
  func.func private @remainder(%arg0: tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i1>, tensor<i32>, tensor<i32>) {
    %0 = stablehlo.convert %arg0 : tensor<i32>
    %1 = sdy.sharding_constraint %0 <@mesh, []> : tensor<i32>
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
    %1 = sdy.sharding_constraint %0 <@mesh, []> : tensor<i32>
    return %1 : tensor<i32>
  }
  func.func private @_where_0(%arg0: tensor<f32>) -> tensor<4x2x8x8xf32> {
    %0 = stablehlo.convert %arg0 : tensor<f32>
    %1 = sdy.sharding_constraint %0 <@mesh, []> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<4x2x8x8xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    return %3 : tensor<4x2x8x8xf32>
  }
  func.func private @closed_call(%arg0: tensor<8x1xi32>, %arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<i32>, %arg4: tensor<i1>, %arg5: tensor<i32>, %arg6: tensor<i32>, %arg7: tensor<i32>, %arg8: tensor<8xi32>, %arg9: tensor<4x8x2x8xf32>, %arg10: tensor<f32>, %arg11: tensor<4x2x8x8xf32>, %arg12: tensor<4x2x8xf32>, %arg13: tensor<4x2x8xf32>, %arg14: tensor<4x2x8xf32>, %arg15: tensor<4x2x8xf32>, %arg16: tensor<4x2x8xf32>, %arg17: tensor<4x2x8xf32>, %arg18: tensor<4x2x8xf32>, %arg19: tensor<4x2x8xf32>, %arg20: tensor<i32>, %arg21: tensor<4x2x8x8xf32>, %arg22: tensor<4x2x8xf32>, %arg23: tensor<4x2x8xf32>, %arg24: tensor<4x8x2x8xf32>, %arg25: tensor<4x8x2x8xf32>) -> (tensor<i32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x2x8x8xi1>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8x1xf32>, tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = sdy.sharding_constraint %arg20 <@mesh, []> : tensor<i32>
    %1 = sdy.sharding_constraint %c <@mesh, []> : tensor<i32>
    %2 = stablehlo.add %0, %1 : tensor<i32>
    %3 = sdy.sharding_constraint %2 <@mesh, []> : tensor<i32>
    %4 = stablehlo.convert %arg20 : tensor<i32>
    %5 = sdy.sharding_constraint %4 <@mesh, []> : tensor<i32>
    %6 = stablehlo.subtract %arg1, %5 : tensor<i32>
    %7 = sdy.sharding_constraint %6 <@mesh, []> : tensor<i32>
    %8 = call @remainder_1(%7, %arg2, %arg3, %arg4, %arg5, %arg6) : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %9 = stablehlo.multiply %8, %arg7 : tensor<i32>
    %10 = sdy.sharding_constraint %9 <@mesh, []> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %12 = sdy.sharding_constraint %11 <@mesh, [{?}]> : tensor<8xi32>
    %13 = stablehlo.add %12, %arg8 : tensor<8xi32>
    %14 = sdy.sharding_constraint %13 <@mesh, [{?}]> : tensor<8xi32>
    %15 = stablehlo.dot_general %arg9, %arg24, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %16 = sdy.sharding_constraint %15 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %17 = stablehlo.broadcast_in_dim %arg10, dims = [] : (tensor<f32>) -> tensor<4x2x8x8xf32>
    %18 = sdy.sharding_constraint %17 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %19 = stablehlo.multiply %16, %18 : tensor<4x2x8x8xf32>
    %20 = sdy.sharding_constraint %19 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %21 = stablehlo.broadcast_in_dim %14, dims = [1] : (tensor<8xi32>) -> tensor<1x8xi32>
    %22 = sdy.sharding_constraint %21 <@mesh, [{?}, {?}]> : tensor<1x8xi32>
    %23 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<8x1xi32>) -> tensor<8x8xi32>
    %24 = sdy.sharding_constraint %23 <@mesh, [{?}, {?}]> : tensor<8x8xi32>
    %25 = stablehlo.broadcast_in_dim %22, dims = [0, 1] : (tensor<1x8xi32>) -> tensor<8x8xi32>
    %26 = sdy.sharding_constraint %25 <@mesh, [{?}, {?}]> : tensor<8x8xi32>
    %27 = stablehlo.compare GE, %24, %26, SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %28:2 = call @_where_2(%27, %20, %arg11) : (tensor<8x8xi1>, tensor<4x2x8x8xf32>, tensor<4x2x8x8xf32>) -> (tensor<4x2x8x8xf32>, tensor<4x2x8x8xi1>)
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %29 = stablehlo.reduce(%28#0 init: %cst) applies stablehlo.maximum across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %30 = sdy.sharding_constraint %29 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %31 = stablehlo.reshape %30 : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
    %32 = sdy.sharding_constraint %31 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x1xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
    %34 = sdy.sharding_constraint %33 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %35 = stablehlo.compare EQ, %28#0, %34, FLOAT : (tensor<4x2x8x8xf32>, tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xi1>
    %36 = stablehlo.convert %35 : (tensor<4x2x8x8xi1>) -> tensor<4x2x8x8xf32>
    %37 = sdy.sharding_constraint %36 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %38 = stablehlo.reduce(%37 init: %cst_0) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %39 = sdy.sharding_constraint %38 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %40 = stablehlo.maximum %arg22, %30 : tensor<4x2x8xf32>
    %41 = sdy.sharding_constraint %40 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %42 = stablehlo.compare EQ, %arg22, %41, FLOAT : (tensor<4x2x8xf32>, tensor<4x2x8xf32>) -> tensor<4x2x8xi1>
    %43 = stablehlo.select %42, %arg13, %arg12 : tensor<4x2x8xi1>, tensor<4x2x8xf32>
    %44 = sdy.sharding_constraint %43 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %45 = stablehlo.compare EQ, %30, %41, FLOAT : (tensor<4x2x8xf32>, tensor<4x2x8xf32>) -> tensor<4x2x8xi1>
    %46 = stablehlo.select %45, %arg15, %arg14 : tensor<4x2x8xi1>, tensor<4x2x8xf32>
    %47 = sdy.sharding_constraint %46 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %48 = stablehlo.divide %44, %47 : tensor<4x2x8xf32>
    %49 = sdy.sharding_constraint %48 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %50 = stablehlo.compare EQ, %30, %41, FLOAT : (tensor<4x2x8xf32>, tensor<4x2x8xf32>) -> tensor<4x2x8xi1>
    %51 = stablehlo.select %50, %arg17, %arg16 : tensor<4x2x8xi1>, tensor<4x2x8xf32>
    %52 = sdy.sharding_constraint %51 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %53 = stablehlo.compare EQ, %arg22, %41, FLOAT : (tensor<4x2x8xf32>, tensor<4x2x8xf32>) -> tensor<4x2x8xi1>
    %54 = stablehlo.select %53, %arg19, %arg18 : tensor<4x2x8xi1>, tensor<4x2x8xf32>
    %55 = sdy.sharding_constraint %54 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %56 = stablehlo.divide %52, %55 : tensor<4x2x8xf32>
    %57 = sdy.sharding_constraint %56 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %58 = stablehlo.broadcast_in_dim %41, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
    %59 = sdy.sharding_constraint %58 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x1xf32>
    %60 = stablehlo.broadcast_in_dim %59, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
    %61 = sdy.sharding_constraint %60 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %62 = stablehlo.subtract %28#0, %61 : tensor<4x2x8x8xf32>
    %63 = sdy.sharding_constraint %62 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %64 = stablehlo.exponential %63 : tensor<4x2x8x8xf32>
    %65 = sdy.sharding_constraint %64 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %66 = stablehlo.subtract %arg22, %41 : tensor<4x2x8xf32>
    %67 = sdy.sharding_constraint %66 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %68 = stablehlo.exponential %67 : tensor<4x2x8xf32>
    %69 = sdy.sharding_constraint %68 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %70 = stablehlo.multiply %arg23, %69 : tensor<4x2x8xf32>
    %71 = sdy.sharding_constraint %70 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %72 = stablehlo.reduce(%65 init: %cst_1) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %73 = sdy.sharding_constraint %72 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %74 = stablehlo.add %71, %73 : tensor<4x2x8xf32>
    %75 = sdy.sharding_constraint %74 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %76 = stablehlo.broadcast_in_dim %69, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
    %77 = sdy.sharding_constraint %76 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x1xf32>
    %78 = stablehlo.broadcast_in_dim %77, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
    %79 = sdy.sharding_constraint %78 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %80 = stablehlo.multiply %arg21, %79 : tensor<4x2x8x8xf32>
    %81 = sdy.sharding_constraint %80 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %82 = stablehlo.dot_general %65, %arg25, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %83 = sdy.sharding_constraint %82 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %84 = stablehlo.add %81, %83 : tensor<4x2x8x8xf32>
    %85 = sdy.sharding_constraint %84 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %86 = "stablehlo.collective_permute"(%arg24) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0], [4, 5], [5, 6], [6, 7], [7, 4]]> : tensor<8x2xi64>}> : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %87 = "stablehlo.collective_permute"(%arg25) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0], [4, 5], [5, 6], [6, 7], [7, 4]]> : tensor<8x2xi64>}> : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    return %3, %85, %41, %75, %86, %87, %arg24, %28#1, %37, %39, %49, %57, %65, %69, %arg23, %77, %arg21, %arg25 : tensor<i32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x2x8x8xi1>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8x1xf32>, tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>
  }
  func.func private @remainder_1(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<i1>, %arg4: tensor<i32>, %arg5: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.remainder %arg0, %arg1 : tensor<i32>
    %1 = sdy.sharding_constraint %0 <@mesh, []> : tensor<i32>
    %2 = stablehlo.compare NE, %1, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.compare LT, %1, %arg2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %4 = stablehlo.compare NE, %3, %arg3, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %5 = stablehlo.and %4, %2 : tensor<i1>
    %6 = sdy.sharding_constraint %5 <@mesh, []> : tensor<i1>
    %7 = stablehlo.add %1, %arg5 : tensor<i32>
    %8 = sdy.sharding_constraint %7 <@mesh, []> : tensor<i32>
    %9 = stablehlo.select %6, %8, %1 : tensor<i1>, tensor<i32>
    %10 = sdy.sharding_constraint %9 <@mesh, []> : tensor<i32>
    return %10 : tensor<i32>
  }
  func.func private @_where_2(%arg0: tensor<8x8xi1>, %arg1: tensor<4x2x8x8xf32>, %arg2: tensor<4x2x8x8xf32>) -> (tensor<4x2x8x8xf32>, tensor<4x2x8x8xi1>) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<4x2x8x8xi1>
    %1 = sdy.sharding_constraint %0 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xi1>
    %2 = stablehlo.select %1, %arg1, %arg2 : tensor<4x2x8x8xi1>, tensor<4x2x8x8xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    return %3, %1 : tensor<4x2x8x8xf32>, tensor<4x2x8x8xi1>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<4x4x8x2x8xf32>, %arg1: tensor<4x8x2x8xf32>, %arg2: tensor<i32>) -> tensor<4x4x8x2x8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3, 4] : (tensor<4x8x2x8xf32>) -> tensor<1x4x8x2x8xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<1x4x8x2x8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.dynamic_update_slice %arg0, %1, %arg2, %c, %c_0, %c_1, %c_2 : (tensor<4x4x8x2x8xf32>, tensor<1x4x8x2x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x4x8x2x8xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x8x2x8xf32>
    return %3 : tensor<4x4x8x2x8xf32>
  }
  func.func private @dynamic_update_index_in_dim_3(%arg0: tensor<4x4x2x8x8xi1>, %arg1: tensor<4x2x8x8xi1>, %arg2: tensor<i32>) -> tensor<4x4x2x8x8xi1> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3, 4] : (tensor<4x2x8x8xi1>) -> tensor<1x4x2x8x8xi1>
    %1 = sdy.sharding_constraint %0 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<1x4x2x8x8xi1>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.dynamic_update_slice %arg0, %1, %arg2, %c, %c_0, %c_1, %c_2 : (tensor<4x4x2x8x8xi1>, tensor<1x4x2x8x8xi1>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x4x2x8x8xi1>
    %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x2x8x8xi1>
    return %3 : tensor<4x4x2x8x8xi1>
  }
  func.func private @dynamic_update_index_in_dim_4(%arg0: tensor<4x4x2x8x8xf32>, %arg1: tensor<4x2x8x8xf32>, %arg2: tensor<i32>) -> tensor<4x4x2x8x8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3, 4] : (tensor<4x2x8x8xf32>) -> tensor<1x4x2x8x8xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<1x4x2x8x8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.dynamic_update_slice %arg0, %1, %arg2, %c, %c_0, %c_1, %c_2 : (tensor<4x4x2x8x8xf32>, tensor<1x4x2x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x4x2x8x8xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x2x8x8xf32>
    return %3 : tensor<4x4x2x8x8xf32>
  }
  func.func private @dynamic_update_index_in_dim_5(%arg0: tensor<4x4x2x8xf32>, %arg1: tensor<4x2x8xf32>, %arg2: tensor<i32>) -> tensor<4x4x2x8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<4x2x8xf32>) -> tensor<1x4x2x8xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<1x4x2x8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.dynamic_update_slice %arg0, %1, %arg2, %c, %c_0, %c_1 : (tensor<4x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x4x2x8xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x4x2x8xf32>
    return %3 : tensor<4x4x2x8xf32>
  }
  func.func private @dynamic_update_index_in_dim_6(%arg0: tensor<4x4x2x8x1xf32>, %arg1: tensor<4x2x8x1xf32>, %arg2: tensor<i32>) -> tensor<4x4x2x8x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3, 4] : (tensor<4x2x8x1xf32>) -> tensor<1x4x2x8x1xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<1x4x2x8x1xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.dynamic_update_slice %arg0, %1, %arg2, %c, %c_0, %c_1, %c_2 : (tensor<4x4x2x8x1xf32>, tensor<1x4x2x8x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x4x2x8x1xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<4x4x2x8x1xf32>
    return %3 : tensor<4x4x2x8x1xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<4x4x8x2x8xf32>, %arg1: tensor<i32>) -> tensor<4x8x2x8xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, %c_2, sizes = [1, 4, 8, 2, 8] : (tensor<4x4x8x2x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x8x2x8xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<1x4x8x2x8xf32>
    %2 = stablehlo.reshape %1 : (tensor<1x4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x8x2x8xf32>
    return %3 : tensor<4x8x2x8xf32>
  }
  func.func private @dynamic_index_in_dim_7(%arg0: tensor<4x4x2x8x8xi1>, %arg1: tensor<i32>) -> tensor<4x2x8x8xi1> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, %c_2, sizes = [1, 4, 2, 8, 8] : (tensor<4x4x2x8x8xi1>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x2x8x8xi1>
    %1 = sdy.sharding_constraint %0 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<1x4x2x8x8xi1>
    %2 = stablehlo.reshape %1 : (tensor<1x4x2x8x8xi1>) -> tensor<4x2x8x8xi1>
    %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xi1>
    return %3 : tensor<4x2x8x8xi1>
  }
  func.func private @dynamic_index_in_dim_8(%arg0: tensor<4x4x2x8x8xf32>, %arg1: tensor<i32>) -> tensor<4x2x8x8xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, %c_2, sizes = [1, 4, 2, 8, 8] : (tensor<4x4x2x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x2x8x8xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<1x4x2x8x8xf32>
    %2 = stablehlo.reshape %1 : (tensor<1x4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    return %3 : tensor<4x2x8x8xf32>
  }
  func.func private @dynamic_index_in_dim_9(%arg0: tensor<4x4x2x8xf32>, %arg1: tensor<i32>) -> tensor<4x2x8xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 4, 2, 8] : (tensor<4x4x2x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x2x8xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<1x4x2x8xf32>
    %2 = stablehlo.reshape %1 : (tensor<1x4x2x8xf32>) -> tensor<4x2x8xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    return %3 : tensor<4x2x8xf32>
  }
  func.func private @dynamic_index_in_dim_10(%arg0: tensor<4x4x2x8x1xf32>, %arg1: tensor<i32>) -> tensor<4x2x8x1xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, %c_2, sizes = [1, 4, 2, 8, 1] : (tensor<4x4x2x8x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x2x8x1xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{?}, {?}, {?}, {?}, {?}]> : tensor<1x4x2x8x1xf32>
    %2 = stablehlo.reshape %1 : (tensor<1x4x2x8x1xf32>) -> tensor<4x2x8x1xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x1xf32>
    return %3 : tensor<4x2x8x1xf32>
  }
  func.func private @closed_call_11(%arg0: tensor<4x8x2x8xf32>, %arg1: tensor<f32>, %arg2: tensor<4x8x2x8xf32>, %arg3: tensor<4x2x8x8xf32>, %arg4: tensor<4x2x8xf32>, %arg5: tensor<4x2x8xf32>, %arg6: tensor<4x8x2x8xf32>, %arg7: tensor<4x8x2x8xf32>, %arg8: tensor<4x8x2x8xf32>, %arg9: tensor<4x2x8x8xi1>, %arg10: tensor<4x2x8x8xf32>, %arg11: tensor<4x2x8xf32>, %arg12: tensor<4x2x8xf32>, %arg13: tensor<4x2x8xf32>, %arg14: tensor<4x2x8x8xf32>, %arg15: tensor<4x2x8xf32>, %arg16: tensor<4x2x8xf32>, %arg17: tensor<4x2x8x1xf32>, %arg18: tensor<4x2x8x8xf32>, %arg19: tensor<4x8x2x8xf32>) -> (tensor<4x8x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>) {
    %0 = "stablehlo.collective_permute"(%arg7) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [0, 3], [5, 4], [6, 5], [7, 6], [4, 7]]> : tensor<8x2xi64>}> : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %1 = "stablehlo.collective_permute"(%arg6) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [0, 3], [5, 4], [6, 5], [7, 6], [4, 7]]> : tensor<8x2xi64>}> : (tensor<4x8x2x8xf32>) -> tensor<4x8x2x8xf32>
    %2 = stablehlo.dot_general %arg3, %arg14, batching_dims = [0, 1] x [0, 1], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %4 = stablehlo.transpose %3, dims = [0, 3, 1, 2] : (tensor<4x2x8x8xf32>) -> tensor<4x8x2x8xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x8x2x8xf32>
    %6 = stablehlo.add %0, %5 : tensor<4x8x2x8xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x8x2x8xf32>
    %8 = stablehlo.dot_general %arg3, %arg19, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %9 = sdy.sharding_constraint %8 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %10 = stablehlo.multiply %arg18, %arg3 : tensor<4x2x8x8xf32>
    %11 = sdy.sharding_constraint %10 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.reduce(%11 init: %cst) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %13 = sdy.sharding_constraint %12 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %14 = stablehlo.reshape %13 : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
    %15 = sdy.sharding_constraint %14 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x1xf32>
    %16 = stablehlo.broadcast_in_dim %arg17, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
    %17 = sdy.sharding_constraint %16 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %18 = stablehlo.multiply %arg3, %17 : tensor<4x2x8x8xf32>
    %19 = sdy.sharding_constraint %18 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.reduce(%15 init: %cst_0) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x1xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %21 = sdy.sharding_constraint %20 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %22 = stablehlo.broadcast_in_dim %arg5, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x8xf32>
    %23 = sdy.sharding_constraint %22 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %24 = stablehlo.add %9, %23 : tensor<4x2x8x8xf32>
    %25 = sdy.sharding_constraint %24 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %26 = stablehlo.multiply %arg16, %arg5 : tensor<4x2x8xf32>
    %27 = sdy.sharding_constraint %26 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %28 = stablehlo.add %21, %27 : tensor<4x2x8xf32>
    %29 = sdy.sharding_constraint %28 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %30 = stablehlo.multiply %arg5, %arg15 : tensor<4x2x8xf32>
    %31 = sdy.sharding_constraint %30 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %32 = stablehlo.multiply %29, %arg15 : tensor<4x2x8xf32>
    %33 = sdy.sharding_constraint %32 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %34 = stablehlo.negate %33 : tensor<4x2x8xf32>
    %35 = sdy.sharding_constraint %34 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %36 = stablehlo.add %arg4, %35 : tensor<4x2x8xf32>
    %37 = sdy.sharding_constraint %36 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %38 = stablehlo.multiply %25, %arg14 : tensor<4x2x8x8xf32>
    %39 = sdy.sharding_constraint %38 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %40 = stablehlo.negate %39 : tensor<4x2x8x8xf32>
    %41 = sdy.sharding_constraint %40 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %42 = stablehlo.reduce(%41 init: %cst_1) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %43 = sdy.sharding_constraint %42 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %44 = stablehlo.reshape %43 : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
    %45 = sdy.sharding_constraint %44 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x1xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %46 = stablehlo.reduce(%45 init: %cst_2) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x1xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %47 = sdy.sharding_constraint %46 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %48 = stablehlo.add %37, %47 : tensor<4x2x8xf32>
    %49 = sdy.sharding_constraint %48 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %50 = stablehlo.multiply %49, %arg13 : tensor<4x2x8xf32>
    %51 = sdy.sharding_constraint %50 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %52 = stablehlo.multiply %49, %arg12 : tensor<4x2x8xf32>
    %53 = sdy.sharding_constraint %52 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %54 = stablehlo.add %33, %53 : tensor<4x2x8xf32>
    %55 = sdy.sharding_constraint %54 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %56 = stablehlo.divide %51, %arg11 : tensor<4x2x8xf32>
    %57 = sdy.sharding_constraint %56 <@mesh, [{?}, {?}, {?}]> : tensor<4x2x8xf32>
    %58 = stablehlo.broadcast_in_dim %57, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x8xf32>
    %59 = sdy.sharding_constraint %58 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %60 = stablehlo.multiply %59, %arg10 : tensor<4x2x8x8xf32>
    %61 = sdy.sharding_constraint %60 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %62 = stablehlo.add %39, %61 : tensor<4x2x8x8xf32>
    %63 = sdy.sharding_constraint %62 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %64 = call @_where_12(%arg9, %63) : (tensor<4x2x8x8xi1>, tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %65 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<4x2x8x8xf32>
    %66 = sdy.sharding_constraint %65 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %67 = stablehlo.multiply %64, %66 : tensor<4x2x8x8xf32>
    %68 = sdy.sharding_constraint %67 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %69 = stablehlo.dot_general %68, %arg0, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %70 = sdy.sharding_constraint %69 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %71 = stablehlo.transpose %70, dims = [0, 2, 1, 3] : (tensor<4x2x8x8xf32>) -> tensor<4x8x2x8xf32>
    %72 = sdy.sharding_constraint %71 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x8x2x8xf32>
    %73 = stablehlo.add %1, %72 : tensor<4x8x2x8xf32>
    %74 = sdy.sharding_constraint %73 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x8x2x8xf32>
    %75 = stablehlo.dot_general %68, %arg8, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %76 = sdy.sharding_constraint %75 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %77 = stablehlo.transpose %76, dims = [0, 2, 1, 3] : (tensor<4x2x8x8xf32>) -> tensor<4x8x2x8xf32>
    %78 = sdy.sharding_constraint %77 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x8x2x8xf32>
    %79 = stablehlo.add %arg2, %78 : tensor<4x8x2x8xf32>
    %80 = sdy.sharding_constraint %79 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x8x2x8xf32>
    return %80, %19, %55, %31, %74, %7 : tensor<4x8x2x8xf32>, tensor<4x2x8x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>
  }
  func.func private @_where_12(%arg0: tensor<4x2x8x8xi1>, %arg1: tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x2x8x8xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<4x2x8x8xi1>, tensor<4x2x8x8xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}, {?}, {?}]> : tensor<4x2x8x8xf32>
    return %3 : tensor<4x2x8x8xf32>
  }
}
