// Step 4 of the kernel progression: wgmma on the transposed product, Cᵀ = Bᵀ·Aᵀ, so that B is read as it is
// stored. Improves on step 3 (3_wgmma.cu), which needs Bᵀ: TF32 wgmma reads its shared-memory operand K-major only,
// so step 3 transposes B first, a pass over B that at 64×768×100000 reads and writes 307 MB (step 3 ran there at
// 16 TFLOP/s, 0.37× cuBLAS SGEMM) and at 4096³ costs 52 µs of 0.40 ms. Here the roles turn around:
//   - wgmma's register operand, which may come in any layout, is B: each consumer thread loads its fragment of a
//     64-column slice of B from the stage's tile (B's rows of 32 columns, as the TMA brought them, 128-byte
//     swizzled), in a lane-dependent order that keeps the loads free of bank conflicts, at offsets worked out once
//     per thread (worked out per load, the address arithmetic held the tensor cores to 81% at 8192³: 3.2 ms);
//     in tf32 on B held as Bᵀ, whose tiles are K-major as the TMA brings them, wgmma reads B from shared memory
//     too, as cuBLAS's TN kernel does: no fragments to load (the search's 512×768×1000000: 2.32 ms against
//     2.36–2.38 with fragments, cuBLAS TF32 2.37–2.45; docs/kernels.md, "Step 4: wgmma-t, B read as stored");
//   - from A held as Aᵀ (k×m), whose tiles the TMA brings in 32×32 boxes, three producer warps transpose each stage's
//     tile into the K-major layout below in shared memory (transposeTileOfA): no transposed copy of A, at a cost
//     (docs/kernels.md, "Operands as stored, α and β in the epilogue": 128×4096×4096 tf32 0.081 ms against 0.064 with a copy
//     first; 'auto' takes wgmma instead where these tiles would be 256×128);
//   - its shared-memory operand is A, K-major as A is stored. wgmma truncates that operand to TF32, so in tf32 the
//     TMA copies A and B with the TFLOAT32 data type, which rounds them to nearest on the way (as cuBLAS's own
//     kernel does; three producer warps rounding A in shared memory halved the speed); in fp32 three producer warps
//     split A's tile into TF32 big parts and remainders;
//   - tiles of 64 rows of C for products with few rows, 192 columns (three consumer warpgroups, 64 columns each:
//     wgmma m64n64k8, M being C's columns, N its rows) or 128; in tf32 also 256 rows × 128 columns (wgmma m64n256k8,
//     two consumers) for large products, each stage's wgmmas kept in flight while the next stage's fragments load;
//   - in fp32 by 3xTF32 as step 3, each stage's products summed from zero and added to the accumulators with
//     round-to-nearest FADDs;
//   - the grid is persistent, one block per multiprocessor walking the tiles (64-row tiles: the rows of C fastest,
//     so that the blocks at work share B's columns in L2; 256-row tiles: in groups of 8 tile rows): the producer
//     loads the next tile while the consumers store the last.
// Special values and magnitudes as steps 2 and 3 (kernels/helpers.cuh); long K split by the plan into slices; α and β
// applied as C is stored. A plain product's tiles go out as they are: the 256×128 tiles through shared memory by TMA
// stores (storeProductByTma), which clip the edges, the others directly (storeProductDirect), those cut by C's edges
// element by element.
// Predicted: 64×768×100000 is B's 307 MB read once, ~110 µs at 2.8 TB/s (~90 TFLOP/s), 3xTF32's tensor work ~60%
// of that. Measured on an H100 (docs/kernels.md, "Step 4: wgmma-t, B read as stored"), cuBLAS in the same run: fp32 0.141
// ms, 69.7 TFLOP/s, 1.62× cuBLAS SGEMM (mma 0.97×), error 2.5e-7 against 5.0e-7; tf32 0.126 ms, 1.14× cuBLAS TF32
// (mma 0.94×). fp32 falls short of the memory bound: each consumer waits for its stage's 12 wgmmas before adding
// them, so the tensor pipe runs while another consumer waits; two consumers (128 columns) gave 0.166 ms, three 0.141.
// Waiting once per two stages made ptxas serialize the wgmmas (C7520) and was slower; overlapping the adds with the
// next stage's wgmmas does too (C7514). A first producer that loaded A with ordinary loads ran one stage per L2 round
// trip. The 256×128 tile (docs/kernels.md, "Step 4: wgmma-t, B read as stored"), predicted at step 3's speed on a
// given Bᵀ with no transpose: tf32 4096³ 0.350 ms (1.03× cuBLAS TF32; step 3 with its transpose 0.401), 8192³ 2.76
// (0.99–1.00×; 2.98), 93% of the tensor pipe as cuBLAS's kernel, error 2.6e-4 as cuBLAS's.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/kernels/helpers.cuh"
#include "cuda/kernels/hopper.cuh"
#include "cuda/kernels/kernel.h"
#include "cuda/kernels/registry.h"

