// Step 6 of the kernel progression: products with few rows or few columns (GEMV and its neighbours, m or n ≤ 16),
// with A and B read as they are stored, in either layout. Improves on the tile kernels (steps 1–5), whose tiles of
// 64–256 rows spend most of their work on rows that are not there when C has one, and which read a transposed
// operand only after a pass that writes its transpose: scoring one query against a 1 000 000 × 768 corpus kept as
// a Matrix (C = q·corpusᵀ) made a 3 GB copy of the corpus and ran 7.4 ms where the corpus reads in 0.92.
// Such a product is bound by reading its large operand once, so:
//   - the small side (the few rows of A, or for few columns the few columns of B) is R, r ≤ 16 rows of k; the
//     large side is W (k × w); the output O = R·W is C, or for few columns Cᵀ (Cᵀ = Bᵀ·Aᵀ), written transposed;
//   - a 256-thread block owns 256 columns of W, a thread each, with that column's r sums in registers: each
//     element of W is read once, from DRAM, and used for r FMAs;
//   - W's tile of 32 k goes through shared memory, double-buffered and loaded a stage ahead into registers, in
//     the layout W is stored in: k-rows (B as stored, k×n) or, where W's columns are contiguous (a transposed B,
//     a corpus read as Bᵀ, or A for few columns), columns of 32 k that each thread reads 16 bytes at a time;
//   - R's 32 k × r go beside it, read by every thread at once (a broadcast);
//   - every sum is fp32 FMAs in order of k, one per element (as an SGEMV), so a 'tf32' request gets fp32; the
//     plan splits a long K into slices summed in float64 (registry.h) and a K too long for the few blocks of a
//     narrow W into slices that fill the SMs;
//   - at most 3 rows against a column-contiguous W (a query against a corpus held as rows, C = q·corpusᵀ) take a
//     warp per column of W instead (columnDots): no shared memory, 4 KB of the column in flight per warp, each
//     lane's sum in order of k and the lanes' added in a fixed tree; up to 16 rows where the caller asks for each
//     row summed alike however many there are (kernel.h, GemmOperands::sameSumsPerRow: a search's queries get the
//     same bits however many are together);
//   - α and β are applied as each element of O is stored (kernel.h, Epilogue).
// Predicted: at the DRAM rate, q·corpusᵀ for 1M × 768 reads 3.07 GB, 0.92 ms at 3.35 TB/s; r ≤ 16 FMAs per
// element read keeps the FMA pipes under half busy. Measured on an H100 (docs/kernels.md, "Step 6: few rows"; cuBLAS SGEMM in the same run): 1×768×1000000 0.996 ms, 3.08 TB/s (1.018); with the corpus
// held as Bᵀ 0.961 by a warp per column (cuBLAS with Bᵀ given 0.994; 1.077 tiled); 8×768×1000000 1.019 (1.169);
// 16×768×1000000 1.203 (1.238), where 16 FMAs and R's shared-memory reads per element hold it under the memory
// rate. Errors 1e-7 to 5e-7, as SGEMM's.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/kernels/helpers.cuh"
#include "cuda/kernels/kernel.h"
#include "cuda/kernels/registry.h"

