// Step 4 of the kernel progression: wgmma on the transposed product, Cᵀ = Bᵀ·Aᵀ, so that B is read as it is
// stored. Improves on step 3 (3_wgmma.cu) for products with few rows and a large B, such as a batch of 64 inputs
// times a 768×100000 weight matrix. TF32 wgmma reads its shared-memory operand K-major only, so step 3 takes Bᵀ and
// transposes B first: at 64×768×100000 that transpose reads and writes 307 MB, while A is 196 KB, and step 3 ran
// at 16 TFLOP/s (0.37× cuBLAS SGEMM), leaving 'auto' on mma's 0.96×. Here the roles turn around:
//   - wgmma's register operand, which may come in any layout, is B: each consumer thread loads its fragment of a
//     64-column slice of B from the stage's tile (B's rows of 32 columns, as the TMA brought them, 128-byte
//     swizzled), in a lane-dependent order that keeps the four loads free of bank conflicts, and rounds it (and
//     in fp32 splits it into big and small parts) in registers;
//   - its shared-memory operand is A, 64 rows of C at a time, K-major as A is stored. wgmma truncates that operand,
//     so the TMA brings A's tile to a staging area of the stage and three producer warps write it rounded to TF32
//     (in fp32 also its remainders) into the tiles the wgmma reads;
//   - each consumer warpgroup multiplies 64 columns of C by 64 rows (wgmma m64n64k8: M is C's columns, N its
//     rows), three per block, 192 columns; in fp32 by 3xTF32 as step 3, each stage's products summed from zero and
//     added to the accumulators with round-to-nearest FADDs;
//   - the grid is persistent, one block per multiprocessor walking the tiles (the rows of C fastest, so that the
//     blocks at work share B's columns in L2): the producer loads the next tile while the consumers store the last.
// Special values and magnitudes as steps 2 and 3 (kernels/helpers.cuh); long K split by the plan into slices.
// Predicted: 64×768×100000 is B's 307 MB read once, ~110 µs at 2.8 TB/s (~90 TFLOP/s), 3xTF32's tensor work ~60%
// of that. Measured on an H100 (bench/NOTES.md, step 4), cuBLAS in the same run: fp32 0.141 ms, 69.7 TFLOP/s,
// 1.62× cuBLAS SGEMM (mma 0.97×), error 2.5e-7 against 5.0e-7; tf32 0.126 ms, 1.14× cuBLAS TF32 (mma 0.94×). fp32
// falls short of the memory bound: each consumer waits for its stage's 12 wgmmas before adding them, so the tensor
// pipe runs while another consumer waits; two consumers (128 columns) gave 0.166 ms, three 0.141. Waiting once per
// two stages made ptxas serialize the wgmmas (C7520) and was slower; overlapping the adds with the next stage's
// wgmmas does too (C7514). A first producer that loaded A with ordinary loads ran one stage per L2 round trip.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/kernels/helpers.cuh"
#include "cuda/kernels/hopper.cuh"
#include "cuda/kernels/kernel.h"
#include "cuda/kernels/registry.h"
#include "cuda/status.h"