namespace cuda_matmul {
namespace wgmma_t {  // named, so that bench/kernels.cu can include this file beside 3_wgmma.cu
namespace {

using namespace hopper;

constexpr int kDepth = kTileWidth;    // k per stage: one swizzle row of A's tile
constexpr int kColsPerConsumer = 64;  // columns of C per consumer warpgroup: wgmma's M
constexpr int kStageBudget = 200 * 1024;
constexpr int kStagedRows = 32;  // rows of C a consumer stages at a time (storeProductByTma)

// SPLIT: fp32 by 3xTF32 (A's stage tile is followed by its remainders); else tf32. CONSUMERS warpgroups multiply,
// 64 columns of C each: three keep the tensor pipe busier while each waits for its stage's wgmmas (64×768×100000
// fp32 0.166 → 0.141 ms), two give grids under one wave more blocks (16×4096×16384 fp32 0.175 → 0.143 ms).
// ROWS: rows of C per tile, wgmma's N: 64 for products with few rows, 256 for large ones.
template <bool SPLIT, int CONSUMERS, int ROWS = 64>
struct Config {
  static constexpr bool kSplit = SPLIT;
  static constexpr int kConsumers = CONSUMERS;
  static constexpr int kRows = ROWS;
  static constexpr int kColsC = CONSUMERS * kColsPerConsumer;
  static constexpr int kThreads = 128 * (1 + CONSUMERS);  // warpgroup 0 produces
  // setmaxnreg: the producer warpgroup keeps 40 registers a thread (from Aᵀ 56, for transposeTileOfA's 4×4 blocks),
  // the consumers share the rest of 64 K, at most 232 each.
  __host__ __device__ static constexpr int producerRegisters(bool aTransposed) { return aTransposed ? 56 : 40; }
  __host__ __device__ static constexpr int consumerRegisters(bool aTransposed) {
    const int share = (65536 - 128 * producerRegisters(aTransposed)) / (128 * CONSUMERS) / 8 * 8;
    return share > 232 ? 232 : share;
  }
  static constexpr int kTileBytesA = ROWS * kDepth * 4;
  static constexpr int kTileBytesB = kColsC * kDepth * 4;
  // B's tile, then A's (for SPLIT split where the TMA put it: its big parts, then its remainders).
  // From Aᵀ (A_TRANSPOSED), a stage also holds A's tile as the TMA brought it, to be transposed (transposeTileOfA).
  __host__ __device__ static constexpr int stageBytes(bool aTransposed) { return kTileBytesB + ((SPLIT ? 2 : 1) + aTransposed) * kTileBytesA; }
  __host__ __device__ static constexpr int stages(bool aTransposed) {
    return kStageBudget / stageBytes(aTransposed) < 8 ? kStageBudget / stageBytes(aTransposed) : 8;
  }
  // Stages, the store's staging buffers, then 3 mbarriers per stage; +1024 so the stages can start 1024-byte aligned
  // (the swizzle's period).
  __host__ __device__ static constexpr int sharedBytes(bool aTransposed) {
    return stages(aTransposed) * (stageBytes(aTransposed) + 3 * 8) + kStagingBytes + 1024;
  }
  static constexpr int kAccumulators = ROWS / 2;  // per consumer thread: ROWS × 64 over 128 threads
  // tf32 keeps a stage's wgmmas in flight while the next stage's fragments load (as step 3); fp32 waits for each
  // stage's to add them to the accumulators.
  static constexpr bool kPipelined = !SPLIT;
  // Tiles walk in groups of this many tile rows sweeping the columns (0: all the rows, then the next columns), so
  // that the blocks at work share B's columns and A's rows in L2. 256-row tiles at 8192³: groups of 8 2.756 ms,
  // of 4 2.766 (docs/kernels.md, "Step 4: wgmma-t, B read as stored").
  static constexpr int kGroupRows = ROWS == 64 ? 0 : 8;
  // 256-row tiles of a plain product go out through shared memory by TMA stores (storeProductByTma), 32 rows at a
  // time, two buffers a consumer; the other tiles' stages leave no room for them.
  static constexpr bool kStagedStore = ROWS == 256;
  static constexpr int kStagingBytes = kStagedStore ? CONSUMERS * 2 * kStagedRows * kColsPerConsumer * 4 : 0;
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

constexpr int kBoxBytes = kTileWidth * kDepth * 4;  // B's tile: boxes of 32 columns × 32 rows (k), 4 KB each

// The converting warps' share of a stage in fp32: A's tile (BYTES, swizzled) split into its TF32 big parts, written
// where the TMA put it, and their rounded remainders, into `small` at the same offsets, 16 bytes at a time. Elements
// are rounded the way the TF32 kernels round B.
template <int BYTES>
__device__ __forceinline__ void splitTileOfA(uint8_t* tile, uint8_t* small, int thread, int threads) {
#pragma unroll 4
  for (int offset = 16 * thread; offset < BYTES; offset += 16 * threads) {
    const float4 v = *reinterpret_cast<const float4*>(tile + offset);
    const float x[4] = {v.x, v.y, v.z, v.w};
    uint32_t hi[4], lo[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      hi[q] = tf32Bits(x[q]);
      lo[q] = tf32Bits(x[q] - __uint_as_float(hi[q]));
    }
    *reinterpret_cast<uint4*>(tile + offset) = make_uint4(hi[0], hi[1], hi[2], hi[3]);
    *reinterpret_cast<uint4*>(small + offset) = make_uint4(lo[0], lo[1], lo[2], lo[3]);
  }
}

// The converting warps' share of a stage from Aᵀ: A's tile as the TMA brought it into `held` (ROWS/32 boxes of 32 k
// rows × 32 columns of Aᵀ, 4 KB each, 128-byte swizzled: element (k, i) of box i / 32 at k·128 + 16·((i % 32 / 4)
// ^ k % 8) + 4·(i % 4)) written K-major into `tile` as the TMA brings A's (row i at i·128, its k in 16-byte chunks
// k / 4 ^ i % 8), in fp32 split as splitTileOfA splits it (tf32: the TMA rounded it). A thread takes 4 rows by 4 k
// at a time: four 16-byte reads (a k each), transposed in registers, four 16-byte writes (a row each). Eight lanes
// at a time take row blocks a = 0…7 of a box with k blocks (a + s) % 8: their reads fall on 8 chunks apart, and so
// do their writes. (A float a read, four to a write, the conversion took the tf32 product at 128×4096×4096 from
// 44 to 154 µs: the converting warps' instructions, not the bytes, were the bound.)
template <int ROWS, bool SPLIT>
__device__ __forceinline__ void transposeTileOfA(const uint8_t* held, uint8_t* tile, uint8_t* small, int thread,
                                                 int threads) {
#pragma unroll 1
  for (int block = thread; block < ROWS * 2; block += threads) {
    const int box = block / 64, a = block % 8, kb = (a + block / 8) % 8, i0 = 32 * box + 4 * a;
    float x[4][4];  // x[q][r]: k 4·kb + q of row i0 + r
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int k = 4 * kb + q;
      const float4 v = *reinterpret_cast<const float4*>(held + box * 4096 + k * 128 + 16 * (a ^ (k % 8)));
      x[q][0] = v.x, x[q][1] = v.y, x[q][2] = v.z, x[q][3] = v.w;
    }
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      uint32_t hi[4], lo[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        hi[q] = SPLIT ? tf32Bits(x[q][r]) : __float_as_uint(x[q][r]);
        if constexpr (SPLIT) lo[q] = tf32Bits(x[q][r] - __uint_as_float(hi[q]));
      }
      const int i = i0 + r, offset = i * 128 + 16 * (kb ^ (i % 8));
      *reinterpret_cast<uint4*>(tile + offset) = make_uint4(hi[0], hi[1], hi[2], hi[3]);
      if constexpr (SPLIT) *reinterpret_cast<uint4*>(small + offset) = make_uint4(lo[0], lo[1], lo[2], lo[3]);
    }
  }
}

// Where this thread's register fragment lies in B's stage tile (rows of k, 32 columns of C per 4 KB box, 128-byte
// swizzled), as byte offsets for the first 8 k: the fragment (as mma.m16n8k8's A: lane 4g + t holds rows g and
// g + 8, columns t and t + 4 of its warp's 16) of the 64×8 slice Bᵀ[columns of C][8 k]. Columns g and g + 8 of one
// box row share a bank with those of lane g ^ 4 at k ± 4, so lanes with g ≥ 4 read their two k rows in the other
// order: every load is conflict-free. The next 8 k lie 1024 bytes further (8 rows; the swizzle repeats every 8).
struct FragmentOffsets {
  uint32_t first, second, firstHigh, secondHigh;  // (kFirst, column), (kSecond, column), the same at column + 8
  bool swapped;
};

__device__ __forceinline__ FragmentOffsets fragmentOffsets(int consumer) {
  const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int column = consumer * kColsPerConsumer + warp * 16 + g;  // and column + 8, in the same box
  const int box = column / kTileWidth, inBox = column % kTileWidth, swapped = g / 4;
  const int kFirst = t + 4 * swapped, kSecond = t + 4 * (1 - swapped);
  auto at = [&](int k, int col) { return static_cast<uint32_t>(box * kBoxBytes + k * 128 + (((col / 4) ^ k) * 16) + (col % 4) * 4); };
  return {at(kFirst, inBox), at(kSecond, inBox), at(kFirst, inBox + 8), at(kSecond, inBox + 8), swapped != 0};
}

// B held as Bᵀ (n×k, GemmOperands::transB): its stage tile holds a 128-byte row of 32 k per column of C (one TMA
// box of all the block's columns), 128-byte swizzled. The fragment's column c (and c + 8, 1024 bytes on) at k and
// k + 4 of the kk-th 8 lie in 16-byte chunks 2·kk and 2·kk + 1 of row c, swizzled with c % 8 = g: chunk offsets
// (32·kk) ^ 16g and that ^ 16. Lanes g, t read banks 4·(chunk ^ g) + t: conflict-free.
struct TransposedFragmentOffsets {
  uint32_t row;       // column c's row, at this thread's t
  uint32_t swizzle;   // 16g
};

__device__ __forceinline__ TransposedFragmentOffsets transposedFragmentOffsets(int consumer) {
  const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int column = consumer * kColsPerConsumer + warp * 16 + g;
  return {static_cast<uint32_t>(column * 128 + t * 4), static_cast<uint32_t>(16 * g)};
}

__device__ __forceinline__ void loadFragmentB(float (&b)[4], const uint8_t* tileB, const TransposedFragmentOffsets& at,
                                              int kk) {
  const uint32_t low = at.row + ((32u * kk) ^ at.swizzle), high = at.row + ((32u * kk) ^ at.swizzle ^ 16u);
  b[0] = *reinterpret_cast<const float*>(tileB + low);          // (g, t)
  b[2] = *reinterpret_cast<const float*>(tileB + high);         // (g, t + 4)
  b[1] = *reinterpret_cast<const float*>(tileB + low + 1024);   // (g + 8, t)
  b[3] = *reinterpret_cast<const float*>(tileB + high + 1024);  // (g + 8, t + 4)
}

// This thread's fragment for the kk-th 8 k of the stage's B tile.
__device__ __forceinline__ void loadFragmentB(float (&b)[4], const uint8_t* tileB, const FragmentOffsets& at, int kk) {
  const uint8_t* const rows = tileB + kk * 1024;
  const float x0 = *reinterpret_cast<const float*>(rows + at.first), x1 = *reinterpret_cast<const float*>(rows + at.second);
  const float x2 = *reinterpret_cast<const float*>(rows + at.firstHigh), x3 = *reinterpret_cast<const float*>(rows + at.secondHigh);
  b[0] = at.swapped ? x1 : x0;  // (g, t)
  b[2] = at.swapped ? x0 : x1;  // (g, t + 4)
  b[1] = at.swapped ? x3 : x2;  // (g + 8, t)
  b[3] = at.swapped ? x2 : x3;  // (g + 8, t + 4)
}

// The store of a consumer thread's accumulators, d[4j + 2h + q] being C(row0 + 8j + q, col0 + 8h) of its tile:
// through the epilogue (storeThroughEpilogue), or, for a plain product, as they are: staged in shared memory for
// TMA stores (storeProductByTma), or directly (storeProductDirect). The non-finite ones go to recomputeNonFinite, in
// its order (nonFiniteOf).

// This thread's non-finite accumulators, in recomputeNonFinite's order (x: the column, r = h; y: the row, 8j + q).
template <int ROWS>
__device__ __forceinline__ NonFinite nonFiniteOf(const float (&d)[ROWS / 2]) {
  NonFinite nonFinite;
#pragma unroll
  for (int j = 0; j < ROWS / 8; ++j)
#pragma unroll
    for (int q = 0; q < 2; ++q)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        if (!finite(d[4 * j + 2 * h + q])) nonFinite.note(2 * (ROWS / 8) * h + 2 * j, 1u << q);
  return nonFinite;
}

// Every accumulator into C at `at` = &C(row0, col0), from a pointer stepped a row at a time, none of C read; on a
// tile CLIPPED by C's edges only those of the rowsLeft rows and colsLeft columns from (row0, col0). The tensor cores
// wait while the consumers store, so the store's instructions count: through the general path (bounds, 64-bit
// addresses and the non-finite check per element) 512×768×1000000 tf32 ran 797 M warp instructions in 2.85–2.95 ms;
// this way 403 M in 2.35–2.37. Tiles cut by C's edges took the general path too: 500×768×999 999 (no TMA store: C's
// rows are not 16-byte aligned) 3.49 ms on an H200, clipped 2.67 (docs/kernels.md, "Step 4: wgmma-t, B read as
// stored").
template <int ROWS, bool CLIPPED>
__device__ __forceinline__ NonFinite storeProductDirect(const float (&d)[ROWS / 2], float* at, int64_t ldc,
                                                        int64_t rowsLeft, int64_t colsLeft) {
  float probe = 0.0f;
  const int rows = static_cast<int>(rowsLeft < ROWS ? rowsLeft : ROWS);
  const bool cols[2] = {colsLeft > 0, colsLeft > 8};
#pragma unroll
  for (int j = 0; j < ROWS / 8; ++j, at += 8 * ldc)
#pragma unroll
    for (int q = 0; q < 2; ++q)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if (!CLIPPED || (8 * j + q < rows && cols[h])) at[q * ldc + 8 * h] = d[4 * j + 2 * h + q];
        probe = nonFiniteProbe(d[4 * j + 2 * h + q], probe);
      }
  return finite(probe) ? NonFinite{} : nonFiniteOf<ROWS>(d);
}

// Every accumulator of this consumer's ROWS × 64 part of the tile at C(row, col), through `staging` (two buffers of
// kStagedRows rows, each two TMA boxes of 32 columns in the 128-byte swizzle) and TMA stores, which leave out what
// lies outside C: the consumers go back to the tensor cores once their values are in shared memory, the stores
// running meanwhile. A tile's chunks alternate between the buffers, the first in the first. One named barrier
// (`barrier`, the consumer's warpgroup) a chunk: its first thread, before it, waits until the store before has read
// the buffer the next chunk fills, and after it issues this chunk's store. Returns whether any accumulator of the
// warpgroup is not finite; those are in C once bulkWaitWritten. The tensor cores wait while the consumers store:
// through generic pointers, and two barriers a chunk, the store was a fifth of the consumers' time at
// 512×768×1000000 (docs/kernels.md, "Step 4: wgmma-t, B read as stored").
// A warp's writes for one (j, q, h), rows 2·t4 + q by columns g, fall on 16-byte chunks (c / 4) ^ (row % 8) that
// differ in every lane group: no bank conflicts.
template <int ROWS>
__device__ __forceinline__ bool storeProductByTma(const float (&d)[ROWS / 2], uint8_t* staging, const CUtensorMap* mapC,
                                                  int row, int col, int barrier, bool lead) {
  constexpr int kBoxBytes = kStagedRows * kTileWidth * 4, kJPerChunk = kStagedRows / 8, kChunks = ROWS / kStagedRows;
  static_assert(kChunks % 2 == 0, "a tile's last chunk and the next tile's first fill different buffers");
  const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32, g = lane / 4, t4 = lane % 4;
  uint32_t at[2][2];  // at[q][h]: where this thread's (j = 0, q, h) value lies in the first buffer
#pragma unroll
  for (int q = 0; q < 2; ++q)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int c = (warp % 2) * 16 + 8 * h + g, r = 2 * t4 + q;
      at[q][h] = sharedAddress(staging) + (warp / 2) * kBoxBytes + r * 128 + 16 * ((c / 4) ^ r) + 4 * (c % 4);
    }
  float probe = 0.0f;
  bool any = false;
#pragma unroll
  for (int chunk = 0; chunk < kChunks; ++chunk) {
    const int buffer = (chunk % 2) * 2 * kBoxBytes;
#pragma unroll
    for (int jj = 0; jj < kJPerChunk; ++jj)
#pragma unroll
      for (int q = 0; q < 2; ++q)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const float x = d[4 * (kJPerChunk * chunk + jj) + 2 * h + q];
          storeShared(at[q][h] + buffer + jj * 8 * 128, x);
          probe = nonFiniteProbe(x, probe);
        }
    fenceSharedForAsync();
    if (lead) bulkWaitRead<0>();
    if (chunk + 1 < kChunks)
      namedBarrier(barrier, 128);
    else
      any = namedBarrierAny(barrier, 128, !finite(probe));
    if (lead) {
      tmaStore(staging + buffer, mapC, col, row + kStagedRows * chunk);
      tmaStore(staging + buffer + kBoxBytes, mapC, col + kTileWidth, row + kStagedRows * chunk);
      bulkCommit();
    }
  }
  return any;
}

