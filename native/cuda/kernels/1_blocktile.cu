// Step 1 of the kernel progression: register blocking ("2-D block tiling", siboehm's SGEMM kernels 5–6).
// Improves on Muld (0_muld.cu), whose every FMA needs two shared-memory loads, so shared-memory bandwidth caps
// it near 8 TFLOP/s on an H100:
//   - a 256-thread block computes a 128×128 tile of C; each thread an 8×8 sub-tile held in 64 registers,
//     so per k each thread loads 8 + 8 values from shared memory for 64 FMAs (4 FMAs per load, not 0.5);
//   - A's tile is stored transposed in shared memory (As[k][m]) so both operands are read as float4;
//   - global loads are float4 where the row length allows (K or N a multiple of 4), scalar and
//     bounds-checked otherwise, so any shape works; edge tiles read zeros and skip out-of-range stores;
//   - A and B are read as stored, row-major or held transposed (Aᵀ k×m, Bᵀ n×k: A_TRANSPOSED, B_TRANSPOSED), each
//     float4 along the stored rows: Aᵀ's k-rows go into As as they are, Bᵀ's are transposed into Bs as A's are.
//   - C = α·A·B + β·C as the tile is stored (gemm's α and β), not in a pass of its own over C.
// Measured on an H100 (docs/kernels.md, "Step 1: blocktile"): 30.1 TFLOP/s at 4096³ against Muld's 8.2 and cuBLAS's 51.4.
#include <cuda_runtime.h>

#include "cuda/kernels/kernel.h"
#include "cuda/kernels/helpers.cuh"
#include "cuda/kernels/registry.h"

