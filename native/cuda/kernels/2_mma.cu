// Step 2 of the kernel progression: tensor cores (mma.sync m16n8k8 TF32, sm_80 and newer), fed by a
// multi-stage cp.async pipeline. Improves on blocktile (1_blocktile.cu), which is capped by the FP32 FMA pipe
// (67 TFLOP/s peak on an H100, cuBLAS SGEMM 51) and stalls while each tile's global loads land:
//   - the product runs on the tensor cores. TF32 keeps 10 of float32's 23 mantissa bits, so for fp32
//     accuracy each operand is split into big = tf32(x) and small = tf32(x − big) and three products are
//     summed, small·big + big·small + big·big ("3xTF32"; the dropped small·small term is below float32
//     rounding). precision 'tf32' runs the big·big product alone: three times the speed, ~1e-4 error;
//   - STAGES tiles of A and B are in flight at once (cp.async with zero fill past the matrix edges, so no
//     thread waits on its own loads and no element outside A or B is read);
//   - shared-memory rows are padded (A by 4 floats, B by 8) so that every fragment read of a warp hits 32
//     different banks and every 16-byte cp.async stays aligned;
//   - A and B are read as they are stored, row-major or held transposed (Aᵀ k×m, Bᵀ n×k): a tile is copied as its
//     rows are stored (Aᵀ's k-rows padded by 8 as B's are, Bᵀ's by 4 as A's are: SharedLayout), and the fragments
//     read with the roles of its rows and columns swapped, as conflict-free; the sums are the same;
//   - 16-byte copies where every row of A, B and C starts 16-byte aligned (row pitches multiples of 4 floats,
//     aligned base pointers; the host wrapper pads rows so), 4-byte copies otherwise: any shape and offset
//     works, the aligned case runs faster.
//   - IEEE special values: an element that comes out NaN or ±∞ is recomputed with fp32 FMAs
//     (recomputeNonFinite, kernels/helpers.cuh), since splitting ∞ gives ∞ − ∞; so is every element when A
//     and B hold a value under 2^-100 on one side and one over 2^64 on the other, whose product splitting cannot
//     carry (splitLosesProducts); long K is split into slices summed in float64 (kernels/launch.cu).
// Tile shapes: the planner (choose.h, chooseVariant) picks one of the configurations below per shape, from the measurements
// in docs/kernels.md ("Step 2: mma and 3xTF32").
#include <cuda_runtime.h>

#include <cstdint>

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/kernels/kernel.h"
#include "cuda/kernels/helpers.cuh"
#include "cuda/kernels/registry.h"

