module @m {
  func.func public @main(%arg0: tensor<i32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %0:2 = "stablehlo.case"(%arg0) ({
      stablehlo.return %arg1, %arg2 : tensor<4xf32>, tensor<4xf32>
    }, {
      %1 = stablehlo.multiply %arg1, %arg2 : tensor<4xf32>
      %2 = "stablehlo.case"(%arg0) ({
        %3 = stablehlo.negate %1 : tensor<4xf32>
        stablehlo.return %3 : tensor<4xf32>
      }) : (tensor<i32>) -> tensor<4xf32>
      stablehlo.return %2, %arg1 : tensor<4xf32>, tensor<4xf32>
    }, {
      %c = stablehlo.constant dense<2.0> : tensor<4xf32>
      stablehlo.return %c, %c : tensor<4xf32>, tensor<4xf32>
    }) : (tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>)
    %4 = stablehlo.compare GT, %arg0, %arg0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %5 = "stablehlo.if"(%4) ({
      stablehlo.return %arg2 : tensor<4xf32>
    }, {
      %6 = stablehlo.add %0#0, %0#1 : tensor<4xf32>
      stablehlo.return %6 : tensor<4xf32>
    }) : (tensor<i1>) -> tensor<4xf32>
    return %0#0, %5 : tensor<4xf32>, tensor<4xf32>
  }
}