namespace cuda_matmul {
namespace wgmma_t {  // named, so that bench/kernels.cu can include this file beside 3_wgmma.cu
namespace {

using namespace hopper;

constexpr int kDepth = kTileWidth;    // k per stage: one swizzle row of A's tile
constexpr int kRowsC = 64;            // rows of C per tile: wgmma's N
constexpr int kColsPerConsumer = 64;  // columns of C per consumer warpgroup: wgmma's M
constexpr int kTileBytesA = kRowsC * kDepth * 4;
constexpr int kStageBudget = 200 * 1024;

// SPLIT: fp32 by 3xTF32 (A's stage tile is followed by its remainders); else tf32. CONSUMERS warpgroups multiply,
// 64 columns of C each: three keep the tensor pipe busier while each waits for its stage's wgmmas (64×768×100000
// fp32 0.166 → 0.141 ms), two give grids under one wave more blocks (16×4096×16384 fp32 0.175 → 0.143 ms).
template <bool SPLIT, int CONSUMERS>
struct Config {
  static constexpr bool kSplit = SPLIT;
  static constexpr int kConsumers = CONSUMERS;
  static constexpr int kColsC = CONSUMERS * kColsPerConsumer;
  static constexpr int kThreads = 128 * (1 + CONSUMERS);  // warpgroup 0 produces
  // setmaxnreg: the producer warpgroup keeps 40 registers a thread, the consumers share the rest of 64 K.
  static constexpr int kConsumerRegisters = (65536 - 128 * 40) / (128 * CONSUMERS) / 8 * 8 > 232
                                                ? 232
                                                : (65536 - 128 * 40) / (128 * CONSUMERS) / 8 * 8;
  static constexpr int kTileBytesB = kColsC * kDepth * 4;
  // B's tile, A's rounded (and for SPLIT its remainders), A's as the TMA brought it.
  static constexpr int kStageBytes = kTileBytesB + (SPLIT ? 3 : 2) * kTileBytesA;
  static constexpr int kStages = kStageBudget / kStageBytes < 8 ? kStageBudget / kStageBytes : 8;
  // Stages, then 3 mbarriers per stage; +1024 so the stages can start 1024-byte aligned (the swizzle's period).
  static constexpr int kSharedBytes = kStages * kStageBytes + 3 * kStages * 8 + 1024;
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

constexpr int kBoxBytes = kTileWidth * kDepth * 4;  // B's tile: boxes of 32 columns × 32 rows (k), 4 KB each
constexpr int kAccumulators = kRowsC / 2;           // per consumer thread: 64 × 64 over 128 threads

// One tile of work: 64 rows of C by COLS columns, over one slice of K.
struct WorkTile {
  int64_t row, col;  // C's first row and column
  int64_t kBegin, depth;
};

// Tile t of `tiles`: the rows of C vary fastest, then the columns, then the slices of K.
template <int COLS>
__device__ __forceinline__ WorkTile workTile(int64_t t, int64_t M, int64_t N, int64_t K, int64_t sliceDepth) {
  const int64_t rowTiles = (M + kRowsC - 1) / kRowsC, colTiles = (N + COLS - 1) / COLS;
  const int64_t slice = t / (rowTiles * colTiles), inSlice = t % (rowTiles * colTiles);
  const int64_t kBegin = sliceDepth > 0 ? slice * sliceDepth : 0;
  const int64_t depth = sliceDepth > 0 && K - kBegin > sliceDepth ? sliceDepth : K - kBegin;
  return {inSlice % rowTiles * kRowsC, inSlice / rowTiles * COLS, kBegin, depth};
}

// The converting warps' share of a stage: A's tile as the TMA brought it (64 rows × 32 k, swizzled), rounded to TF32
// into the tile wgmma reads (and for SPLIT each element's remainder, rounded, into the next), 16 bytes at a time at
// the same offsets (the layouts are the same). Elements are rounded the way the TF32 kernels round B.
template <bool SPLIT>
__device__ __forceinline__ void roundTileOfA(const uint8_t* raw, uint8_t* big, uint8_t* small, int thread, int threads) {
  for (int offset = 16 * thread; offset < kTileBytesA; offset += 16 * threads) {
    const float4 v = *reinterpret_cast<const float4*>(raw + offset);
    const float x[4] = {v.x, v.y, v.z, v.w};
    uint32_t hi[4], lo[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      hi[q] = tf32Bits(x[q]);
      lo[q] = tf32Bits(x[q] - __uint_as_float(hi[q]));
    }
    *reinterpret_cast<uint4*>(big + offset) = make_uint4(hi[0], hi[1], hi[2], hi[3]);
    if constexpr (SPLIT) *reinterpret_cast<uint4*>(small + offset) = make_uint4(lo[0], lo[1], lo[2], lo[3]);
  }
}

// This thread's register fragment (as mma.m16n8k8's A: lane 4g + t holds rows g and g + 8, columns t and t + 4 of
// its warp's 16) of the 64×8 slice Bᵀ[columns of C][kk-th 8 of the stage's k], read from B's tile (rows of k,
// 32 columns of C per 4 KB box, 128-byte swizzled). Columns g and g + 8 of one box row share a bank with those of
// lane g ^ 4 at k ± 4, so lanes with g ≥ 4 read their two k rows in the other order: every load is conflict-free.
__device__ __forceinline__ void loadFragmentB(float (&b)[4], const uint8_t* tileB, int consumer, int kk) {
  const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int column = consumer * kColsPerConsumer + warp * 16 + g;  // and column + 8, in the same box
  const uint8_t* box = tileB + (column / kTileWidth) * kBoxBytes;
  const int inBox = column % kTileWidth, swapped = g / 4;
  const int kFirst = 8 * kk + t + 4 * swapped, kSecond = 8 * kk + t + 4 * (1 - swapped);
  auto at = [&](int k, int col) {
    return *reinterpret_cast<const float*>(box + k * 128 + (((col / 4) ^ (k % 8)) * 16) + (col % 4) * 4);
  };
  const float x0 = at(kFirst, inBox), x1 = at(kSecond, inBox), x2 = at(kFirst, inBox + 8), x3 = at(kSecond, inBox + 8);
  b[0] = swapped ? x1 : x0;  // (g, t)
  b[2] = swapped ? x0 : x1;  // (g, t + 4)
  b[1] = swapped ? x3 : x2;  // (g + 8, t)
  b[3] = swapped ? x2 : x3;  // (g + 8, t + 4)
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// C (M×N, ldc) = A (M×K, lda) · B (K×N, read through mapB), over `tiles` work tiles (workTile). Split K: slice s
// writes its partial result at C + s·sliceStride.
template <class T>
__global__ void __launch_bounds__(T::kThreads, 1)
    wgmmaTransposedGemm(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
                        const float* __restrict__ A, int64_t lda,
                        const float* B, int64_t ldb, float* __restrict__ C, int64_t ldc, int64_t M, int64_t K,
                        int64_t N, int64_t sliceDepth, int64_t sliceStride, int64_t tiles, const uint32_t* aClasses,
                        const uint32_t* bClasses) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ uint8_t sharedBytes[];
  uint8_t* const stages = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(sharedBytes) + 1023) / 1024 * 1024);
  constexpr int kStages = T::kStages;
  uint64_t* const full = reinterpret_cast<uint64_t*>(stages + kStages * T::kStageBytes);
  uint64_t* const empty = full + kStages;
  uint64_t* const arrived = empty + kStages;  // A's raw tile has landed
  auto tileB = [&](int stage) { return stages + stage * T::kStageBytes; };
  auto tileA = [&](int stage) { return tileB(stage) + T::kTileBytesB; };
  auto tileASmall = [&](int stage) { return tileA(stage) + kTileBytesA; };
  auto rawA = [&](int stage) { return tileB(stage) + T::kStageBytes - kTileBytesA; };
  constexpr int kConverters = 96;  // the producer's warps 1-3; warp 0's first thread issues the TMA copies

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      barrierInit(&full[s], kConverters);  // every converting thread, once its part of A is written; and B's bytes
      barrierInit(&empty[s], T::kConsumers);  // one arrival per consumer warpgroup
      barrierInit(&arrived[s], 1);         // the issuing thread's expect-bytes arrival, then the TMA's bytes
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    // Both producer roles walk the same stages: the first thread fills each with TMA copies as soon as it is free,
    // the converting warps round its A once the copy has landed.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    const bool issues = threadIdx.x == 0, converts = threadIdx.x >= 32;
    if (!issues && !converts) return;
    int use = 0;  // stages filled so far, over every tile
    for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
      const WorkTile w = workTile<T::kColsC>(t, M, N, K, sliceDepth);
      const int kTiles = static_cast<int>((w.depth + kDepth - 1) / kDepth);
      for (int kt = 0; kt < kTiles; ++kt, ++use) {
        const int stage = use % kStages, k0 = static_cast<int>(w.kBegin + int64_t{kt} * kDepth);
        if (issues) {
          if (use >= kStages) barrierWait(&empty[stage], ((use / kStages) & 1) ^ 1);  // its last use has finished
          barrierExpectBytes(&arrived[stage], kTileBytesA);
          tmaLoad(rawA(stage), &mapA, k0, static_cast<int>(w.row), &arrived[stage]);
          barrierAddBytes(&full[stage], T::kTileBytesB);
          for (int box = 0; box < T::kColsC / kTileWidth; ++box)
            tmaLoad(tileB(stage) + box * kBoxBytes, &mapB, static_cast<int>(w.col + box * kTileWidth), k0, &full[stage]);
        } else {
          barrierWait(&arrived[stage], (use / kStages) & 1);
          roundTileOfA<T::kSplit>(rawA(stage), tileA(stage), tileASmall(stage), threadIdx.x - 32, kConverters);
          fenceSharedForAsync();
          barrierArrive(&full[stage]);
        }
      }
    }
    return;
  }

  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(T::kConsumerRegisters));
  const int consumer = warpgroup - 1;
  const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32, g = lane / 4, t4 = lane % 4;
  const bool every = splitLosesProducts(aClasses, bClasses);
  int use = 0;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const WorkTile w = workTile<T::kColsC>(t, M, N, K, sliceDepth);
    const int kTiles = static_cast<int>((w.depth + kDepth - 1) / kDepth);
    float d[kAccumulators];
