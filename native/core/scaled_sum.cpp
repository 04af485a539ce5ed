#include "core/scaled_sum.h"

// No FMA contraction in this file, whatever the build's -ffp-contract (native/sources.json: fast, for the CPU
// product's inner loops): an FMA rounds α·t + β·c once, and arm64's compilers form one from it, since FMA is in its
// base instruction set (x86-64's is not), so that gemm from arrays on arm64 differed from the GPU's bits in 34 of
// 528 elements (test/packaging/systems/smoke.js, run there under qemu-user).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace cuda_matmul {

void scaledSumInto(float* c, const float* t, size_t count, float alpha, float beta) {
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
  if (beta == 0.0f)
    for (size_t i = 0; i < count; ++i) c[i] = alpha * t[i];
  else
    for (size_t i = 0; i < count; ++i) c[i] = alpha * t[i] + beta * c[i];
}

}  // namespace cuda_matmul
