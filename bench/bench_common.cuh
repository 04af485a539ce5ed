// Helpers the GPU benchmarks share (kernels.cu, accuracy.cu): cuBLAS checks, U[-1,1] inputs made on the
// device, a float64 reference product and the relative error against it.
#pragma once

#include <cublas_v2.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda/check.h"

namespace {

using cuda_matmul::checkCuda;

void checkCublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cuBLAS error %d in %s\n", static_cast<int>(status), what);
    std::exit(1);
  }
}

__global__ void fillUniform(float* x, int64_t count, uint64_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
    uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;  // splitmix64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    x[i] = static_cast<float>((z >> 40) * (1.0 / (1ull << 24)) * 2.0 - 1.0);
  }
}

__global__ void referenceFloat64(const float* A, const float* B, double* C, int64_t m, int64_t k, int64_t n, int64_t lda,
                                 int64_t ldb) {
  const int64_t row = blockIdx.y * int64_t(blockDim.y) + threadIdx.y, col = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (row >= m || col >= n) return;
  double sum = 0;
  for (int64_t p = 0; p < k; ++p) sum += double(A[row * lda + p]) * double(B[p * ldb + col]);
  C[row * n + col] = sum;
}

// ‖C − R‖_F / ‖R‖_F on the host (C with row pitch ldc, R packed).
double relativeError(const float* dC, int64_t ldc, const double* dRef, int64_t m, int64_t n) {
  std::vector<float> c(m * ldc);
  std::vector<double> ref(m * n);
  checkCuda(cudaMemcpy(c.data(), dC, c.size() * sizeof(float), cudaMemcpyDeviceToHost), "copy C");
  checkCuda(cudaMemcpy(ref.data(), dRef, ref.size() * sizeof(double), cudaMemcpyDeviceToHost), "copy ref");
  double diff = 0, norm = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const double d = c[i * ldc + j] - ref[i * n + j];
      diff += d * d;
      norm += ref[i * n + j] * ref[i * n + j];
    }
  return std::sqrt(diff / norm);
}

}  // namespace
