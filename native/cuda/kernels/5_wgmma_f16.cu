// Step 5 of the kernel progression: tf32 products on Hopper's fp16 tensor cores, which run twice as fast as its TF32
// ones (wgmma m64n256k16 takes as long as m64n256k8 in TF32). Improves on step 4 (4_wgmma_transposed.cu), which at
// 4096³ and 8192³ keeps the TF32 tensor pipe 94–97% busy, as cuBLAS TF32 does: no TF32 kernel gets much past cuBLAS
// TF32 there (docs/kernels.md, "Step 5: tf32 on the fp16 tensor cores"). The same product in
// fp16 does, exactly:
//   - TF32 keeps 10 bits of each operand's significand, as fp16 does; fp16 lacks TF32's exponent range. Scaled by a
//     power of two, a float whose scaled magnitude lies in fp16's normal range [2^-14, 2^15] rounds to fp16 exactly
//     as it rounds to TF32 (to nearest), and the tensor cores' products of 11-bit significands and fp32
//     accumulation are those of the TF32 instruction. So each row k of B is scaled by 2^v_k, its largest magnitude
//     into [2^14, 2^15), and each row i of A by 2^(s_i − v_k) at column k, its largest such product into the same
//     range: A_ik·B_kj = 2^-s_i · A'_ik·B'_kj, and row i of C is 2^-s_i times the fp16 product's row, unscaled as
//     it is stored. Two passes (scaleRowsOfB, scaleRowsOfA) read A and B once each and write them in fp16;
//   - B held as Bᵀ (n×k, as a corpus of rows is: registry.h, readsTransposedB) is read as stored, with no transposed
//     copy: each row of Bᵀ (column j of B) is scaled by 2^w_j into an n×k fp16 copy, each row i of A by 2^s_i alone,
//     and C_ij is 2^-(s_i + w_j) times the fp16 product's element. Every term of an element is scaled by the same
//     power of two in either layout, so both give the same sums; A held as Aᵀ is scaled into the same row-major fp16
//     copy as A (scaleRowsOfAFromAT), so it gives A's sums too;
//   - the product itself is step 3's structure on both operands in shared memory: a producer warpgroup brings
//     128×64 tiles of A (K-major) and 64×256 tiles of B (as stored: wgmma reads 16-bit operands MN-major too; from
//     Bᵀ, 256×64 tiles, K-major as A's) by TMA in the 128-byte swizzle, two consumer warpgroups multiply 64×256
//     each; persistent blocks walk the tiles in groups of 8 tile rows, the producer loading the next tile while the
//     consumers store the last;
//   - a value the scaling cannot hold exactly (one more than 2^28 below its row's largest, which fp16 would make
//     subnormal) is left out of the fp16 product; its terms, each under 2^-20 of an element whose accumulator is
//     large, are added afterwards in fp32, in order of k, to the elements where they could be more (the epilogue
//     lists them); a non-finite one, or more tiny values than a row's or column's share, marks its row of C (A)
//     or column (B) to be recomputed with fp32 FMAs (K shared out among threads, their sums added in a fixed order),
//     as every kernel recomputes non-finite results (kernels/helpers.cuh): NaN and ±∞ where an IEEE product has
//     them, and no value lost below the scaling. Ordinary data has few such values (about one in 2^29 of
//     U[-1,1]'s). Past kMarked rows or columns, the product is step 4's in TF32 instead (its launch waits on a flag
//     in device memory, so nothing waits on the host).
// α and β are applied as C is stored, the corrections add α times their terms, and where β ≠ 0 the marked rows and
// columns of C are kept before the product writes them, for their recomputation's β·C (keepMarkedOfC). Special
// values: every operand is finite and scaled within range wherever the fp16 product is kept, so it needs no magnitude
// classes; the passes find them for the fallback. Long K is split by the plan into slices, as step 4's. fp32 requests
// run step 4's 3xTF32 variants (an fp16 split for fp32 accuracy is not built). Predicted from cuBLAS's own fp16
// product on the same host (0.191 ms at 4096³, 1.53 at 8192³; the passes ~70 µs at 4096³ at DRAM's speed): 4096³
// ~0.26 ms (1.35× cuBLAS TF32), 8192³ ~1.8 (1.5×). Measured on an H100 (docs/kernels.md, "Step 5: tf32 on the fp16
// tensor cores"), cuBLAS TF32 in the same run, 40 back to back: 4096³ 0.309–0.312 ms (1.09×; with 1 678 tiny values
// in each operand, 0.333–0.337, 1.01×), 8192³ 1.974 (1.50×, before the listing), error 2.6e-4 as cuBLAS TF32's.
// Short of the prediction: the product runs at 73% of the fp16 pipe's peak at ncu's locked clock (247 µs at 4096³;
// cuBLAS's ~80%), the passes take 72 µs (35 + 37, at 69–75% of DRAM's peak: a row that one power of two holds
// whole, most rows, is scaled by a multiply a value with no test of each; 85 µs and ~40 instructions a value when
// each value was tested), and ~10 µs go to the launches of the recomputations and fallback that do nothing on
// ordinary data.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/kernels/choose.h"
#include "cuda/kernels/helpers.cuh"
#include "cuda/kernels/hopper.cuh"
#include "cuda/kernels/kernel.h"
#include "cuda/kernels/registry.h"

namespace cuda_matmul {
namespace wgmma_f16 {  // named, so that bench/kernels.cu can include this file beside the other steps
namespace {

using namespace hopper;

constexpr int kRows = 128, kCols = 256;  // C's tile: two consumer warpgroups of 64 rows × 256 columns
constexpr int kDepth = 64;               // k per stage: 64 halves, one 128-byte swizzle row of A's tile
constexpr int kBoxCols = 64;             // B's stage tile in boxes of 64 columns (128 bytes) × kDepth rows
constexpr int kTileBytesA = kRows * kDepth * 2, kBoxBytesB = kBoxCols * kDepth * 2, kTileBytesB = kCols * kDepth * 2;
constexpr int kStageBytes = kTileBytesA + kTileBytesB, kStages = 4;
// Stages, then 2 mbarriers per stage; +1024 so the stages can start 1024-byte aligned (the swizzle's period).
// From Bᵀ, each consumer's columns' exponents for the epilogue (storeUnscaledByColumn), in two buffers: a tile's and
// the next's; each buffer's columns, then the least and the largest of each warp's.
constexpr int kExponentWords = kCols + 2 * 4;
constexpr int kExponentBytes = 2 * 2 * kExponentWords * 4;
// Each consumer's columns' and rows' thresholds for listing left-out terms (listLeftOutTerms), in two buffers the same
// way: a tile's columns, then its rows.
constexpr int kThresholdWords = kCols + 64;
constexpr int kThresholdBytes = 2 * 2 * kThresholdWords * 4;
constexpr int kSharedBytes = kStages * kStageBytes + 2 * kStages * 8 + kExponentBytes + kThresholdBytes + 1024;
constexpr int kThreads = 384;  // warpgroup 0 produces, 1 and 2 multiply
constexpr int kGroupRows = 8;

constexpr int kTopExponent = 14;     // a row's largest magnitude is scaled into [2^14, 2^15)
constexpr int kLowestNormal = -14;   // fp16's smallest normal exponent
constexpr int kZeroRow = INT_MAX;    // v_k of a row of B with no finite non-zero value: its products are 0
// Rows (and columns) recomputed with fp32 FMAs at most; past them, step 4. The marked rows share one pass over B,
// the marked columns one over A, both in one launch (recomputeMarked): at 4096³, 40 back to back, a marked row and
// column take the product from 0.303 to 0.362 ms, 4 of each to 0.370, where the fallback (the passes, then step 4)
// takes about 0.446 (docs/kernels.md, "Step 5: tf32 on the fp16 tensor cores").
constexpr int kMarked = 4;

// The scratch memory ProductLaunch gives this kernel (kernel.h, GemmOperands::scratch), for up to `rows` rows of
// C: a header of flags and counts, the marked rows' and columns' indices, a flag per column of B, B's exponents (a
// row's each, or a column's where B is held as Bᵀ), its marked columns gathered (k each) and B in fp16 (k×n, or n×k
// from Bᵀ), then A's exponents and A in fp16. Rows are padded to 64 halves, 128 bytes, the row of a TMA box: with
// 16 (as TMA needs) a 3000×5000×7001 product from Bᵀ, whose rows of 10 000 bytes put box rows across 32-byte sectors,
// took 604 µs against 467 from B.
enum Header : int {
  kFallback,    // nonzero: step 4 computes this run (marks past kMarked, here or in B; a full list with β = 0)
  kRowCount,    // rows of A marked
  kAClasses,    // A's magnitude classes (helpers.cuh), for the fallback
  kListedCount,  // elements of C whose left-out terms the product listed (entries of listed), this chunk of K's
  kCorrectAll,   // nonzero: the list was full with β ≠ 0, so every element of the corrected rows and columns is corrected
  kRunWordCount,  // the words above are found again each run (a row panel's A); the ones below once per B
  kColCount = kRunWordCount,  // columns of B marked
  kBClasses,
  kBFallback,   // B alone marked more than kMarked columns
  kExponentsMost,   // B's largest row exponent v_k (kExponentBias + v), kZeroRowSeen for a row of zeros: A's fast rows
  kExponentsLeast,  // and its least (kExponentBias − v), both by atomicMax from the header's 0
  kHeaderWords = 10
};

// A value held in neither fp16 nor its row's scaling that is finite (a tiny one) is not recomputed with its whole
// row or column: the fp16 product leaves its terms out (its fp16 copy is 0). Each such term is under 2 in the
// accumulator's scale (a tiny value is under 2^-14 there, the other operand's value under 2^15), so an element whose
// accumulator is at least kLeftOutMargin times its number of left-out terms is off by under 2^-20 of itself without
// them: far inside TF32's rounding (2^-11). The product's epilogue lists every other element of a row or column with
// tiny values (listLeftOutTerms), and a correction adds its left-out terms afterwards in fp32 (correctListed):
// A_ik·B_kj for a value of A, and for a value of B A_ik·B_kj with A's value where fp16 held it (0 where it did not,
// so that a term two corrections share counts once); the row's in order of k, then the column's, so the bits do not
// depend on which thread found what first. A row of A keeps at most kRowCorrections, a column of B
// kColumnCorrections, each in slots of its own: past those the row or column is marked and recomputed as before.
// (Correcting every element of each such row and column, a pass over C's row or column each, took 0.01% of 4096²
// values, 1 678 in each operand, to 0.36× cuBLAS TF32: docs/kernels.md, "Step 5: tf32 on the fp16 tensor cores".)
constexpr int kRowCorrections = 16, kColumnCorrections = 16;
constexpr float kLeftOutMargin = 2097152.0f;  // 2^21: 2^20 times the bound on one left-out term
// Elements listed at most: one in 256 of C's (at least 4 096, at most 2^24). Normal data at 4096³ with 0.01% of its
// values tiny lists about one in 1 500: its accumulators spread about 2^31 wide, and one in ~1 000 falls under 2^21.
// Past them, a product with β = 0 falls back to step 4 (which writes all of C), one with β ≠ 0 corrects every element
// of the corrected rows and columns (kCorrectAll).
constexpr int64_t listedCapacity(int64_t rows, int64_t n) { return std::clamp<int64_t>(rows * n / 256, 4096, int64_t{1} << 24); }
struct Correction {  // a tiny value: A_ik in row i's slots, or B_kj in column j's
  int32_t k;
  float value;
};
struct ListedElement {  // an element of C whose left-out terms are to be added: its row, column and slice of K
  int32_t row, col, slice, unused;
};
struct Scratch {
  uint32_t* header;
  int32_t *rowList, *colList;
  uint32_t* colFlag;  // n
  // n, after colFlag (one memset clears both): how many tiny values column j has (past kColumnCorrections, it is
  // marked), kept in its kColumnCorrections slots of colSlots in the order they were found.
  int32_t* colCorrections;
  Correction* colSlots;   // n·kColumnCorrections
  ListedElement* listed;  // listedCapacity(rows, n) of them, `listedMost`
  // rows: how many values fp16 did not hold row i has, its tiny ones in its kRowCorrections slots of rowSlots in the
  // order they were found (past kRowCorrections, the row is marked). Cleared each run.
  int32_t* rowTerms;
  Correction* rowSlots;   // rows·kRowCorrections
  int32_t *expB, *expA;  // max(k, n), rows
  float* markedB;        // min(kMarked, n) rows of lda floats: column colList[c] of B (k long) from c·lda
  __half *a, *b;
  // Where β ≠ 0, C's marked rows (kMarked of ldb floats) and then its marked columns (kMarked of `rows`) as they were
  // before the product wrote them: the recomputation's β·C (keepMarkedOfC).
  float* keptC;
  // K; a's and b's row pitches in halves (lda, a multiple of 64: markedB's in floats too, and b's made from Bᵀ);
  // the rows of C it was laid out for
  int64_t k, lda, ldb, rows, listedMost;