namespace cuda_matmul {
namespace few_rows {  // named, so that bench/kernels.cu can include this file beside the others
namespace {

constexpr int kThreads = 256;            // a thread per column of W
constexpr int kColumns = kThreads;       // W's columns per block
constexpr int kDepth = 32;               // k per stage
constexpr int kColumnPitch = kDepth + 4;  // a column-contiguous tile: +4 floats keeps 16-byte reads conflict-free
constexpr int kLoads = kDepth * kColumns / 4 / kThreads;  // float4 loads of W per thread per stage

// O (r×w) = R (r×k) · W (k×w), each addressed by strides, so one kernel serves every layout of A, B and C.
struct Problem {
  const float* r;
  int64_t rRowStride, rDepthStride;  // R(i, p) = r[i·rRowStride + p·rDepthStride]
  const float* w;
  int64_t ldw;  // W(p, j) = w[p·ldw + j], or for a column-contiguous W w[j·ldw + p]
  float* o;
  int64_t oRowStride, oColStride;  // O(i, j) = o[i·oRowStride + j·oColStride]
  Epilogue epilogue;               // O = α·R·W + β·O (kernel.h)
  int64_t rows, k, cols;
  int64_t sliceDepth, sliceStride;  // split K (kernel.h, GemmOperands): slice y of the grid, into o + y·sliceStride
  bool vectorW;                     // W's rows (or columns) start 16-byte aligned: float4 loads
  bool vectorR;                     // R's rows lie along k from 16-byte boundaries: float4 loads
};

// This block's slice of K (grid row y; the whole of K unsplit): where its R, W and O start, and its depth.
struct Slice {
  const float* r;
  const float* w;
  float* o;
  int64_t depth;
};
template <bool W_COLUMNS>
__device__ __forceinline__ Slice sliceOf(const Problem& p) {
  if (p.sliceDepth == 0) return {p.r, p.w, p.o, p.k};
  const int64_t begin = blockIdx.y * p.sliceDepth;
  return {p.r + begin * p.rDepthStride, p.w + (W_COLUMNS ? begin : begin * p.ldw), p.o + blockIdx.y * p.sliceStride,
          p.k - begin < p.sliceDepth ? p.k - begin : p.sliceDepth};
}

// Where this thread's loads of W lie: its l-th float4 of stage s is at first + s·stageStep + l·loadStep, k `along`
// + l·alongStep into the slice and column `across` + l·acrossStep of the block's. A column-contiguous W is read
// as 8 float4 along k of each column (8 threads to a column's 128 bytes), a k-rows W as float4 along its rows.
template <bool W_COLUMNS>
struct StageLoads {
  const float* first;
  int64_t stageStep, loadStep;
  int along, across;
  static constexpr int alongStep = W_COLUMNS ? 0 : kThreads / (kColumns / 4);
  static constexpr int acrossStep = W_COLUMNS ? kThreads / (kDepth / 4) : 0;

