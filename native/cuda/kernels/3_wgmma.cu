// Step 3 of the kernel progression: Hopper's warpgroup matrix multiply (wgmma, sm_90a only), in tf32 and, by
// 3xTF32, in fp32. Improves on mma (2_mma.cu), whose tf32 mode reaches 140 TFLOP/s at 4096³ against cuBLAS TF32's 390:
// mma.sync feeds the tensor cores from registers, one warp and one 16×8 product at a time, so shared-memory
// fragment loads and issue slots, not the tensor cores, set its pace. Here
//   - one instruction (wgmma m64n256k8) has a warpgroup of 4 warps multiply a 64×8 slice of A by an 8×256
//     slice of B, B read by the tensor cores straight from shared memory, asynchronously;
//   - tiles reach shared memory through the tensor memory accelerator (TMA, cp.async.bulk.tensor): one
//     thread asks for a whole tile, in the 128-byte swizzled layout wgmma reads without bank conflicts, and
//     the TMA zero-fills what lies past the matrix edges (any m, k, n);
//   - warp specialisation: a producer warpgroup only issues TMA copies, STAGES tiles ahead, and two consumer
//     warpgroups only multiply (each 64 rows of the 128×256 block tile); they hand stages to each other
//     through mbarriers, and setmaxnreg moves registers from the producer to the consumers' accumulators;
//   - blocks sweep the columns of C in groups of 8 tile rows, so that a wave of blocks shares its rows of A and
//     columns of Bᵀ in L2 (row-major order streams all of Bᵀ through L2 every wave: half the speed at 8192³);
//   - operands are rounded to TF32 (as mma's tf32 mode and cuBLAS do), not truncated, which is what wgmma
//     does to float32 bits read from shared memory: B once while it is transposed, A on its way from shared
//     memory to the registers wgmma can also take it from.
//   - an element that comes out NaN or ±∞ is recomputed with fp32 FMAs from A and the caller's B
//     (recomputeNonFinite, kernels/helpers.cuh): TF32 rounding carries values near FLT_MAX to ∞ and the tensor cores may flush
//     subnormals; so is every element when A and B hold a value under 2^-100 on one side and one over 2^64 on
//     the other (splitLosesProducts); long K is split into slices of at most 8192, summed in float64
//     (kernels/launch.cu);
//   - C = α·A·B + β·C as the accumulators are stored (gemm's α and β), not in a pass of its own over C.
// TF32 wgmma reads B K-major, so this kernel takes Bᵀ (n×k): the caller transposes B once, or rounds a B held
// as Bᵀ as it is stored (transposedB in kernels/kernel.h). A goes from shared memory to the registers, so it is read
// in either layout as stored: row-major, or held as Aᵀ (k×m, gemm's transA), whose stage tiles come as 32×32 boxes
// (32 rows of A by 32 k, k-rows of 128 bytes in the same swizzle), read by loadFragmentAT: 4096³ fp32 Aᵀ·B on
// Matrices 1.07 ms, as fast as A·B, where a transpose first took 1.16 (docs/kernels.md, "Operands as stored, α and β in the epilogue"). Rows of A and Bᵀ must start 16-byte aligned (TMA), as the planner's padded device
// matrices do.
// fp32 (3xTF32, as mma's fp32 mode; Tile<COLS, true>): A's fragments are split into big and small parts in
// registers, Bᵀ comes with its remainders (made by the same transpose), and each k step runs three wgmmas
// (small·big, big·small, big·big) on 128×128 or 128×64 blocks (three times the work per byte loaded, so the
// smaller tile keeps 4–6 stages in flight). The tensor cores add into fp32 accumulators rounding toward zero:
// summed straight into the accumulators the error grew with K (2.9e-5 at 4096³, 26× cuBLAS SGEMM's), so each
// stage's products start from zero and are added with round-to-nearest FADDs.
// Block tiles: tf32 128×256, with 128×128 and 128×64 for narrow products and grids under one wave; fp32 128×128,
// 128×64 and 128×32, and with one consumer warpgroup 64×64 and 64×32 (choose.h, chooseVariant): 512³ 0.019 ms
// on 64×32 against 0.021 on 128×32 (1.42× cuBLAS SGEMM), 512×1024×512 0.023 against 0.030. The narrow tf32 tiles took 100000×768×64 from 51 to 77 TFLOP/s
// (2.27× cuBLAS TF32) and 1024³ from 60 to 86 (1.32×).
// Measured on an H100 (docs/kernels.md, "Step 3: wgmma"): tf32 4096³ 387 TFLOP/s alone, 338 with the transpose of B,
// against cuBLAS TF32's 386 (0.87×; mma's tf32 mode 140); 8192³ 373 against 404; error 2.6e-4, as cuBLAS's.
// fp32 4096³ 125.6 TFLOP/s with the transpose, 2.49× cuBLAS SGEMM (mma: 1.00×), error 3.1e-7 against 1.1e-6;
// 1024³ 2.01×, 100000×768×64 1.67×.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "cuda/check.h"
#include "cuda/kernels/kernel.h"
#include "cuda/kernels/helpers.cuh"
#include "cuda/kernels/hopper.cuh"
#include "cuda/kernels/registry.h"
#include "core/errors.h"

