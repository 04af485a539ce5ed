// The CPU micro-kernel for any CPU the compiler targets by default (4-float vectors: SSE2 on x86-64,
// NEON on arm64): a 6×8 tile.
#include "cpu/gemm.h"

#define VARIANT portable
#define VECTOR_FLOATS 4
#define MR 6
#include "cpu/gemm_kernel.inc"

namespace cuda_matmul {
const CpuMicroKernel* portableMicroKernel() {
  static const CpuMicroKernel kernel{"portable", portable::kTileRows, portable::NR, portable::multiplyBlock, portable::W,
                                            portable::multiplyRowsInPlace, portable::squaredNorms};
  return &kernel;
}
}  // namespace cuda_matmul
