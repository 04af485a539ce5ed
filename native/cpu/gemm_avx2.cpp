// The CPU micro-kernel for AVX2 with FMA (8 floats a register, 16 registers: a 6×16 tile).
#include "cpu/gemm.h"

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#define VARIANT avx2
#define VECTOR_FLOATS 8
#define MR 6
#include "cpu/gemm_kernel.inc"
#pragma GCC pop_options

namespace cuda_matmul {
const CpuMicroKernel* avx2MicroKernel() {
  static const CpuMicroKernel kernel{"avx2", avx2::kTileRows, avx2::NR, avx2::multiplyBlock, avx2::W, avx2::multiplyRowsInPlace, avx2::squaredNorms};
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? &kernel : nullptr;
}
}  // namespace cuda_matmul
#else
namespace cuda_matmul {
const CpuMicroKernel* avx2MicroKernel() { return nullptr; }
}  // namespace cuda_matmul
#endif