#pragma unroll
    for (int i = 0; i < kAccumulators; ++i) d[i] = 0.0f;
    // As step 3: in fp32 each stage's products start from zero and are added to d rounding to nearest.
    float part[T::kSplit ? kAccumulators : 1] = {};
    for (int kt = 0; kt < kTiles; ++kt, ++use) {
      const int stage = use % kStages;
      barrierWait(&full[stage], (use / kStages) & 1);
      uint32_t big[kDepth / 8][4], small[kDepth / 8][4];
#pragma unroll
      for (int kk = 0; kk < kDepth / 8; ++kk) {
        float b[4];
        loadFragmentB(b, tileB(stage), consumer, kk);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          big[kk][i] = tf32Bits(b[i]);
          if constexpr (T::kSplit) small[kk][i] = tf32Bits(b[i] - __uint_as_float(big[kk][i]));
        }
      }
      wgmmaFence();
#pragma unroll
      for (int kk = 0; kk < kDepth / 8; ++kk) {  // 8 tf32 = 32 bytes along k, inside A's swizzled rows
        const uint64_t aBig = sharedDescriptor(tileA(stage) + kk * 32);
        if constexpr (T::kSplit) {  // the small terms first, so that they are not lost below the big one
          wgmma64xNx8<kRowsC>(part, small[kk], aBig, kk > 0);
          wgmma64xNx8<kRowsC>(part, big[kk], sharedDescriptor(tileASmall(stage) + kk * 32), true);
          wgmma64xNx8<kRowsC>(part, big[kk], aBig, true);
        } else {
          wgmma64xNx8<kRowsC>(d, big[kk], aBig, true);
        }
      }
      wgmmaCommit();
      wgmmaWait<0>();