// The finite accumulators through the epilogue, inside M×N, C's old values for 4 values of j loaded before they are
// stored (in flight together, as storeRowPairs has them); `every`: none stored, all to be recomputed.
template <int ROWS>
__device__ __forceinline__ NonFinite storeThroughEpilogue(const float (&d)[ROWS / 2], float* c, int64_t ldc,
                                                          int64_t row0, int64_t col0, int64_t M, int64_t N, bool every,
                                                          const Epilogue& epilogue) {
  NonFinite nonFinite = every ? NonFinite::every() : NonFinite{};
  constexpr int kRowsInFlight = 4;
  static_assert((ROWS / 8) % kRowsInFlight == 0, "whole groups of j");
#pragma unroll
  for (int first = 0; first < ROWS / 8; first += kRowsInFlight) {
    float old[kRowsInFlight][2][2];
#pragma unroll
    for (int j = first; j < first + kRowsInFlight; ++j)
#pragma unroll
      for (int q = 0; q < 2; ++q)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64_t row = row0 + 8 * j + q, col = col0 + 8 * h;
          old[j - first][q][h] = oldOfC(epilogue, c + row * ldc + col, row < M && col < N && !every);
        }
#pragma unroll
    for (int j = first; j < first + kRowsInFlight; ++j)
#pragma unroll
      for (int q = 0; q < 2; ++q) {
        const int64_t row = row0 + 8 * j + q;
        if (row >= M || every) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64_t col = col0 + 8 * h;
          const float x = d[4 * j + 2 * h + q];
          if (!finite(x))
            nonFinite.note(2 * (ROWS / 8) * h + 2 * j, 1u << q);
          else if (col < N)
            c[row * ldc + col] = scaledSum(epilogue, x, old[j - first][q][h]);
        }
      }
  }
  return nonFinite;
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// C (M×N, ldc) = A (M×K, lda; A_TRANSPOSED: held as Aᵀ, K×M) · B (K×N, read through mapB; B_TRANSPOSED: held as
// Bᵀ, N×K, ldb), over `tiles` work tiles (workTile). Split K: slice s writes its partial result at C + s·sliceStride.
// `storesByTma`: a plain product, unsplit, C's rows 16-byte aligned: T::kStagedStore's tiles go out through mapC.
template <class T, bool B_TRANSPOSED, bool A_TRANSPOSED>
__global__ void __launch_bounds__(T::kThreads, 1)
    wgmmaTransposedGemm(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
                        const __grid_constant__ CUtensorMap mapC, bool storesByTma, const float* __restrict__ A, int64_t lda,
                        const float* B, int64_t ldb, float* __restrict__ C, int64_t ldc, int64_t M, int64_t K,
                        int64_t N, int64_t sliceDepth, int64_t sliceStride, int64_t tiles, int64_t groupRows,
                        const uint32_t* aClasses, const uint32_t* bClasses, const uint32_t* onlyIf,
                        Epilogue epilogue) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if (onlyIf && *onlyIf == 0) return;  // a fallback not needed this time (kernel.h, GemmOperands::onlyIf)
  extern __shared__ uint8_t sharedBytes[];
  uint8_t* const stages = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(sharedBytes) + 1023) / 1024 * 1024);
  constexpr int kStages = T::stages(A_TRANSPOSED), kStageBytes = T::stageBytes(A_TRANSPOSED), kRows = T::kRows;
  uint8_t* const staging = stages + kStages * kStageBytes;  // T::kStagedStore: 1024-byte aligned, as the stages
  uint64_t* const full = reinterpret_cast<uint64_t*>(staging + T::kStagingBytes);
  uint64_t* const empty = full + kStages;
  uint64_t* const arrived = empty + kStages;  // SPLIT or A_TRANSPOSED: A's tile has landed, to be converted
  auto tileB = [&](int stage) { return stages + stage * kStageBytes; };
  auto tileA = [&](int stage) { return tileB(stage) + T::kTileBytesB; };
  auto tileASmall = [&](int stage) { return tileA(stage) + T::kTileBytesA; };
  auto heldA = [&](int stage) { return tileA(stage) + (T::kSplit ? 2 : 1) * T::kTileBytesA; };  // A_TRANSPOSED
  // SPLIT or A_TRANSPOSED: the producer's warps 1-3 split or transpose A's tiles; warp 0's first thread issues
  // the copies.
  constexpr bool kConverts = T::kSplit || A_TRANSPOSED;
  constexpr int kConverters = kConverts ? 96 : 0;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      // Converting: every converting thread, once its part of A is converted, and B's bytes; else the issuing
      // thread's expect-bytes arrival, then A's and B's bytes.
      barrierInit(&full[s], kConverts ? kConverters : 1);
      barrierInit(&empty[s], T::kConsumers);  // one arrival per consumer warpgroup
      barrierInit(&arrived[s], 1);            // the issuing thread's expect-bytes arrival, then the TMA's bytes
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    // Both producer roles walk the same stages: the first thread fills each with TMA copies as soon as it is free,
    // in fp32 or from Aᵀ the converting warps split or transpose its A once the copy has landed.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(T::producerRegisters(A_TRANSPOSED)));
    const bool issues = threadIdx.x == 0, converts = kConverts && threadIdx.x >= 32;
    if (!issues && !converts) return;
    int use = 0;  // stages filled so far, over every tile
    for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
      const WorkTile w = workTile<kRows, T::kColsC>(t, M, N, K, sliceDepth, groupRows);
      const int kTiles = static_cast<int>((w.depth + kDepth - 1) / kDepth);
      for (int kt = 0; kt < kTiles; ++kt, ++use) {
        const int stage = use % kStages, k0 = static_cast<int>(w.kBegin + int64_t{kt} * kDepth);
        if (issues) {
          if (use >= kStages) barrierWait(&empty[stage], ((use / kStages) & 1) ^ 1);  // its last use has finished
          if constexpr (A_TRANSPOSED) {
            barrierExpectBytes(&arrived[stage], T::kTileBytesA);
#pragma unroll
            for (int box = 0; box < kRows / 32; ++box)
              tmaLoad(heldA(stage) + box * 4096, &mapA, static_cast<int>(w.row) + 32 * box, k0, &arrived[stage]);
            barrierAddBytes(&full[stage], T::kTileBytesB);
          } else if constexpr (T::kSplit) {
            barrierExpectBytes(&arrived[stage], T::kTileBytesA);
            tmaLoad(tileA(stage), &mapA, k0, static_cast<int>(w.row), &arrived[stage]);
            barrierAddBytes(&full[stage], T::kTileBytesB);
          } else {
            barrierExpectBytes(&full[stage], T::kTileBytesA + T::kTileBytesB);
            tmaLoad(tileA(stage), &mapA, k0, static_cast<int>(w.row), &full[stage]);
          }
          if constexpr (B_TRANSPOSED) {
            tmaLoad(tileB(stage), &mapB, k0, static_cast<int>(w.col), &full[stage]);
          } else {
            for (int box = 0; box < T::kColsC / kTileWidth; ++box)
              tmaLoad(tileB(stage) + box * kBoxBytes, &mapB, static_cast<int>(w.col + box * kTileWidth), k0, &full[stage]);
          }
        } else {
          barrierWait(&arrived[stage], (use / kStages) & 1);
          if constexpr (A_TRANSPOSED)
            transposeTileOfA<kRows, T::kSplit>(heldA(stage), tileA(stage), tileASmall(stage), threadIdx.x - 32, kConverters);
          else
            splitTileOfA<T::kTileBytesA>(tileA(stage), tileASmall(stage), threadIdx.x - 32, kConverters);
          fenceSharedForAsync();
          barrierArrive(&full[stage]);
        }
      }
    }
    return;
  }

  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(T::consumerRegisters(A_TRANSPOSED)));
  const int consumer = warpgroup - 1;
  const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32, g = lane / 4, t4 = lane % 4;
  const bool lead = threadIdx.x % 128 == 0, every = splitLosesProducts(aClasses, bClasses);
  const auto fragment = [&] {
    if constexpr (B_TRANSPOSED)
      return transposedFragmentOffsets(consumer);
    else
      return fragmentOffsets(consumer);
  }();
  // In tf32 on B held as Bᵀ, both of wgmma's operands come from shared memory as the TMA brought them (Bᵀ's tile is
  // K-major, as wgmma's shared-memory operands must be in tf32): no fragments to load.
  constexpr bool kBothShared = B_TRANSPOSED && !T::kSplit;
  constexpr int kBuffers = T::kPipelined ? 2 : 1;  // fragments of the stage in flight and of the one being loaded
  const bool staged = T::kStagedStore && storesByTma && !every;
  int use = 0;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const WorkTile w = workTile<kRows, T::kColsC>(t, M, N, K, sliceDepth, groupRows);
    const int kTiles = static_cast<int>((w.depth + kDepth - 1) / kDepth);
    float d[T::kAccumulators];
