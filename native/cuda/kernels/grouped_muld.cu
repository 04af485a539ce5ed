// Muld, grouped (beside the progression, as transpose.cu is): the seeds' kernel (0_muld.cu) over a table of small
// products, so that a batch of them gathered from host arrays is one launch (transfer/gathered_products.cu,
// docs/batching.md, "Gathered small products"). Each product keeps Muld's 16×16 tiles and its arithmetic
// (one fp32 running sum per element, k ≤ 1024: core/request.h); what is new is only how a block finds its tile: the
// blocks of product i are firstBlock[i] … firstBlock[i+1] − 1, found by binary search over the table, row-major over
// that product's tiles of C. Why Muld and not mma: a gathered product is at most 128³, where every kernel is far
// below its peak and the batch's time is its copies (docs/batching.md, "Gathered small products"); fp32 FMAs need no magnitude
// classes pass and give fp32 accuracy for every request.
#include <cuda_runtime.h>

#include "cuda/kernels/kernel.h"

namespace cuda_matmul {
namespace {

constexpr int kTile = 16;

__device__ int productOfBlock(const GroupedProduct* table, int count, int block) {
  int low = 0, high = count - 1;  // the last product whose first block is at most `block`
  while (low < high) {
    const int middle = (low + high + 1) / 2;
    if (table[middle].firstBlock <= block) low = middle; else high = middle - 1;
  }
  return low;
}

__global__ void MuldGrouped(const GroupedProduct* table, int count, float* base) {
  const GroupedProduct p = table[productOfBlock(table, count, static_cast<int>(blockIdx.x))];
  const int tile = static_cast<int>(blockIdx.x) - p.firstBlock;
  const float* A = base + p.a;
  const float* B = base + p.b;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = tile / p.blockCols * kTile + ty, col = tile % p.blockCols * kTile + tx;
  float Csub = 0;
  for (int t = 0; t < p.k; t += kTile) {
    __shared__ float As[kTile][kTile];
    __shared__ float Bs[kTile][kTile];
    As[ty][tx] = (row < p.m && t + tx < p.k) ? A[row * p.k + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < p.k && col < p.n) ? B[(t + ty) * p.n + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < kTile; ++k) Csub += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < p.m && col < p.n) base[p.c + row * p.n + col] = Csub;
}

}  // namespace

int groupedMuldBlocks(int64_t m, int64_t n) {
  return static_cast<int>(((m + kTile - 1) / kTile) * ((n + kTile - 1) / kTile));
}

int groupedMuldBlockCols(int64_t n) { return static_cast<int>((n + kTile - 1) / kTile); }

void launchGroupedMuld(const GroupedProduct* table, int count, int blocks, float* base, cudaStream_t stream) {
  if (count == 0 || blocks == 0) return;
  MuldGrouped<<<blocks, dim3(kTile, kTile), 0, stream>>>(table, count, base);
}

}  // namespace cuda_matmul