namespace cuda_matmul {
namespace {

template <int BM_, int BN_, int BK_, int WARPS_M, int WARPS_N, int STAGES_>
struct MmaConfig {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_;
  static constexpr int kThreads = WARPS_M * WARPS_N * 32;
  static constexpr int kWarpsN = WARPS_N;
  static constexpr int kWarpM = BM / WARPS_M, kWarpN = BN / WARPS_N;  // each warp's share of the block tile
  static constexpr int kFragsM = kWarpM / 16, kFragsN = kWarpN / 8;   // m16n8k8 tiles per warp
  static_assert(kWarpM % 16 == 0 && kWarpN % 8 == 0 && BK % 8 == 0, "whole m16n8k8 tiles per warp");
};

// A stage's tiles in shared memory, as A and B are stored (A_TRANSPOSED: Aᵀ, B_TRANSPOSED: Bᵀ): A's BM rows of BK,
// or BK rows of BM; B's BK rows of BN, or BN rows of BK; rows padded (floats).
template <class Cfg, bool A_TRANSPOSED, bool B_TRANSPOSED>
struct SharedLayout {
  static constexpr int kStrideA = A_TRANSPOSED ? Cfg::BM + 8 : Cfg::BK + 4;
  static constexpr int kStrideB = B_TRANSPOSED ? Cfg::BK + 4 : Cfg::BN + 8;
  static constexpr int kFloatsA = (A_TRANSPOSED ? Cfg::BK : Cfg::BM) * kStrideA;
  static constexpr int kStageFloats = kFloatsA + (B_TRANSPOSED ? Cfg::BN : Cfg::BK) * kStrideB;
  static constexpr int kSharedBytes = Cfg::STAGES * kStageFloats * static_cast<int>(sizeof(float));
  // Where A's (row, k) and B's (k, col) lie in their tiles.
  __device__ static constexpr int a(int row, int k) { return A_TRANSPOSED ? k * kStrideA + row : row * kStrideA + k; }
  __device__ static constexpr int b(int k, int col) { return B_TRANSPOSED ? col * kStrideB + k : k * kStrideB + col; }
};

// Starts copying a ROWS×COLS tile of a row-major matrix (leading dimension ld) into shared rows of STRIDE
// floats. rowsLeft/colsLeft: how much of the tile lies inside the matrix; the rest is zero-filled (origin,
// the matrix's first element, stands in as a valid address for copies that read nothing).
template <int ROWS, int COLS, int STRIDE, int THREADS, bool VECTOR>
__device__ __forceinline__ void loadTile(float* shared, const float* tile, int64_t ld, int64_t rowsLeft,
                                         int64_t colsLeft, const float* origin) {
  constexpr int kWidth = VECTOR ? 4 : 1;
  constexpr int kChunksPerRow = COLS / kWidth;
  constexpr int kChunks = ROWS * kChunksPerRow;
  static_assert(kChunks % THREADS == 0, "every thread copies the same number of chunks");
#pragma unroll
  for (int i = 0; i < kChunks / THREADS; ++i) {
    const int chunk = static_cast<int>(threadIdx.x) + i * THREADS;
    const int row = chunk / kChunksPerRow, col = (chunk % kChunksPerRow) * kWidth;
    // A chunk that a row's end cuts copies the floats before it and zero-fills the rest: nothing past the matrix's
    // rows is read, whatever their padding holds.
    const bool inside = row < rowsLeft && col < colsLeft;
    const int read = inside ? 4 * static_cast<int>(colsLeft - col < kWidth ? colsLeft - col : kWidth) : 0;
    copyAsync<kWidth * 4>(shared + row * STRIDE + col, inside ? tile + row * ld + col : origin, read);
  }
}

// --- tensor-core arithmetic --------------------------------------------------------------------------------

// x ≈ big + small, both TF32; small carries the 13 mantissa bits big drops (only computed when used).
template <int PASSES>
__device__ __forceinline__ void split(float x, uint32_t& big, uint32_t& small) {
  big = tf32Bits(x);
  if constexpr (PASSES == 3) small = tf32Bits(x - __uint_as_float(big));
}

// acc (16×8, fp32) += a (16×8, tf32, row-major fragment) · b (8×8, tf32, column fragment)
__device__ __forceinline__ void mma16x8x8(float (&acc)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// One 8-deep slice of the block tile (k from kk): load this warp's fragments from shared memory (its rows from
// warpRow of A's tile, its columns from warpCol of B's), split, multiply.
// Fragment layouts (PTX ISA, mma.m16n8k8 .tf32): lane = 4·g + t; A holds (g, t), (g+8, t), (g, t+4),
// (g+8, t+4); B holds (k=t, n=g), (k=t+4, n=g); C holds (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1).
template <class Cfg, class L, int PASSES>
__device__ __forceinline__ void multiplySlice(float (&acc)[Cfg::kFragsM][Cfg::kFragsN][4], const float* As,
                                              const float* Bs, int warpRow, int warpCol, int kk, int g, int t) {
  uint32_t bBig[Cfg::kFragsN][2], bSmall[Cfg::kFragsN][2];
#pragma unroll
  for (int j = 0; j < Cfg::kFragsN; ++j) {
    const int col = warpCol + j * 8 + g;
    split<PASSES>(Bs[L::b(kk + t, col)], bBig[j][0], bSmall[j][0]);
    split<PASSES>(Bs[L::b(kk + t + 4, col)], bBig[j][1], bSmall[j][1]);
  }
  // One row of A fragments at a time: fewer live registers than splitting them all up front.
#pragma unroll
  for (int i = 0; i < Cfg::kFragsM; ++i) {
    uint32_t aBig[4], aSmall[4];
    const int row = warpRow + i * 16 + g;
    split<PASSES>(As[L::a(row, kk + t)], aBig[0], aSmall[0]);
    split<PASSES>(As[L::a(row + 8, kk + t)], aBig[1], aSmall[1]);
    split<PASSES>(As[L::a(row, kk + t + 4)], aBig[2], aSmall[2]);
    split<PASSES>(As[L::a(row + 8, kk + t + 4)], aBig[3], aSmall[3]);
#pragma unroll
    for (int j = 0; j < Cfg::kFragsN; ++j) {
      if constexpr (PASSES == 3) {
        // The tensor cores round their fp32 sums toward zero. Into the running sum, that error grows with K
        // (2.9e-5 at K=4096, 25× cuBLAS); so this slice's three products are summed from zero, the small
        // terms first, and added to the running sum with a round-to-nearest FADD (docs/kernels.md, "Step 2: mma and 3xTF32").
        // tf32 accumulates in the tensor cores, as cuBLAS TF32 does, and long K is split (kernels/launch.cu).
        float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        mma16x8x8(part, aSmall, bBig[j]);
        mma16x8x8(part, aBig, bSmall[j]);
        mma16x8x8(part, aBig, bBig[j]);
#pragma unroll
        for (int q = 0; q < 4; ++q) acc[i][j][q] += part[q];
      } else {
        mma16x8x8(acc[i][j], aBig, bBig[j]);
      }
    }
  }
}

// Writes this thread's finite accumulators to C through the epilogue; returns those that were not (NonFinite, in
// recomputeNonFinite's order: rows rowBase + g + 8r, r = 2i + half; columns colBase + 2t + 8j + q).
template <class Cfg, bool VECTOR>
__device__ __forceinline__ NonFinite storeTile(const float (&acc)[Cfg::kFragsM][Cfg::kFragsN][4], float* C, int64_t M,
                                               int64_t N, int64_t ldc, int64_t rowBase, int64_t colBase, int g, int t,
                                               const Epilogue& epilogue) {
  NonFinite nonFinite;
#pragma unroll
  for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int64_t row = rowBase + i * 16 + half * 8 + g;
      if (row >= M) continue;
      float* cRow = C + row * ldc;
      storeRowPairs<Cfg::kFragsN, true>(
          cRow, N, VECTOR, epilogue, [&](int j) { return colBase + j * 8 + 2 * t; },
          [&](int j, int q) { return acc[i][j][2 * half + q]; },
          [&](int j, uint32_t bits) { nonFinite.note(2 * Cfg::kFragsN * (2 * i + half) + 2 * j, bits); });
    }
  return nonFinite;
}

template <class Cfg, int PASSES, bool VECTOR, bool A_TRANSPOSED, bool B_TRANSPOSED>
__global__ void __launch_bounds__(Cfg::kThreads)
    mmaGemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int64_t M, int64_t K,
            int64_t N, int64_t lda, int64_t ldb, int64_t ldc, int64_t sliceDepth, int64_t sliceStride,
            const uint32_t* __restrict__ aClasses, const uint32_t* __restrict__ bClasses, Epilogue epilogue) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using L = SharedLayout<Cfg, A_TRANSPOSED, B_TRANSPOSED>;
  takeKSlice(blockIdx.z, sliceDepth, sliceStride, A_TRANSPOSED, lda, B_TRANSPOSED, ldb, A, B, C, K);
  extern __shared__ float4 sharedWords[];  // float4: 16-byte aligned for cp.async
  float* const shared = reinterpret_cast<float*>(sharedWords);
  const int64_t blockRow = static_cast<int64_t>(blockIdx.y) * Cfg::BM, blockCol = static_cast<int64_t>(blockIdx.x) * Cfg::BN;
  const int kTiles = static_cast<int>((K + Cfg::BK - 1) / Cfg::BK);

