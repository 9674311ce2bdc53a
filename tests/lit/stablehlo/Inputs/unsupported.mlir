module @m {
  func.func public @main(%arg0: tensor<i32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %0 = "stablehlo.case"(%arg0) ({
      stablehlo.return %arg1 : tensor<f32>
    }, {
      %1 = stablehlo.negate %arg1 : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<i32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
}
