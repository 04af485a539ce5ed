// Not a matrix-product kernel family: the two small memory-bound kernels gemm needs around the product.
//   - transpose: 32×32 tiles through shared memory (one extra column so the column reads hit 32 banks), so
//     both the reads and the writes are coalesced; op(A) = Aᵀ is materialised once, then any product
//     kernel runs on it unchanged;
//   - combine: c = α·t + β·c, one element per thread.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "device_resident.h"

namespace cuda_matmul {
namespace {

constexpr int kTile = 32, kRowsPerPass = 8;

__global__ void transposeTiles(const float* __restrict__ src, int64_t srcPitch, float* __restrict__ dst, int64_t dstPitch,
                               int64_t rows, int64_t cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + threadIdx.x;
  const int64_t rowBase = static_cast<int64_t>(blockIdx.y) * kTile;
  for (int r = threadIdx.y; r < kTile; r += kRowsPerPass)
    if (rowBase + r < rows && col < cols) tile[r][threadIdx.x] = src[(rowBase + r) * srcPitch + col];
  __syncthreads();
  // The block's tile, transposed: output row = input column.
  const int64_t outCol = rowBase + threadIdx.x;
  const int64_t outRowBase = static_cast<int64_t>(blockIdx.x) * kTile;
  for (int r = threadIdx.y; r < kTile; r += kRowsPerPass)
    if (outRowBase + r < cols && outCol < rows) dst[(outRowBase + r) * dstPitch + outCol] = tile[threadIdx.x][r];
}

__global__ void combineRows(float* __restrict__ c, int64_t cPitch, const float* __restrict__ t, int64_t tPitch,
                            int64_t rows, int64_t cols, float alpha, float beta) {
  const int64_t col = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    float* out = c + row * cPitch + col;
    const float product = alpha * t[row * tPitch + col];
    *out = beta == 0.0f ? product : product + beta * *out;
  }
}

unsigned gridSize(int64_t count, int64_t per) { return static_cast<unsigned>((count + per - 1) / per); }

}  // namespace

std::shared_ptr<DeviceResident> cudaTransposeResident(const DeviceResident& matrix) {
  auto result = cudaAllocateResident(matrix.device, matrix.cols, matrix.rows);
  if (matrix.rows == 0 || matrix.cols == 0) return result;
  const PooledStream stream(matrix.device);
  // Grids hold at most 65535 blocks in y: taller matrices go in slices of that many tiles of rows, each slice
  // landing in the matching columns of the result.
  constexpr int64_t kSliceRows = int64_t{65535} * kTile;
  for (int64_t row = 0; row < matrix.rows; row += kSliceRows) {
    const int64_t rows = std::min(kSliceRows, matrix.rows - row);
    const dim3 grid(gridSize(matrix.cols, kTile), gridSize(rows, kTile)), block(kTile, kRowsPerPass);
    transposeTiles<<<grid, block, 0, stream.get()>>>(matrix.memory.floats() + row * matrix.pitch, matrix.pitch,
                                                     result->memory.floats() + row, result->pitch, rows, matrix.cols);
    checkCuda(cudaGetLastError(), "transpose");
  }
  checkCuda(cudaStreamSynchronize(stream.get()), "transpose");
  return result;
}

void cudaCombineResident(DeviceResident& c, const DeviceResident& t, float alpha, float beta) {
  if (c.rows == 0 || c.cols == 0) return;
  checkCuda(cudaSetDevice(c.device), "cudaSetDevice");
  const PooledStream stream(c.device);
  constexpr int kThreads = 256;
  const dim3 grid(gridSize(c.cols, kThreads), static_cast<unsigned>(std::min<int64_t>(c.rows, 65535)));
  combineRows<<<grid, kThreads, 0, stream.get()>>>(c.memory.floats(), c.pitch, t.memory.floats(), t.pitch, c.rows, c.cols,
                                                   alpha, beta);
  checkCuda(cudaGetLastError(), "combine");
  checkCuda(cudaStreamSynchronize(stream.get()), "combine");
}

}  // namespace cuda_matmul