  auto stageA = [&](int stage) { return shared + stage * L::kStageFloats; };
  auto stageB = [&](int stage) { return shared + stage * L::kStageFloats + L::kFloatsA; };
  auto startLoading = [&](int kTile) {
    const int64_t k0 = static_cast<int64_t>(kTile) * Cfg::BK;
    const int stage = kTile % Cfg::STAGES;
    const float* const aTile = elementAt(A, lda, blockRow, k0, A_TRANSPOSED);
    const float* const bTile = elementAt(B, ldb, k0, blockCol, B_TRANSPOSED);
    if constexpr (A_TRANSPOSED)
      loadTile<Cfg::BK, Cfg::BM, L::kStrideA, Cfg::kThreads, VECTOR>(stageA(stage), aTile, lda, K - k0, M - blockRow, A);
    else
      loadTile<Cfg::BM, Cfg::BK, L::kStrideA, Cfg::kThreads, VECTOR>(stageA(stage), aTile, lda, M - blockRow, K - k0, A);
    if constexpr (B_TRANSPOSED)
      loadTile<Cfg::BN, Cfg::BK, L::kStrideB, Cfg::kThreads, VECTOR>(stageB(stage), bTile, ldb, N - blockCol, K - k0, B);
    else
      loadTile<Cfg::BK, Cfg::BN, L::kStrideB, Cfg::kThreads, VECTOR>(stageB(stage), bTile, ldb, K - k0, N - blockCol, B);
  };