#pragma unroll
    for (int i = 0; i < T::kAccumulators; ++i) d[i] = 0.0f;
    // As step 3: in fp32 each stage's products start from zero and are added to d rounding to nearest.
    float part[T::kSplit ? T::kAccumulators : 1] = {};
    uint32_t big[kBuffers][kDepth / 8][4], small[kDepth / 8][4];  // small: SPLIT only
    // Multiplies a stage from shared memory alone: this consumer's 64 rows of Bᵀ's tile, K-major as wgmma reads them.
    auto multiplyShared = [&](int stage) {
      const uint8_t* const rows = tileB(stage) + consumer * kColsPerConsumer * 128;
      wgmmaFence();
#pragma unroll
      for (int kk = 0; kk < kDepth / 8; ++kk)  // 8 tf32 = 32 bytes along k, inside both tiles' swizzled rows
        wgmma64xNx8Shared<kRows>(d, sharedDescriptor(rows + kk * 32), sharedDescriptor(tileA(stage) + kk * 32), true);
      wgmmaCommit();
    };
    // Multiplies a stage with B's fragments through registers, in big[buffer].
    auto multiplyFragments = [&](int stage, auto buffer) {
      constexpr int kBuffer = decltype(buffer)::value % kBuffers;
#pragma unroll
      for (int kk = 0; kk < kDepth / 8; ++kk) {
        float b[4];
        loadFragmentB(b, tileB(stage), fragment, kk);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          big[kBuffer][kk][i] = T::kSplit ? tf32Bits(b[i]) : __float_as_uint(b[i]);  // tf32: the TMA rounded it
          if constexpr (T::kSplit) small[kk][i] = tf32Bits(b[i] - __uint_as_float(big[kBuffer][kk][i]));
        }
      }
      wgmmaFence();