namespace cuda_matmul {
namespace {

using namespace hopper;

constexpr int kDepth = kTileWidth;  // k per stage: one swizzle row
constexpr int kStageBudget = 200 * 1024;  // of the 227 KB of shared memory a block may have

// One compiled configuration: (64·CONSUMERS) × COLS blocks of C, each consumer warpgroup multiplying 64 rows of
// the block (warpgroup 0 produces). SPLIT: precision fp32 by 3xTF32, each operand x split into
// big = tf32(x) and small = tf32(x − big), and A·B taken as A_small·B_big + A_big·B_small + A_big·B_big (what is
// left out, A_small·B_small, is 2^-22 of a product): each stage then also holds Bᵀ's remainders.
template <int COLS, bool SPLIT, int CONSUMERS = 2>
struct Tile {
  static constexpr int kConsumers = CONSUMERS;
  static constexpr int kRows = 64 * CONSUMERS;
  static constexpr int kThreads = 128 * (1 + CONSUMERS);
  static constexpr int kCols = COLS;
  static constexpr bool kSplit = SPLIT;
  static constexpr int kTileBytesA = kRows * kDepth * 4;
  static constexpr int kTileBytesB = COLS * kDepth * 4;
  static constexpr int kStageBytes = kTileBytesA + (SPLIT ? 2 : 1) * kTileBytesB;
  static constexpr int kStages = kStageBudget / kStageBytes < 8 ? kStageBudget / kStageBytes : 8;
  // Stages, then 2 mbarriers per stage; +1024 so the stages can start 1024-byte aligned (the swizzle's period).
  static constexpr int kSharedBytes = kStages * kStageBytes + 2 * kStages * 8 + 1024;
  static constexpr int kAccumulators = COLS / 2;  // per consumer thread: 64 rows × COLS over 128 threads
  // fp32 on tiles up to 64 wide takes stages in pairs, the second's products issued before the first's are waited
  // for (two `part`s and two fragment buffers fit in the registers, which 128×128's 64 accumulators each do not):
  // waiting for each stage's 12 wgmmas before loading the next left the tensor cores idle between stages
  // (512³ on 128×32: 0.018 → 0.017 ms, 1024³ on 128×64 unchanged).
  static constexpr bool kTwoInFlight = SPLIT && COLS <= 64;
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// Blocks sweep the columns of C in groups of 8 tile rows (1024 rows of C), so that a wave of blocks shares
// its rows of A and columns of Bᵀ in L2.
constexpr int kGroupRows = 8;

// Which tile of C (first row, first column) this block computes: groups of kGroupRows tile rows sweep the
// columns one column of tiles at a time.
template <class T>
__device__ __forceinline__ int2 blockTile(int64_t M, int64_t N) {
  const int columns = static_cast<int>((N + T::kCols - 1) / T::kCols);
  const int rows = static_cast<int>((M + T::kRows - 1) / T::kRows);
  const int block = static_cast<int>(blockIdx.x), perGroup = kGroupRows * columns;
  const int firstRow = block / perGroup * kGroupRows;
  const int rowsInGroup = min(rows - firstRow, kGroupRows);
  const int inGroup = block % perGroup;
  return {(firstRow + inGroup % rowsInGroup) * T::kRows, inGroup / rowsInGroup * T::kCols};
}

// This thread's A fragment for k-step kk (8 deep) of its warpgroup's 64 rows of a stage.
// Fragment (as mma.m16n8k8): warp w, lane 4g + t holds rows 16w + g and 16w + g + 8, columns t and t + 4.
// In the 128-byte swizzle, 16-byte chunk c of row r sits at chunk c ^ (r % 8); both rows have r % 8 = g,
// so a warp's 32 reads hit 32 different banks.
__device__ __forceinline__ void loadFragmentA(float (&a)[4], const uint8_t* rows, int kk) {
  const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const uint8_t* first = rows + (warp * 16 + g) * 128;
  const uint8_t* second = first + 8 * 128;
  const int low = (((2 * kk) ^ g) * 16) + t * 4, high = (((2 * kk + 1) ^ g) * 16) + t * 4;
  a[0] = *reinterpret_cast<const float*>(first + low);
  a[1] = *reinterpret_cast<const float*>(second + low);
  a[2] = *reinterpret_cast<const float*>(first + high);
  a[3] = *reinterpret_cast<const float*>(second + high);
}

// The row, within a consumer warpgroup's 64, that accumulator fragment row g (+ 8 for half 1) of warp w holds: 16w +
// g + 8·half, as wgmma lays its fragments out, for A read row-major. For A held as Aᵀ the rows are permuted within
// each 32-row box (a bijection: 16·(g / 4) + 8·(w % 2) + 4·half + g % 4), so that a warp's fragment reads from the
// box (loadFragmentAT) fall on 32 different banks: in wgmma's order they fell two to a bank, and the kernel ran
// 4–5% slower than on row-major A. The stores and the recomputation follow the same rows.
template <bool A_TRANSPOSED>
__device__ __forceinline__ int fragmentRow(int warp, int g, int half) {
  if constexpr (A_TRANSPOSED) return 32 * (warp / 2) + 16 * (g / 4) + 8 * (warp % 2) + 4 * half + g % 4;
  return 16 * warp + 8 * half + g;
}

// The same fragment (its rows as fragmentRow<true> permutes them) from a stage of A held as Aᵀ: each 32 rows of A
// a 4 KB box of 32 k-rows of 128 bytes (32 rows of A), its 16-byte chunk c of k-row r at chunk c ^ (r % 8).
__device__ __forceinline__ void loadFragmentAT(float (&a)[4], const uint8_t* rows, int kk) {
  const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  auto at = [&](int row, int k) {
    const int inBox = row % 32;
    return *reinterpret_cast<const float*>(rows + row / 32 * 4096 + k * 128 + (((inBox / 4) ^ (k % 8)) * 16) +
                                           inBox % 4 * 4);
  };
  const int first = fragmentRow<true>(warp, g, 0), second = fragmentRow<true>(warp, g, 1), k = 8 * kk + t;
  a[0] = at(first, k);
  a[1] = at(second, k);
  a[2] = at(first, k + 4);
  a[3] = at(second, k + 4);
}

// Each thread's accumulators, per the wgmma D fragment layout: warp w of the warpgroup holds rows
// fragmentRow(w, g, 0) and fragmentRow(w, g, 1) (lane = 4g + t); d[4j..4j+1] are columns 8j + 2t, +1 of the first,
// d[4j+2..] of the second. The finite ones go into C through the epilogue; returns those that were not
// (NonFinite, in recomputeNonFinite's order: r = half, columns 8j + 2t + q).
template <int COLS, bool A_TRANSPOSED>
__device__ __forceinline__ NonFinite storeAccumulators(const float (&d)[COLS / 2], float* C, int64_t M, int64_t N,
                                                       int64_t ldc, int64_t rowBase, int64_t colBase, bool pairs,
                                                       const Epilogue& epilogue) {
  NonFinite nonFinite;
  const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int64_t row = rowBase + fragmentRow<A_TRANSPOSED>(warp, g, half);
    if (row >= M) continue;
    float* const cRow = C + row * ldc;
    storeRowPairs<COLS / 8, true>(
        cRow, N, pairs, epilogue, [&](int j) { return colBase + j * 8 + 2 * t; },
        [&](int j, int q) { return d[4 * j + 2 * half + q]; },
        [&](int j, uint32_t bits) { nonFinite.note(2 * (COLS / 8) * half + 2 * j, bits); });
  }
  return nonFinite;
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// C (M×N) = A (M×K) · B, with A (or, A_TRANSPOSED, Aᵀ) and Bᵀ (N×K) read through tensor maps (for SPLIT also Bᵀ's
// remainders, mapBtSmall). pairs: C's rows allow float2 stores.
// A as held (lda) and B as the caller holds it (k×n, ldb; n×k where bTransposed): for the exact recomputation of
// non-finite results.
// Split K: block row y of the grid multiplies slice y, sliceDepth deep (a multiple of kDepth), into C + y·sliceStride.
template <class T, bool A_TRANSPOSED>
__global__ void __launch_bounds__(T::kThreads, 1)
    wgmmaGemm(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapBt,
              const __grid_constant__ CUtensorMap mapBtSmall, float* __restrict__ C,
              int64_t M, int64_t K, int64_t N, int64_t ldc, bool pairs, const float* A, int64_t lda, const float* B,
              int64_t ldb, bool bTransposed, int64_t sliceDepth, int64_t sliceStride, const uint32_t* aClasses,
              const uint32_t* bClasses, Epilogue epilogue) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const int kBegin = sliceDepth > 0 ? static_cast<int>(blockIdx.y * sliceDepth) : 0;  // the host keeps it under 2^30
  takeKSlice(blockIdx.y, sliceDepth, sliceStride, A_TRANSPOSED, lda, bTransposed, ldb, A, B, C, K);
  extern __shared__ uint8_t sharedBytes[];
  uint8_t* const stages = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(sharedBytes) + 1023) / 1024 * 1024);
  constexpr int kStages = T::kStages;
  uint64_t* const full = reinterpret_cast<uint64_t*>(stages + kStages * T::kStageBytes);
  uint64_t* const empty = full + kStages;
  auto tileA = [&](int stage) { return stages + stage * T::kStageBytes; };
  auto tileB = [&](int stage) { return stages + stage * T::kStageBytes + T::kTileBytesA; };
  auto tileBSmall = [&](int stage) { return tileB(stage) + T::kTileBytesB; };

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      barrierInit(&full[s], 1);            // the producer's expect-bytes arrival, then the TMA's bytes
      barrierInit(&empty[s], T::kConsumers);  // one arrival per consumer warpgroup
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  const int kTiles = static_cast<int>((K + kDepth - 1) / kDepth);
  const int2 tile = blockTile<T>(M, N);
  const int blockRow = tile.x, blockCol = tile.y;
  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x == 0) {
      for (int kt = 0; kt < kTiles; ++kt) {
        const int stage = kt % kStages;
        if (kt >= kStages) barrierWait(&empty[stage], ((kt / kStages) & 1) ^ 1);  // its last use has finished
        barrierExpectBytes(&full[stage], T::kStageBytes);
        if constexpr (A_TRANSPOSED) {
#pragma unroll
          for (int box = 0; box < T::kRows / 32; ++box)
            tmaLoad(tileA(stage) + box * 4096, &mapA, blockRow + 32 * box, kBegin + kt * kDepth, &full[stage]);
        } else {
          tmaLoad(tileA(stage), &mapA, kBegin + kt * kDepth, blockRow, &full[stage]);
        }
        tmaLoad(tileB(stage), &mapBt, kBegin + kt * kDepth, blockCol, &full[stage]);
        if constexpr (T::kSplit) tmaLoad(tileBSmall(stage), &mapBtSmall, kBegin + kt * kDepth, blockCol, &full[stage]);
      }
    }
    return;
  }

  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  const int consumer = warpgroup - 1;
  float d[T::kAccumulators];
