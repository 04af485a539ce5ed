// The CUDA kernels the planner can choose from, each behind one launch function with the same signature:
// device pointers, C (m×n) = A (m×k) · B (k×n), row-major, launched on the current device's default stream.
#pragma once

#include <cstdint>

namespace cuda_matmul {

struct DeviceKernel {
  const char* name;
  int64_t rowsPerBlock;  // rows of C one block row covers; the host wrapper slices taller grids by it
  void (*launch)(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n);
};

extern const DeviceKernel kMuldKernel;       // muld.cu: step 0, the seeds' 16×16 shared-memory tiles
extern const DeviceKernel kBlockTileKernel;  // blocktile.cu: step 1, 128×128 blocks, 8×8 per thread

}  // namespace cuda_matmul