#pragma unroll
      for (int kk = 0; kk < kDepth / 8; ++kk) {  // 8 tf32 = 32 bytes along k, inside A's swizzled rows
        const uint64_t aBig = sharedDescriptor(tileA(stage) + kk * 32);
        if constexpr (T::kSplit) {  // the small terms first, so that they are not lost below the big one
          wgmma64xNx8<kRows>(part, small[kk], aBig, kk > 0);
          wgmma64xNx8<kRows>(part, big[kBuffer][kk], sharedDescriptor(tileASmall(stage) + kk * 32), true);
          wgmma64xNx8<kRows>(part, big[kBuffer][kk], aBig, true);
        } else {
          wgmma64xNx8<kRows>(d, big[kBuffer][kk], aBig, true);
        }
      }
      wgmmaCommit();
    };
    // Multiplies stage `stage` (its full barrier's phase `parity`) into d.
    auto multiply = [&](int stage, int parity, auto buffer) {
      barrierWait(&full[stage], parity);
      if constexpr (kBothShared)
        multiplyShared(stage);
      else
        multiplyFragments(stage, buffer);
    };
    // C's lines for the epilogue's β·C, where β ≠ 0 (K is then whole): the rows of the 16 columns of C this warp
    // stores, every 32nd row a lane.
    auto prefetchC = [&](int kt) {
      if (!prefetchStageOfC(kt, kTiles)) return;
      const int64_t firstCol = w.col + consumer * kColsPerConsumer + warp * 16;
      for (int r = lane; r < kRows; r += 32)
        if (w.row + r < M) prefetchRowOfC(epilogue, C + (w.row + r) * ldc, firstCol, firstCol + 16, N, 0, 1);
    };
    if constexpr (T::kPipelined) {
      // Stage kt's wgmmas stay in flight while stage kt + 1's fragments load; once one group is pending, stage
      // kt - 1's are done and its shared memory goes back to the producer.
      auto step = [&](int kt, auto buffer) {
        prefetchC(kt);
        const int u = use + kt;
        multiply(u % kStages, (u / kStages) & 1, buffer);
        wgmmaWait<1>();
        pinRegisters(d);
#pragma unroll
        for (int kk = 0; kk < kDepth / 8; ++kk) pinRegisters(big[0][kk]), pinRegisters(big[1 % kBuffers][kk]);
        if (kt > 0 && lead) barrierArrive(&empty[(u - 1) % kStages]);
      };
      int kt = 0;
      for (; kt + 1 < kTiles; kt += 2) {  // two at a time, so each stage's fragment buffer is known at compile time
        step(kt, std::integral_constant<int, 0>{});
        step(kt + 1, std::integral_constant<int, 1>{});
      }
      if (kt < kTiles) step(kt, std::integral_constant<int, 0>{});
      wgmmaWait<0>();
      pinRegisters(d);
      if (kTiles > 0 && lead) barrierArrive(&empty[(use + kTiles - 1) % kStages]);
      use += kTiles;
    } else {
      for (int kt = 0; kt < kTiles; ++kt, ++use) {
        prefetchC(kt);
        const int stage = use % kStages;
        multiply(stage, (use / kStages) & 1, std::integral_constant<int, 0>{});
        wgmmaWait<0>();
#pragma unroll
        for (int kk = 0; kk < kDepth / 8; ++kk) pinRegisters(big[0][kk]), pinRegisters(small[kk]);
        pinRegisters(part);
#pragma unroll
        for (int i = 0; i < T::kAccumulators; ++i) d[i] += part[i];
        if (lead) barrierArrive(&empty[stage]);
      }
    }
    // d[4j + 2h + q] is Cᵀ(column 16·warp + g + 8h, row 8j + 2·t4 + q) of this warpgroup's 64 columns: along a
    // row of C, lanes g = 0…7 write 8 neighbouring columns.
    const int64_t slice = sliceDepth > 0 ? w.kBegin / sliceDepth : 0;
    float* const c = C + slice * sliceStride;
    const int64_t col0 = w.col + consumer * kColsPerConsumer + warp * 16 + g, row0 = w.row + 2 * t4;
    NonFinite nonFinite;
    if (staged) {
      const int barrier = 1 + consumer;
      if (storeProductByTma<kRows>(d, staging + consumer * (T::kStagingBytes / T::kConsumers), &mapC,
                                   static_cast<int>(w.row), static_cast<int>(w.col) + consumer * kColsPerConsumer,
                                   barrier, lead)) {
        if (lead) bulkWaitWritten();  // recomputeNonFinite's values land after the store's
        namedBarrier(barrier, 128);
        nonFinite = nonFiniteOf<kRows>(d);
      }
    } else if (!every && epilogue.storesProduct()) {
      float* const at = c + row0 * ldc + col0;
      nonFinite = w.row + kRows <= M && w.col + T::kColsC <= N
                      ? storeProductDirect<kRows, false>(d, at, ldc, M - row0, N - col0)
                      : storeProductDirect<kRows, true>(d, at, ldc, M - row0, N - col0);
    } else {
      nonFinite = storeThroughEpilogue<kRows>(d, c, ldc, row0, col0, M, N, every, epilogue);
    }
    if (nonFinite.any())
      recomputeNonFinite(c, ldc, elementAt(A, lda, 0, w.kBegin, A_TRANSPOSED),
                         lda, elementAt(B, ldb, w.kBegin, 0, B_TRANSPOSED), ldb, M, N, w.depth, col0, 2, row0, kRows / 8,
                         nonFinite, epilogue, true, B_TRANSPOSED, A_TRANSPOSED);
  }
  if (staged && lead) bulkWaitRead<0>();  // shared memory stays the block's until the last store has read it