  // Fill all stages but one; each iteration then waits for the oldest, refills the one freed last.
#pragma unroll
  for (int s = 0; s < Cfg::STAGES - 1; ++s) {
    if (s < kTiles) startLoading(s);
    commitCopies();  // empty groups too, so the wait counts below stay exact
  }

  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int g = lane / 4, t = lane % 4;
  const int warpRow = (warp / Cfg::kWarpsN) * Cfg::kWarpM, warpCol = (warp % Cfg::kWarpsN) * Cfg::kWarpN;
  float acc[Cfg::kFragsM][Cfg::kFragsN][4] = {};

  for (int kTile = 0; kTile < kTiles; ++kTile) {
    waitForCopies<Cfg::STAGES - 2>();  // this tile has landed (for this thread) ...
    __syncthreads();                   // ... for every thread, and everyone is done with the previous stage
    if (kTile + Cfg::STAGES - 1 < kTiles) startLoading(kTile + Cfg::STAGES - 1);
    commitCopies();
#pragma unroll
    for (int kk = 0; kk < Cfg::BK; kk += 8)
      multiplySlice<Cfg, L, PASSES>(acc, stageA(kTile % Cfg::STAGES), stageB(kTile % Cfg::STAGES), warpRow, warpCol, kk, g, t);
  }
  waitForCopies<0>();

  const int64_t rowBase = blockRow + warpRow, colBase = blockCol + warpCol;
  const bool every = splitLosesProducts(aClasses, bClasses);
  const NonFinite nonFinite =
      every ? NonFinite::every() : storeTile<Cfg, VECTOR>(acc, C, M, N, ldc, rowBase, colBase, g, t, epilogue);
  if (nonFinite.any())
    recomputeNonFinite(C, ldc, A, lda, B, ldb, M, N, K, rowBase + g, 2 * Cfg::kFragsM, colBase + 2 * t, Cfg::kFragsN,
                       nonFinite, epilogue, false, B_TRANSPOSED, A_TRANSPOSED);
#endif
}

