// Device helpers every product kernel shares (muld.cu, blocktile.cu, mma.cu, wgmma.cu), written once.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace cuda_matmul {

// Split K (plan_tiles.h, chooseKSplit): block z of the grid multiplies slice z of K, `depth` deep, into its
// own partial result at c + z·stride, which kernel_launch.cu's reduction sums. The kernel calls this first;
// depth 0 means no split (one slice, the whole of K, straight into C). A is row-major (a slice is a column
// range); B is row-major k×n (a row range, ldb apart) unless bTransposed (Bᵀ, n×k: a column range).
// (A template, so that it takes kernels' __restrict__ pointers as they are.)
template <class PointerA, class PointerB, class PointerC>
__device__ __forceinline__ void takeKSlice(int z, int64_t depth, int64_t stride, bool bTransposed, int64_t ldb,
                                           PointerA& a, PointerB& b, PointerC& c, int64_t& k) {
  if (depth <= 0) return;
  const int64_t begin = z * depth;
  a += begin;
  b += bTransposed ? begin : begin * ldb;
  c += z * stride;
  k = k - begin < depth ? k - begin : depth;
}

// Tensor-core products are not IEEE around special values: 3xTF32 splits an infinite operand x into
// big = ∞ and small = x − ∞ = NaN; rounding to TF32 carries values near FLT_MAX to ∞; the tensor cores may
// flush subnormals (∞ · subnormal → NaN). A product element is affected only if it comes out non-finite, so
// the tensor-core kernels recompute each non-finite element of their result here, with fp32 FMAs in order as
// cuBLAS SGEMM does: it is then NaN or ±∞ exactly where an IEEE product is (bench/NOTES.md, "Special values").
// Finite results never take this path. a: the element's row of A; b: its column of B, ldb apart.
__device__ __forceinline__ float exactDot(const float* a, const float* b, int64_t ldb, int64_t k) {
  float sum = 0.0f;
  for (int64_t p = 0; p < k; ++p) sum = fmaf(a[p], b[p * ldb], sum);
  return sum;
}

__device__ __forceinline__ bool finite(float x) { return (__float_as_uint(x) & 0x7f800000u) != 0x7f800000u; }

}  // namespace cuda_matmul
