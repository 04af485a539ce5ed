// Mul, the seeds' host wrapper (../shared/seeds/000), generalised to launch any kernel of device_kernels.h:
// cudaMalloc A, B and C, cudaMemcpy A and B in, launch, cudaMemcpy C out, cudaFree — every call checked and
// every buffer freed on every path. Grids taller than CUDA's 65535 blocks in y launch as several row slices.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "device_kernels.h"

namespace cuda_matmul {
namespace {

constexpr int64_t kMaxGridY = 65535;

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
void Mul(const DeviceKernel& kernel, const float* A, const float* B, int64_t hA, int64_t wA, int64_t wB, float* C) {
  const size_t sizeA = sizeof(float) * hA * wA, sizeB = sizeof(float) * wA * wB, sizeC = sizeof(float) * hA * wB;

  // Load A and B to the device
  DeviceBuffer Ad(sizeA, "cudaMalloc(A)");
  checkCuda(cudaMemcpy(Ad.get(), A, sizeA, cudaMemcpyHostToDevice), "cudaMemcpy(A to device)");
  DeviceBuffer Bd(sizeB, "cudaMalloc(B)");
  checkCuda(cudaMemcpy(Bd.get(), B, sizeB, cudaMemcpyHostToDevice), "cudaMemcpy(B to device)");
  // Allocate C on the device
  DeviceBuffer Cd(sizeC, "cudaMalloc(C)");

  // Launch the device computation, in row slices no taller than the grid allows
  const int64_t sliceRows = kMaxGridY * kernel.rowsPerBlock;
  for (int64_t firstRow = 0; firstRow < hA; firstRow += sliceRows) {
    kernel.launch(Ad.get() + firstRow * wA, Bd.get(), Cd.get() + firstRow * wB, std::min(sliceRows, hA - firstRow), wA, wB);
    checkCuda(cudaGetLastError(), kernel.name);
  }
  // Read C from the device (this waits for the kernels and reports their errors)
  checkCuda(cudaMemcpy(C, Cd.get(), sizeC, cudaMemcpyDeviceToHost), "cudaMemcpy(C to host)");
}

}  // namespace

void cudaMultiply(Kernel kernel, const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n, int device) {
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  Mul(kernel == Kernel::Muld ? kMuldKernel : kBlockTileKernel, a, b, m, k, n, c);
}

}  // namespace cuda_matmul
