// Device helpers every product kernel shares (0_muld.cu … 3_wgmma.cu), written once.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

#include "cuda/kernels/kernel.h"
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
// cuBLAS SGEMM computes it: it is then NaN or ±∞ exactly where an IEEE product is (docs/accuracy.md, "Special values"). The store leaves such an element's C as it was (the epilogue's β·C needs it), noting it in a mask
// (NonFinite); the recomputation runs only in a thread that found one, after its accumulators were stored, so it
// takes no registers from the main loop.

__device__ __forceinline__ bool finite(float x) { return (__float_as_uint(x) & 0x7f800000u) != 0x7f800000u; }
// Where C's old values do not matter (Epilogue::storesProduct), a store may write every accumulator and look for
// non-finite ones afterwards, at one FMA each: probe stays 0 while every x is finite and becomes NaN at the first
// that is not (x·0 is NaN for ±∞ and NaN).
__device__ __forceinline__ float nonFiniteProbe(float x, float probe) { return fmaf(x, 0.0f, probe); }

// The epilogue (kernel.h, Epilogue): α·x + β·old in two roundings, never fused into an FMA, as the host adds them for
// host arrays (core/scaled_sum.h), so that a kernel gives the same bits on arrays as on Matrices. old is C's value
// where β ≠ 0, else kNothingOfC: β·(−0) = −0, and x·α + (−0) is α·x exactly, sign included.
constexpr float kNothingOfC = -0.0f;
__device__ __forceinline__ float scaledSum(const Epilogue& e, float x, float old) {
  return __fadd_rn(__fmul_rn(e.alpha, x), __fmul_rn(e.beta, old));
}
// C's value at c where β ≠ 0 and `inside`, else kNothingOfC: a load predicated in the instruction, opaque to the
// compiler, which would otherwise copy every unrolled store of a kernel into a version with the loads and one without
// (mma's object for sm_90a 71% larger than before α and β; with this, 27%: docs/kernels.md, "Operands as stored, α and β in the epilogue"). volatile keeps it where it is written: after the main loop (wgmma's fences are volatile too), a few
// pairs' loads together (storeRowPairs).
__device__ __forceinline__ float oldOfC(const Epilogue& e, const float* c, bool inside) {
  float old = kNothingOfC;
  asm volatile("{\n .reg .pred p, q;\n setp.ne.s32 q, %3, 0;\n setp.ne.and.f32 p, %2, 0f00000000, q;\n @p ld.global.f32 %0, [%1];\n}\n"
      : "+f"(old)
      : "l"(c), "f"(e.beta), "r"(static_cast<int>(inside)));
  return old;
}
// What the store writes into *c for x. C is read only where β ≠ 0: where it is 0, C may hold anything, NaN included,
// as BLAS has it.
__device__ __forceinline__ float epilogueValue(const Epilogue& e, float x, const float* c) {
  return scaledSum(e, x, oldOfC(e, c, true));
}

// Which of a thread's accumulators came out non-finite, a bit each in recomputeNonFinite's order (its element
// r, i is bit 2·yCount·r + i): at most 128, wgmma's 64×256 fragment over a warpgroup. Noted a pair at a time, at
// even bits, so that a pair never straddles two words. every(): all of them, for a store that wrote none.
struct NonFinite {
  uint32_t words[4] = {0, 0, 0, 0};
  __device__ __forceinline__ static NonFinite every() { return NonFinite{{~0u, ~0u, ~0u, ~0u}}; }
  __device__ __forceinline__ void note(int bit, uint32_t pair) { words[bit / 32] |= pair << (bit % 32); }
  __device__ __forceinline__ bool any() const { return (words[0] | words[1] | words[2] | words[3]) != 0; }
  __device__ __forceinline__ bool at(int bit) const { return (words[bit / 32] >> (bit % 32)) & 1u; }
};
// Splitting has a second blind spot: x's small part lies 2^11 below x, so for |x| under about 2^-100 it falls
// into the subnormal range, where TF32 cannot hold it (and the tensor cores flush subnormals). That loses up to
// 2^-11 of a product a·b — invisible unless |a| is huge: 5e36 · −3e-39 came out 1.3e-3 off, 2000× the fp32
// error (docs/accuracy.md, "Special values"). So before a tensor-core kernel runs, a pass over A and B notes
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

// C(row, col) and C(row, col + 1) of a row of N columns at cRow ← the epilogue's values for v0 and v1 given C's old
// values there (oldOfC), those of them `keep0`, `keep1` say: one float2 store where `pairs` says the row allows it and
// both lie inside and are kept, else those inside. (Each value is worked out once, before the choice of store, not
// in each branch: mma's code 12% smaller.)
__device__ __forceinline__ void storeScaledPair(float* cRow, int64_t col, int64_t N, float v0, float v1, bool pairs,
                                                const Epilogue& epilogue, float2 old, bool keep0, bool keep1) {
  float* const at = cRow + col;
  const bool inside0 = col < N && keep0, inside1 = col + 1 < N && keep1;
  const float out0 = scaledSum(epilogue, v0, old.x), out1 = scaledSum(epilogue, v1, old.y);
  if (pairs && inside0 && inside1) {
    *reinterpret_cast<float2*>(at) = make_float2(out0, out1);
  } else {
    if (inside0) at[0] = out0;
    if (inside1) at[1] = out1;
  }
}