#endif
}

// A and B are read as the caller holds them: A m×k or (o.transA) k×m, B k×n or (o.transB) n×k; the registry row
// says transposedB = false, readsTransposedA and readsTransposedB.
template <class T, bool B_TRANSPOSED, bool A_TRANSPOSED>
void launchLayouts(const GemmOperands& o, cudaStream_t stream) {
  constexpr auto kernel = wgmmaTransposedGemm<T, B_TRANSPOSED, A_TRANSPOSED>;
  constexpr int kSharedBytes = T::sharedBytes(A_TRANSPOSED);
  static SharedMemoryOptIn optIn;
  optIn.ensure(kernel, kSharedBytes, "cudaFuncSetAttribute(wgmma-t shared memory)");
  const int64_t rowTiles = (o.m + T::kRows - 1) / T::kRows;
  const int64_t tilesPerSlice = rowTiles * ((o.n + T::kColsC - 1) / T::kColsC);
  const int gridLimit = multiprocessors();
  const int64_t groupRows = T::kGroupRows > 0 ? T::kGroupRows : rowTiles;
  const bool storesByTma = T::kStagedStore && o.epilogue.storesProduct() && o.slices == 1 && rowsAligned16(o.c, o.ldc);
  forEachChunkOfK(o, [&](int64_t first, int64_t slices, int64_t begin, int64_t depth) {
    // A map's dimensions must be at least 1: with k = 0 no tile is loaded, and C is written as zeros.
    // tf32: the copies round A and B to TF32 (wgmma would truncate A); fp32 splits them from the floats. Aᵀ comes
    // in boxes of 32 k rows × 32 columns (transposeTileOfA).
    const CUtensorMapDataType mapType = T::kSplit ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_TFLOAT32;
    const int64_t kRows = std::max<int64_t>(depth, 1);
    const CUtensorMap mapA = A_TRANSPOSED ? tileMap(o.a + begin * o.lda, kRows, o.m, o.lda, 32, mapType)
                                          : tileMap(o.a + begin, o.m, kRows, o.lda, T::kRows, mapType);
    const CUtensorMap mapB = B_TRANSPOSED ? tileMap(o.b + begin, o.n, kRows, o.ldb, T::kColsC, mapType)
                                          : tileMap(o.b + begin * o.ldb, kRows, o.n, o.ldb, kDepth, mapType);
    const CUtensorMap mapC = storesByTma ? tileMap(o.c, o.m, o.n, o.ldc, kStagedRows) : CUtensorMap{};
    const int64_t tiles = tilesPerSlice * slices;
    const int blocks = static_cast<int>(std::min<int64_t>(tiles, gridLimit));
    kernel<<<blocks, T::kThreads, kSharedBytes, stream>>>(
        mapA, mapB, mapC, storesByTma, elementAt(o.a, o.lda, 0, begin, A_TRANSPOSED), o.lda, elementAt(o.exactB, o.exactLdb, begin, 0, B_TRANSPOSED),
        o.exactLdb, o.c + first * o.sliceStride, o.ldc, o.m, depth, o.n, o.slices == 1 ? 0 : o.sliceDepth, o.sliceStride,
        tiles, groupRows, o.aClasses, o.bClasses, o.onlyIf, o.epilogue);
  });
}

