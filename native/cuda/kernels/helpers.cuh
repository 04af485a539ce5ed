// Device helpers every product kernel shares (0_muld.cu … 3_wgmma.cu), written once.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

#include "cuda/kernels/magnitude_classes.h"

namespace cuda_matmul {

// Split K (kernels/choose.h, chooseKSplit): block z of the grid multiplies slice z of K, `depth` deep, into its
// own partial result at c + z·stride, which kernels/launch.cu's reduction sums. The kernel calls this first;
// depth 0 means no split (one slice, the whole of K, straight into C). A is row-major m×k (a slice is a column
// range) unless aTransposed (Aᵀ, k×m: a row range, lda apart); B is row-major k×n (a row range, ldb apart) unless
// bTransposed (Bᵀ, n×k: a column range). (A template, so that it takes kernels' __restrict__ pointers as they are.)
template <class PointerA, class PointerB, class PointerC>
__device__ __forceinline__ void takeKSlice(int z, int64_t depth, int64_t stride, bool aTransposed, int64_t lda,
                                           bool bTransposed, int64_t ldb, PointerA& a, PointerB& b, PointerC& c,
                                           int64_t& k) {
  if (depth <= 0) return;
  const int64_t begin = z * depth;
  a += aTransposed ? begin * lda : begin;
  b += bTransposed ? begin : begin * ldb;
  c += z * stride;
  k = k - begin < depth ? k - begin : depth;
}

// Tensor-core products are not IEEE around special values: 3xTF32 splits an infinite operand x into
// big = ∞ and small = x − ∞ = NaN; rounding to TF32 carries values near FLT_MAX to ∞; the tensor cores may
// flush subnormals (∞ · subnormal → NaN). A product element is affected only if it comes out non-finite, so
// the tensor-core kernels recompute each non-finite element of their result with fp32 FMAs in order, as
// cuBLAS SGEMM computes it: it is then NaN or ±∞ exactly where an IEEE product is (bench/NOTES.md, "Special
// values"). The check costs one FMA per accumulator (nonFiniteProbe); the recomputation runs only in a thread
// that found one, after its accumulators were stored, so it takes no registers from the main loop.

// probe stays 0 while every x is finite and becomes NaN at the first that is not (x·0 is NaN for ±∞ and NaN).
__device__ __forceinline__ float nonFiniteProbe(float x, float probe) { return fmaf(x, 0.0f, probe); }

__device__ __forceinline__ bool finite(float x) { return (__float_as_uint(x) & 0x7f800000u) != 0x7f800000u; }

// Splitting has a second blind spot: x's small part lies 2^11 below x, so for |x| under about 2^-100 it falls
// into the subnormal range, where TF32 cannot hold it (and the tensor cores flush subnormals). That loses up to
// 2^-11 of a product a·b — invisible unless |a| is huge: 5e36 · −3e-39 came out 1.3e-3 off, 2000× the fp32
// error (bench/NOTES.md, "Special values"). So before a tensor-core kernel runs, a pass over A and B notes
// whether each holds a value under 2^-100 (kTinySeen) or over 2^64 (kHugeSeen) (launch.cu, launchClassify);
// when one side holds a tiny value and the other a huge one, the kernel recomputes every element with fp32
// FMAs, exact as cuBLAS SGEMM. Ordinary data never does; the pass reads A and B once, outside the main loop
// (checking inside it, as each value is split, cost 13–18% of the kernels' speed).
__host__ __device__ __forceinline__ uint32_t magnitudeClass(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  const uint32_t magnitude = bits & 0x7fffffffu;
  return (magnitude != 0 && magnitude < kTinyBelowBits ? kTinySeen : 0u) |
         (magnitude > kHugeAboveBits && magnitude < kInfinityBits ? kHugeSeen : 0u);
}

// C(row, col) and C(row, col + 1) from one accumulator pair, of a row of N columns at cRow: one float2 store where
// `pairs` says the row allows it and both lie inside, else those inside. Returns `probe` with both folded in
// (nonFiniteProbe). The store of mma's and wgmma's fragments alike.
__device__ __forceinline__ float storePair(float* cRow, int64_t col, int64_t N, float v0, float v1, bool pairs, float probe) {
  if (pairs && col + 1 < N) {
    *reinterpret_cast<float2*>(cRow + col) = make_float2(v0, v1);
  } else {
    if (col < N) cRow[col] = v0;
    if (col + 1 < N) cRow[col + 1] = v1;
  }
  return nonFiniteProbe(v1, nonFiniteProbe(v0, probe));
}

// ORs this thread's magnitude classes over its warp into *classes: one atomic per warp that found any.
__device__ __forceinline__ void orWarpClasses(uint32_t seen, uint32_t* classes) {
  for (int offset = 16; offset > 0; offset /= 2) seen |= __shfl_xor_sync(0xffffffffu, seen, offset);
  if (seen && threadIdx.x % 32 == 0) atomicOr(classes, seen);
}

// x rounded to the nearest TF32 value (cvt.rna), as its bits: how the TF32 kernels and the transpose of B for
// wgmma round. TF32 exists from sm_80; below, where no TF32 kernel runs, x itself.
__device__ __forceinline__ uint32_t tf32Bits(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  uint32_t bits;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(bits) : "f"(x));
  return bits;
#else
  return __float_as_uint(x);
#endif
}

