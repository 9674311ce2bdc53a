#loc = loc(unknown)
#loc1 = loc("x")
module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2xi32>, tensor<f32>) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32> loc(#loc)
    %arg0 = stablehlo.constant dense<[[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]> : tensor<2x3xf32> loc(#loc1)
    %c = stablehlo.constant dense<3> : tensor<i32> loc(#loc)
    %c_0 = stablehlo.constant dense<0> : tensor<i32> loc(#loc)
    %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32> loc("sort:"(#loc1)), %arg2: tensor<f32> loc("sort:"(#loc1))):
      %a = stablehlo.multiply %arg1, %cst : tensor<f32> loc(#loc)
      %1 = stablehlo.compare GT, %a, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1> loc(#loc)
      stablehlo.return %1 : tensor<i1> loc(#loc)
    }) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc(#loc)
    %2:2 = stablehlo.composite "chlo.top_k" %arg0 {composite_attributes = {k = 2 : i64}, decomposition = @chlo.top_k.impl, version = 1 : i32} : (tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>) loc(#loc)
    %3:2 = stablehlo.while(%iterArg = %c_0, %iterArg_1 = %cst) : tensor<i32>, tensor<f32>
    cond {
      %4 = stablehlo.compare LT, %iterArg, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1> loc(#loc)
      stablehlo.return %4 : tensor<i1> loc(#loc)
    } do {
      %5 = stablehlo.add %iterArg_1, %iterArg_1 : tensor<f32> loc(#loc)
      %c_2 = stablehlo.constant dense<1> : tensor<i32> loc(#loc)
      %6 = stablehlo.add %iterArg, %c_2 : tensor<i32> loc(#loc)
      stablehlo.return %6, %5 : tensor<i32>, tensor<f32> loc(#loc)
    } loc(#loc)
    return %0, %2#0, %2#1, %3#1 : tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2xi32>, tensor<f32> loc(#loc)
  } loc(#loc)
  func.func private @chlo.top_k.impl(%arg0: tensor<2x3xf32> loc(unknown)) -> (tensor<2x2xf32>, tensor<2x2xi32>) {
    %0:2 = chlo.top_k(%arg0, k = 2) : tensor<2x3xf32> -> (tensor<2x2xf32>, tensor<2x2xi32>) loc(#loc)
    return %0#0, %0#1 : tensor<2x2xf32>, tensor<2x2xi32> loc(#loc)
  } loc(#loc)
} loc(#loc)
