// The process-wide oneDNN CPU engine shared by the dot and convolution kernels.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

namespace spmdc::kernels {

inline dnnl::engine& CpuEngine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

}  // namespace spmdc::kernels