// Whether A's and B's magnitude classes (null: not checked) hold a tiny value on one side and a huge one on the other.
__device__ __forceinline__ bool splitLosesProducts(const uint32_t* aClasses, const uint32_t* bClasses) {
  if (!aClasses || !bClasses) return false;
  const uint32_t a = *aClasses, b = *bClasses;
  return ((a & kTinySeen) && (b & kHugeSeen)) || ((a & kHugeSeen) && (b & kTinySeen));
}

// Element (row, col) of a matrix X held row-major with row pitch ld, or held transposed (Xᵀ stored row-major:
// `heldTransposed`), and its address.
template <class T>
__host__ __device__ __forceinline__ T* elementAt(T* x, int64_t ld, int64_t row, int64_t col, bool heldTransposed) {
  return heldTransposed ? x + col * ld + row : x + row * ld + col;
}

// The elements x0 + xStep·r (r < xCount) by y0 + 8c + q (c < yCount, q < 2) of C, the pattern of mma's and wgmma's
// accumulator fragments, with x the row of C and y its column (or, for a kernel computing Cᵀ, the other way
// round: `transposed`): each that is not finite (or every one, when `every`) is recomputed as the fp32 dot product
// of A's row and B's column (A row-major, lda, or held as Aᵀ, k×m: `aTransposed`; B row-major k×n, ldb, or held
// as Bᵀ, n×k: `bTransposed`), in order.
// (static: one copy per kernel file, called out of line.)
static __device__ __noinline__ void recomputeNonFinite(float* C, int64_t ldc, const float* A, int64_t lda, const float* B,
                                                int64_t ldb, int64_t M, int64_t N, int64_t K, int64_t x0, int xCount,
                                                int64_t y0, int yCount, bool every = false, bool transposed = false,
                                                bool bTransposed = false, bool aTransposed = false, int xStep = 8) {
#pragma unroll 1
  for (int r = 0; r < xCount; ++r) {
#pragma unroll 1
    for (int i = 0; i < 2 * yCount; ++i) {
      const int64_t x = x0 + xStep * r, y = y0 + 8 * (i / 2) + i % 2;
      const int64_t row = transposed ? y : x, col = transposed ? x : y;
      if (row >= M || col >= N || (!every && finite(C[row * ldc + col]))) continue;
      float sum = 0.0f;
      for (int64_t p = 0; p < K; ++p)
        sum = fmaf(*elementAt(A, lda, row, p, aTransposed), *elementAt(B, ldb, p, col, bTransposed), sum);
      C[row * ldc + col] = sum;
    }
  }
}

}  // namespace cuda_matmul