  // Each part 256-byte aligned (base is: cudaMalloc's). Laid out from address 0 for its size alone.
  Scratch(void* base, int64_t rows, int64_t depth, int64_t n)
      : k(depth), lda((depth + 63) / 64 * 64), ldb((n + 63) / 64 * 64), rows(rows), listedMost(listedCapacity(rows, n)) {
    uintptr_t p = reinterpret_cast<uintptr_t>(base);
    auto take = [&p](int64_t bytes) {
      void* const at = reinterpret_cast<void*>(p);
      p += static_cast<uintptr_t>((bytes + 255) / 256 * 256);
      return at;
    };
    // B's parts first: a row panel with fewer rows than the first (the last) finds B's copy where the first made it.
    header = reinterpret_cast<uint32_t*>(take(4 * (kHeaderWords + 2 * kMarked)));
    rowList = reinterpret_cast<int32_t*>(header + kHeaderWords);
    colList = rowList + kMarked;
    colFlag = reinterpret_cast<uint32_t*>(take(4 * 2 * n));
    colCorrections = reinterpret_cast<int32_t*>(colFlag + n);
    colSlots = reinterpret_cast<Correction*>(take(sizeof(Correction) * kColumnCorrections * n));
    expB = reinterpret_cast<int32_t*>(take(4 * std::max(k, n)));
    markedB = reinterpret_cast<float*>(take(4 * std::min<int64_t>(kMarked, n) * lda));
    b = reinterpret_cast<__half*>(take(2 * std::max(k * ldb, n * lda)));
    expA = reinterpret_cast<int32_t*>(take(4 * rows));
    rowTerms = reinterpret_cast<int32_t*>(take(4 * rows));
    rowSlots = reinterpret_cast<Correction*>(take(sizeof(Correction) * kRowCorrections * rows));
    listed = reinterpret_cast<ListedElement*>(take(sizeof(ListedElement) * listedMost));
    a = reinterpret_cast<__half*>(take(2 * rows * lda));
    keptC = reinterpret_cast<float*>(take(4 * kMarked * (ldb + rows)));
    bytes = static_cast<int64_t>(p - reinterpret_cast<uintptr_t>(base));
  }
  int64_t bytes;
};

// --- the scaling passes -----------------------------------------------------------------------------------------

constexpr int kPassThreads = 256;

// The largest of each thread's `top` and `high` and the smallest of its `bottom` and `low` over the block (blockDim.x
// == kPassThreads).
__device__ __forceinline__ void blockExtremes(int& top, int& bottom, uint32_t& high, uint32_t& low) {
  __shared__ int tops[kPassThreads / 32], bottoms[kPassThreads / 32];
  __shared__ uint32_t highs[kPassThreads / 32], lows[kPassThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2) {
    top = max(top, __shfl_xor_sync(0xffffffffu, top, offset));
    bottom = min(bottom, __shfl_xor_sync(0xffffffffu, bottom, offset));
    high = max(high, __shfl_xor_sync(0xffffffffu, high, offset));
    low = min(low, __shfl_xor_sync(0xffffffffu, low, offset));
  }
  __syncthreads();  // the arrays' previous use has been read
  if (threadIdx.x % 32 == 0) {
    const int w = threadIdx.x / 32;
    tops[w] = top, bottoms[w] = bottom, highs[w] = high, lows[w] = low;
  }
  __syncthreads();
  top = tops[0], bottom = bottoms[0], high = highs[0], low = lows[0];
  for (int w = 1; w < kPassThreads / 32; ++w)
    top = max(top, tops[w]), bottom = min(bottom, bottoms[w]), high = max(high, highs[w]), low = min(low, lows[w]);
}

// Appends `index` to a list of at most kMarked (its count at header[count]); past that, sets header[overflow].
__device__ __forceinline__ void mark(uint32_t* header, int count, int overflow, int32_t* list, int32_t index) {
  const uint32_t at = atomicAdd(&header[count], 1u);
  if (at < kMarked) list[at] = index;
  else atomicOr(&header[overflow], 1u);
}

// The passes work on a float's magnitude bits m (|x|'s, ordered as the magnitudes) and its biased exponent
// field E = m >> 23 (0 for zeros and subnormals). Scaling a normal x by 2^shift adds shift to E: exact, and one
// integer add, where the result is normal. fp16 holds x·2^shift exactly when that exponent is at least fp16's
// smallest normal one; the scaling keeps every value under 2^15 (E + shift ≤ 141).
constexpr int kBias = 127;
constexpr int kLowestHeld = kBias + kLowestNormal;  // the least biased exponent fp16 holds exactly: 113
constexpr uint32_t kLeastNormalBits = 0x00800000u;  // FLT_MIN's: below them, a float is subnormal
constexpr float kLeastHeld = 6.103515625e-05f;      // 2^-14, fp16's least normal: a scaled value below it is tiny
// B's exponents' range in the header (kExponentsMost, kExponentsLeast), offset so that both are found by atomicMax
// from 0; a row of zeros puts the most out of any fast row's reach.
constexpr int kExponentBias = 1024;
constexpr uint32_t kZeroRowSeen = 2 * kExponentBias;
__device__ __forceinline__ uint32_t magnitudeBits(float x) { return __float_as_uint(x) & 0x7fffffffu; }

// x·2^shift in fp16 if it is held exactly, with `held` saying whether it was (zero is; ±∞ and NaN are not).
__device__ __forceinline__ __half scaledHalf(float x, int shift, bool& held) {
  const uint32_t m = magnitudeBits(x), biased = m >> 23;
  if (biased != 0 && m < kInfinityBits) {  // normal: the common case
    held = static_cast<int>(biased) + shift >= kLowestHeld;
    return __float2half_rn(held ? __uint_as_float(__float_as_uint(x) + (static_cast<uint32_t>(shift) << 23)) : 0.0f);
  }
  // Zero, or a subnormal x = ±m·2^-149: x·2^shift is m (exact as a float, m < 2^23) times 2^(shift - 149), a normal
  // power of two wherever x is held (ilogbf(x) ≥ -149 and ilogbf(x) + shift ≥ -14, so shift - 149 ≥ -36). Not
  // scalbnf: CUDA 12.4's compiler evaluated it, exp2 and all, for every element beside the normal case
  // (docs/kernels.md, "The CUDA 12 variant").
  held = m < kInfinityBits && (m == 0 || ilogbf(x) + shift >= kLowestNormal);
  const float factor = __uint_as_float(static_cast<uint32_t>(min(max(shift - 149 + kBias, 1), 254)) << 23);
  return __float2half_rn(held && m != 0 ? copysignf(static_cast<float>(m) * factor, x) : 0.0f);
}

// A row's two visits (its largest magnitude, then its fp16 copy) by a block: the first loads it four floats at a
// time, kCached loads issued before the first is used, and keeps them in registers for the second, which loads
// only the rest again. (One load at a time and the whole row read twice, the passes ran at 1.5 TB/s.) Each value
// comes with its column's exponent v (`exponents`, four at a time beside the floats; 0 where there are none).
constexpr int kCached = 4;  // float4s per thread: rows up to 4096 floats are read once
struct RowVisit {
  const float* __restrict__ row;
  int64_t n;
  const int32_t* __restrict__ exponents;  // n of them, 16-byte aligned, or nullptr
  float4 cache[kCached];

  __device__ __forceinline__ int4 exponents4(int64_t q) const {
    return exponents ? reinterpret_cast<const int4*>(exponents)[q] : make_int4(0, 0, 0, 0);
  }
  __device__ __forceinline__ int exponent(int64_t c) const { return exponents ? exponents[c] : 0; }

