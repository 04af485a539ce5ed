// The CPU micro-kernel for AVX-512 (16 floats a register, 32 registers: a 12×32 tile).
#include "cpu/gemm.h"

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,fma")
#define VARIANT avx512
#define VECTOR_FLOATS 16
#define MR 12
#include "cpu/gemm_kernel.inc"
#pragma GCC pop_options

namespace cuda_matmul {
const CpuMicroKernel* avx512MicroKernel() {
  static const CpuMicroKernel kernel{"avx512", avx512::kTileRows, avx512::NR, avx512::multiplyBlock, avx512::W, avx512::multiplyRowsInPlace, avx512::squaredNorms};
  return __builtin_cpu_supports("avx512f") ? &kernel : nullptr;
}
}  // namespace cuda_matmul
#else
namespace cuda_matmul {
const CpuMicroKernel* avx512MicroKernel() { return nullptr; }
}  // namespace cuda_matmul
#endif
