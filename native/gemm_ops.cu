// Not a matrix-product kernel family: gemm's pieces around the product, on Matrices.
//   - transpose: op(A) = Aᵀ is materialised once (transpose.cu), then any product kernel runs on it unchanged;
//   - combine: c = α·t + β·c, one element per thread.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "device_resident.h"

namespace cuda_matmul {
namespace {

__global__ void combineRows(float* __restrict__ c, int64_t cPitch, const float* __restrict__ t, int64_t tPitch,
                            int64_t rows, int64_t cols, float alpha, float beta) {
  const int64_t col = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    float* out = c + row * cPitch + col;
    const float product = alpha * t[row * tPitch + col];
    *out = beta == 0.0f ? product : product + beta * *out;
  }
}

unsigned gridSize(int64_t count, int64_t per) { return static_cast<unsigned>((count + per - 1) / per); }

}  // namespace

std::shared_ptr<DeviceResident> cudaTransposeResident(const DeviceResident& matrix) {
  auto result = cudaAllocateResident(matrix.device, matrix.cols, matrix.rows);
  const PooledStream stream(matrix.device);
  launchTranspose(matrix.floats(), matrix.pitch, result->floats(), result->pitch, matrix.rows, matrix.cols,
                  Rounding::None, stream.get());
  checkCuda(cudaGetLastError(), "transpose");
  checkCuda(cudaStreamSynchronize(stream.get()), "transpose");
  return result;
}

void cudaCombineResident(DeviceResident& c, const DeviceResident& t, float alpha, float beta) {
  if (c.rows == 0 || c.cols == 0) return;
  checkCuda(cudaSetDevice(c.device), "cudaSetDevice");
  const PooledStream stream(c.device);
  constexpr int kThreads = 256;
  const dim3 grid(gridSize(c.cols, kThreads), static_cast<unsigned>(std::min<int64_t>(c.rows, 65535)));
  combineRows<<<grid, kThreads, 0, stream.get()>>>(c.floats(), c.pitch, t.floats(), t.pitch, c.rows, c.cols,
                                                   alpha, beta);
  checkCuda(cudaGetLastError(), "combine");
  checkCuda(cudaStreamSynchronize(stream.get()), "combine");
}

}  // namespace cuda_matmul
