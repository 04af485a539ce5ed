// Mul, the seeds' host wrapper (../shared/seeds/000), generalised to launch any kernel of device_kernels.h:
// cudaMalloc A, B and C, cudaMemcpy A and B in, launch, cudaMemcpy C out, cudaFree — every call checked and
// every buffer freed on every path. Two additions:
//   - device rows are padded to a multiple of 4 floats (the 2-D copies do it on the way), so every kernel can
//     use 16-byte loads and stores whatever k and n are (bench/NOTES.md, step 2: 3000×5000×7001);
//   - grids taller than CUDA's 65535 blocks in y launch as several row slices.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "device_kernels.h"

namespace cuda_matmul {
namespace {

constexpr int64_t kMaxGridY = 65535;

// A rows×cols float matrix in cudaMalloc'd memory, rows padded to 16 bytes, freed on every path.
class DeviceMatrix {
 public:
  DeviceMatrix(int64_t rows, int64_t cols, const char* what) : rows_(rows), cols_(cols), pitch_((cols + 3) / 4 * 4) {
    checkCuda(cudaMalloc(&data_, std::max<size_t>(sizeof(float) * rows_ * pitch_, 1)), what);
  }
  ~DeviceMatrix() { cudaFree(data_); }
  DeviceMatrix(const DeviceMatrix&) = delete;
  DeviceMatrix& operator=(const DeviceMatrix&) = delete;

  float* row(int64_t index) const { return data_ + index * pitch_; }
  int64_t pitch() const { return pitch_; }
  void upload(const float* host, const char* what) { copy(data_, pitch_, host, cols_, cudaMemcpyHostToDevice, what); }
  void download(float* host, const char* what) const { copy(host, cols_, data_, pitch_, cudaMemcpyDeviceToHost, what); }

 private:
  void copy(float* dst, int64_t dstPitch, const float* src, int64_t srcPitch, cudaMemcpyKind kind, const char* what) const {
    if (dstPitch == srcPitch)
      checkCuda(cudaMemcpy(dst, src, sizeof(float) * rows_ * cols_, kind), what);
    else
      checkCuda(cudaMemcpy2D(dst, sizeof(float) * dstPitch, src, sizeof(float) * srcPitch, sizeof(float) * cols_, rows_, kind), what);
  }

  int64_t rows_, cols_, pitch_;
  float* data_ = nullptr;
};

// Host multiplication function: C = A·B for host arrays (A is hA×wA, B is wA×wB, C is hA×wB).
void Mul(const DeviceKernel& kernel, Precision precision, const float* A, const float* B, int64_t hA, int64_t wA,
         int64_t wB, float* C) {
  // Load A and B to the device
  DeviceMatrix Ad(hA, wA, "cudaMalloc(A)");
  Ad.upload(A, "cudaMemcpy(A to device)");
  DeviceMatrix Bd(wA, wB, "cudaMalloc(B)");
  Bd.upload(B, "cudaMemcpy(B to device)");
  // Allocate C on the device
  DeviceMatrix Cd(hA, wB, "cudaMalloc(C)");

  // Launch the device computation, in row slices no taller than the grid allows
  const int64_t sliceRows = kMaxGridY * kernel.rowsPerBlock;
  for (int64_t firstRow = 0; firstRow < hA; firstRow += sliceRows) {
    const GemmOperands slice{Ad.row(firstRow), Bd.row(0), Cd.row(firstRow), std::min(sliceRows, hA - firstRow), wA, wB,
                             Ad.pitch(), Bd.pitch(), Cd.pitch()};
    kernel.launch(slice, precision, nullptr);
    checkCuda(cudaGetLastError(), kernel.name);
  }
  // Read C from the device (this waits for the kernels and reports their errors)
  Cd.download(C, "cudaMemcpy(C to host)");
}

const DeviceKernel& deviceKernel(const KernelPlan& plan) {
  switch (plan.kernel) {
    case Kernel::Muld:
      return kMuldKernel;
    case Kernel::Mma:
      return kMmaKernels[static_cast<int>(plan.tile)];
    default:
      return kBlockTileKernel;
  }
}

}  // namespace

void cudaMultiply(const KernelPlan& plan, const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n,
                  int device) {
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  Mul(deviceKernel(plan), plan.precision, a, b, m, k, n, c);
}

}  // namespace cuda_matmul