#pragma unroll
  for (int i = 0; i < T::kAccumulators; ++i) d[i] = 0.0f;
  // The tensor cores add into their fp32 accumulators rounding toward zero, a bias that grows with K: summing
  // 3xTF32's products straight into d gave 2.9e-5 at 4096³ against cuBLAS SGEMM's 1.1e-6 (docs/kernels.md, "Step 2: mma and 3xTF32"). So
  // in fp32 each stage's products start from zero in `part`, which is added to d with round-to-nearest FADDs.
  constexpr int kParts = T::kTwoInFlight ? 2 : 1;
  float part[kParts][T::kSplit ? T::kAccumulators : 1] = {};
  // A fragments rounded to TF32 (and for SPLIT their remainders). Two stages' where two are in flight (one read by
  // the wgmmas still running, one being loaded), else one stage's: SPLIT otherwise waits for each stage's products.
  constexpr int kBuffers = T::kSplit && !T::kTwoInFlight ? 1 : 2;
  uint32_t big[kBuffers][kDepth / 8][4], small[kBuffers][kDepth / 8][4];  // small: SPLIT only
  // Adds a finished stage's products to d, in stage order (so two in flight sum exactly as one at a time).
  auto addPart = [&](auto buffer) {
    float(&finished)[T::kSplit ? T::kAccumulators : 1] = part[decltype(buffer)::value % kParts];
#pragma unroll
    for (int i = 0; i < T::kAccumulators; ++i) d[i] += finished[i];
  };
  // SPLIT: waits for stage kt's products (`pending` groups issued after them may stay in flight), adds them to d
  // and frees the stage.
  auto finishSplitStage = [&](int kt, auto buffer, auto pending) {
    constexpr int kBuffer = decltype(buffer)::value % kBuffers;
    wgmmaWait<decltype(pending)::value>();
    pinRegisters(part[decltype(buffer)::value % kParts]);
#pragma unroll
    for (int kk = 0; kk < kDepth / 8; ++kk) pinRegisters(big[kBuffer][kk]), pinRegisters(small[kBuffer][kk]);
    addPart(buffer);
    if (threadIdx.x % 128 == 0) barrierArrive(&empty[kt % kStages]);
  };
  // C's lines for the epilogue's β·C, where β ≠ 0.
  auto prefetchC = [&] {
    const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
    for (int half = 0; half < 2; ++half) {
      const int64_t row = blockRow + consumer * 64 + fragmentRow<A_TRANSPOSED>(warp, lane / 4, half);
      if (row < M) prefetchRowOfC(epilogue, C + row * ldc, blockCol, blockCol + T::kCols, N, lane % 4, 4);
    }
  };
  auto consume = [&](int kt, auto buffer) {
    constexpr int kBuffer = decltype(buffer)::value % kBuffers;
    constexpr int kPart = decltype(buffer)::value % kParts;
    const int stage = kt % kStages;
    barrierWait(&full[stage], (kt / kStages) & 1);
#pragma unroll
    for (int kk = 0; kk < kDepth / 8; ++kk) {  // this warpgroup's 64 rows of A, 128 bytes each
      float a[4];
      if constexpr (A_TRANSPOSED)
        loadFragmentAT(a, tileA(stage) + consumer * 64 * 128, kk);
      else
        loadFragmentA(a, tileA(stage) + consumer * 64 * 128, kk);
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        big[kBuffer][kk][i] = tf32Bits(a[i]);
        if constexpr (T::kSplit) small[kBuffer][kk][i] = tf32Bits(a[i] - __uint_as_float(big[kBuffer][kk][i]));
      }
    }
    wgmmaFence();
