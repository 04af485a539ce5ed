// Strided batches of small products on the device (beside the progression, as grouped_muld.cu is): product i of a
// Matrix batch reads its A, B and C a fixed stride after product i − 1's, so a block finds its product and tile by
// division, with no table to build and copy up per call (grouped Muld's, for products gathered from host arrays,
// of any shapes). The arithmetic is Muld's (0_muld.cu): one fp32 running sum per element, in order of k, the same
// bits as grouped Muld gives the same product. Products of at most 16 rows and columns go 8 to a block of 16×16
// threads, a thread an element of each, all 8 products' loads in flight at once. Larger ones get tiles of 64×64
// (32×32 up to 32 rows and columns) on 64 threads, each thread's 8×8 (4×4) elements in registers, read from shared
// memory as float4 along A's columns and B's rows (4 loads per 64 FMAs), in stages of 16 k whose next one is loaded
// while this one multiplies. Measured on an H100, 20 000 products a call on Matrices, torch.bmm on device tensors
// in the same run (docs/batching.md, "Strided batches"): 64³ 50 000 000 products/s against
// bmm's 41 500 000 (each thread's 4×4 elements in stages of 32 k: 33 400 000), 32³ 159 000 000 against 160 000 000
// (64×64 tiles: 65 900 000), 16³ 62 µs a call after the call path's warm-up against bmm's 73–94 µs.
#include <cuda_runtime.h>

#include <climits>

#include "core/errors.h"
#include "cuda/kernels/kernel.h"

