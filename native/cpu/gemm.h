// The CPU backend: C = A·B for row-major float32 matrices, cache-blocked (BLIS/Goto loop order),
// multi-threaded over the available cores, with a register-blocked micro-kernel chosen for the CPU at
// run time (AVX-512, AVX2+FMA, or portable vectors).
#pragma once

#include <cstdint>

namespace cuda_matmul {

// Who computes a product: a team leased from the core budget (core/core_budget.h), the calling thread among it, or
// the calling thread alone, unleased: the JavaScript thread running a small product at once (core/request.h,
// runsOnCaller), whose core is not the budget's, and which must never wait for a lease.
enum class CpuTeam { Leased, CallerOnly };

void cpuGemm(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n, CpuTeam team);

// A piece of gemm around the product (cpu_backend.cpp): dst (cols×rows) = srcᵀ (src rows×cols). (α and β:
// core/scaled_sum.h.)
void cpuTranspose(const float* src, int64_t rows, int64_t cols, float* dst);

// One instruction set's micro-kernel. The packed operands it reads (see gemm.cpp):
//   packedA: the mc×kc block of A as strips of `mr` rows, each strip column by column (p-major, mr floats per p);
//   packedB: the kc×nc panel of B as strips of `nr` columns, each strip row by row (nr floats per p);
// both zero-padded to whole strips, so the kernel never reads past a matrix edge.
struct CpuMicroKernel {
  const char* name;
  int mr, nr;
  // c[0:mc, 0:nc] (+)= packedA · packedB; `accumulate` is false for the first kc block of k.
  void (*multiplyBlock)(const float* packedA, const float* packedB, int64_t mc, int64_t nc, int64_t kc, float* c,
                        int64_t ldc, bool accumulate);
  // For products with few columns (a search's queries: cpu/search.cpp), where packing A would cost as much as the
  // product: c[0:rows, 0:cols] = a[0:rows, 0:k] (row-major, lda apart, read where it is) · B, B packed as strips of
  // `vectorFloats` columns, each k rows of vectorFloats floats, the last strip zero-padded.
  int vectorFloats;
  void (*multiplyRowsInPlace)(const float* a, int64_t lda, const float* packedB, int64_t rows, int64_t cols, int64_t k,
                              float* c, int64_t ldc);
  // norms[i] = ‖a[i, 0:k]‖², in double (a search's cosine and l2), for `rows` rows lda apart.
  void (*squaredNorms)(const float* a, int64_t lda, int64_t rows, int64_t k, double* norms);
};

// The micro-kernel for this CPU: AVX-512, else AVX2 with FMA, else portable vectors.
const CpuMicroKernel& selectMicroKernel();

// Each returns nullptr when the build or the CPU cannot run that variant.
const CpuMicroKernel* avx512MicroKernel();
const CpuMicroKernel* avx2MicroKernel();
const CpuMicroKernel* portableMicroKernel();

}  // namespace cuda_matmul