#pragma unroll
    for (int kk = 0; kk < kDepth / 8; ++kk) {  // 8 tf32 = 32 bytes along k, inside the swizzled rows of Bᵀ
      const uint64_t bBig = sharedDescriptor(tileB(stage) + kk * 32);
      if constexpr (T::kSplit) {  // the small terms first, so that they are not lost below the big one
        wgmma64xNx8<T::kCols>(part[kPart], small[kBuffer][kk], bBig, kk > 0);
        wgmma64xNx8<T::kCols>(part[kPart], big[kBuffer][kk], sharedDescriptor(tileBSmall(stage) + kk * 32), true);
        wgmma64xNx8<T::kCols>(part[kPart], big[kBuffer][kk], bBig, true);
      } else {
        wgmma64xNx8<T::kCols>(d, big[kBuffer][kk], bBig, true);
      }
    }
    wgmmaCommit();
    if constexpr (!T::kSplit) {
      // Keep this stage's products in flight; the previous stage's are done once one group is pending, and its
      // shared memory and fragments can be reused.
      wgmmaWait<1>();
      pinRegisters(d);
#pragma unroll
      for (int kk = 0; kk < kDepth / 8; ++kk) pinRegisters(big[0][kk]), pinRegisters(big[1][kk]);
      if (kt > 0 && threadIdx.x % 128 == 0) barrierArrive(&empty[(kt - 1) % kStages]);
    } else if constexpr (!T::kTwoInFlight) {
      finishSplitStage(kt, buffer, std::integral_constant<int, 0>{});
    } else if constexpr (decltype(buffer)::value == 1) {
      // Stages in pairs, each pair's products waited for before the next pair starts: ptxas serialises wgmmas
      // whose accumulators are read while a group issued before a loop's back edge may still be in flight.
      finishSplitStage(kt - 1, std::integral_constant<int, 0>{}, std::integral_constant<int, 1>{});
      finishSplitStage(kt, buffer, std::integral_constant<int, 0>{});
    }
  };
  int kt = 0;
  for (; kt + 1 < kTiles; kt += 2) {  // two at a time, so each stage's fragment buffer is known at compile time
    // In the pair that holds the prefetch's stage (a tile of one stage has no multiplies to hide it behind).
    if (prefetchStageOfC(kt, kTiles) || prefetchStageOfC(kt + 1, kTiles)) prefetchC();
    consume(kt, std::integral_constant<int, 0>{});
    consume(kt + 1, std::integral_constant<int, 1>{});
  }
  if (kt < kTiles) {
    consume(kt, std::integral_constant<int, 0>{});
    if constexpr (T::kTwoInFlight) finishSplitStage(kt, std::integral_constant<int, 0>{}, std::integral_constant<int, 0>{});
  }
  wgmmaWait<0>();
  pinRegisters(d);
  const int64_t rowBase = blockRow + consumer * 64;
  const bool every = splitLosesProducts(aClasses, bClasses);
  const NonFinite nonFinite = every ? NonFinite::every()
                                     : storeAccumulators<T::kCols, A_TRANSPOSED>(d, C, M, N, ldc, rowBase, blockCol,
                                                                                 pairs, epilogue);
  if (nonFinite.any()) {
    const int warp = (threadIdx.x % 128) / 32, g = (threadIdx.x % 32) / 4;
    const int first = fragmentRow<A_TRANSPOSED>(warp, g, 0), step = fragmentRow<A_TRANSPOSED>(warp, g, 1) - first;
    recomputeNonFinite(C, ldc, A, lda, B, ldb, M, N, K, rowBase + first, 2, blockCol + 2 * (threadIdx.x % 4),
                       T::kCols / 8, nonFinite, epilogue, false, bTransposed, A_TRANSPOSED, step);
  }
