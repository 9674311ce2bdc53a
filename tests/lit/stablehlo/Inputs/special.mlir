module @m {
  func.func public @main() -> (tensor<4xf32>, tensor<4xf32>, tensor<6xf32>, tensor<2xbf16>) {
    %x = stablehlo.constant dense<[0.5, -1.5, 3.0, -4.0]> : tensor<4xf32>
    %0 = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
    %1 = chlo.erfc %x : tensor<4xf32> -> tensor<4xf32>
    %a = stablehlo.constant dense<[1.0, 1.0, -1.0, 0.0, -0.0, 2.0]> : tensor<6xf32>
    %b = stablehlo.constant dense<[2.0, 0.0, -2.0, -1.0, 1.0, 2.0]> : tensor<6xf32>
    %2 = chlo.next_after %a, %b : tensor<6xf32>, tensor<6xf32> -> tensor<6xf32>
    %c = stablehlo.constant dense<[1.0, -1.0]> : tensor<2xbf16>
    %d = stablehlo.constant dense<[2.0, 0.0]> : tensor<2xbf16>
    %3 = chlo.next_after %c, %d : tensor<2xbf16>, tensor<2xbf16> -> tensor<2xbf16>
    return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<6xf32>, tensor<2xbf16>
  }
}
