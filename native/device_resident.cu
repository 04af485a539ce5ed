// Matrices that stay on the GPU between products (lib/matrix.ts): uploaded once through the same transfer
// queue as host products, multiplied in place on a pooled stream, downloaded on request.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "device_resident.h"
#include "kernel_launch.h"

namespace cuda_matmul {

std::shared_ptr<DeviceResident> cudaAllocateResident(int device, int64_t rows, int64_t cols) {
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  return std::make_shared<DeviceResident>(device, rows, cols);
}

std::shared_ptr<DeviceResident> cudaResidentRows(const std::shared_ptr<DeviceResident>& matrix, int64_t row, int64_t count) {
  return std::make_shared<DeviceResident>(*matrix, row, count);
}

std::shared_ptr<DeviceResident> cudaUploadResident(int device, const float* host, int64_t rows, int64_t cols, bool pinned) {
  auto matrix = cudaAllocateResident(device, rows, cols);
  const PooledStream stream(device);
  TransferQueue(stream.get()).upload({host, rows, cols, pinned}, matrix->data());
  checkCuda(cudaStreamSynchronize(stream.get()), "upload");
  return matrix;
}

void cudaDownloadResident(const DeviceResident& matrix, float* host, bool pinned) {
  checkCuda(cudaSetDevice(matrix.device), "cudaSetDevice");
  const PooledStream stream(matrix.device);
  TransferQueue(stream.get()).download(matrix.data(), host, matrix.rows, matrix.cols, pinned);
  checkCuda(cudaStreamSynchronize(stream.get()), "download");
}

void cudaMultiplyResident(const KernelPlan& plan, const DeviceResident& a, const DeviceResident& b, DeviceResident& c) {
  if (c.rows == 0 || c.cols == 0) return;
  checkCuda(cudaSetDevice(a.device), "cudaSetDevice");
  const DeviceKernel& kernel = deviceKernel(plan);
  KernelOperandB operandB(kernel, a.device, b.rows, b.cols);
  const ProductLaunch launch(plan, a.device, std::min(plan.panelRows, a.rows), b.cols, a.cols);
  const PooledStream stream(a.device);
  const DeviceRows bk = operandB.from(b.data(), b.rows, b.cols, stream.get());
  // In slices of the plan's panel height, which keeps every grid within CUDA's 65535 blocks in y.
  for (int64_t row = 0; row < a.rows; row += plan.panelRows) {
    const int64_t rows = std::min(plan.panelRows, a.rows - row);
    launch.run(productOf(a.rowsFrom(row), bk, c.rowsFrom(row), rows, a.cols, b.cols, b.data()), stream.get());
  }
  checkCuda(cudaStreamSynchronize(stream.get()), kernel.name);
}

}  // namespace cuda_matmul