  __device__ StageLoads(const Problem& p, const float* w, int64_t col0) {
    along = W_COLUMNS ? (threadIdx.x % (kDepth / 4)) * 4 : threadIdx.x / (kColumns / 4);
    across = W_COLUMNS ? threadIdx.x / (kDepth / 4) : (threadIdx.x % (kColumns / 4)) * 4;
    first = W_COLUMNS ? w + (col0 + across) * p.ldw + along : w + along * p.ldw + col0 + across;
    stageStep = W_COLUMNS ? kDepth : kDepth * p.ldw;
    loadStep = W_COLUMNS ? acrossStep * p.ldw : alongStep * p.ldw;
  }
};

// This thread's share of stage s of W (`depth` deep in all) into registers: float4 loads where the whole stage
// lies inside W, else element by element with zeros outside.
template <bool W_COLUMNS>
__device__ __forceinline__ void loadStage(float4 (&next)[kLoads], const Problem& p, const StageLoads<W_COLUMNS>& at,
                                          int64_t col0, int s, int64_t depth) {
  const float* const stage = at.first + s * at.stageStep;
  const int64_t p0 = int64_t{s} * kDepth;
  if (p.vectorW && col0 + kColumns <= p.cols && p0 + kDepth <= depth) {
#pragma unroll
    for (int l = 0; l < kLoads; ++l) next[l] = *reinterpret_cast<const float4*>(stage + l * at.loadStep);
    return;
  }
#pragma unroll
  for (int l = 0; l < kLoads; ++l) {
    const int64_t k = p0 + at.along + l * at.alongStep, j = col0 + at.across + l * at.acrossStep;
    const float* const x = stage + l * at.loadStep;
    float v[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const bool inside = W_COLUMNS ? (j < p.cols && k + e < depth) : (k < depth && j + e < p.cols);
      v[e] = inside ? x[e] : 0.0f;
    }
    next[l] = make_float4(v[0], v[1], v[2], v[3]);
  }
}

template <bool W_COLUMNS>
__device__ __forceinline__ void storeStage(const float4 (&next)[kLoads], float* tile) {
#pragma unroll
  for (int l = 0; l < kLoads; ++l) {
    const int q = threadIdx.x + l * kThreads;
    const int offset = W_COLUMNS ? (q / (kDepth / 4)) * kColumnPitch + (q % (kDepth / 4)) * 4
                                 : (q / (kColumns / 4)) * kColumns + (q % (kColumns / 4)) * 4;
    *reinterpret_cast<float4*>(tile + offset) = next[l];
  }
}

// R's stage, Rs[p][i] (ROWS to a k, zeros past r and past K), a few elements per thread.
template <int ROWS>
__device__ __forceinline__ void loadRStage(float (&next)[(kDepth * ROWS + kThreads - 1) / kThreads], const Problem& p,
                                           const float* r, int64_t p0, int64_t depth) {
#pragma unroll
  for (int l = 0; l < (kDepth * ROWS + kThreads - 1) / kThreads; ++l) {
    const int e = threadIdx.x + l * kThreads, i = e % ROWS;
    const int64_t k = p0 + e / ROWS;
    next[l] = e < kDepth * ROWS && i < p.rows && k < depth ? r[i * p.rRowStride + k * p.rDepthStride] : 0.0f;
  }
}

template <int ROWS>
__device__ __forceinline__ void storeRStage(const float (&next)[(kDepth * ROWS + kThreads - 1) / kThreads], float* rs) {
#pragma unroll
  for (int l = 0; l < (kDepth * ROWS + kThreads - 1) / kThreads; ++l) {
    const int e = threadIdx.x + l * kThreads;
    if (e < kDepth * ROWS) rs[e] = next[l];
  }
}

// acc[i] += Σ over the stage's k, in order, of R(i, k)·W(k, this thread's column).
template <int ROWS, bool W_COLUMNS>
__device__ __forceinline__ void multiplyStage(float (&acc)[ROWS], const float* tile, const float* rs) {
  const float* const column = W_COLUMNS ? tile + threadIdx.x * kColumnPitch : tile + threadIdx.x;
#pragma unroll
  for (int k4 = 0; k4 < kDepth; k4 += 4) {
    float wv[4];
    if constexpr (W_COLUMNS) {
      const float4 v = *reinterpret_cast<const float4*>(column + k4);
      wv[0] = v.x, wv[1] = v.y, wv[2] = v.z, wv[3] = v.w;
    } else {
#pragma unroll
      for (int e = 0; e < 4; ++e) wv[e] = column[(k4 + e) * kColumns];
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float* const rk = rs + (k4 + e) * ROWS;
#pragma unroll
      for (int i = 0; i < ROWS; i += 4) {
        const float4 r4 = *reinterpret_cast<const float4*>(rk + i);
        acc[i] = fmaf(r4.x, wv[e], acc[i]);
        acc[i + 1] = fmaf(r4.y, wv[e], acc[i + 1]);
        acc[i + 2] = fmaf(r4.z, wv[e], acc[i + 2]);
        acc[i + 3] = fmaf(r4.w, wv[e], acc[i + 3]);
      }
    }
  }
}

template <int ROWS, bool W_COLUMNS>
constexpr int sharedBytes() {
  return 2 * (W_COLUMNS ? kColumns * kColumnPitch : kDepth * kColumns) * 4 + 2 * kDepth * ROWS * 4;
}

template <int ROWS, bool W_COLUMNS>
__global__ void __launch_bounds__(kThreads, 2) fewRows(Problem p) {
  static_assert(ROWS % 4 == 0, "R's rows are read four at a time");
  extern __shared__ float4 sharedFloat4[];
  constexpr int kTileFloats = W_COLUMNS ? kColumns * kColumnPitch : kDepth * kColumns;
  float* const tiles = reinterpret_cast<float*>(sharedFloat4);  // two stages of W, then two of R
  float* const rTiles = tiles + 2 * kTileFloats;

  const auto [r, w, o, depth] = sliceOf<W_COLUMNS>(p);
  const int64_t col0 = static_cast<int64_t>(blockIdx.x) * kColumns;
  const int stages = static_cast<int>((depth + kDepth - 1) / kDepth);
  const StageLoads<W_COLUMNS> loads(p, w, col0);

  float acc[ROWS];
#pragma unroll
  for (int i = 0; i < ROWS; ++i) acc[i] = 0.0f;
  float4 next[kLoads];
  float rNext[(kDepth * ROWS + kThreads - 1) / kThreads];
  if (stages > 0) {
    loadStage<W_COLUMNS>(next, p, loads, col0, 0, depth);
    loadRStage<ROWS>(rNext, p, r, 0, depth);
    storeStage<W_COLUMNS>(next, tiles);
    storeRStage<ROWS>(rNext, rTiles);
  }
  __syncthreads();
  for (int s = 0; s < stages; ++s) {
    const bool more = s + 1 < stages;
    if (more) {  // the next stage's loads are in flight while this one multiplies
      loadStage<W_COLUMNS>(next, p, loads, col0, s + 1, depth);
      loadRStage<ROWS>(rNext, p, r, int64_t{s + 1} * kDepth, depth);
    }
    multiplyStage<ROWS, W_COLUMNS>(acc, tiles + (s & 1) * kTileFloats, rTiles + (s & 1) * kDepth * ROWS);
    if (more) {  // the other buffers were last read before the previous barrier
      storeStage<W_COLUMNS>(next, tiles + ((s + 1) & 1) * kTileFloats);
      storeRStage<ROWS>(rNext, rTiles + ((s + 1) & 1) * kDepth * ROWS);
    }
    __syncthreads();
  }
  const int64_t j = col0 + threadIdx.x;
  if (j >= p.cols) return;
  float old[ROWS];  // C's values the epilogue reads, loaded together before the stores (helpers.cuh, storeRowPairs)
#pragma unroll
  for (int i = 0; i < ROWS; ++i) old[i] = oldOfC(p.epilogue, o + i * p.oRowStride + j * p.oColStride, i < p.rows);
#pragma unroll
  for (int i = 0; i < ROWS; ++i)
    if (i < p.rows) o[i * p.oRowStride + j * p.oColStride] = scaledSum(p.epilogue, acc[i], old[i]);
}

// At most 4 rows (16 where each row is summed alike: kernel.h, GemmOperands::sameSumsPerRow) against a W whose
// columns are contiguous (a corpus held as Bᵀ, or A for a matrix-vector product A·x): a warp per column of W, each lane reading kColumnChunks float4 along it before it multiplies (4 KB of the
// column in flight per warp), R's float4 at the same k from L1, then the lanes' sums added by shuffles. The tiled
// kernel above read such a W at 2.85 TB/s (1×768×1 000 000 with the corpus as Bᵀ: 1.077 ms against 1.000 with it
// as B); its columns through shared memory cost a stage's barrier and a padded tile each. Each lane sums its k in
// order and the 32 partial sums are added in a fixed tree: the same bits every call.
constexpr int kColumnChunks = 8;
constexpr int kChunkFloats = 32 * 4;  // a warp's float4s across a column
// Where it is faster than the tiled kernel: R's rows contiguous along k (float4 loads of R from L1; with R strided,
// as x of A·x held k×1, its scalar loads made 1 000 000×768×1 take 1.90 ms against the tiled kernel's 1.10), and at
// most 3 of them (each W float4 read takes a float4 of R per row from L1: 4×768×1 000 000 with the corpus as Bᵀ took
// 1.131 ms, 3 rows 1.055, 1 row 0.961).
constexpr int kColumnDotsRows = 3;

// x[0], x[stride], x[2·stride], x[3·stride], zeros from the `left`-th on: four values at the end of a slice.
__device__ __forceinline__ float4 fourOrZeros(const float* x, int64_t stride, int64_t left) {
  float v[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) v[e] = e < left ? x[e * stride] : 0.0f;
  return make_float4(v[0], v[1], v[2], v[3]);
}

// R(i, k…k+3), zeros past the slice's depth.
__device__ __forceinline__ float4 loadR4(const Problem& p, const float* r, int i, int64_t k, int64_t depth) {
  const float* const x = r + i * p.rRowStride + k * p.rDepthStride;
  if (p.vectorR && k + 3 < depth) return __ldg(reinterpret_cast<const float4*>(x));
  return fourOrZeros(x, p.rDepthStride, depth - k);
}

// W(k…k+3, column) of a column-contiguous W, zeros past the slice's depth.
__device__ __forceinline__ float4 loadW4(const Problem& p, const float* column, int64_t k, int64_t depth) {
  if (p.vectorW && k + 3 < depth) return __ldcs(reinterpret_cast<const float4*>(column + k));  // read once: stream it
  return fourOrZeros(column + k, 1, depth - k);
}

// Columns of W per warp: one for up to 4 rows; for more (a search's queries, kernel.h, GemmOperands::sameSumsPerRow)
// 4, so that each float4 of R read from L1 serves 4 of W: 8 queries against 1 000 000 × 768, a search's whole call,
// 2.154 ms with one column a warp, 1.400 with 4 (docs/search.md, "Search on the GPU"). Each column's sums are those a warp of its own makes, in
// the same order: the same bits however many columns a warp takes.
template <int ROWS>
constexpr int kColumnsPerWarp = ROWS <= 4 ? 1 : 4;

// Blocks an SM holds at least (__launch_bounds__): one row is bound by the reads in flight, and ptxas, left to
// itself, gave it 120 registers a thread, 2 blocks an SM (1×768×1 000 000 0.976 ms on an H200); held to 60, 4
// blocks read at 4.48 TB/s (0.687 ms; docs/kernels.md, "Step 6: few rows").
template <int ROWS>
constexpr int kColumnDotsMinBlocks = ROWS == 1 ? 4 : 1;

template <int ROWS>
__global__ void __launch_bounds__(kThreads, kColumnDotsMinBlocks<ROWS>) columnDots(Problem p) {
  constexpr int kColumns = kColumnsPerWarp<ROWS>, kChunks = kColumnChunks / kColumns;  // kColumnChunks float4 of W in flight
  const auto [r, w, o, depth] = sliceOf<true>(p);
  const int64_t j0 = (static_cast<int64_t>(blockIdx.x) * (kThreads / 32) + threadIdx.x / 32) * kColumns;
  if (j0 >= p.cols) return;  // the whole warp: its columns
  const int lane = threadIdx.x % 32;
  float acc[kColumns][ROWS] = {};
  for (int64_t k0 = 0; k0 < depth; k0 += kChunks * kChunkFloats) {
    float4 wv[kChunks][kColumns];
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      const int64_t k = k0 + c * kChunkFloats + lane * 4;
#pragma unroll
      for (int q = 0; q < kColumns; ++q)
        wv[c][q] = k < depth && j0 + q < p.cols ? loadW4(p, w + (j0 + q) * p.ldw, k, depth) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      const int64_t k = k0 + c * kChunkFloats + lane * 4;
      if (k >= depth) break;
#pragma unroll
      for (int i = 0; i < ROWS; ++i) {
        if (i >= p.rows) break;
        const float4 rv = loadR4(p, r, i, k, depth);
#pragma unroll
        for (int q = 0; q < kColumns; ++q) {
          acc[q][i] = fmaf(rv.x, wv[c][q].x, acc[q][i]);
          acc[q][i] = fmaf(rv.y, wv[c][q].y, acc[q][i]);
          acc[q][i] = fmaf(rv.z, wv[c][q].z, acc[q][i]);
          acc[q][i] = fmaf(rv.w, wv[c][q].w, acc[q][i]);
        }
      }
    }
  }
#pragma unroll
  for (int q = 0; q < kColumns; ++q)
#pragma unroll
    for (int i = 0; i < ROWS; ++i)
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) acc[q][i] += __shfl_xor_sync(0xffffffffu, acc[q][i], offset);
#pragma unroll
  for (int q = 0; q < kColumns; ++q)
#pragma unroll
    for (int i = 0; i < ROWS; ++i)
      if (lane == i && i < p.rows && j0 + q < p.cols) {
        float* const out = o + i * p.oRowStride + (j0 + q) * p.oColStride;
        *out = epilogueValue(p.epilogue, acc[q][i], out);
      }
}

// One row (a query, a matrix-vector product) takes columnDots<1>, which holds more blocks an SM than the
// variant's ROWS would (kColumnDotsMinBlocks): 1×768×1 000 000 with the corpus as Bᵀ 0.687 ms against 0.758 on an
// H200 (docs/kernels.md, "Step 6: few rows"). Its sums are those of the variant's: the same bits.
template <int ROWS>
void launchColumnDots(const Problem& p, int slices, cudaStream_t stream) {
  if constexpr (ROWS > 1)
    if (p.rows == 1) return launchColumnDots<1>(p, slices, stream);
  const int64_t perBlock = kThreads / 32 * kColumnsPerWarp<ROWS>;
  const dim3 columns(static_cast<unsigned>((p.cols + perBlock - 1) / perBlock), static_cast<unsigned>(slices));
  columnDots<ROWS><<<columns, kThreads, 0, stream>>>(p);
}

// Each kernel opts into its shared memory (over 48 KB) on its own: the two layouts' kernels have one type.
template <int ROWS, bool W_COLUMNS>
void launchOn(const Problem& p, dim3 grid, cudaStream_t stream) {
  static SharedMemoryOptIn optIn;
  optIn.ensure(fewRows<ROWS, W_COLUMNS>, sharedBytes<ROWS, W_COLUMNS>(), "cudaFuncSetAttribute(few-rows shared memory)");
  fewRows<ROWS, W_COLUMNS><<<grid, kThreads, sharedBytes<ROWS, W_COLUMNS>(), stream>>>(p);
}

// C = op(A)·op(B) with op(A) or op(B) of at most ROWS rows or columns, A and B as stored (kernel.h, GemmOperands:
// transA, transB). FEW_COLUMNS: Cᵀ = op(B)ᵀ·op(A)ᵀ, R = op(B)ᵀ and W = op(A)ᵀ, O = Cᵀ.
template <int ROWS, bool FEW_COLUMNS>
void launchFewRows(const GemmOperands& o, Precision, cudaStream_t stream) {
  if (o.m == 0 || o.n == 0) return;
  if ((FEW_COLUMNS ? o.n : o.m) > ROWS)
    throw MatmulError(ErrorKind::Failure, "internal error: a few-rows variant launched for more rows than it holds");
  Problem p{};
  // op(A)(i, p) = A[i·lda + p], or stored transposed A[p·lda + i]; op(B)(p, j) = B[p·ldb + j], or B[j·ldb + p].
  const int64_t aRow = o.transA ? 1 : o.lda, aDepth = o.transA ? o.lda : 1;
  const int64_t bDepth = o.transB ? 1 : o.ldb, bCol = o.transB ? o.ldb : 1;
  bool wColumns;  // W's columns contiguous in memory
  if (!FEW_COLUMNS) {
    p.r = o.a, p.rRowStride = aRow, p.rDepthStride = aDepth;
    p.w = o.b, p.ldw = o.ldb, wColumns = o.transB;
    p.oRowStride = o.ldc, p.oColStride = 1;
    p.rows = o.m, p.cols = o.n;
  } else {  // R(i, p) = op(B)(p, i), W(p, j) = op(A)(j, p), O(i, j) = C(j, i)
    p.r = o.b, p.rRowStride = bCol, p.rDepthStride = bDepth;
    p.w = o.a, p.ldw = o.lda, wColumns = !o.transA;
    p.oRowStride = 1, p.oColStride = o.ldc;
    p.rows = o.n, p.cols = o.m;
  }
  p.o = o.c;
  p.epilogue = o.epilogue;
  p.k = o.k;
  p.sliceDepth = o.slices == 1 ? 0 : o.sliceDepth;
  p.sliceStride = o.sliceStride;
  p.vectorW = rowsAligned16(p.w, p.ldw);
  p.vectorR = p.rDepthStride == 1 && rowsAligned16(p.r, p.rRowStride);
  if (wColumns && p.vectorR && (p.rows <= kColumnDotsRows || o.sameSumsPerRow)) {
    launchColumnDots<ROWS>(p, o.slices, stream);
    return;
  }
  const dim3 grid(static_cast<unsigned>((p.cols + kColumns - 1) / kColumns), static_cast<unsigned>(o.slices));
  if (wColumns)
    launchOn<ROWS, true>(p, grid, stream);
  else
    launchOn<ROWS, false>(p, grid, stream);
}

// Tiles of C: ROWS × 256 for few rows, 256 × ROWS for few columns (the plan's panels and K split count them).
template <int ROWS, bool FEW_COLUMNS>
constexpr KernelVariant variant(const char* name) {
  return {name, launchFewRows<ROWS, FEW_COLUMNS>, FEW_COLUMNS ? TileShape{kColumns, ROWS} : TileShape{ROWS, kColumns}, false};
}
constexpr KernelVariant kVariants[] = {
    variant<4, false>("gemv 4 rows"),     variant<8, false>("gemv 8 rows"),     variant<16, false>("gemv 16 rows"),
    variant<4, true>("gemv 4 columns"), variant<8, true>("gemv 8 columns"), variant<16, true>("gemv 16 columns"),
};

}  // namespace
}  // namespace few_rows

KernelVariants fewRowsVariants(Precision) { return few_rows::kVariants; }

}  // namespace cuda_matmul