template <class Cfg, int PASSES, bool VECTOR, bool A_TRANSPOSED, bool B_TRANSPOSED>
void launchVariant(const GemmOperands& o, cudaStream_t stream) {
  const auto kernel = mmaGemm<Cfg, PASSES, VECTOR, A_TRANSPOSED, B_TRANSPOSED>;
  constexpr int kSharedBytes = SharedLayout<Cfg, A_TRANSPOSED, B_TRANSPOSED>::kSharedBytes;
  static SharedMemoryOptIn optIn;
  optIn.ensure(kernel, kSharedBytes, "cudaFuncSetAttribute(mma shared memory)");
  const dim3 grid(static_cast<unsigned>((o.n + Cfg::BN - 1) / Cfg::BN), static_cast<unsigned>((o.m + Cfg::BM - 1) / Cfg::BM),
                  static_cast<unsigned>(o.slices));
  kernel<<<grid, Cfg::kThreads, kSharedBytes, stream>>>(o.a, o.b, o.c, o.m, o.k, o.n, o.lda, o.ldb, o.ldc, o.sliceDepth,
                                                        o.sliceStride, o.aClasses, o.bClasses, o.epilogue);
}

// 16-byte copies where every row of A, B and C starts 16-byte aligned, as on the device they always do (Matrices'
// and the host arrays' device copies have padded rows: kernel.h, paddedPitch); 4-byte copies for row-major operands
// otherwise (the inline route reads host memory as it is). Operands held transposed come only aligned: they take
// the 16-byte copies alone, so that each precision and tile builds 5 kernels, not 8.
template <class Cfg, int PASSES>
void launchLayouts(const GemmOperands& o, bool vector, cudaStream_t stream) {
  if (!o.transA && !o.transB)
    return vector ? launchVariant<Cfg, PASSES, true, false, false>(o, stream) : launchVariant<Cfg, PASSES, false, false, false>(o, stream);
  if (!vector) throw MatmulError(ErrorKind::Failure, "internal error: mma given an operand held transposed with rows not 16-byte aligned");
  if (o.transA)
    return o.transB ? launchVariant<Cfg, PASSES, true, true, true>(o, stream) : launchVariant<Cfg, PASSES, true, true, false>(o, stream);
  return launchVariant<Cfg, PASSES, true, false, true>(o, stream);
}

template <class Cfg>
void launchMma(const GemmOperands& o, Precision precision, cudaStream_t stream) {
  const bool vector = rowsAligned16(o.a, o.lda) && rowsAligned16(o.b, o.ldb) && rowsAligned16(o.c, o.ldc);
  if (precisionRow(precision).tf32Parts)
    launchLayouts<Cfg, 3>(o, vector, stream);
  else
    launchLayouts<Cfg, 1>(o, vector, stream);
}

// 4 warps a block, 16-deep k slices, 4 stages: at most 76 KB of shared memory, under every sm_80+ limit.
using Mma128x128 = MmaConfig<128, 128, 16, 2, 2, 4>;
using Mma128x64 = MmaConfig<128, 64, 16, 2, 2, 4>;
using Mma64x128 = MmaConfig<64, 128, 16, 2, 2, 4>;
using Mma64x64 = MmaConfig<64, 64, 16, 2, 2, 4>;

template <class Cfg>
constexpr KernelVariant variant(const char* name) {
  return {name, launchMma<Cfg>, {Cfg::BM, Cfg::BN}, false};
}
constexpr KernelVariant kMmaVariants[] = {variant<Mma128x128>("mma 128x128"), variant<Mma128x64>("mma 128x64"),
                                       variant<Mma64x128>("mma 64x128"), variant<Mma64x64>("mma 64x64")};

}  // namespace

KernelVariants mmaVariants(Precision) { return kMmaVariants; }

}  // namespace cuda_matmul