#pragma unroll
      for (int kk = 0; kk < kDepth / 8; ++kk) pinRegisters(big[kk]);
      if constexpr (T::kSplit) {
#pragma unroll
        for (int kk = 0; kk < kDepth / 8; ++kk) pinRegisters(small[kk]);
        pinRegisters(part);
#pragma unroll
        for (int i = 0; i < kAccumulators; ++i) d[i] += part[i];
      } else {
        pinRegisters(d);
      }
      if (threadIdx.x % 128 == 0) barrierArrive(&empty[stage]);
    }
    // d[4j + 2h + q] is Cᵀ(column 16·warp + g + 8h, row 8j + 2·t4 + q) of this warpgroup's 64 columns: along a
    // row of C, lanes g = 0…7 write 8 neighbouring columns.
    const int64_t slice = sliceDepth > 0 ? w.kBegin / sliceDepth : 0;
    float* const c = C + slice * sliceStride;
    const int64_t col0 = w.col + consumer * kColsPerConsumer + warp * 16 + g, row0 = w.row + 2 * t4;
    float probe = 0.0f;
#pragma unroll
    for (int j = 0; j < kRowsC / 8; ++j) {
#pragma unroll
      for (int q = 0; q < 2; ++q) {
        const int64_t row = row0 + 8 * j + q;
        if (row >= M) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64_t col = col0 + 8 * h;
          if (col < N) c[row * ldc + col] = d[4 * j + 2 * h + q];
          probe = nonFiniteProbe(d[4 * j + 2 * h + q], probe);
        }
      }
    }
    if (!finite(probe) || every)
      recomputeNonFinite(c, ldc, A + w.kBegin, lda, B + w.kBegin * ldb, ldb, M, N, w.depth, col0, 2, row0, kRowsC / 8,
                         every, true);
  }