template <class T>
void launchWgmmaTransposed(const GemmOperands& o, Precision precision, cudaStream_t stream) {
  if (!readyToLaunch(o, precision, T::kSplit, "wgmma-t", "B")) return;
  if (o.m > INT32_MAX - T::kRows || o.n > INT32_MAX - T::kColsC || !chunksOfK(o))
    throw MatmulError(ErrorKind::Range, "wgmma-t: this shape needs the plan's split of K (internal error)");
  static_assert(T::sharedBytes(false) <= kSharedMemoryPerBlock && T::sharedBytes(true) <= kSharedMemoryPerBlock,
                "the stages and the store's staging fit a multiprocessor's shared memory");
  static_assert(T::kThreads == 128 * (1 + T::kConsumers) && T::consumerRegisters(false) % 8 == 0 &&
                    T::consumerRegisters(true) % 8 == 0,
                "a producer warpgroup and the consumers; setmaxnreg takes multiples of 8");
  if (o.transA)
    return o.transB ? launchLayouts<T, true, true>(o, stream) : launchLayouts<T, false, true>(o, stream);
  return o.transB ? launchLayouts<T, true, false>(o, stream) : launchLayouts<T, false, false>(o, stream);
}

template <bool SPLIT, int CONSUMERS, int ROWS = 64>
constexpr KernelVariant variant(const char* name) {
  using T = Config<SPLIT, CONSUMERS, ROWS>;
  return {name, launchWgmmaTransposed<T>, {ROWS, T::kColsC}, true};
}
constexpr KernelVariant kTf32Variants[] = {variant<false, 3>("wgmma-t 64x192"), variant<false, 2>("wgmma-t 64x128"),
                                           variant<false, 2, 256>("wgmma-t 256x128")};
constexpr KernelVariant kFp32Variants[] = {variant<true, 3>("wgmma-t 3xTF32 64x192"),
                                           variant<true, 2>("wgmma-t 3xTF32 64x128")};

}  // namespace
}  // namespace wgmma_t

KernelVariants wgmmaTransposedVariants(Precision precision) {
  static constexpr VariantsByPrecision kVariants = {wgmma_t::kFp32Variants, wgmma_t::kTf32Variants};
  return kVariants[precisionIndex(precision)];
}

}  // namespace cuda_matmul