  // Calls quad(q, x, v) for each float4 x of the row (row[4q … 4q + 3], the cached ones first) with its columns'
  // exponents v, then single(c, x, v) for each x = row[c] past the last whole float4.
  template <class Q, class S>
  __device__ __forceinline__ void forEach(Q&& quad, S&& single) const {
    const int64_t quads = n / 4;
#pragma unroll
    for (int u = 0; u < kCached; ++u) {
      const int64_t q = threadIdx.x + int64_t{u} * kPassThreads;
      if (q < quads) quad(q, cache[u], exponents4(q));
    }
    for (int64_t q = threadIdx.x + int64_t{kCached} * kPassThreads; q < quads; q += kPassThreads)
      quad(q, reinterpret_cast<const float4*>(row)[q], exponents4(q));
    for (int64_t c = 4 * quads + threadIdx.x; c < n; c += kPassThreads) single(c, row[c], exponent(c));
  }

  // Calls f(c, x, v) for each x = row[c].
  template <class F>
  __device__ __forceinline__ void first(F&& f) {
#pragma unroll
    for (int u = 0; u < kCached; ++u)
      if (threadIdx.x + int64_t{u} * kPassThreads < n / 4) cache[u] = reinterpret_cast<const float4*>(row)[threadIdx.x + u * kPassThreads];
    forEach([&](int64_t q, float4 x, int4 v) { f(4 * q, x.x, v.x), f(4 * q + 1, x.y, v.y), f(4 * q + 2, x.z, v.z), f(4 * q + 3, x.w, v.w); },
            f);
  }

  // Stores h(c, x, v), an fp16 value, at out[c] for each x = row[c] (out 16-byte aligned).
  template <class H>
  __device__ __forceinline__ void second(__half* out, H&& h) const {
    forEach(
        [&](int64_t q, float4 x, int4 v) {
          __half2 pair[2] = {__halves2half2(h(4 * q, x.x, v.x), h(4 * q + 1, x.y, v.y)),
                             __halves2half2(h(4 * q + 2, x.z, v.z), h(4 * q + 3, x.w, v.w))};
          *reinterpret_cast<uint2*>(out + 4 * q) = *reinterpret_cast<uint2*>(pair);
        },
        [&](int64_t c, float x, int v) { out[c] = h(c, x, v); });
  }

  // The fast second visit, for a row of finite values whose scaling is a multiply by a normal power of two at every
  // column (shift − v in [−126, 127]): x·2^(shift − v) at out[c], a pair converted at a time. With NOTE_TINY, a
  // non-zero value scaled below fp16's least normal is a tiny one: 0 at out[c], and tiny(c, x) called. (Without it,
  // the row has none: RowExtremes::allHeld.)
  template <bool NOTE_TINY, class T>
  __device__ __forceinline__ void secondScaled(__half* out, int shift, T&& tiny) const {
    auto scaled = [&](int64_t c, float x, int v) {
      const float y = x * __int_as_float((shift - v + kBias) << 23);
      if (NOTE_TINY && x != 0.0f && fabsf(y) < kLeastHeld) {
        tiny(c, x);
        return 0.0f;
      }
      return y;
    };
    forEach(
        [&](int64_t q, float4 x, int4 v) {
          __half2 pair[2] = {__floats2half2_rn(scaled(4 * q, x.x, v.x), scaled(4 * q + 1, x.y, v.y)),
                             __floats2half2_rn(scaled(4 * q + 2, x.z, v.z), scaled(4 * q + 3, x.w, v.w))};
          *reinterpret_cast<uint2*>(out + 4 * q) = *reinterpret_cast<uint2*>(pair);
        },
        [&](int64_t c, float x, int v) { out[c] = __float2half_rn(scaled(c, x, v)); });
  }
};

// The magnitude classes (helpers.cuh) of a row whose smallest non-zero magnitude bits are `low` and largest finite
// ones `high`.
__device__ __forceinline__ uint32_t classesOf(uint32_t low, uint32_t high) {
  return (low < kTinyBelowBits ? kTinySeen : 0u) | (high > kHugeAboveBits ? kHugeSeen : 0u);
}
constexpr uint32_t kNoneYet = 0xffffffffu;  // `low` of a row with no non-zero value

// Column c of B marked, to be recomputed whole (once).
__device__ __forceinline__ void markColumn(const Scratch& s, int64_t c) {
  if (atomicExch(&s.colFlag[c], 1u) == 0) mark(s.header, kColCount, kBFallback, s.colList, static_cast<int32_t>(c));
}

// B_rc, a tiny value, as a correction: in a slot of column c's; past the column's share, the column is marked instead
// (the slots it has are then left unused).
__device__ __forceinline__ void correctB(const Scratch& s, int64_t r, int64_t c, float x) {
  const int slot = atomicAdd(&s.colCorrections[c], 1);
  if (slot >= kColumnCorrections) return markColumn(s, c);
  s.colSlots[c * kColumnCorrections + slot] = {static_cast<int32_t>(r), x};
}

// A row's scaling, found value by value (x at a column of exponent v: B's v_k for A's rows, 0 for B's own) and
// reduced over the block: the largest and least E − v (E the biased exponent field) over non-zero values, the
// largest magnitude bits and the smallest non-zero ones (kept less one, so that a zero, wrapping to 2^32 − 1, is
// passed over by the unsigned min).
struct RowExtremes {
  int top = INT_MIN, least = INT_MAX;
  uint32_t high = 0, lowLessOne = kNoneYet;

  // Every value counts: the test of the fast path (allHeld).
  __device__ __forceinline__ void visit(float x, int v) {
    const uint32_t m = magnitudeBits(x);
    const int d = static_cast<int>(m >> 23) - v;
    top = max(top, m != 0 ? d : INT_MIN);
    least = min(least, m != 0 ? d : INT_MAX);
    high = max(high, m);
    lowLessOne = min(lowLessOne, m - 1u);
  }
  // As the value-by-value scaling needs it: top over finite values against rows of B that are not all zeros (v =
  // kZeroRow: none of their products counts), subnormals counted as E = 0, above their exponent (safe: a larger top
  // only scales the row further down); high over finite values.
  __device__ __forceinline__ void visitFinite(float x, int v) {
    const uint32_t m = magnitudeBits(x);
    const bool counts = m != 0 && m < kInfinityBits && v != kZeroRow;
    top = max(top, counts ? static_cast<int>(m >> 23) - v : INT_MIN);
    high = max(high, m < kInfinityBits ? m : 0u);
    lowLessOne = min(lowLessOne, m - 1u);
  }
  __device__ __forceinline__ void reduce() { blockExtremes(top, least, high, lowLessOne); }