namespace cuda_matmul {
namespace {

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int THREADS = (BM / TM) * (BN / TN);  // 256
static_assert(BM * BK == THREADS * 4 && BN * BK == THREADS * 4, "each thread loads one float4 of A and of B");

__device__ __forceinline__ float4 loadFour(const float* row, int64_t col, int64_t cols, bool vectorOk) {
  if (vectorOk && col + 3 < cols) return *reinterpret_cast<const float4*>(row + col);
  float4 v;
  v.x = col < cols ? row[col] : 0.0f;
  v.y = col + 1 < cols ? row[col + 1] : 0.0f;
  v.z = col + 2 < cols ? row[col + 2] : 0.0f;
  v.w = col + 3 < cols ? row[col + 3] : 0.0f;
  return v;
}

// v's four values down column `col` of a shared tile from row `row`: a float4 read along a stored row, transposed.
template <int COLS>
__device__ __forceinline__ void storeDown(float (*tile)[COLS], int row, int col, float4 v) {
  tile[row][col] = v.x;
  tile[row + 1][col] = v.y;
  tile[row + 2][col] = v.z;
  tile[row + 3][col] = v.w;
}

template <bool A_TRANSPOSED, bool B_TRANSPOSED>
__global__ void __launch_bounds__(THREADS)
    blockTile(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int64_t M, int64_t K,
              int64_t N, int64_t lda, int64_t ldb, int64_t ldc, bool vectorA, bool vectorB, bool vectorC,
              int64_t sliceDepth, int64_t sliceStride, Epilogue epilogue) {
  takeKSlice(blockIdx.z, sliceDepth, sliceStride, A_TRANSPOSED, lda, B_TRANSPOSED, ldb, A, B, C, K);
  __shared__ float As[BK][BM + 4];  // transposed; +4 keeps float4 alignment and spreads the transposing stores
  __shared__ float Bs[BK][BN];

  const int tid = threadIdx.x;
  const int64_t blockRow = static_cast<int64_t>(blockIdx.y) * BM;
  const int64_t blockCol = static_cast<int64_t>(blockIdx.x) * BN;
  const int threadRow = tid / (BN / TN), threadCol = tid % (BN / TN);

  // Which float4 of the A and B tiles this thread loads: row-major, a row of A (aRow) at k aCol…aCol + 3 and a k-row
  // of B (bRow) at bCol…bCol + 3; held transposed, Aᵀ's k-row aCol' at aRow'…aRow' + 3 (the roles below swap) and
  // Bᵀ's row bRow' at k bCol'…bCol' + 3.
  const int aRow = A_TRANSPOSED ? tid / (BM / 4) : tid / (BK / 4), aCol = A_TRANSPOSED ? (tid % (BM / 4)) * 4 : (tid % (BK / 4)) * 4;
  const int bRow = B_TRANSPOSED ? tid / (BK / 4) : tid / (BN / 4), bCol = B_TRANSPOSED ? (tid % (BK / 4)) * 4 : (tid % (BN / 4)) * 4;

  float acc[TM][TN] = {};
  float regM[TM], regN[TN];

  for (int64_t k0 = 0; k0 < K; k0 += BK) {
    if constexpr (A_TRANSPOSED) {  // aRow: k of the tile, aCol: its row
      const int64_t ga = k0 + aRow;
      *reinterpret_cast<float4*>(&As[aRow][aCol]) = ga < K ? loadFour(A + ga * lda, blockRow + aCol, M, vectorA) : make_float4(0, 0, 0, 0);
    } else {
      const int64_t ga = blockRow + aRow;
      storeDown(As, aCol, aRow, ga < M ? loadFour(A + ga * lda, k0 + aCol, K, vectorA) : make_float4(0, 0, 0, 0));
    }
    if constexpr (B_TRANSPOSED) {  // bRow: column of the tile, bCol: its k
      const int64_t gb = blockCol + bRow;
      storeDown(Bs, bCol, bRow, gb < N ? loadFour(B + gb * ldb, k0 + bCol, K, vectorB) : make_float4(0, 0, 0, 0));
    } else {
      const int64_t gb = k0 + bRow;
      *reinterpret_cast<float4*>(&Bs[bRow][bCol]) = gb < K ? loadFour(B + gb * ldb, blockCol + bCol, N, vectorB) : make_float4(0, 0, 0, 0);
    }
    __syncthreads();

#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; i += 4)
        *reinterpret_cast<float4*>(&regM[i]) = *reinterpret_cast<const float4*>(&As[k][threadRow * TM + i]);
#pragma unroll
      for (int j = 0; j < TN; j += 4)
        *reinterpret_cast<float4*>(&regN[j]) = *reinterpret_cast<const float4*>(&Bs[k][threadCol * TN + j]);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += regM[i] * regN[j];
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int64_t row = blockRow + threadRow * TM + i;
    if (row >= M) break;
    float* cRow = C + row * ldc;
    const int64_t col0 = blockCol + threadCol * TN;
    float old[TN];  // C's values the epilogue reads, loaded together before the row's stores (storeRowPairs)
#pragma unroll
    for (int j = 0; j < TN; ++j) old[j] = oldOfC(epilogue, cRow + col0 + j, col0 + j < N);
#pragma unroll
    for (int j = 0; j < TN; j += 4) {
      const int64_t col = col0 + j;
      float out[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) out[q] = scaledSum(epilogue, acc[i][j + q], old[j + q]);
      if (vectorC && col + 3 < N) {
        *reinterpret_cast<float4*>(cRow + col) = make_float4(out[0], out[1], out[2], out[3]);
      } else {
        for (int q = 0; q < 4; ++q)
          if (col + q < N) cRow[col + q] = out[q];
      }
    }
  }
}

// FFMA only: a 'tf32' request is computed in fp32.
void launchBlockTile(const GemmOperands& o, Precision, cudaStream_t stream) {
  // float4 global loads and stores need every row 16-byte aligned: the base pointer and the row pitch decide.
  const bool vectorA = rowsAligned16(o.a, o.lda), vectorB = rowsAligned16(o.b, o.ldb), vectorC = rowsAligned16(o.c, o.ldc);
  const dim3 grid(static_cast<unsigned>((o.n + BN - 1) / BN), static_cast<unsigned>((o.m + BM - 1) / BM),
                  static_cast<unsigned>(o.slices));
  const auto kernel = o.transA ? (o.transB ? blockTile<true, true> : blockTile<true, false>)
                               : (o.transB ? blockTile<false, true> : blockTile<false, false>);
  kernel<<<grid, THREADS, 0, stream>>>(o.a, o.b, o.c, o.m, o.k, o.n, o.lda, o.ldb, o.ldc, vectorA, vectorB, vectorC,
                                       o.sliceDepth, o.sliceStride, o.epilogue);
}

constexpr KernelVariant kBlockTileVariants[] = {{"blocktile", launchBlockTile, {BM, BN}, false}};

}  // namespace

KernelVariants blockTileVariants(Precision) { return kBlockTileVariants; }

}  // namespace cuda_matmul
