// Strided batches of small products on the device (beside the progression, as grouped_muld.cu is): product i of a
// Matrix batch reads its A, B and C a fixed stride after product i − 1's, so a block finds its product and tile by
// division, with no table to build and copy up per call (grouped Muld's, for products gathered from host arrays,
// of any shapes). The arithmetic is Muld's (0_muld.cu): one fp32 running sum per element, in order of k, the same
// bits as grouped Muld gives the same product. Products of at most 16 rows and columns go 8 to a block of 16×16
// threads, a thread an element of each, all 8 products' loads in flight at once; larger ones get 64×64 tiles, each
// thread 4×4 elements held in registers, 16 rows and columns apart (so that the shared-memory reads are broadcasts
// and consecutive), which load each element of A's and B's tiles from shared memory once per 4 FMAs instead of
// once per FMA, in stages of 32 k (two per 64³ product), registers held to 80 so that three blocks share an SM.
// Measured on an H100, 20 000 products a call on Matrices (bench/NOTES.md, "Strided batches: stages and
// occupancy"): 16³ 203 000 000 products/s, 64³ 34 000 000/s (17.8 TFLOP/s), against torch.bmm on device tensors'
// 272 000 000 and 46 000 000 in the same run; with a product a block at 16³, and stages of 16 k with two blocks an
// SM at 64³, 100 000 000 and 29 200 000 (bmm 241 000 000 and 45 900 000 in that run); grouped Muld over a table
// copied up per call 35 700 000 and 8 200 000. A 64³ batch moves 983 MB, so bmm reads and writes at 2.3 TB/s and
// this kernel at 1.6.
#include <cuda_runtime.h>

#include <climits>

#include "core/errors.h"
#include "cuda/kernels/kernel.h"