  __device__ __forceinline__ uint32_t low() const { return lowLessOne == kNoneYet ? kNoneYet : lowLessOne + 1; }
  // The shift that puts the row's largest E − v into [2^14, 2^15): x·2^(shift − v) for each x. At most 141.
  __device__ __forceinline__ int shift() const { return top == INT_MIN ? 0 : kTopExponent + kBias - top; }
  // After visit: whether the row's values are finite, normal or zero, and scaled by a multiply by a normal power of
  // two wherever columns' v lie in [vLeast, vMost]. Such a row needs no mark: the fast second visit
  // (RowVisit::secondScaled), noting its tiny values as it goes.
  __device__ __forceinline__ bool scalable(int vLeast, int vMost) const {
    return top != INT_MIN && high < kInfinityBits && lowLessOne + 1 >= kLeastNormalBits && shift() - vMost >= 1 - kBias &&
           shift() - vLeast <= kBias;
  }
  // And whether that shift holds every value exactly (each scaled to at least fp16's least normal): a row with no
  // tiny value, which needs no test of each.
  __device__ __forceinline__ bool allHeld(int vLeast, int vMost) const {
    return scalable(vLeast, vMost) && least + shift() >= kLowestHeld;
  }
};

// Row r of B's exponent v_r (expB; from Bᵀ, 0 for a row with no finite non-zero value: the epilogue's w_j), its
// magnitude classes, and the range of B's exponents that A's fast rows need (kExponentsMost, kExponentsLeast).
__device__ __forceinline__ void finishRowOfB(const Scratch& s, int64_t r, int v, bool transposed, uint32_t low,
                                             uint32_t high) {
  s.expB[r] = transposed && v == kZeroRow ? 0 : v;
  if (const uint32_t classes = classesOf(low, high)) atomicOr(&s.header[kBClasses], classes);
  atomicMax(&s.header[kExponentsMost], v == kZeroRow ? kZeroRowSeen : static_cast<uint32_t>(kExponentBias + v));
  if (v != kZeroRow) atomicMax(&s.header[kExponentsLeast], static_cast<uint32_t>(kExponentBias - v));
}

// Row r of B as stored (B: k rows of n, ldb; Bᵀ: n rows of k) scaled by 2^v_r into s.b; columns of B holding a value
// not held exactly are marked (once each) or corrected. A block per row; a row that scaling holds whole (most) is
// written without a test per value.
template <bool B_TRANSPOSED>
__global__ void __launch_bounds__(kPassThreads) scaleRowsOfB(const float* __restrict__ B, int64_t ldb, int64_t k,
                                                             int64_t n, Scratch s) {
  const int64_t rows = B_TRANSPOSED ? n : k, cols = B_TRANSPOSED ? k : n;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    RowVisit visit{B + r * ldb, cols, nullptr};
    RowExtremes row;
    visit.first([&](int64_t, float x, int) { row.visit(x, 0); });
    row.reduce();
    __half* const out = s.b + r * (B_TRANSPOSED ? s.lda : s.ldb);
    if (row.scalable(0, 0)) {
      if (threadIdx.x == 0) finishRowOfB(s, r, row.shift(), B_TRANSPOSED, row.low(), row.high);
      if (row.allHeld(0, 0))
        visit.secondScaled<false>(out, row.shift(), [](int64_t, float) {});
      else
        visit.secondScaled<true>(out, row.shift(), [&](int64_t c, float x) {
          correctB(s, B_TRANSPOSED ? c : r, B_TRANSPOSED ? r : c, x);
        });
      continue;
    }
    if (row.high >= kInfinityBits) {  // the largest finite magnitude, for the scaling
      row = RowExtremes();
      visit.first([&](int64_t, float x, int) { row.visitFinite(x, 0); });
      row.reduce();
    }
    const int v = row.high == 0 ? kZeroRow : kTopExponent - ilogbf(__uint_as_float(row.high));
    if (threadIdx.x == 0) finishRowOfB(s, r, v, B_TRANSPOSED, row.low(), row.high);
    visit.second(out, [&](int64_t c, float x, int) {
      bool held;
      const __half h = v == kZeroRow ? __half() : scaledHalf(x, v, held);
      if (v == kZeroRow) held = x == 0.0f;
      if (!held) {
        const int64_t rowOfB = B_TRANSPOSED ? c : r, columnOfB = B_TRANSPOSED ? r : c;
        if (finite(x))
          correctB(s, rowOfB, columnOfB, x);
        else
          markColumn(s, columnOfB);
      }
      return h;
    });
  }
}

// A_ic, a value of row i not held exactly: a tiny one in a slot of the row's, in the order found; past the row's
// share, or a non-finite one (which counts past it at once), marks the row, once (by the value whose count crosses
// the share), and rowTerms past kRowCorrections says so.
__device__ __forceinline__ void noteValueOfA(const Scratch& s, int64_t i, int64_t c, float x) {
  const bool tiny = finite(x);
  const int weight = tiny ? 1 : kRowCorrections + 1;
  const int before = atomicAdd(&s.rowTerms[i], weight);
  if (tiny && before < kRowCorrections)
    s.rowSlots[i * kRowCorrections + before] = {static_cast<int32_t>(c), x};
  else if (before <= kRowCorrections && before + weight > kRowCorrections)
    mark(s.header, kRowCount, kFallback, s.rowList, static_cast<int32_t>(i));
}

// A_ic scaled by 2^(scale − v) in fp16, `held` saying whether it was held exactly. Against a row of B of zeros, A's
// value only needs to be finite (∞·0 is NaN).
__device__ __forceinline__ __half scaledValueOfA(float x, int v, int scale, bool& held) {
  if (v == kZeroRow) {
    held = finite(x);
    return __half();
  }
  return scaledHalf(x, scale - v, held);
}

// Row i of A's exponent and magnitude classes (its values not held exactly are noted as they are met:
// noteValueOfA).
__device__ __forceinline__ void finishRowOfA(const Scratch& s, int64_t i, const RowExtremes& row) {
  s.expA[i] = row.shift();
  if (const uint32_t classes = classesOf(row.low(), row.high)) atomicOr(&s.header[kAClasses], classes);
}

// Row i of A (k columns, lda) scaled by 2^(s_i − v_k) at column k into s.a (from Bᵀ: v_k = 0), s_i into s.expA[i];
// rows holding a value not held exactly are marked or corrected. A block per row; a row that scaling holds whole
// (most) is written without a test per value. Block 0 also carries B's fallback into this run's flag.
template <bool B_TRANSPOSED>
__global__ void __launch_bounds__(kPassThreads, 4) scaleRowsOfA(const float* __restrict__ A, int64_t lda, int64_t m,
                                                             int64_t k, Scratch s) {
  if (blockIdx.x == 0 && threadIdx.x == 0 && s.header[kBFallback]) atomicOr(&s.header[kFallback], 1u);
  // The range of B's v_k (from Bᵀ, 0); past kExponentBias, B has a row of zeros.
  const int vMost = B_TRANSPOSED ? 0 : static_cast<int>(s.header[kExponentsMost]) - kExponentBias;
  const int vLeast = B_TRANSPOSED ? 0 : kExponentBias - static_cast<int>(s.header[kExponentsLeast]);
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    RowVisit visit{A + i * lda, k, B_TRANSPOSED ? nullptr : s.expB};
    RowExtremes row;
    visit.first([&](int64_t, float x, int v) { row.visit(x, v); });
    row.reduce();
    __half* const out = s.a + i * s.lda;
    if (row.allHeld(vLeast, vMost)) {
      if (threadIdx.x == 0) finishRowOfA(s, i, row);
      visit.secondScaled<false>(out, row.shift(), [](int64_t, float) {});
      continue;
    }
    const bool scalable = row.scalable(vLeast, vMost);
    if (!scalable && (row.high >= kInfinityBits || vMost >= kExponentBias)) {  // the scaling over the values that count
      row = RowExtremes();
      visit.first([&](int64_t, float x, int v) { row.visitFinite(x, v); });
      row.reduce();
    }
    if (threadIdx.x == 0) finishRowOfA(s, i, row);
    auto note = [&](int64_t c, float x) { noteValueOfA(s, i, c, x); };
    if (scalable)
      visit.secondScaled<true>(out, row.shift(), note);
    else
      visit.second(out, [&](int64_t c, float x, int v) {
        bool held;
        const __half h = scaledValueOfA(x, v, row.shift(), held);
        if (!held) note(c, x);
        return h;
      });
  }
}

// The same from A held as Aᵀ (k rows of m, lda), into the same row-major s.a: a block per kRowsPerBlock rows of A
// (neighbouring columns of Aᵀ, 32 bytes of each of its rows), a thread per k at a time holding those rows' values
// there, read twice (the second time from L2 where A fits it: a 4096² A does not), with no transposed copy of A.
constexpr int kRowsPerBlock = 8;
template <bool B_TRANSPOSED>
__global__ void __launch_bounds__(kPassThreads) scaleRowsOfAFromAT(const float* __restrict__ At, int64_t lda,
                                                                   int64_t m, int64_t k, Scratch s) {
  if (blockIdx.x == 0 && threadIdx.x == 0 && s.header[kBFallback]) atomicOr(&s.header[kFallback], 1u);
  for (int64_t first = blockIdx.x * int64_t{kRowsPerBlock}; first < m; first += int64_t{gridDim.x} * kRowsPerBlock) {
    const int rows = static_cast<int>(min(int64_t{kRowsPerBlock}, m - first));
    // Row c of Aᵀ's values in rows first … first + rows − 1 of A (0 past them): two 16-byte loads where all 8 are
    // there (rows 16-byte aligned: readyToLaunch), else one at a time.
    auto load = [&](int64_t c, float (&x)[kRowsPerBlock]) {
      const float* const p = At + c * lda + first;
      if (rows == kRowsPerBlock) {
        const float4 low = reinterpret_cast<const float4*>(p)[0], high = reinterpret_cast<const float4*>(p)[1];
        x[0] = low.x, x[1] = low.y, x[2] = low.z, x[3] = low.w, x[4] = high.x, x[5] = high.y, x[6] = high.z, x[7] = high.w;
      } else {
#pragma unroll
        for (int r = 0; r < kRowsPerBlock; ++r) x[r] = r < rows ? p[r] : 0.0f;
      }
    };
    RowExtremes scale[kRowsPerBlock];
    for (int64_t c = threadIdx.x; c < k; c += kPassThreads) {
      float x[kRowsPerBlock];
      load(c, x);
      const int v = B_TRANSPOSED ? 0 : s.expB[c];
#pragma unroll
      for (int r = 0; r < kRowsPerBlock; ++r) scale[r].visitFinite(x[r], v);
    }
#pragma unroll
    for (int r = 0; r < kRowsPerBlock; ++r) scale[r].reduce();
#pragma unroll
    for (int r = 0; r < kRowsPerBlock; ++r)  // thread r finishes row r (a constant index: scale stays in registers)
      if (threadIdx.x == r && r < rows) finishRowOfA(s, first + r, scale[r]);
    for (int64_t c = threadIdx.x; c < k; c += kPassThreads) {
      float x[kRowsPerBlock];
      load(c, x);
      const int v = B_TRANSPOSED ? 0 : s.expB[c];
#pragma unroll
      for (int r = 0; r < kRowsPerBlock; ++r) {
        if (r >= rows) break;
        bool held;
        s.a[(first + r) * s.lda + c] = scaledValueOfA(x[r], v, scale[r].shift(), held);
        if (!held) noteValueOfA(s, first + r, c, x[r]);
      }
    }
  }
}

// The marked columns of B (as held: B or Bᵀ, ldb), each gathered into a row of s.markedB for the recomputation's
// loads.
template <bool B_TRANSPOSED>
__global__ void gatherMarkedColumns(const float* __restrict__ B, int64_t ldb, int64_t k, Scratch s) {
  const int count = min(static_cast<int>(s.header[kColCount]), kMarked);
  if (s.header[kFallback] || blockIdx.y >= count) return;
  const int64_t col = s.colList[blockIdx.y];
  for (int64_t r = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; r < k; r += int64_t{gridDim.x} * blockDim.x)
    s.markedB[blockIdx.y * s.lda + r] = *elementAt(B, ldb, r, col, B_TRANSPOSED);
}

// Where β ≠ 0, C's marked rows and columns as they are before the product writes them (Scratch::keptC): block row y
// < kMarked keeps marked row y, the next kMarked marked column y − kMarked.
__global__ void keepMarkedOfC(const float* __restrict__ C, int64_t ldc, int64_t M, int64_t N, Scratch s) {
  const bool row = blockIdx.y < kMarked;
  const int index = row ? blockIdx.y : blockIdx.y - kMarked;
  if (s.header[kFallback] || index >= min(static_cast<int>(s.header[row ? kRowCount : kColCount]), kMarked)) return;
  const int64_t length = row ? N : M, first = row ? s.rowList[index] * ldc : s.colList[index];
  float* const kept = row ? s.keptC + index * s.ldb : s.keptC + kMarked * s.ldb + index * s.rows;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < length; e += int64_t{gridDim.x} * blockDim.x)
    kept[e] = C[first + (row ? e : e * ldc)];
}

// --- the product ------------------------------------------------------------------------------------------------

// The counts of left-out terms a consumer's tile needs (the comment above kRowCorrections), copied into its threshold
// buffer as the tile starts, so that they are there when its product is done and hold no register meanwhile: thread
// x of the warpgroup copies columns colBase + x and + 128 (0 past N, and for a marked column, whose count passed
// kColumnCorrections) and, for x < 64, row rowBase + x (0 past M, and for a marked row, whose count passed
// kRowCorrections).
__device__ __forceinline__ void copyLeftOutCounts(float* thresholds, const Scratch& s, int64_t rowBase, int64_t colBase,
                                                  int64_t M, int64_t N, int x) {
#pragma unroll
  for (int q = 0; q < 2; ++q) {
    const int64_t col = colBase + x + 128 * q;
    copyAsync<4>(thresholds + x + 128 * q, s.colCorrections + (col < N ? col : 0), col < N ? 4 : 0);
  }
  if (x < 64) copyAsync<4>(thresholds + kCols + x, s.rowTerms + (rowBase + x < M ? rowBase + x : 0), rowBase + x < M ? 4 : 0);
  commitCopies();
}

