// Step 0 of the kernel progression: the seeds' shared-memory tiled kernel, Muld, and its host wrapper, Mul
// (../shared/seeds/000, the CUDA programming guide's example). Kept recognisable as the readable baseline:
//   - each 16×16 thread block computes one 16×16 sub-matrix Csub of C, each thread one element of it;
//   - A and B are walked in 16×16 tiles staged through shared memory, __syncthreads() around each tile
//     product, so each element of A and B is read from global memory n/16 and m/16 times instead of n and m.
// What changed from the seed, and why:
//   - Any shape, not only multiples of 16: tile loads outside the matrix read 0 and stores outside it are
//     skipped (bounds checks), rather than padding the matrices, which would need padded copies of A, B and C
//     (extra device memory plus a 2-D copy each way). Cost measured in docs/kernels.md, "Step 0: Muld" (4095³ vs 4096³).
//   - 64-bit indices (m·k may pass 2^31), const inputs, every CUDA call checked, buffers freed on every path.
//   - Long K is split into slices of 1024 summed in float64 (kernels/launch.cu): one fp32 running sum per
//     element grows its error with K (docs/accuracy.md, "Long K": 6.1e-7 at K = 2·10^7, SGEMM 2.1e-6).
//   - Its host wrapper Mul now lives in cuda/transfer/panels.cu and serves every kernel.
//   - C = α·A·B + β·C in the store (gemm's α and β), not in a pass of its own over C.
//   - A and B are read as they are stored, row-major or held transposed (gemm's transA, transB: Aᵀ k×m, Bᵀ n×k),
//     each tile loaded along its stored rows so that a warp's reads stay contiguous; the sums are the same.
// Measured (docs/kernels.md, "Step 0: Muld"): about 8 TFLOP/s at 4096³ on an H100 against cuBLAS's ~51.
#include <cuda_runtime.h>

#include "cuda/kernels/kernel.h"
#include "cuda/kernels/helpers.cuh"
#include "cuda/kernels/registry.h"

namespace cuda_matmul {
namespace {

// Thread block size
constexpr int BLOCK_SIZE = 16;

// Device multiplication function called by Mul(): C = A·B.
// hA is the height of A, wA the width of A (= height of B), wB the width of B; lda, ldb, ldc the row pitches.
// sliceDepth, sliceStride: split K (kernels/helpers.cuh); block z multiplies its slice of wA. aTransposed,
// bTransposed: A held as Aᵀ (wA×hA), B as Bᵀ (wB×wA). epilogue: α and β (kernel.h).
__global__ void Muld(const float* A, int64_t lda, const float* B, int64_t ldb, int64_t hA, int64_t wA, int64_t wB,
                     float* C, int64_t ldc, int64_t sliceDepth, int64_t sliceStride, bool aTransposed, bool bTransposed,
                     Epilogue epilogue) {
  takeKSlice(blockIdx.z, sliceDepth, sliceStride, aTransposed, lda, bTransposed, ldb, A, B, C, wA);
  // Block index
  const int bx = blockIdx.x;
  const int by = blockIdx.y;
  // Thread index
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;

  // The element of C this thread computes
  const int64_t row = static_cast<int64_t>(by) * BLOCK_SIZE + ty;
  const int64_t col = static_cast<int64_t>(bx) * BLOCK_SIZE + tx;

  float Csub = 0;
  // Loop over the tiles of A (along its row) and B (down its column) needed for Csub
  for (int64_t t = 0; t < wA; t += BLOCK_SIZE) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];

    // Each thread loads one element of each tile; outside the matrices it loads 0, which adds nothing. Held
    // transposed, a tile is loaded with the threads' roles swapped, along the rows it is stored in.
    const int64_t aRow = by * BLOCK_SIZE + (aTransposed ? tx : ty), aCol = t + (aTransposed ? ty : tx);
    const int64_t bRow = t + (bTransposed ? tx : ty), bCol = bx * BLOCK_SIZE + (bTransposed ? ty : tx);
    (aTransposed ? As[tx][ty] : As[ty][tx]) = (aRow < hA && aCol < wA) ? *elementAt(A, lda, aRow, aCol, aTransposed) : 0.0f;
    (bTransposed ? Bs[tx][ty] : Bs[ty][tx]) = (bRow < wA && bCol < wB) ? *elementAt(B, ldb, bRow, bCol, bTransposed) : 0.0f;
    // Make sure both tiles are loaded before anyone reads them
    __syncthreads();

    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];
    // Make sure the tile product is done before the next iteration overwrites the tiles
    __syncthreads();
  }
  if (row < hA && col < wB) C[row * ldc + col] = epilogueValue(epilogue, Csub, C + row * ldc + col);
}

// Muld has no faster, less exact mode: a 'tf32' request is computed in fp32.
void launchMuld(const GemmOperands& o, Precision, cudaStream_t stream) {
  // Execution configuration: enough blocks to cover C, rounding up
  const dim3 dimBlock(BLOCK_SIZE, BLOCK_SIZE);
  const dim3 dimGrid(static_cast<unsigned>((o.n + BLOCK_SIZE - 1) / BLOCK_SIZE),
                     static_cast<unsigned>((o.m + BLOCK_SIZE - 1) / BLOCK_SIZE), static_cast<unsigned>(o.slices));
  Muld<<<dimGrid, dimBlock, 0, stream>>>(o.a, o.lda, o.b, o.ldb, o.m, o.k, o.n, o.c, o.ldc, o.sliceDepth, o.sliceStride,
                                         o.transA, o.transB, o.epilogue);
}

constexpr KernelVariant kMuldVariants[] = {{"muld", launchMuld, {BLOCK_SIZE, BLOCK_SIZE}, false}};

}  // namespace

KernelVariants muldVariants(Precision) { return kMuldVariants; }

}  // namespace cuda_matmul