// Where β ≠ 0: the 128-byte lines of C's row at cRow that hold columns [first, last) (within N), every `parts`-th from
// the `part`-th, fetched into L2 while a kernel's last stages multiply (kPrefetchStages from its end), so that the
// epilogue's loads of C (storeRowPairs) wait on L2 and not on DRAM: with the loads alone, 4096³ tf32 with β = 1 on
// wgmma-f16 took 0.48–0.50 ms where the product and a pass of its own over C took 0.44–0.45.
constexpr int kPrefetchStages = 2;
// Whether stage kt of a tile's kTiles is the one at which the kernel prefetches C's lines.
__device__ __forceinline__ bool prefetchStageOfC(int kt, int kTiles) { return kt == max(kTiles - kPrefetchStages, 0); }
__device__ __forceinline__ void prefetchRowOfC(const Epilogue& e, const float* cRow, int64_t first, int64_t last,
                                               int64_t N, int part, int parts) {
  if (e.beta == 0.0f) return;
  last = last < N ? last : N;
  for (int64_t col = first + 32 * part; col < last + 31; col += 32 * parts)  // the last line too, however aligned
    asm volatile("prefetch.global.L2 [%0];\n" ::"l"(cRow + (col < last ? col : last - 1)));
}

// One row's PAIRS pairs of C through the epilogue, the store of mma's and wgmma's fragments alike: pair p at columns
// column(p) and column(p) + 1 of the row at cRow, its values value(p, 0) and value(p, 1). C's values the epilogue
// reads are loaded kPairsInFlight pairs at a time before those pairs are stored, so that their loads are in flight
// together (a pair at a time, each store waited out its load: 8192×1024×512 tf32 with β = 1 took 0.112 ms where the
// product and a pass of its own over C took 0.076). FINITE: a tensor-core kernel's accumulators, of which one that is
// not finite is left out (recomputeNonFinite writes it) and reported, note(p, bits): bit 0 for value(p, 0), bit 1
// for value(p, 1) (NonFinite::note).
constexpr int kPairsInFlight = 4;
template <int PAIRS, bool FINITE, class Column, class Value, class Note>
__device__ __forceinline__ void storeRowPairs(float* cRow, int64_t N, bool pairs, const Epilogue& epilogue, Column column,
                                              Value value, Note note) {
#pragma unroll
  for (int first = 0; first < PAIRS; first += kPairsInFlight) {
    float2 old[kPairsInFlight];
#pragma unroll
    for (int q = 0; q < kPairsInFlight && first + q < PAIRS; ++q) {
      const int64_t col = column(first + q);
      old[q] = make_float2(oldOfC(epilogue, cRow + col, col < N), oldOfC(epilogue, cRow + col + 1, col + 1 < N));
    }
#pragma unroll
    for (int q = 0; q < kPairsInFlight && first + q < PAIRS; ++q) {
      const int p = first + q;
      const float v0 = value(p, 0), v1 = value(p, 1);
      const bool keep0 = !FINITE || finite(v0), keep1 = !FINITE || finite(v1);
      storeScaledPair(cRow, column(p), N, v0, v1, pairs, epilogue, old[q], keep0, keep1);
      if (FINITE) note(p, (keep0 ? 0u : 1u) | (keep1 ? 0u : 2u));
    }
  }
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
// round: `transposed`): each that `nonFinite` notes (NonFinite::every() where the store wrote none) is recomputed
// as the fp32 dot product of A's row and B's column (A row-major, lda, or held as Aᵀ, k×m: `aTransposed`; B
// row-major k×n, ldb, or held as Bᵀ, n×k: `bTransposed`), in order, and stored through the epilogue.
// (static: one copy per kernel file, called out of line.)
static __device__ __noinline__ void recomputeNonFinite(float* C, int64_t ldc, const float* A, int64_t lda, const float* B,
                                                int64_t ldb, int64_t M, int64_t N, int64_t K, int64_t x0, int xCount,
                                                int64_t y0, int yCount, NonFinite nonFinite, Epilogue epilogue,
                                                bool transposed = false, bool bTransposed = false,
                                                bool aTransposed = false, int xStep = 8) {
#pragma unroll 1
  for (int r = 0; r < xCount; ++r) {
#pragma unroll 1
    for (int i = 0; i < 2 * yCount; ++i) {
      const int64_t x = x0 + xStep * r, y = y0 + 8 * (i / 2) + i % 2;
      const int64_t row = transposed ? y : x, col = transposed ? x : y;
      if (row >= M || col >= N || !nonFinite.at(2 * yCount * r + i)) continue;
      float sum = 0.0f;
      for (int64_t p = 0; p < K; ++p)
        sum = fmaf(*elementAt(A, lda, row, p, aTransposed), *elementAt(B, ldb, p, col, bTransposed), sum);
      C[row * ldc + col] = epilogueValue(epilogue, sum, C + row * ldc + col);
    }
  }
}

// --- cp.async: global → shared without passing through registers (sm_80+) ---------------------------------

// Fills BYTES (4 or 16) at dst: the first `read` of them (a multiple of 4, at most BYTES) copied from src, the rest
// zeros (src is not read where `read` is 0).
template <int BYTES>
__device__ __forceinline__ void copyAsync(void* dst, const void* src, int read) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(src), "r"(read));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(address), "l"(src), "r"(read));
}

__device__ __forceinline__ void commitCopies() { asm volatile("cp.async.commit_group;\n" ::); }

template <int PENDING>
__device__ __forceinline__ void waitForCopies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
}

}  // namespace cuda_matmul
