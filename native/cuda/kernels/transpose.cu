// Not a matrix-product kernel family: the out-of-place transpose into TF32 parts that the wgmma kernel (which reads
// B as Bᵀ) needs, and the same rounding without the transpose, for a B held as Bᵀ (Rounding::None: the plain
// transpose, for bench/kernels.cu's timings of a given Bᵀ). 32×32 tiles
// through shared memory, one extra column so that the column reads hit 32 banks, so both the reads and the
// writes are coalesced.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/kernels/helpers.cuh"
#include "cuda/kernels/kernel.h"

namespace cuda_matmul {
namespace {

constexpr int kTile = 32, kRowsPerPass = 8;

// TRANSPOSE: dst = srcᵀ, else dst = src. Rounding::Tf32: each element rounded to TF32 on the way (cvt.rna), for
// a kernel that multiplies in TF32; Rounding::Tf32Split also writes each element's remainder x − tf32(x), rounded
// to TF32, `remainders` floats further on (3xTF32: as many rows as the whole of dst has). classes, when given: the magnitudeClass bits (helpers.cuh)
// of every element are ORed into it.
template <Rounding ROUNDING, bool TRANSPOSE>
__global__ void copyTiles(const float* __restrict__ src, int64_t srcPitch, float* __restrict__ dst, int64_t dstPitch,
                               int64_t rows, int64_t cols, int64_t remainders, uint32_t* classes) {
  __shared__ float tile[kTile][kTile + 1];
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + threadIdx.x;
  const int64_t rowBase = static_cast<int64_t>(blockIdx.y) * kTile;
  uint32_t seen = 0;
  for (int r = threadIdx.y; r < kTile; r += kRowsPerPass)
    if (rowBase + r < rows && col < cols) {
      const float x = src[(rowBase + r) * srcPitch + col];
      tile[r][threadIdx.x] = x;
      seen |= magnitudeClass(x);
    }
  if (classes) orWarpClasses(seen, classes);
  __syncthreads();
  // The block's tile, transposed (output row = input column) or not.
  const int64_t outRows = TRANSPOSE ? cols : rows, outCols = TRANSPOSE ? rows : cols;
  const int64_t outCol = (TRANSPOSE ? rowBase : static_cast<int64_t>(blockIdx.x) * kTile) + threadIdx.x;
  const int64_t outRowBase = TRANSPOSE ? static_cast<int64_t>(blockIdx.x) * kTile : rowBase;
  for (int r = threadIdx.y; r < kTile; r += kRowsPerPass)
    if (outRowBase + r < outRows && outCol < outCols) {
      const float x = TRANSPOSE ? tile[threadIdx.x][r] : tile[r][threadIdx.x];
      float* const out = dst + (outRowBase + r) * dstPitch + outCol;
      if constexpr (ROUNDING == Rounding::None) {
        *out = x;
      } else {
        const float big = __uint_as_float(tf32Bits(x));
        *out = big;
        if constexpr (ROUNDING == Rounding::Tf32Split) out[remainders] = __uint_as_float(tf32Bits(x - big));
      }
    }
}

unsigned tilesFor(int64_t count) { return static_cast<unsigned>((count + kTile - 1) / kTile); }

// dst (srcᵀ, or src) from src (rows×cols) on `stream`, in slices of rows that a grid's y holds.
template <bool TRANSPOSE>
void launchCopy(const float* src, int64_t srcPitch, float* dst, int64_t dstPitch, int64_t rows, int64_t cols,
                Rounding rounding, cudaStream_t stream, uint32_t* classes) {
  const auto kernel = rounding == Rounding::None   ? copyTiles<Rounding::None, TRANSPOSE>
                      : rounding == Rounding::Tf32 ? copyTiles<Rounding::Tf32, TRANSPOSE>
                                                   : copyTiles<Rounding::Tf32Split, TRANSPOSE>;
  if (rows == 0 || cols == 0) return;
  // Grids hold at most 65535 blocks in y: taller matrices go in slices of that many tiles of rows, each slice
  // landing in the matching columns (or rows) of the result; a Tf32Split's remainders follow the whole result.
  constexpr int64_t kSliceRows = int64_t{65535} * kTile;
  const int64_t remainders = (TRANSPOSE ? cols : rows) * dstPitch;
  for (int64_t row = 0; row < rows; row += kSliceRows) {
    const int64_t sliceRows = std::min(kSliceRows, rows - row);
    const dim3 grid(tilesFor(cols), tilesFor(sliceRows)), block(kTile, kRowsPerPass);
    kernel<<<grid, block, 0, stream>>>(src + row * srcPitch, srcPitch, TRANSPOSE ? dst + row : dst + row * dstPitch,
                                       dstPitch, sliceRows, cols, remainders, classes);
  }
}

}  // namespace

void launchTranspose(const float* src, int64_t srcPitch, float* dst, int64_t dstPitch, int64_t rows, int64_t cols,
                     Rounding rounding, cudaStream_t stream, uint32_t* classes) {
  launchCopy<true>(src, srcPitch, dst, dstPitch, rows, cols, rounding, stream, classes);
}

void launchRoundedCopy(const float* src, int64_t srcPitch, float* dst, int64_t dstPitch, int64_t rows, int64_t cols,
                       Rounding rounding, cudaStream_t stream, uint32_t* classes) {
  launchCopy<false>(src, srcPitch, dst, dstPitch, rows, cols, rounding, stream, classes);
}

}  // namespace cuda_matmul
