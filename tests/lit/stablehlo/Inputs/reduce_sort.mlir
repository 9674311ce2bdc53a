module @m {
  func.func public @main() -> (tensor<2xf32>, tensor<2xi32>, tensor<4xf32>, tensor<4xi32>, tensor<4xbf16>, tensor<2xui32>) {
    %x = stablehlo.constant dense<[[3.0, 7.0, 7.0, 1.0], [-1.0, -4.0, 2.0, 2.5]]> : tensor<2x4xf32>
    %i = stablehlo.iota dim = 1 : tensor<2x4xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%x init: %cst), (%i init: %c) across dimensions = [1] : (tensor<2x4xf32>, tensor<2x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
     reducer(%a: tensor<f32>, %b: tensor<f32>) (%ia: tensor<i32>, %ib: tensor<i32>)  {
      %gt = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %eq = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %lt = stablehlo.compare LT, %ia, %ib, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %tie = stablehlo.and %eq, %lt : tensor<i1>
      %keep = stablehlo.or %gt, %tie : tensor<i1>
      %v = stablehlo.select %keep, %a, %b : tensor<i1>, tensor<f32>
      %j = stablehlo.select %keep, %ia, %ib : tensor<i1>, tensor<i32>
      stablehlo.return %v, %j : tensor<f32>, tensor<i32>
    }
    %k = stablehlo.constant dense<[3.0, 1.0, 2.0, 0.5]> : tensor<4xf32>
    %n = stablehlo.iota dim = 0 : tensor<4xi32>
    %2:2 = "stablehlo.sort"(%k, %n) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>, %r: tensor<i32>, %s: tensor<i32>):
      %o = stablehlo.compare LT, %p, %q, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %o : tensor<i1>
    }) : (tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>)
    %h = stablehlo.constant dense<[1.00390625, 3.0, -2.5, 100.0]> : tensor<4xbf16>
    %3 = stablehlo.reduce_precision %h, format = e5m2 : tensor<4xbf16>
    %seed = stablehlo.constant dense<[1, 2]> : tensor<2xui64>
    %st, %bits = stablehlo.rng_bit_generator %seed, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2xui32>)
    return %1#0, %1#1, %2#0, %2#1, %3, %bits : tensor<2xf32>, tensor<2xi32>, tensor<4xf32>, tensor<4xi32>, tensor<4xbf16>, tensor<2xui32>
  }
}