// Once the copies have landed: thread x turns the counts it copied into thresholds (kLeftOutMargin times each; −∞
// for a column past N or a row past M, so that no sum with one lists an element outside C), and says whether any was
// non-zero. The warpgroup's barrier after it (anyInWarpgroup) publishes them.
__device__ __forceinline__ bool leftOutThresholds(float* thresholds, int64_t rowBase, int64_t colBase, int64_t M,
                                                  int64_t N, int x) {
  waitForCopies<0>();
  auto threshold = [](float& word, bool inside, int most) {
    const int count = __float_as_int(word);
    word = !inside ? -INFINITY : count <= most ? kLeftOutMargin * static_cast<float>(count) : 0.0f;
    return word > 0.0f;
  };
  bool any = threshold(thresholds[x], colBase + x < N, kColumnCorrections);
  any |= threshold(thresholds[x + 128], colBase + x + 128 < N, kColumnCorrections);
  if (x < 64) any |= threshold(thresholds[kCols + x], rowBase + x < M, kRowCorrections);
  return any;
}

// A barrier of consumer warpgroup `consumer` (its 128 threads, after which each sees what the others wrote to shared
// memory), which also says whether `x` was true in any of them.
__device__ __forceinline__ bool anyInWarpgroup(int consumer, bool x) {
  uint32_t any;
  asm volatile("{\n .reg .pred p, q;\n setp.ne.u32 q, %1, 0;\n bar.red.or.pred p, %2, 128, q;\n selp.u32 %0, 1, 0, p;\n}\n"
               : "=r"(any)
               : "r"(static_cast<uint32_t>(x)), "r"(1 + consumer)
               : "memory");
  return any != 0;
}

// Where `listing` (some element of the warpgroup's tile has left-out terms): this thread's elements of a consumer's
// 64×256 (d[4j + 2h + q]: row row0 + 8h, column colBase + 8j + 2t + q of C, the tile's row rowInTile + 8h of the
// consumer's 64, lane = 4g + t) whose accumulator is under its threshold (the row's plus the column's), appended to
// s.listed for correctListed, a warp's elements together. Past its capacity, a product with β = 0 falls back to step 4,
// one with β ≠ 0 corrects its rows and columns whole. Called by every lane of the warp, whatever `listing` is: with
// the whole call under a branch, the compiler serialized the kernel's wgmma instructions (ptxas's C7520), and only
// the tests of the accumulators can be skipped.
__device__ __forceinline__ void listLeftOutTerms(bool listing, const float (&d)[128], const float* thresholds, int rowInTile,
                                                 int64_t row0, int64_t colBase, int t, int64_t slice, const Scratch& s,
                                                 const Epilogue& epilogue) {
  const float rowThreshold[2] = {thresholds[kCols + rowInTile], thresholds[kCols + rowInTile + 8]};
  uint32_t hits[4] = {0, 0, 0, 0};  // bit e % 32 of hits[e / 32]: element d[e]
  if (listing) {
#pragma unroll
    for (int j = 0; j < kCols / 8; ++j) {
      const float2 column = *reinterpret_cast<const float2*>(thresholds + 8 * j + 2 * t);
#pragma unroll
      for (int e = 4 * j; e < 4 * j + 4; ++e)
        if (fabsf(d[e]) < rowThreshold[(e / 2) % 2] + (e % 2 ? column.y : column.x)) hits[e / 32] |= 1u << (e % 32);
    }
  }
  const int count = __popc(hits[0]) + __popc(hits[1]) + __popc(hits[2]) + __popc(hits[3]);
  const int lane = threadIdx.x % 32;
  int upTo = count;  // this lane's and the lanes' before it
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const int before = __shfl_up_sync(0xffffffffu, upTo, offset);
    if (lane >= offset) upTo += before;
  }
  const int total = __shfl_sync(0xffffffffu, upTo, 31);
  if (total == 0) return;
  uint32_t first = lane == 31 ? atomicAdd(&s.header[kListedCount], static_cast<uint32_t>(total)) : 0u;
  first = __shfl_sync(0xffffffffu, first, 31) + static_cast<uint32_t>(upTo - count);
  if (uint64_t{first} + static_cast<uint64_t>(count) > static_cast<uint64_t>(s.listedMost)) {
    atomicOr(&s.header[epilogue.beta == 0.0f ? kFallback : kCorrectAll], 1u);
    return;
  }
#pragma unroll
  for (int w = 0; w < 4; ++w)
    for (uint32_t bits = hits[w]; bits != 0; bits &= bits - 1) {
      const int e = 32 * w + __ffs(bits) - 1;
      s.listed[first++] = {static_cast<int32_t>(row0 + 8 * ((e / 2) % 2)), static_cast<int32_t>(colBase + 8 * (e / 4) + 2 * t + e % 2),
                           static_cast<int32_t>(slice), 0};
    }
}

// From Bᵀ: this thread's elements of a consumer's 64×256 (d[4j + 2h + q]: row row0 + 8h, column col0 + 8j + q of
// the tile, whose first column is colBase) into C, each times 2^-(s_i + w_j), the tile's w_j from shared memory
// (then the least and the largest of each warp's). A multiply where every such power of two in the row is a float,
// else scalbnf: two loops, not a choice per element (the compiler evaluated scalbnf for every element beside the
// multiply: docs/kernels.md, "The CUDA 12 variant"). (Loaded from global memory one at a time, each load waited
// behind the store before it, and the product at 4096³ took 316 µs against 240 with B held row-major: ncu.)
__device__ __forceinline__ void storeUnscaledByColumn(const float (&d)[128], float* c, int64_t ldc, int64_t row0,
                                                      int col0, int64_t colBase, int64_t M, int64_t N, bool pairs,
                                                      const int* tileExponents, const Scratch& s,
                                                      const Epilogue& epilogue) {
  int least = tileExponents[kCols], largest = tileExponents[kCols + 1];
#pragma unroll
  for (int w = 1; w < 4; ++w) {
    least = min(least, tileExponents[kCols + 2 * w]);
    largest = max(largest, tileExponents[kCols + 2 * w + 1]);
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int64_t row = row0 + 8 * h;
    if (row >= M) continue;
    const int unscale = -s.expA[row];
    auto storeRow = [&](auto unscaled) {
      storeRowPairs<kCols / 8, false>(
          c + row * ldc, N, pairs, epilogue, [&](int j) { return colBase + col0 + 8 * j; },
          [&](int j, int q) { return unscaled(d[4 * j + 2 * h + q], unscale - tileExponents[col0 + 8 * j + q]); },
          [](int, uint32_t) {});
    };
    if (unscale - largest >= -126 && unscale - least <= 127)
      storeRow([](float x, int e) { return x * __int_as_float((e + 127) << 23); });
    else
      storeRow([](float x, int e) { return scalbnf(x, e); });
  }
}

