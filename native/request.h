// One validated matrix product, as the plan (plan.cpp) receives it: raw row-major pointers and dims.
// C (m×n) = A (m×k) · B (k×n). Nothing here owns memory; the caller keeps the arrays alive.
#pragma once

#include <cstdint>

namespace cuda_matmul {

enum class Backend { Auto, Cuda, Cpu };
enum class Kernel { Auto, Muld, BlockTile };

struct MatmulRequest {
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  int64_t m = 0, k = 0, n = 0;
  Backend backend = Backend::Auto;
  Kernel kernel = Kernel::Auto;
  int device = 0;
};

}  // namespace cuda_matmul
