module @m {
  func.func public @main() -> (tensor<5xf32>, tensor<2xbf16>) {
    %0 = stablehlo.constant dense<[5.000000e-01, -3.000000e-01, 9.990000e-01, 1.000000e+00, 0.000000e+00]> : tensor<5xf32>
    %1 = chlo.erf_inv %0 : tensor<5xf32> -> tensor<5xf32>
    %2 = stablehlo.constant dense<[5.000000e-01, -1.000000e+00]> : tensor<2xbf16>
    %3 = chlo.erf_inv %2 : tensor<2xbf16> -> tensor<2xbf16>
    return %1, %3 : tensor<5xf32>, tensor<2xbf16>
  }
}