// C (M×N, ldc) = 2^-s_i · A'·B' (from Bᵀ, 2^-(s_i + w_j) at column j) over `tiles` work tiles, through the epilogue
// (α and β); split K: slice z into C + z·sliceStride. Does nothing when the run fell back to step 4.
template <bool B_TRANSPOSED>
__global__ void __launch_bounds__(kThreads, 1)
    f16Gemm(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB, float* __restrict__ C,
            int64_t ldc, int64_t M, int64_t K, int64_t N, int64_t sliceDepth, int64_t sliceStride, int64_t tiles,
            bool pairs, Scratch s, Epilogue epilogue) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ uint8_t sharedBytes[];
  uint8_t* const stages = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(sharedBytes) + 1023) / 1024 * 1024);
  uint64_t* const full = reinterpret_cast<uint64_t*>(stages + kStages * kStageBytes);
  uint64_t* const empty = full + kStages;
  int* const columnExponents = reinterpret_cast<int*>(empty + kStages);
  float* const thresholdBuffers = reinterpret_cast<float*>(columnExponents + 2 * 2 * kExponentWords);
  auto tileA = [&](int stage) { return stages + stage * kStageBytes; };
  auto tileB = [&](int stage) { return stages + stage * kStageBytes + kTileBytesA; };
  // Whether the run fell back, read once for the block: a full list sets the flag while the product runs, and a
  // block whose producer and consumers read it differently would wait on its barriers for ever.
  __shared__ bool fellBack;
  if (threadIdx.x == 0) {
    fellBack = s.header[kFallback] != 0;
    for (int stage = 0; stage < kStages; ++stage) {
      barrierInit(&full[stage], 1);   // the producer's expect-bytes arrival, then the TMA's bytes
      barrierInit(&empty[stage], 2);  // one arrival per consumer warpgroup
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (fellBack) return;

  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x != 0) return;
    int use = 0;  // stages filled so far, over every tile
    for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
      const WorkTile w = workTile<kRows, kCols>(t, M, N, K, sliceDepth, kGroupRows);
      const int kTiles = static_cast<int>((w.depth + kDepth - 1) / kDepth);
      for (int kt = 0; kt < kTiles; ++kt, ++use) {
        const int stage = use % kStages, k0 = static_cast<int>(w.kBegin + int64_t{kt} * kDepth);
        if (use >= kStages) barrierWait(&empty[stage], ((use / kStages) & 1) ^ 1);  // its last use has finished
        barrierExpectBytes(&full[stage], kStageBytes);
        tmaLoad(tileA(stage), &mapA, k0, static_cast<int>(w.row), &full[stage]);
        if (B_TRANSPOSED)
          tmaLoad(tileB(stage), &mapB, k0, static_cast<int>(w.col), &full[stage]);
        else
          for (int box = 0; box < kCols / kBoxCols; ++box)
            tmaLoad(tileB(stage) + box * kBoxBytesB, &mapB, static_cast<int>(w.col + box * kBoxCols), k0, &full[stage]);
      }
    }
    return;
  }

  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  const int consumer = warpgroup - 1, warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
  const bool lead = threadIdx.x % 128 == 0;
  int use = 0, parity = 0;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const WorkTile w = workTile<kRows, kCols>(t, M, N, K, sliceDepth, kGroupRows);
    const int kTiles = static_cast<int>((w.depth + kDepth - 1) / kDepth);
    // This tile's buffers: the next tile's writes go to the other, and the one after waits for every warp of the
    // warpgroup at the barrier past this epilogue.
    int* const tileExponents = columnExponents + (2 * consumer + parity) * kExponentWords;
    float* const thresholds = thresholdBuffers + (2 * consumer + parity) * kThresholdWords;
    parity ^= 1;
    const int64_t row0 = w.row + consumer * 64 + warp * 16 + lane / 4;  // this thread's first row
    copyLeftOutCounts(thresholds, s, w.row + consumer * 64, w.col, M, N, threadIdx.x % 128);
    // From Bᵀ, the tile's columns' exponents w_j, two a thread, loaded now and kept in shared memory for the
    // epilogue once the product is done.
    int exponents[2] = {0, 0};
    if (B_TRANSPOSED)
      for (int q = 0; q < 2; ++q) {
        const int64_t col = w.col + threadIdx.x % 128 + 128 * q;
        if (col < N) exponents[q] = __ldg(&s.expB[col]);
      }
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; ++i) d[i] = 0.0f;
    for (int kt = 0; kt < kTiles; ++kt) {
      if (prefetchStageOfC(kt, kTiles))  // C's lines for the epilogue's β·C, where β ≠ 0 (K is then whole)
        for (int h = 0; h < 2; ++h) {
          const int64_t row = row0 + 8 * h;
          if (row < M) prefetchRowOfC(epilogue, C + row * ldc, w.col, w.col + kCols, N, lane % 4, 4);
        }
      const int u = use + kt, stage = u % kStages;
      // 16 halves = 32 bytes along A's swizzled rows, 16 rows of B's tile (MN-major: its 64-column boxes
      // kBoxBytesB apart, sharedDescriptor's leading byte offset), or from Bᵀ 32 bytes along its rows as A's.
      auto multiply = [&](auto steps) {
#pragma unroll
        for (int kk = 0; kk < decltype(steps)::value; ++kk)
          wgmmaF16x256<B_TRANSPOSED>(d, sharedDescriptor(tileA(stage) + consumer * 64 * 128 + kk * 32),
                                     B_TRANSPOSED ? sharedDescriptor(tileB(stage) + kk * 32)
                                                  : sharedDescriptor(tileB(stage) + kk * 16 * 128, kBoxBytesB));
      };
      barrierWait(&full[stage], (u / kStages) & 1);
      wgmmaFence();
      // A slice of K ends on a multiple of 32 (choose.h, kSliceAlignment), which may be halfway through a stage,
      // whose other half then holds the next slice's k: such a stage is multiplied half deep. (At K's own end the
      // TMA fills zeros.)
      if (w.depth - int64_t{kt} * kDepth > kDepth / 2)
        multiply(std::integral_constant<int, kDepth / 16>{});
      else
        multiply(std::integral_constant<int, kDepth / 32>{});
      wgmmaCommit();
      // This stage's products stay in flight; the previous stage's are done once one group is pending.
      wgmmaWait<1>();
      pinRegisters(d);
      if (kt > 0 && lead) barrierArrive(&empty[(u - 1) % kStages]);
    }
    wgmmaWait<0>();
    pinRegisters(d);
    if (kTiles > 0 && lead) barrierArrive(&empty[(use + kTiles - 1) % kStages]);
    use += kTiles;
    // d[4j + 2h + q]: row 16·warp + 8h + g, column 8j + 2t + q of this warpgroup's 64×256 (lane = 4g + t).
    const int64_t slice = sliceDepth > 0 ? w.kBegin / sliceDepth : 0;
    float* const c = C + slice * sliceStride;
    const bool leftOut = leftOutThresholds(thresholds, w.row + consumer * 64, w.col, M, N, threadIdx.x % 128);
    if (B_TRANSPOSED) {
      tileExponents[threadIdx.x % 128] = exponents[0];
      tileExponents[threadIdx.x % 128 + 128] = exponents[1];
      int least = min(exponents[0], exponents[1]), largest = max(exponents[0], exponents[1]);
      for (int offset = 16; offset > 0; offset /= 2) {
        least = min(least, __shfl_xor_sync(0xffffffffu, least, offset));
        largest = max(largest, __shfl_xor_sync(0xffffffffu, largest, offset));
      }
      if (lane == 0) tileExponents[kCols + 2 * warp] = least, tileExponents[kCols + 2 * warp + 1] = largest;
    }
    const bool listing = anyInWarpgroup(consumer, leftOut);
    if (B_TRANSPOSED) {
      storeUnscaledByColumn(d, c, ldc, row0, 2 * (lane % 4), w.col, M, N, pairs, tileExponents, s, epilogue);
      listLeftOutTerms(listing, d, thresholds, warp * 16 + lane / 4, row0, w.col, lane % 4, slice, s, epilogue);
      continue;
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t row = row0 + 8 * h;
      if (row >= M) continue;
      const int unscale = -s.expA[row];
      auto storeRow = [&](auto unscaled) {
        storeRowPairs<kCols / 8, false>(
            c + row * ldc, N, pairs, epilogue, [&](int j) { return w.col + 8 * j + 2 * (lane % 4); },
            [&](int j, int q) { return unscaled(d[4 * j + 2 * h + q]); }, [](int, uint32_t) {});
      };
      // A multiply by 2^unscale where that is a float (one rounding, as scalbnf's, subnormal results included:
      // no flush-to-zero here), else scalbnf. Two loops, not a choice per element: CUDA 12.4's compiler evaluated
      // scalbnf for every element beside the multiply (11% of the kernel's time at 4096³, docs/kernels.md, "The CUDA 12 variant").
      if (unscale >= -126 && unscale <= 127) {
        const float factor = __int_as_float((unscale + 127) << 23);
        storeRow([&](float x) { return x * factor; });
      } else {
        storeRow([&](float x) { return scalbnf(x, unscale); });
      }
    }
    listLeftOutTerms(listing, d, thresholds, warp * 16 + lane / 4, row0, w.col, lane % 4, slice, s, epilogue);
  }
#endif
}

// --- the marked rows and columns, in fp32 -----------------------------------------------------------------------

// The recomputations run on every product with marks in A or B, which ordinary data has now and then (a value
// 2^-28 below its row's largest: about one in 2^29 of U[-1,1]'s, a few percent of 4096² matrices), so they spread
// over the SMs with many loads in flight: K is shared out among the warps of a block (rows) or the lanes of a warp
// (columns), and the partial sums added in a fixed order. (A thread per element summing all of K in order took
// 0.6–2 ms at 4096³ for one marked row and column: a warp per SM, a load or two in flight.)
constexpr int kRecomputeWarps = 16;     // a block of the recomputation: warps sharing out K, or a row each
constexpr int kRecomputeBlocks = 1024;  // grid-stride beyond: an empty launch (no marks) stays short
constexpr int kRowLoads = 8;            // loads of B in flight per warp of the rows' part

// The k range of slice z of a split K (sliceDepth 0: all of K).
__device__ __forceinline__ void sliceRange(int64_t K, int64_t sliceDepth, int64_t& begin, int64_t& end) {
  begin = sliceDepth > 0 ? blockIdx.z * sliceDepth : 0;
  end = sliceDepth > 0 ? min(K, begin + sliceDepth) : K;
}

// The rows' part: the marked rows of C (rowList) but their marked columns, 32 columns a block, each element of B
// read once for all of them: the block's warps take every kRecomputeWarps-th k, their sums added in warp order.
template <bool B_TRANSPOSED>
__device__ __forceinline__ void recomputeRows(const float* __restrict__ A, int64_t lda, bool aTransposed,
                                              const float* __restrict__ B, int64_t ldb, float* C, int64_t ldc, int64_t N,
                                              int64_t begin, int64_t end, int64_t sliceStride, int block, int blocks,
                                              const Scratch& s, const Epilogue& epilogue) {
  __shared__ float partial[kRecomputeWarps][kMarked][32];
  const int count = min(static_cast<int>(s.header[kRowCount]), kMarked);
  if (count == 0) return;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const float* rows[kMarked];
#pragma unroll
  for (int r = 0; r < kMarked; ++r) rows[r] = elementAt(A, lda, s.rowList[r < count ? r : 0], 0, aTransposed);
  const int64_t along = aTransposed ? lda : 1;  // from one k of a row of A to the next
  for (int64_t first = block * int64_t{32}; first < N; first += int64_t{blocks} * 32) {
    const int64_t col = first + lane;
    const bool mine = col < N && !s.colFlag[col];  // a marked column's elements are the columns' part's
    float sum[kMarked] = {};
    if (mine) {
#pragma unroll kRowLoads
      for (int64_t p = begin + warp; p < end; p += kRecomputeWarps) {
        const float b = *elementAt(B, ldb, p, col, B_TRANSPOSED);
#pragma unroll
        for (int r = 0; r < kMarked; ++r) sum[r] = fmaf(rows[r][p * along], b, sum[r]);
      }
    }
#pragma unroll
    for (int r = 0; r < kMarked; ++r) partial[warp][r][lane] = sum[r];
    __syncthreads();
    if (warp < count && mine) {  // warp r adds row r's sums
      float total = 0.0f;
      for (int w = 0; w < kRecomputeWarps; ++w) total += partial[w][warp][lane];
      float* const out = C + blockIdx.z * sliceStride + s.rowList[warp] * ldc + col;
      *out = epilogueValue(epilogue, total, s.keptC + warp * s.ldb + col);  // β·C as it was (keepMarkedOfC)
    }
    __syncthreads();
  }
}

