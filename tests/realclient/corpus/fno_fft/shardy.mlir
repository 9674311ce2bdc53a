module @jit_fno_loss_and_grad attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=8]> {stablehlo.mesh = {axes = [{name = "data", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<4x4x4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg1: tensor<4x4x4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg2: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg3: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg4: tensor<8x4x16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {}, {}]>}, %arg5: tensor<8x4x16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, []>}, tensor<4x4x4x4xf32> {jax.result_info = "result[1].w_re", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<4x4x4x4xf32> {jax.result_info = "result[1].w_im", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<4x4xf32> {jax.result_info = "result[1].lin.weight", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<4xf32> {jax.result_info = "result[1].lin.bias", sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {
    %0 = call @fft(%arg4) : (tensor<8x4x16x16xf32>) -> tensor<8x4x16x9xcomplex<f32>>
    %1 = stablehlo.convert %arg1 : (tensor<4x4x4x4xf32>) -> tensor<4x4x4x4xcomplex<f32>>
    %cst = stablehlo.constant dense<(0.000000e+00,1.000000e+00)> : tensor<complex<f32>>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<4x4x4x4xcomplex<f32>>
    %3 = stablehlo.multiply %2, %1 : tensor<4x4x4x4xcomplex<f32>>
    %4 = stablehlo.convert %arg0 : (tensor<4x4x4x4xf32>) -> tensor<4x4x4x4xcomplex<f32>>
    %5 = stablehlo.add %4, %3 : tensor<4x4x4x4xcomplex<f32>>
    %6 = stablehlo.slice %0 [0:8, 0:4, 0:4, 0:4] : (tensor<8x4x16x9xcomplex<f32>>) -> tensor<8x4x4x4xcomplex<f32>>
    %7 = stablehlo.dot_general %5, %6, batching_dims = [2, 3] x [2, 3], contracting_dims = [0] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x4x4x4xcomplex<f32>>, tensor<8x4x4x4xcomplex<f32>>) -> tensor<4x4x4x8xcomplex<f32>>
    %8 = stablehlo.transpose %7, dims = [3, 2, 0, 1] : (tensor<4x4x4x8xcomplex<f32>>) -> tensor<8x4x4x4xcomplex<f32>>
    %cst_0 = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<8x4x16x9xcomplex<f32>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %10 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %12 = stablehlo.concatenate %10, %11, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %13 = "stablehlo.scatter"(%9, %12, %8) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0, 1, 2, 3], scatter_dims_to_operand_dims = [2, 3]>, unique_indices = true}> ({
    ^bb0(%arg6: tensor<complex<f32>>, %arg7: tensor<complex<f32>>):
      stablehlo.return %arg7 : tensor<complex<f32>>
    }) : (tensor<8x4x16x9xcomplex<f32>>, tensor<2xi32>, tensor<8x4x4x4xcomplex<f32>>) -> tensor<8x4x16x9xcomplex<f32>>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %14 = call @_pad(%13, %c_2) : (tensor<8x4x16x9xcomplex<f32>>, tensor<i32>) -> tensor<8x4x16x9xcomplex<f32>>
    %15 = call @fft_0(%14) : (tensor<8x4x16x9xcomplex<f32>>) -> tensor<8x4x16x16xf32>
    %16 = stablehlo.dot_general %arg4, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x4x16x16xf32>, tensor<4x4xf32>) -> tensor<8x16x16x4xf32>
    %17 = stablehlo.transpose %16, dims = [0, 3, 1, 2] : (tensor<8x16x16x4xf32>) -> tensor<8x4x16x16xf32>
    %18 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<4xf32>) -> tensor<1x4x1x1xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1, 2, 3] : (tensor<1x4x1x1xf32>) -> tensor<8x4x16x16xf32>
    %20 = stablehlo.add %17, %19 : tensor<8x4x16x16xf32>
    %21 = stablehlo.add %15, %20 : tensor<8x4x16x16xf32>
    %22 = stablehlo.multiply %21, %21 : tensor<8x4x16x16xf32>
    %23 = stablehlo.multiply %22, %21 : tensor<8x4x16x16xf32>
    %24 = stablehlo.multiply %21, %21 : tensor<8x4x16x16xf32>
    %cst_3 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    %26 = stablehlo.multiply %25, %24 : tensor<8x4x16x16xf32>
    %cst_4 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    %28 = stablehlo.multiply %27, %23 : tensor<8x4x16x16xf32>
    %29 = stablehlo.add %21, %28 : tensor<8x4x16x16xf32>
    %cst_5 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    %31 = stablehlo.multiply %30, %29 : tensor<8x4x16x16xf32>
    %32 = stablehlo.tanh %31 : tensor<8x4x16x16xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    %34 = stablehlo.subtract %33, %32 : tensor<8x4x16x16xf32>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    %36 = stablehlo.add %35, %32 : tensor<8x4x16x16xf32>
    %cst_8 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    %38 = stablehlo.multiply %37, %36 : tensor<8x4x16x16xf32>
    %39 = stablehlo.multiply %21, %38 : tensor<8x4x16x16xf32>
    %40 = stablehlo.subtract %39, %arg5 : tensor<8x4x16x16xf32>
    %41 = stablehlo.multiply %40, %40 : tensor<8x4x16x16xf32>
    %cst_9 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    %43 = stablehlo.multiply %42, %40 : tensor<8x4x16x16xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %44 = stablehlo.reduce(%41 init: %cst_10) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<8x4x16x16xf32>, tensor<f32>) -> tensor<f32>
    %cst_11 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %45 = stablehlo.divide %44, %cst_11 : tensor<f32>
    %cst_12 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_13 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %46 = stablehlo.divide %cst_12, %cst_13 : tensor<f32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    %48 = stablehlo.multiply %47, %43 : tensor<8x4x16x16xf32>
    %49 = stablehlo.multiply %21, %48 : tensor<8x4x16x16xf32>
    %50 = stablehlo.multiply %48, %38 : tensor<8x4x16x16xf32>
    %cst_14 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %51 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    %52 = stablehlo.multiply %51, %49 : tensor<8x4x16x16xf32>
    %53 = stablehlo.multiply %52, %34 : tensor<8x4x16x16xf32>
    %54 = stablehlo.multiply %53, %32 : tensor<8x4x16x16xf32>
    %55 = stablehlo.add %53, %54 : tensor<8x4x16x16xf32>
    %cst_15 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %56 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    %57 = stablehlo.multiply %56, %55 : tensor<8x4x16x16xf32>
    %58 = stablehlo.add %50, %57 : tensor<8x4x16x16xf32>
    %cst_16 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<8x4x16x16xf32>
    %60 = stablehlo.multiply %59, %57 : tensor<8x4x16x16xf32>
    %61 = stablehlo.multiply %60, %26 : tensor<8x4x16x16xf32>
    %62 = stablehlo.add %58, %61 : tensor<8x4x16x16xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %63 = stablehlo.reduce(%62 init: %cst_17) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<8x4x16x16xf32>, tensor<f32>) -> tensor<4xf32>
    %64 = stablehlo.reshape %63 : (tensor<4xf32>) -> tensor<1x4x1x1xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %65 = stablehlo.reduce(%64 init: %cst_18) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<1x4x1x1xf32>, tensor<f32>) -> tensor<4xf32>
    %66 = stablehlo.transpose %62, dims = [0, 2, 3, 1] : (tensor<8x4x16x16xf32>) -> tensor<8x16x16x4xf32>
    %67 = stablehlo.dot_general %66, %arg4, contracting_dims = [0, 1, 2] x [0, 2, 3], precision = [DEFAULT, DEFAULT] : (tensor<8x16x16x4xf32>, tensor<8x4x16x16xf32>) -> tensor<4x4xf32>
    %68 = call @fft_1(%62) : (tensor<8x4x16x16xf32>) -> tensor<8x4x16x9xcomplex<f32>>
    %69 = call @_pad_3(%68) : (tensor<8x4x16x9xcomplex<f32>>) -> tensor<8x4x16x9xcomplex<f32>>
    %c_19 = stablehlo.constant dense<[12, 5]> : tensor<2xi32>
    %c_20 = stablehlo.constant dense<0> : tensor<i32>
    %70 = stablehlo.broadcast_in_dim %c_20, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %71 = stablehlo.compare GE, %12, %70, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %72 = stablehlo.compare LE, %12, %c_19, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %73 = stablehlo.and %71, %72 : tensor<2xi1>
    %c_21 = stablehlo.constant dense<true> : tensor<i1>
    %74 = stablehlo.reduce(%73 init: %c_21) applies stablehlo.and across dimensions = [0] : (tensor<2xi1>, tensor<i1>) -> tensor<i1>
    %75 = "stablehlo.gather"(%69, %12) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1, 2, 3], start_index_map = [2, 3]>, indices_are_sorted = false, slice_sizes = array<i64: 8, 4, 4, 4>}> : (tensor<8x4x16x9xcomplex<f32>>, tensor<2xi32>) -> tensor<8x4x4x4xcomplex<f32>>
    %76 = stablehlo.broadcast_in_dim %74, dims = [] : (tensor<i1>) -> tensor<8x4x4x4xi1>
    %cst_22 = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %77 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<complex<f32>>) -> tensor<8x4x4x4xcomplex<f32>>
    %78 = stablehlo.select %76, %75, %77 : tensor<8x4x4x4xi1>, tensor<8x4x4x4xcomplex<f32>>
    %79 = stablehlo.transpose %78, dims = [2, 3, 1, 0] : (tensor<8x4x4x4xcomplex<f32>>) -> tensor<4x4x4x8xcomplex<f32>>
    %80 = stablehlo.dot_general %79, %6, batching_dims = [0, 1] x [2, 3], contracting_dims = [3] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4x4x8xcomplex<f32>>, tensor<8x4x4x4xcomplex<f32>>) -> tensor<4x4x4x4xcomplex<f32>>
    %81 = stablehlo.transpose %80, dims = [3, 2, 0, 1] : (tensor<4x4x4x4xcomplex<f32>>) -> tensor<4x4x4x4xcomplex<f32>>
    %82 = stablehlo.real %81 : (tensor<4x4x4x4xcomplex<f32>>) -> tensor<4x4x4x4xf32>
    %83 = stablehlo.convert %82 : tensor<4x4x4x4xf32>
    %cst_23 = stablehlo.constant dense<(0.000000e+00,1.000000e+00)> : tensor<complex<f32>>
    %84 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<complex<f32>>) -> tensor<4x4x4x4xcomplex<f32>>
    %85 = stablehlo.multiply %84, %81 : tensor<4x4x4x4xcomplex<f32>>
    %86 = stablehlo.real %85 : (tensor<4x4x4x4xcomplex<f32>>) -> tensor<4x4x4x4xf32>
    %87 = stablehlo.convert %86 : tensor<4x4x4x4xf32>
    return %45, %83, %87, %67, %65 : tensor<f32>, tensor<4x4x4x4xf32>, tensor<4x4x4x4xf32>, tensor<4x4xf32>, tensor<4xf32>
  }
  func.func private @fft(%arg0: tensor<8x4x16x16xf32>) -> tensor<8x4x16x9xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [16, 16] : (tensor<8x4x16x16xf32>) -> tensor<8x4x16x9xcomplex<f32>>
    return %0 : tensor<8x4x16x9xcomplex<f32>>
  }
  func.func private @_pad(%arg0: tensor<8x4x16x9xcomplex<f32>>, %arg1: tensor<i32>) -> tensor<8x4x16x9xcomplex<f32>> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<complex<f32>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<8x4x16x9xcomplex<f32>>, tensor<complex<f32>>) -> tensor<8x4x16x9xcomplex<f32>>
    return %1 : tensor<8x4x16x9xcomplex<f32>>
  }
  func.func private @fft_0(%arg0: tensor<8x4x16x9xcomplex<f32>>) -> tensor<8x4x16x16xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [16, 16] : (tensor<8x4x16x9xcomplex<f32>>) -> tensor<8x4x16x16xf32>
    return %0 : tensor<8x4x16x16xf32>
  }
  func.func private @fft_1(%arg0: tensor<8x4x16x16xf32>) -> tensor<8x4x16x9xcomplex<f32>> {
    %0 = call @fft_2(%arg0) : (tensor<8x4x16x16xf32>) -> tensor<8x4x16x9xcomplex<f32>>
    %cst = stablehlo.constant dense<(2.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<9xcomplex<f32>>
    %cst_0 = stablehlo.constant dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<1xcomplex<f32>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.dynamic_update_slice %1, %2, %c : (tensor<9xcomplex<f32>>, tensor<1xcomplex<f32>>, tensor<i32>) -> tensor<9xcomplex<f32>>
    %cst_1 = stablehlo.constant dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<complex<f32>>) -> tensor<1xcomplex<f32>>
    %c_2 = stablehlo.constant dense<8> : tensor<i32>
    %5 = stablehlo.dynamic_update_slice %3, %4, %c_2 : (tensor<9xcomplex<f32>>, tensor<1xcomplex<f32>>, tensor<i32>) -> tensor<9xcomplex<f32>>
    %6 = stablehlo.broadcast_in_dim %5, dims = [3] : (tensor<9xcomplex<f32>>) -> tensor<1x1x1x9xcomplex<f32>>
    %cst_3 = stablehlo.constant dense<(3.906250e-03,0.000000e+00)> : tensor<complex<f32>>
    %7 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<complex<f32>>) -> tensor<1x1x1x9xcomplex<f32>>
    %8 = stablehlo.multiply %7, %6 : tensor<1x1x1x9xcomplex<f32>>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2, 3] : (tensor<1x1x1x9xcomplex<f32>>) -> tensor<8x4x16x9xcomplex<f32>>
    %10 = stablehlo.multiply %9, %0 : tensor<8x4x16x9xcomplex<f32>>
    %11 = stablehlo.real %10 : (tensor<8x4x16x9xcomplex<f32>>) -> tensor<8x4x16x9xf32>
    %12 = stablehlo.imag %10 : (tensor<8x4x16x9xcomplex<f32>>) -> tensor<8x4x16x9xf32>
    %13 = stablehlo.negate %12 : tensor<8x4x16x9xf32>
    %14 = stablehlo.complex %11, %13 : tensor<8x4x16x9xcomplex<f32>>
    return %14 : tensor<8x4x16x9xcomplex<f32>>
  }
  func.func private @fft_2(%arg0: tensor<8x4x16x16xf32>) -> tensor<8x4x16x9xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [16, 16] : (tensor<8x4x16x16xf32>) -> tensor<8x4x16x9xcomplex<f32>>
    return %0 : tensor<8x4x16x9xcomplex<f32>>
  }
  func.func private @_pad_3(%arg0: tensor<8x4x16x9xcomplex<f32>>) -> tensor<8x4x16x9xcomplex<f32>> {
    %cst = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %0 = stablehlo.pad %arg0, %cst, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<8x4x16x9xcomplex<f32>>, tensor<complex<f32>>) -> tensor<8x4x16x9xcomplex<f32>>
    %1 = stablehlo.slice %0 [0:8, 0:4, 0:16, 0:9] : (tensor<8x4x16x9xcomplex<f32>>) -> tensor<8x4x16x9xcomplex<f32>>
    return %1 : tensor<8x4x16x9xcomplex<f32>>
  }
}