namespace cuda_matmul {
namespace {

constexpr int kThreadsPerSide = 16;  // a block is 16×16 threads
constexpr int kThreads = kThreadsPerSide * kThreadsPerSide;

constexpr int kPer = 4;         // elements per thread along each side of a tile
constexpr int kTile = kThreadsPerSide * kPer;
constexpr int kTileDepth = 32;  // k per shared-memory stage
constexpr int kTileBlocksPerSm = 3;  // the occupancy the registers are held to (80 of them)

__global__ void __launch_bounds__(kThreads, kTileBlocksPerSm) batchedTiles(StridedBatch p, int64_t tileCols,
                                                                          int64_t tilesPerProduct) {
  constexpr int kDepth = kTileDepth;
  __shared__ float As[kDepth][kTile + 1];  // transposed, As[k][row]; + 1: a warp's stores down its columns spread
  __shared__ float Bs[kDepth][kTile];
  const int64_t product = blockIdx.x / tilesPerProduct, tile = blockIdx.x % tilesPerProduct;
  const float* const A = p.a + product * p.strideA;
  const float* const B = p.b + product * p.strideB;
  float* const C = p.c + product * p.strideC;
  const int64_t row0 = tile / tileCols * kTile, col0 = tile % tileCols * kTile;
  const int tx = threadIdx.x, ty = threadIdx.y, thread = ty * kThreadsPerSide + tx;
  // Each thread loads kLoads elements of each tile (kTile·kDepth of them, 256 threads): of A's (row by row, kDepth
  // consecutive k) rows aRow + (256 / kDepth)·l at k aK, of B's (row by row, kTile consecutive columns) k
  // bK + (256 / kTile)·l at column bCol.
  constexpr int kLoads = kTile * kDepth / kThreads;
  constexpr int kARowsPerLoad = kThreads / kDepth, kBRowsPerLoad = kThreads / kTile;
  const int aRow = thread / kDepth, aK = thread % kDepth, bK = thread / kTile, bCol = thread % kTile;
  const float* const aAt = A + (row0 + aRow) * p.lda + aK;
  const float* const bAt = B + bK * p.ldb + col0 + bCol;
  float acc[kPer][kPer] = {};
  for (int64_t k0 = 0; k0 < p.k; k0 += kDepth) {
#pragma unroll
    for (int l = 0; l < kLoads; ++l) {
      const bool aInside = row0 + aRow + kARowsPerLoad * l < p.m && k0 + aK < p.k;
      const bool bInside = k0 + bK + kBRowsPerLoad * l < p.k && col0 + bCol < p.n;
      As[aK][aRow + kARowsPerLoad * l] = aInside ? aAt[(kARowsPerLoad * l) * p.lda + k0] : 0.0f;
      Bs[bK + kBRowsPerLoad * l][bCol] = bInside ? bAt[(k0 + kBRowsPerLoad * l) * p.ldb] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kDepth; ++k) {
      float a[kPer], b[kPer];
#pragma unroll
      for (int i = 0; i < kPer; ++i) a[i] = As[k][ty + kThreadsPerSide * i], b[i] = Bs[k][tx + kThreadsPerSide * i];
#pragma unroll
      for (int i = 0; i < kPer; ++i)
#pragma unroll
        for (int j = 0; j < kPer; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kPer; ++i)
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const int64_t row = row0 + ty + kThreadsPerSide * i, col = col0 + tx + kThreadsPerSide * j;
      if (row < p.m && col < p.n) C[row * p.ldc + col] = acc[i][j];
    }
}

// Products of at most 16 rows and columns, GROUP of them a block: each thread loads its element of each product's
// A and B tiles (all of them in flight at once, where a block of one product had two), then computes its element
// of each: one running sum per element in order of k, zeros past k.
template <int GROUP>
__global__ void __launch_bounds__(kThreads) batchedSmallProducts(StridedBatch p) {
  constexpr int kSide = kThreadsPerSide, kDepth = kThreadsPerSide;
  __shared__ float As[GROUP][kDepth][kSide + 1];  // transposed, as batchedTiles keeps A
  __shared__ float Bs[GROUP][kDepth][kSide];
  const int tx = threadIdx.x, ty = threadIdx.y, thread = ty * kSide + tx;
  const int aRow = thread / kDepth, aK = thread % kDepth, bK = thread / kSide, bCol = thread % kSide;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * GROUP;
  float acc[GROUP] = {};
  for (int64_t k0 = 0; k0 < p.k; k0 += kDepth) {
#pragma unroll
    for (int g = 0; g < GROUP; ++g) {
      const int64_t product = first + g;
      const bool live = product < p.count;
      const bool aInside = live && aRow < p.m && k0 + aK < p.k, bInside = live && k0 + bK < p.k && bCol < p.n;
      As[g][aK][aRow] = aInside ? p.a[product * p.strideA + aRow * p.lda + k0 + aK] : 0.0f;
      Bs[g][bK][bCol] = bInside ? p.b[product * p.strideB + (k0 + bK) * p.ldb + bCol] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kDepth; ++k)
#pragma unroll
      for (int g = 0; g < GROUP; ++g) acc[g] = fmaf(As[g][k][ty], Bs[g][k][tx], acc[g]);
    __syncthreads();
  }
#pragma unroll
  for (int g = 0; g < GROUP; ++g)
    if (first + g < p.count && ty < p.m && tx < p.n) p.c[(first + g) * p.strideC + ty * p.ldc + tx] = acc[g];
}

void launchTiles(const StridedBatch& p, cudaStream_t stream) {
  const int64_t tileCols = (p.n + kTile - 1) / kTile, tilesPerProduct = (p.m + kTile - 1) / kTile * tileCols;
  const int64_t blocks = tilesPerProduct * p.count;
  if (blocks > INT_MAX) throw MatmulError(ErrorKind::Range, "batch: too many products for one launch");
  batchedTiles<<<static_cast<unsigned>(blocks), dim3(kThreadsPerSide, kThreadsPerSide), 0, stream>>>(p, tileCols,
                                                                                                  tilesPerProduct);
}

}  // namespace

void launchStridedBatch(const StridedBatch& p, cudaStream_t stream) {
  if (p.count == 0 || p.m == 0 || p.n == 0) return;
  if (p.m <= kThreadsPerSide && p.n <= kThreadsPerSide) {
    constexpr int kGroup = 8;
    const int64_t blocks = (p.count + kGroup - 1) / kGroup;
    if (blocks > INT_MAX) throw MatmulError(ErrorKind::Range, "batch: too many products for one launch");
    batchedSmallProducts<kGroup><<<static_cast<unsigned>(blocks), dim3(kThreadsPerSide, kThreadsPerSide), 0, stream>>>(p);
  } else {
    launchTiles(p, stream);
  }
}

}  // namespace cuda_matmul
