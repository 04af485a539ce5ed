// One Matrix's elements (lib/matrix.ts): on a CUDA device, or in host memory on the CPU backend. Shared
// (std::shared_ptr) between the JavaScript object and the tasks in flight that use it, so dispose() while a
// product runs frees the memory only when that product is done.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cuda_backend.h"
#include "request.h"

namespace cuda_matmul {

struct MatrixData {
  Backend backend = Backend::Cpu;  // Cuda or Cpu, never Auto
  int device = 0;
  int64_t rows = 0, cols = 0;
  std::shared_ptr<DeviceResident> onDevice;  // Cuda
  std::vector<float> onHost;                 // Cpu
};

}  // namespace cuda_matmul