#endif
}

// Persistent grids: one block per multiprocessor of the current device, as CUDA listed it once (device.cu).
int multiprocessors() {
  int device = 0;
  checkCuda(cudaGetDevice(&device), "cudaGetDevice");
  for (const DeviceDescription& listed : cudaStatus().devices)
    if (listed.index == device) return listed.multiprocessors;
  throw MatmulError(ErrorKind::Failure, "internal error: wgmma-t launched on a device CUDA did not list");
}

// B is read as the caller holds it (k×n, ldb): the registry row says transposedB = false.
template <class T>
void launchWgmmaTransposed(const GemmOperands& o, Precision precision, cudaStream_t stream) {
  if (!readyToLaunch(o, precision, T::kSplit, "wgmma-t", "B")) return;
  if (o.m > INT32_MAX - kRowsC || o.n > INT32_MAX - T::kColsC || !chunksOfK(o))
    throw MatmulError(ErrorKind::Range, "wgmma-t: this shape needs the plan's split of K (internal error)");
  static_assert(T::kThreads == 128 * (1 + T::kConsumers) && T::kConsumerRegisters % 8 == 0,
                "a producer warpgroup and the consumers; setmaxnreg takes multiples of 8");
  static SharedMemoryOptIn optIn;
  optIn.ensure(wgmmaTransposedGemm<T>, T::kSharedBytes, "cudaFuncSetAttribute(wgmma-t shared memory)");
  const int64_t tilesPerSlice = ((o.m + kRowsC - 1) / kRowsC) * ((o.n + T::kColsC - 1) / T::kColsC);
  const int gridLimit = multiprocessors();
  forEachChunkOfK(o, [&](int64_t first, int64_t slices, int64_t begin, int64_t depth) {
    // A map's dimensions must be at least 1: with k = 0 no tile is loaded, and C is written as zeros.
    const CUtensorMap mapA = tileMap(o.a + begin, o.m, std::max<int64_t>(depth, 1), o.lda, kRowsC);
    const CUtensorMap mapB = tileMap(o.b + begin * o.ldb, std::max<int64_t>(depth, 1), o.n, o.ldb, kDepth);
    const int64_t tiles = tilesPerSlice * slices;
    const int blocks = static_cast<int>(std::min<int64_t>(tiles, gridLimit));
    wgmmaTransposedGemm<T><<<blocks, T::kThreads, T::kSharedBytes, stream>>>(
        mapA, mapB, o.a + begin, o.lda, o.exactB + begin * o.exactLdb, o.exactLdb, o.c + first * o.sliceStride, o.ldc, o.m,
        depth, o.n, o.slices == 1 ? 0 : o.sliceDepth, o.sliceStride, tiles, o.aClasses, o.bClasses);
  });
}

template <bool SPLIT, int CONSUMERS>
constexpr KernelVariant variant(const char* name) {
  using T = Config<SPLIT, CONSUMERS>;
  return {name, launchWgmmaTransposed<T>, {kRowsC, T::kColsC}, true};
}
constexpr KernelVariant kTf32Variants[] = {variant<false, 3>("wgmma-t 64x192"), variant<false, 2>("wgmma-t 64x128")};
constexpr KernelVariant kFp32Variants[] = {variant<true, 3>("wgmma-t 3xTF32 64x192"),
                                           variant<true, 2>("wgmma-t 3xTF32 64x128")};

}  // namespace
}  // namespace wgmma_t

KernelVariants wgmmaTransposedVariants(Precision precision) {
  return precision == Precision::Fp32 ? KernelVariants(wgmma_t::kFp32Variants) : KernelVariants(wgmma_t::kTf32Variants);
}

}  // namespace cuda_matmul