namespace cuda_matmul {
namespace {

constexpr int kThreadsPerSide = 16;  // batchedSmallProducts: a block of 16×16 threads, an element each
constexpr int kThreads = kThreadsPerSide * kThreadsPerSide;

// batchedTiles: TILE×TILE tiles of C (64, or 32 for products of at most 32 rows and columns) on blocks of 8×8
// threads, each thread (TILE / 8)² elements in quads of 4×4 (rows 4ty … 4ty + 3, then 32 further on; columns
// likewise by tx), so that each k step reads a float4 of A's column and one of B's row from shared memory per quad
// side, for 16 FMAs per quad; A and B come in stages of 16 k, the next stage's loads in flight (held in registers)
// while this one multiplies.
constexpr int kTileSide = 8;  // threads along each side
constexpr int kTileThreads = kTileSide * kTileSide;
constexpr int kQuadSide = 4 * kTileSide;  // the rows (columns) that one quad of each thread covers
constexpr int kStageDepth = 16;

template <int TILE>
struct TileShape {
  static constexpr int kQuads = TILE / kQuadSide;         // quads along each side of a thread's elements
  static constexpr int kPer = 4 * kQuads;                 // elements along each side of a thread's
  static constexpr int kAPitch = TILE + 4;                // As[k][row]: + 4 keeps float4 rows and spreads the
                                                          // transposed stores' banks
  static constexpr int kLoads = TILE * kStageDepth / 4 / kTileThreads;  // float4 of A's (and B's) a thread loads
  static constexpr int kBThreadsPerRow = TILE / 4;        // threads loading one k row of B's stage
  static constexpr int kBRowsPerLoad = kTileThreads / kBThreadsPerRow;
};

// Up to four consecutive floats from `from` (16-byte aligned), zero past `count` (≤ 0: all zero): one 16-byte
// load where all four are there.
__device__ __forceinline__ float4 loadFour(const float* from, int64_t count) {
  if (count >= 4) return *reinterpret_cast<const float4*>(from);
  return make_float4(count > 0 ? from[0] : 0.0f, count > 1 ? from[1] : 0.0f, count > 2 ? from[2] : 0.0f,
                     count > 3 ? from[3] : 0.0f);
}

// One stage's share of a thread: A's rows (t % 16) + 16·l at k (t / 16)·4 …, B's k rows
// t / kBThreadsPerRow + kBRowsPerLoad·l at columns (t % kBThreadsPerRow)·4 …, four floats each, zeros outside the
// product.
template <int TILE>
struct StageLoads {
  float4 a[TileShape<TILE>::kLoads], b[TileShape<TILE>::kLoads];
};

template <int TILE>
__device__ __forceinline__ void loadStage(StageLoads<TILE>& s, const StridedBatch& p, const float* A, const float* B,
                                          int64_t row0, int64_t col0, int64_t k0, int t) {
  using T = TileShape<TILE>;
#pragma unroll
  for (int l = 0; l < T::kLoads; ++l) {
    const int64_t row = row0 + t % 16 + 16 * l, ak = k0 + t / 16 * 4;
    s.a[l] = loadFour(A + row * p.lda + ak, row < p.m ? p.k - ak : 0);
    const int64_t bk = k0 + t / T::kBThreadsPerRow + T::kBRowsPerLoad * l, col = col0 + t % T::kBThreadsPerRow * 4;
    s.b[l] = loadFour(B + bk * p.ldb + col, bk < p.k ? p.n - col : 0);
  }
}

template <int TILE>
__device__ __forceinline__ void storeStage(const StageLoads<TILE>& s, float (*As)[TileShape<TILE>::kAPitch],
                                           float (*Bs)[TILE], int t) {
  using T = TileShape<TILE>;
#pragma unroll
  for (int l = 0; l < T::kLoads; ++l) {
    const int row = t % 16 + 16 * l, k = t / 16 * 4;
    As[k][row] = s.a[l].x, As[k + 1][row] = s.a[l].y, As[k + 2][row] = s.a[l].z, As[k + 3][row] = s.a[l].w;
    *reinterpret_cast<float4*>(&Bs[t / T::kBThreadsPerRow + T::kBRowsPerLoad * l][t % T::kBThreadsPerRow * 4]) = s.b[l];
  }
}

// Every row of A, B and C starts 16-byte aligned (kernel.h, StridedBatch).
template <int TILE>
__global__ void __launch_bounds__(kTileThreads) batchedTiles(StridedBatch p, int64_t tileCols, int64_t tilesPerProduct) {
  using T = TileShape<TILE>;
  __shared__ __align__(16) float As[2][kStageDepth][T::kAPitch];  // transposed, As[k][row]
  __shared__ __align__(16) float Bs[2][kStageDepth][TILE];
  const int64_t product = blockIdx.x / tilesPerProduct, tile = blockIdx.x % tilesPerProduct;
  const float* const A = p.a + product * p.strideA;
  const float* const B = p.b + product * p.strideB;
  float* const C = p.c + product * p.strideC;
  const int64_t row0 = tile / tileCols * TILE, col0 = tile % tileCols * TILE;
  const int t = threadIdx.x, tx = t % kTileSide, ty = t / kTileSide;
  float acc[T::kPer][T::kPer] = {};
  StageLoads<TILE> next;
  loadStage<TILE>(next, p, A, B, row0, col0, 0, t);
  storeStage<TILE>(next, As[0], Bs[0], t);
  __syncthreads();
  for (int64_t k0 = 0, stage = 0; k0 < p.k; k0 += kStageDepth, stage ^= 1) {
    const bool more = k0 + kStageDepth < p.k;
    if (more) loadStage<TILE>(next, p, A, B, row0, col0, k0 + kStageDepth, t);
#pragma unroll
    for (int k = 0; k < kStageDepth; ++k) {
      float a[T::kPer], b[T::kPer];
#pragma unroll
      for (int q = 0; q < T::kQuads; ++q) {
        const float4 aq = *reinterpret_cast<const float4*>(&As[stage][k][q * kQuadSide + 4 * ty]);
        const float4 bq = *reinterpret_cast<const float4*>(&Bs[stage][k][q * kQuadSide + 4 * tx]);
        a[4 * q] = aq.x, a[4 * q + 1] = aq.y, a[4 * q + 2] = aq.z, a[4 * q + 3] = aq.w;
        b[4 * q] = bq.x, b[4 * q + 1] = bq.y, b[4 * q + 2] = bq.z, b[4 * q + 3] = bq.w;
      }
#pragma unroll
      for (int i = 0; i < T::kPer; ++i)
#pragma unroll
        for (int j = 0; j < T::kPer; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (more) storeStage<TILE>(next, As[stage ^ 1], Bs[stage ^ 1], t);  // the other buffer: last read a stage ago
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < T::kPer; ++i) {
    const int64_t row = row0 + i / 4 * kQuadSide + 4 * ty + i % 4;
    if (row >= p.m) continue;
#pragma unroll
    for (int q = 0; q < T::kQuads; ++q) {
      const int64_t col = col0 + q * kQuadSide + 4 * tx;
      float* const out = C + row * p.ldc + col;
      const float* const v = &acc[i][4 * q];
      if (col + 4 <= p.n) {
        *reinterpret_cast<float4*>(out) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (col + j < p.n) out[j] = v[j];
      }
    }
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

template <int TILE>
void launchTiles(const StridedBatch& p, cudaStream_t stream) {
  const int64_t tileCols = (p.n + TILE - 1) / TILE, tilesPerProduct = (p.m + TILE - 1) / TILE * tileCols;
  const int64_t blocks = tilesPerProduct * p.count;
  if (blocks > INT_MAX) throw MatmulError(ErrorKind::Range, "batch: too many products for one launch");
  const bool aligned = rowsAligned16(p.a, p.lda) && rowsAligned16(p.b, p.ldb) && rowsAligned16(p.c, p.ldc) &&
                       p.strideA % 4 == 0 && p.strideB % 4 == 0 && p.strideC % 4 == 0;
  if (!aligned) throw MatmulError(ErrorKind::Failure, "batch: rows not 16-byte aligned");
  batchedTiles<TILE><<<static_cast<unsigned>(blocks), kTileThreads, 0, stream>>>(p, tileCols, tilesPerProduct);
}

}  // namespace

void launchStridedBatch(const StridedBatch& p, cudaStream_t stream) {
  if (p.count == 0 || p.m == 0 || p.n == 0) return;
  if (p.m <= kThreadsPerSide && p.n <= kThreadsPerSide) {
    constexpr int kGroup = 8;
    const int64_t blocks = (p.count + kGroup - 1) / kGroup;
    if (blocks > INT_MAX) throw MatmulError(ErrorKind::Range, "batch: too many products for one launch");
    batchedSmallProducts<kGroup><<<static_cast<unsigned>(blocks), dim3(kThreadsPerSide, kThreadsPerSide), 0, stream>>>(p);
  } else if (p.m <= kQuadSide && p.n <= kQuadSide) {
    launchTiles<kQuadSide>(p, stream);
  } else {
    launchTiles<2 * kQuadSide>(p, stream);
  }
}

}  // namespace cuda_matmul