// The columns' part: the marked columns of C (colList), a warp per row, its lanes taking four k at a time of its
// row of A, read once for all of them, and of the gathered columns of B (s.markedB, whole K long: this chunk of K
// starts kOffset in), their sums added by a fixed tree of shuffles. A held as Aᵀ is read a value at a time, summed
// as the four of a load are.
__device__ __forceinline__ void recomputeColumns(const float* __restrict__ A, int64_t lda, bool aTransposed, float* C,
                                                 int64_t ldc,
                                                 int64_t M, int64_t begin, int64_t end, int64_t sliceStride,
                                                 int64_t kOffset, int block, int blocks, const Scratch& s,
                                                 const Epilogue& epilogue) {
  const int count = min(static_cast<int>(s.header[kColCount]), kMarked);
  if (count == 0) return;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t body = begin + (end - begin) / 128 * 128;  // whole steps of 32 lanes × 4 floats
  const float* columns[kMarked];
#pragma unroll
  for (int c = 0; c < kMarked; ++c) columns[c] = s.markedB + (c < count ? c : 0) * s.lda + kOffset;
  for (int64_t row = block * int64_t{kRecomputeWarps} + warp; row < M; row += int64_t{blocks} * kRecomputeWarps) {
    const float* const a = elementAt(A, lda, row, 0, aTransposed);
    const int64_t along = aTransposed ? lda : 1;
    float sum[kMarked] = {};
#pragma unroll 2
    for (int64_t p = begin + 4 * lane; p < body; p += 128) {
      // Row-major: 16-byte aligned rows (readyToLaunch); chunks and slices start on 32s.
      const float4 x = aTransposed ? make_float4(a[p * along], a[(p + 1) * along], a[(p + 2) * along], a[(p + 3) * along])
                                    : *reinterpret_cast<const float4*>(a + p);
#pragma unroll
      for (int c = 0; c < kMarked; ++c) {
        const float4 y = *reinterpret_cast<const float4*>(columns[c] + p);
        sum[c] = fmaf(x.w, y.w, fmaf(x.z, y.z, fmaf(x.y, y.y, fmaf(x.x, y.x, sum[c]))));
      }
    }
    for (int64_t p = body + lane; p < end; p += 32)
#pragma unroll
      for (int c = 0; c < kMarked; ++c) sum[c] = fmaf(a[p * along], columns[c][p], sum[c]);
#pragma unroll
    for (int c = 0; c < kMarked; ++c) {
      for (int offset = 16; offset > 0; offset /= 2) sum[c] += __shfl_xor_sync(0xffffffffu, sum[c], offset);
      if (lane == 0 && c < count)
        C[blockIdx.z * sliceStride + row * ldc + s.colList[c]] =
            epilogueValue(epilogue, sum[c], s.keptC + kMarked * s.ldb + c * s.rows + row);  // as keepMarkedOfC kept it
    }
  }
}

// Whether row i of C is marked (recomputed whole).
__device__ __forceinline__ bool rowMarked(const Scratch& s, int64_t i) {
  const int count = min(static_cast<int>(s.header[kRowCount]), kMarked);
  for (int r = 0; r < count; ++r)
    if (s.rowList[r] == i) return true;
  return false;
}

// A row's or column's corrections (`count` of its slots, in the order they were found), in order of k, into ks and
// values.
template <int MOST>
__device__ __forceinline__ void sortedCorrections(const Correction* slots, int count, int32_t (&ks)[MOST],
                                                  float (&values)[MOST]) {
  for (int e = 0; e < count; ++e) {
    const Correction x = slots[e];
    int y = e;
    for (; y > 0 && ks[y - 1] > x.k; --y) ks[y] = ks[y - 1], values[y] = values[y - 1];
    ks[y] = x.k, values[y] = x.value;
  }
}

// Column j's corrections (it is not marked), in order of k, into ks and values; returns how many.
__device__ __forceinline__ int columnCorrections(const Scratch& s, int64_t j, int32_t (&ks)[kColumnCorrections],
                                                 float (&values)[kColumnCorrections]) {
  const int count = min(s.colCorrections[j], kColumnCorrections);
  sortedCorrections(s.colSlots + j * kColumnCorrections, count, ks, values);
  return count;
}

// C(i, j), in the slice of K each k falls in, plus column j's corrections (ks, values: count of them, in order of
// k) with k − kBegin in [first, last) (A whole, from k 0): α·A_ik·B_kj with A's value where fp16 held it (0 where
// it did not: a correction of row i adds that term). α scales the value that is not tiny, so that α = 1 adds the
// term exactly as without it.
__device__ __forceinline__ void addColumnCorrections(const float* A, int64_t lda, bool aTransposed, float* C,
                                                     int64_t ldc, int64_t i, int64_t j,
                                                     const int32_t (&ks)[kColumnCorrections],
                                                     const float (&values)[kColumnCorrections], int count,
                                                     int64_t kBegin, int64_t first, int64_t last, int64_t sliceDepth,
                                                     int64_t sliceStride, const Scratch& s, float alpha) {
  for (int q = 0; q < count; ++q) {
    const int64_t k = ks[q] - kBegin;
    if (k < first || k >= last) continue;
    const float held = __half2float(s.a[i * s.lda + ks[q]]), value = *elementAt(A, lda, i, ks[q], aTransposed);
    const float a = held != 0.0f ? value : 0.0f;  // both loaded at once: a thread's chain of loads is its time
    float* const out = C + (sliceDepth > 0 ? k / sliceDepth : 0) * sliceStride + i * ldc + j;
    *out = fmaf(alpha * a, values[q], *out);
  }
}

// C(i, j), in the slice of K each k falls in, plus row i's corrections with k − kBegin in [first, last), in order of
// k: α·A_ik·B_kj, B as the caller holds it (B whole, from k 0), α scaling B_kj as addColumnCorrections scales A_ik.
template <bool B_TRANSPOSED>
__device__ __forceinline__ void addRowCorrections(const float* __restrict__ B, int64_t ldb, float* C, int64_t ldc,
                                                  int64_t i, int64_t j, int64_t kBegin, int64_t first, int64_t last,
                                                  int64_t sliceDepth, int64_t sliceStride, const Scratch& s,
                                                  float alpha) {
  int32_t ks[kRowCorrections];
  float values[kRowCorrections];
  const int count = min(s.rowTerms[i], kRowCorrections);  // the row is not marked: at most its share
  sortedCorrections(s.rowSlots + i * kRowCorrections, count, ks, values);
  for (int e = 0; e < count; ++e) {
    const int64_t k = ks[e] - kBegin;
    if (k < first || k >= last) continue;
    float* const out = C + (sliceDepth > 0 ? k / sliceDepth : 0) * sliceStride + i * ldc + j;
    *out = fmaf(values[e], alpha * *elementAt(B, ldb, ks[e], j, B_TRANSPOSED), *out);
  }
}

// C(i, j)'s left-out terms with k − kBegin in [first, last), each into its slice of K: row i's, then column j's
// (neither marked). Every correction of an element goes through here, in this order, so that the bits are the
// same whichever way it was chosen.
template <bool B_TRANSPOSED>
__device__ __forceinline__ void correctElement(const float* __restrict__ A, int64_t lda, bool aTransposed,
                                               const float* __restrict__ B, int64_t ldb, float* C, int64_t ldc,
                                               int64_t i, int64_t j, int64_t kBegin, int64_t first, int64_t last,
                                               int64_t sliceDepth, int64_t sliceStride, const Scratch& s, float alpha) {
  addRowCorrections<B_TRANSPOSED>(B, ldb, C, ldc, i, j, kBegin, first, last, sliceDepth, sliceStride, s, alpha);
  if (s.colCorrections[j] > 0) {
    int32_t ks[kColumnCorrections];
    float values[kColumnCorrections];
    const int count = columnCorrections(s, j, ks, values);
    addColumnCorrections(A, lda, aTransposed, C, ldc, i, j, ks, values, count, kBegin, first, last, sliceDepth,
                         sliceStride, s, alpha);
  }
}

// Where the product listed more elements than the list holds with β ≠ 0 (kCorrectAll): every element of the rows with
// corrections, a block a row and a thread a column (but the marked ones), then in the other rows every element of
// the columns with corrections, a block a column and a thread a row, each element by correctElement with all of
// this chunk's k. (A rare path: each row or column is a pass over C's.)
template <bool B_TRANSPOSED>
__device__ __forceinline__ void correctAll(const float* __restrict__ A, int64_t lda, bool aTransposed,
                                           const float* __restrict__ B, int64_t ldb, float* C, int64_t ldc, int64_t M,
                                           int64_t N, int64_t kBegin, int64_t depth, int64_t sliceDepth,
                                           int64_t sliceStride, int block, int blocks, const Scratch& s, float alpha) {
  for (int64_t unit = block; unit < M + N; unit += blocks) {
    const bool row = unit < M;
    const int64_t index = row ? unit : unit - M;
    if (row ? s.rowTerms[index] == 0 || s.rowTerms[index] > kRowCorrections
            : s.colCorrections[index] == 0 || s.colFlag[index])
      continue;
    for (int64_t other = threadIdx.x; other < (row ? N : M); other += blockDim.x) {
      const int64_t i = row ? index : other, j = row ? other : index;
      if (row ? s.colFlag[j] != 0 : s.rowTerms[i] != 0 || rowMarked(s, i)) continue;
      correctElement<B_TRANSPOSED>(A, lda, aTransposed, B, ldb, C, ldc, i, j, kBegin, 0, depth, sliceDepth,
                                   sliceStride, s, alpha);
    }
  }
}

// The elements the product listed (listLeftOutTerms), a thread each: its left-out terms with k in its slice. An
// element of a marked row or column is left to its recomputation.
template <bool B_TRANSPOSED>
__device__ __forceinline__ void correctListed(const float* __restrict__ A, int64_t lda, bool aTransposed,
                                              const float* __restrict__ B, int64_t ldb, float* C, int64_t ldc,
                                              int64_t kBegin, int64_t depth, int64_t sliceDepth, int64_t sliceStride,
                                              int block, int blocks, const Scratch& s, float alpha) {
  const int64_t count = min(static_cast<int64_t>(s.header[kListedCount]), s.listedMost);
  for (int64_t e = int64_t{block} * blockDim.x + threadIdx.x; e < count; e += int64_t{blocks} * blockDim.x) {
    const ListedElement x = s.listed[e];
    if (s.colFlag[x.col] || rowMarked(s, x.row)) continue;
    const int64_t first = sliceDepth > 0 ? x.slice * sliceDepth : 0;
    const int64_t last = sliceDepth > 0 ? min(depth, first + sliceDepth) : depth;
    correctElement<B_TRANSPOSED>(A, lda, aTransposed, B, ldb, C, ldc, x.row, x.col, kBegin, first, last, sliceDepth,
                                 sliceStride, s, alpha);
  }
}

