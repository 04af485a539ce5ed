#include "cuda/transfer/host_classes.h"

#include <cstring>

#include "cuda/kernels/magnitude_classes.h"

namespace cuda_matmul {

// One pass that copies and classifies: the classes were a second pass over A and B after their copy (a 128×128
// operand on the dev machine, with CI running beside it: 22.3 µs in one pass, 41.2 copied then classified, 21.3
// the copy alone; docs/transfers.md, "The inline route"). Each bound is one unsigned comparison and the classes
// two ORed flags, so that the compiler vectorises the loop, cloned for AVX-512 and AVX2 and picked by the CPU at
// load time (element by element at -O2 it took 9.5 µs). Other CPUs (arm64) take the compiler's default vectors.
#if defined(__x86_64__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
uint32_t copyRowsWithClasses(float* dst, int64_t dstPitch, const float* src, int64_t srcPitch, int64_t cols,
                             int64_t rows) {
  uint32_t tiny = 0, huge = 0;
  for (int64_t r = 0; r < rows; ++r) {
    float* __restrict out = dst + r * dstPitch;
    const float* __restrict in = src + r * srcPitch;
    for (int64_t i = 0; i < cols; ++i) {
      uint32_t bits;
      std::memcpy(&bits, in + i, sizeof bits);
      std::memcpy(out + i, &bits, sizeof bits);
      const uint32_t magnitude = bits & 0x7fffffffu;
      tiny |= magnitude - 1u < kTinyBelowBits - 1u;                                        // 0 < |x| < 2^-100
      huge |= magnitude - (kHugeAboveBits + 1u) < kInfinityBits - (kHugeAboveBits + 1u);  // 2^64 < |x| < ∞
    }
  }
  return (tiny ? kTinySeen : 0u) | (huge ? kHugeSeen : 0u);
}

}  // namespace cuda_matmul
