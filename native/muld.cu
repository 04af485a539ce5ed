// Step 0 of the kernel progression: the seeds' shared-memory tiled kernel, Muld, and its host wrapper, Mul
// (../shared/seeds/000, the CUDA programming guide's example). Kept recognisable as the readable baseline:
//   - each 16×16 thread block computes one 16×16 sub-matrix Csub of C, each thread one element of it;
//   - A and B are walked in 16×16 tiles staged through shared memory, __syncthreads() around each tile
//     product, so each element of A and B is read from global memory n/16 and m/16 times instead of n and m.
// What changed from the seed, and why:
//   - Any shape, not only multiples of 16: tile loads outside the matrix read 0 and stores outside it are
//     skipped (bounds checks), rather than padding the matrices, which would need padded copies of A, B and C
//     (extra device memory plus a 2-D copy each way). Cost measured in bench/NOTES.md (4095³ vs 4096³).
//   - 64-bit indices (m·k may pass 2^31), const inputs, every CUDA call checked, buffers freed on every path.
//   - Grids taller than CUDA's 65535 blocks in y are launched as several row slices.
// Measured (bench/NOTES.md): about 8 TFLOP/s at 4096³ on an H100 against cuBLAS's ~51.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_backend.h"
#include "cuda_check.h"

namespace cuda_matmul {
namespace {

// Thread block size
constexpr int BLOCK_SIZE = 16;
constexpr int64_t kMaxGridY = 65535;

// Device multiplication function called by Mul(): C = A·B.
// hA is the height of A, wA the width of A (= height of B), wB the width of B.
__global__ void Muld(const float* A, const float* B, int64_t hA, int64_t wA, int64_t wB, float* C) {
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

    // Each thread loads one element of each tile; outside the matrices it loads 0, which adds nothing
    As[ty][tx] = (row < hA && t + tx < wA) ? A[row * wA + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < wA && col < wB) ? B[(t + ty) * wB + col] : 0.0f;
    // Make sure both tiles are loaded before anyone reads them
    __syncthreads();

    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];
    // Make sure the tile product is done before the next iteration overwrites the tiles
    __syncthreads();
  }
  if (row < hA && col < wB) C[row * wB + col] = Csub;
}

// A cudaMalloc'd buffer that is freed on every path, errors included.
class DeviceBuffer {
 public:
  DeviceBuffer(size_t bytes, const char* what) { checkCuda(cudaMalloc(&data_, std::max<size_t>(bytes, 1)), what); }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  float* get() const { return static_cast<float*>(data_); }

 private:
  void* data_ = nullptr;
};

// Host multiplication function: C = A·B for host arrays (A is hA×wA, B is wA×wB, C is hA×wB).
void Mul(const float* A, const float* B, int64_t hA, int64_t wA, int64_t wB, float* C) {
  const size_t sizeA = sizeof(float) * hA * wA, sizeB = sizeof(float) * wA * wB, sizeC = sizeof(float) * hA * wB;

  // Load A and B to the device
  DeviceBuffer Ad(sizeA, "cudaMalloc(A)");
  checkCuda(cudaMemcpy(Ad.get(), A, sizeA, cudaMemcpyHostToDevice), "cudaMemcpy(A to device)");
  DeviceBuffer Bd(sizeB, "cudaMalloc(B)");
  checkCuda(cudaMemcpy(Bd.get(), B, sizeB, cudaMemcpyHostToDevice), "cudaMemcpy(B to device)");
  // Allocate C on the device
  DeviceBuffer Cd(sizeC, "cudaMalloc(C)");

  // Execution configuration: enough blocks to cover C, rounding up; very tall C in several row slices
  const dim3 dimBlock(BLOCK_SIZE, BLOCK_SIZE);
  const int64_t tilesX = (wB + BLOCK_SIZE - 1) / BLOCK_SIZE;
  const int64_t tilesY = (hA + BLOCK_SIZE - 1) / BLOCK_SIZE;
  for (int64_t firstTile = 0; firstTile < tilesY; firstTile += kMaxGridY) {
    const int64_t sliceTiles = std::min(kMaxGridY, tilesY - firstTile);
    const int64_t firstRow = firstTile * BLOCK_SIZE;
    const dim3 dimGrid(static_cast<unsigned>(tilesX), static_cast<unsigned>(sliceTiles));
    // Launch the device computation
    Muld<<<dimGrid, dimBlock>>>(Ad.get() + firstRow * wA, Bd.get(), std::min(hA - firstRow, sliceTiles * BLOCK_SIZE),
                                wA, wB, Cd.get() + firstRow * wB);
    checkCuda(cudaGetLastError(), "launching Muld");
  }
  // Read C from the device (this waits for the kernels and reports their errors)
  checkCuda(cudaMemcpy(C, Cd.get(), sizeC, cudaMemcpyDeviceToHost), "cudaMemcpy(C to host)");
}

}  // namespace

void muldMultiply(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n, int device) {
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  Mul(a, b, m, k, n, c);
}

}  // namespace cuda_matmul