// The marked rows and columns of C, slice blockIdx.z, by fp32 FMAs, and the corrections, in one launch: its first
// rowBlocks blocks take the marked rows, the next columnBlocks the marked columns, then kCorrectionBlocks the
// corrections (in slice 0's blocks alone: each correction goes into the slice its k falls in): the listed elements',
// or where the list overflowed, every element's of the corrected rows and columns. Each element is written by one
// of them (a marked row's marked columns by the columns' part; a marked row or column is never corrected), so that
// none waits for another. (Two launches, one after the other, each read of B or A at a fraction of the bandwidth,
// took a marked row and column at 4096³ from 0.316 to 0.448 ms: docs/kernels.md, "Step 5: tf32 on the fp16 tensor
// cores".) A and B start at this chunk's first k, kOffset into the caller's.
constexpr int kCorrectionBlocks = 128;
template <bool B_TRANSPOSED>
__global__ void __launch_bounds__(32 * kRecomputeWarps, 2) recomputeMarked(const float* __restrict__ A, int64_t lda,
                                                                       bool aTransposed,
                                                                       const float* __restrict__ B, int64_t ldb,
                                                                       float* C, int64_t ldc, int64_t M, int64_t K,
                                                                       int64_t N, int64_t sliceDepth,
                                                                       int64_t sliceStride, int64_t kOffset,
                                                                       int rowBlocks, int columnBlocks, Scratch s,
                                                                       Epilogue epilogue) {
  if (s.header[kFallback]) return;
  int64_t begin, end;
  sliceRange(K, sliceDepth, begin, end);
  const int block = static_cast<int>(blockIdx.x);
  const int corrections = rowBlocks + columnBlocks;
  if (block < rowBlocks)
    recomputeRows<B_TRANSPOSED>(A, lda, aTransposed, B, ldb, C, ldc, N, begin, end, sliceStride, block, rowBlocks, s,
                                epilogue);
  else if (block < corrections)
    recomputeColumns(A, lda, aTransposed, C, ldc, M, begin, end, sliceStride, kOffset, block - rowBlocks, columnBlocks, s,
                     epilogue);
  else if (blockIdx.z == 0 && !s.header[kCorrectAll])
    correctListed<B_TRANSPOSED>(elementAt(A, lda, 0, -kOffset, aTransposed), lda, aTransposed,
                                elementAt(B, ldb, -kOffset, 0, B_TRANSPOSED), ldb, C, ldc, kOffset, K, sliceDepth,
                                sliceStride, block - corrections, kCorrectionBlocks, s, epilogue.alpha);
  else if (blockIdx.z == 0)
    correctAll<B_TRANSPOSED>(elementAt(A, lda, 0, -kOffset, aTransposed), lda, aTransposed,
                             elementAt(B, ldb, -kOffset, 0, B_TRANSPOSED), ldb, C, ldc, M, N, kOffset, K, sliceDepth,
                             sliceStride, block - corrections, kCorrectionBlocks, s, epilogue.alpha);
}

// --- the launch -------------------------------------------------------------------------------------------------

// Blocks for a pass with a block per row: enough to fill the SMs several times over, rows in a grid-stride loop.
unsigned passBlocks(int64_t rows) { return static_cast<unsigned>(std::clamp<int64_t>(rows, 1, 8192)); }

// tf32: the passes, the fp16 product, the marked rows and columns, and step 4 for a run that fell back. A and B as
// held: A, or Aᵀ (o.transA); B, or Bᵀ (B_TRANSPOSED: o.transB, o.exactB is o.b).
template <bool B_TRANSPOSED>
void launchLayout(const GemmOperands& o, Precision precision, cudaStream_t stream) {
  if (!o.scratch) throw MatmulError(ErrorKind::Failure, "internal error: wgmma-f16 launched without its scratch memory");
  if (o.m > INT32_MAX - kRows || o.n > INT32_MAX - kCols || !chunksOfK(o))
    throw MatmulError(ErrorKind::Range, "wgmma-f16: this shape needs the plan's split of K (internal error)");
  const Scratch s(o.scratch, o.m, o.k, o.n);
  constexpr size_t kRunWords = kRunWordCount * sizeof(uint32_t);  // found again each run: the header's first words
  if (!o.scratchHoldsB) {
    checkCuda(cudaMemsetAsync(s.header, 0, sizeof(uint32_t) * kHeaderWords, stream), "cudaMemsetAsync(wgmma-f16 header)");
    checkCuda(cudaMemsetAsync(s.colFlag, 0, sizeof(uint32_t) * 2 * o.n, stream), "cudaMemsetAsync(wgmma-f16 columns)");
    scaleRowsOfB<B_TRANSPOSED><<<passBlocks(B_TRANSPOSED ? o.n : o.k), kPassThreads, 0, stream>>>(o.exactB, o.exactLdb,
                                                                                               o.k, o.n, s);
    checkCuda(cudaGetLastError(), "wgmma-f16: B in fp16");
  } else {
    checkCuda(cudaMemsetAsync(s.header, 0, kRunWords, stream), "cudaMemsetAsync(wgmma-f16 header)");
  }
  checkCuda(cudaMemsetAsync(s.rowTerms, 0, sizeof(int32_t) * o.m, stream), "cudaMemsetAsync(wgmma-f16 rows)");
  if (o.transA)
    scaleRowsOfAFromAT<B_TRANSPOSED><<<passBlocks((o.m + kRowsPerBlock - 1) / kRowsPerBlock), kPassThreads, 0, stream>>>(
        o.a, o.lda, o.m, o.k, s);
  else
    scaleRowsOfA<B_TRANSPOSED><<<passBlocks(o.m), kPassThreads, 0, stream>>>(o.a, o.lda, o.m, o.k, s);
  checkCuda(cudaGetLastError(), "wgmma-f16: A in fp16");
  gatherMarkedColumns<B_TRANSPOSED><<<dim3(static_cast<unsigned>(std::min<int64_t>((o.k + 255) / 256, 64)), kMarked), 256, 0, stream>>>(
      o.exactB, o.exactLdb, o.k, s);
  checkCuda(cudaGetLastError(), "wgmma-f16: marked columns");
  if (o.epilogue.beta != 0.0f) {  // K is then whole: a split's slices are plain products (kernel.h, epilogue)
    keepMarkedOfC<<<dim3(static_cast<unsigned>(std::min<int64_t>((std::max(o.m, o.n) + 255) / 256, 64)), 2 * kMarked), 256, 0,
                    stream>>>(o.c, o.ldc, o.m, o.n, s);
    checkCuda(cudaGetLastError(), "wgmma-f16: C's marked rows and columns kept");
  }

  static SharedMemoryOptIn optIn;
  optIn.ensure(f16Gemm<B_TRANSPOSED>, kSharedBytes, "cudaFuncSetAttribute(wgmma-f16 shared memory)");
  const int64_t tilesPerSlice = ((o.m + kRows - 1) / kRows) * ((o.n + kCols - 1) / kCols);
  const bool pairs = reinterpret_cast<uintptr_t>(o.c) % 8 == 0 && o.ldc % 2 == 0 && o.sliceStride % 2 == 0;
  forEachChunkOfK(o, [&](int64_t first, int64_t slices, int64_t begin, int64_t depth) {
    // A map's dimensions must be at least 1: with k = 0 no tile is loaded, and C is written as zeros.
    const CUtensorMap mapA = tileMap(s.a + begin, o.m, std::max<int64_t>(depth, 1), s.lda, kRows, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
    const CUtensorMap mapB =
        B_TRANSPOSED ? tileMap(s.b + begin, o.n, std::max<int64_t>(depth, 1), s.lda, kCols, CU_TENSOR_MAP_DATA_TYPE_FLOAT16)
                     : tileMap(s.b + begin * s.ldb, std::max<int64_t>(depth, 1), o.n, s.ldb, kDepth, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
    const int64_t sliceDepth = o.slices == 1 ? 0 : o.sliceDepth, tiles = tilesPerSlice * slices;
    float* const c = o.c + first * o.sliceStride;
    if (first > 0)  // each chunk's product lists its own elements
      checkCuda(cudaMemsetAsync(&s.header[kListedCount], 0, sizeof(uint32_t), stream), "cudaMemsetAsync(wgmma-f16 list)");
    f16Gemm<B_TRANSPOSED><<<static_cast<unsigned>(std::min<int64_t>(tiles, multiprocessors())), kThreads, kSharedBytes, stream>>>(
        mapA, mapB, c, o.ldc, o.m, depth, o.n, sliceDepth, o.sliceStride, tiles, pairs, s, o.epilogue);
    checkCuda(cudaGetLastError(), "wgmma-f16");
    const auto blocks = [](int64_t units, int64_t perBlock) {
      return static_cast<int>(std::clamp<int64_t>((units + perBlock - 1) / perBlock, 1, kRecomputeBlocks));
    };
    const int rowBlocks = blocks(o.n, 32), columnBlocks = blocks(o.m, kRecomputeWarps);
    const unsigned grid = static_cast<unsigned>(rowBlocks + columnBlocks + kCorrectionBlocks);
    recomputeMarked<B_TRANSPOSED><<<dim3(grid, 1, static_cast<unsigned>(slices)), 32 * kRecomputeWarps, 0, stream>>>(
        elementAt(o.a, o.lda, 0, begin, o.transA), o.lda, o.transA,
        elementAt(o.exactB, o.exactLdb, begin, 0, B_TRANSPOSED), o.exactLdb, c, o.ldc, o.m, depth, o.n, sliceDepth,
        o.sliceStride, begin, rowBlocks, columnBlocks, s, o.epilogue);
    checkCuda(cudaGetLastError(), "wgmma-f16: marked rows and columns");
  });
  // Step 4 in TF32 where too many rows or columns were marked: launched always, it does nothing unless the flag
  // says so. The passes found A's and B's classes for it.
  GemmOperands fallback = o;
  fallback.onlyIf = &s.header[kFallback];
  fallback.aClasses = &s.header[kAClasses];
  fallback.bClasses = &s.header[kBClasses];
  const KernelVariant& step4 = chooseVariant(wgmmaTransposedVariants(Precision::Tf32), o.m, o.k, o.n,
                                                DeviceCaps{9, 0, multiprocessors()});
  step4.launch(fallback, precision, stream);
}

void launchF16(const GemmOperands& o, Precision precision, cudaStream_t stream) {
  if (!readyToLaunch(o, precision, false, "wgmma-f16", "B")) return;
  if (o.transB)
    launchLayout<true>(o, precision, stream);
  else
    launchLayout<false>(o, precision, stream);
}

constexpr KernelVariant kTf32Variants[] = {{"wgmma-f16 128x256", launchF16, {kRows, kCols}, true}};

}  // namespace
}  // namespace wgmma_f16

int64_t halfOperandBytes(int64_t rows, int64_t k, int64_t n) { return wgmma_f16::Scratch(nullptr, rows, k, n).bytes; }

// A precision that takes no fp16 copies (fp32) takes step 4's variants, as wgmma-t would (no fp16 split for fp32
// accuracy is built).
KernelVariants wgmmaF16Variants(Precision precision) {
  return precisionRow(precision).halfCopies ? KernelVariants(wgmma_f16::kTf32Variants) : wgmmaTransposedVariants(precision);
}

}  // namespace cuda_matmul