#endif
}


// o.b is Bᵀ (n×k, row pitch o.ldb ≥ k) rounded to TF32, for fp32 followed by its remainders: see transposedB in
// kernels/kernel.h; o.exactB is B as the caller holds it, Bᵀ where o.transB. o.a is A, or Aᵀ (k×m) where o.transA.
template <class T>
void launchWgmma(const GemmOperands& o, Precision precision, cudaStream_t stream) {
  if (!readyToLaunch(o, precision, T::kSplit, "wgmma", "Bᵀ")) return;
  if (o.n > INT32_MAX - T::kCols || !chunksOfK(o))
    throw MatmulError(ErrorKind::Range, "wgmma: this shape needs the plan's split of K (internal error)");
  static SharedMemoryOptIn optIn, optInTransposed;
  const auto kernel = o.transA ? wgmmaGemm<T, true> : wgmmaGemm<T, false>;
  (o.transA ? optInTransposed : optIn).ensure(kernel, T::kSharedBytes, "cudaFuncSetAttribute(wgmma shared memory)");
  // A one-dimensional grid in x, which blockTile maps onto C; the K slices of one chunk in y.
  const int64_t blocks = ((o.m + T::kRows - 1) / T::kRows) * ((o.n + T::kCols - 1) / T::kCols);
  if (blocks > INT32_MAX) throw MatmulError(ErrorKind::Range, "wgmma: the product has more blocks than one grid holds");
  const bool pairs = reinterpret_cast<uintptr_t>(o.c) % 8 == 0 && o.ldc % 2 == 0;
  forEachChunkOfK(o, [&](int64_t first, int64_t slices, int64_t begin, int64_t depth) {
    // A map's dimensions must be at least 1: with k = 0 no tile is loaded, and C is written as zeros.
    const CUtensorMap mapA = o.transA ? tileMap(o.a + begin * o.lda, std::max<int64_t>(depth, 1), o.m, o.lda, 32)
                                      : tileMap(o.a + begin, o.m, std::max<int64_t>(depth, 1), o.lda, T::kRows);
    const CUtensorMap mapBt = tileMap(o.b + begin, o.n, std::max<int64_t>(depth, 1), o.ldb, T::kCols);
    const CUtensorMap mapBtSmall =
        T::kSplit ? tileMap(o.b + o.n * o.ldb + begin, o.n, std::max<int64_t>(depth, 1), o.ldb, T::kCols) : mapBt;
    const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(slices));
    kernel<<<grid, T::kThreads, T::kSharedBytes, stream>>>(
        mapA, mapBt, mapBtSmall, o.c + first * o.sliceStride, o.m, depth, o.n, o.ldc, pairs,
        o.a + (o.transA ? begin * o.lda : begin), o.lda,
        o.exactB + (o.transB ? begin : begin * o.exactLdb), o.exactLdb, o.transB, o.slices == 1 ? 0 : o.sliceDepth,
        o.sliceStride, o.aClasses, o.bClasses, o.epilogue);
  });
}

template <int COLS, bool SPLIT, int CONSUMERS = 2>
constexpr KernelVariant variant(const char* name) {
  using T = Tile<COLS, SPLIT, CONSUMERS>;
  return {name, launchWgmma<T>, {T::kRows, COLS}, true};
}
constexpr KernelVariant kTf32Variants[] = {variant<256, false>("wgmma 128x256"), variant<128, false>("wgmma 128x128"),
                                           variant<64, false>("wgmma 128x64")};
constexpr KernelVariant kFp32Variants[] = {variant<128, true>("wgmma 3xTF32 128x128"),
                                           variant<64, true>("wgmma 3xTF32 128x64"),
                                           variant<32, true>("wgmma 3xTF32 128x32"),
                                           variant<64, true, 1>("wgmma 3xTF32 64x64"),
                                           variant<32, true, 1>("wgmma 3xTF32 64x32")};

}  // namespace

KernelVariants wgmmaVariants(Precision precision) {
  static constexpr VariantsByPrecision kVariants = {kFp32Variants, kTf32Variants};
  return kVariants[precisionIndex(precision)];
}

}  // namespace cuda_matmul
