// The CUDA backend of a CPU-only build (no nvcc at build time): reports why, never runs.
#include "cuda_backend.h"
#include "errors.h"

namespace cuda_matmul {

const CudaStatus& cudaStatus() {
  static const CudaStatus status{false, "this build of cuda-matmul has no CUDA support (nvcc was not found when it was compiled)", {}};
  return status;
}

MemoryUsage cudaMemoryUsage() { return {}; }
void cudaTrimIdle(double) {}
void* cudaAllocatePinned(size_t) { return nullptr; }
void cudaFreePinned(void*) {}

void cudaMultiply(const KernelPlan&, const MatmulRequest&) {
  throw MatmulError(ErrorKind::Failure, cudaStatus().reason, "ERR_CUDA_UNAVAILABLE");
}

}  // namespace cuda_matmul
