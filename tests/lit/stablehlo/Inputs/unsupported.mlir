module @m {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>) {
    %0 = stablehlo.cholesky %arg0, lower = true : tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}
