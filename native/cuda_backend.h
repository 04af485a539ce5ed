// What the rest of the addon may ask of CUDA. Implemented by cuda_device.cu, device_matmul.cu and device_pools.cu when the addon is
// built with nvcc, and by cuda_absent.cpp in a CPU-only build, so no other file needs #ifdefs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "request.h"

namespace cuda_matmul {

struct CudaDeviceInfo {
  int index = 0;
  std::string name;
  std::string computeCapability;  // "9.0"
  int major = 0, minor = 0;       // the same, as numbers
  int multiprocessors = 0;
  uint64_t totalMemory = 0;       // bytes
};

struct CudaStatus {
  bool usable = false;
  std::string reason;  // why CUDA is not usable; empty when it is
  std::vector<CudaDeviceInfo> devices;
};

// Probed once per process (thread-safe), then cached.
const CudaStatus& cudaStatus();

// What the CUDA pools hold, over all devices (device_pools.cu): device memory held by calls in flight,
// device memory cached for reuse, page-locked staging buffers.
struct MemoryUsage {
  uint64_t deviceBytesInUse = 0, deviceBytesCached = 0, stagingBytes = 0;
};
MemoryUsage cudaMemoryUsage();

// Frees what the pools cache if nothing has used them for idleSeconds.
void cudaTrimIdle(double idleSeconds);

// A matrix kept on a CUDA device (a Matrix in lib/matrix.ts): pooled device memory, rows padded. Defined
// in device_resident.cu; the CPU-only build has none (its functions throw ERR_CUDA_UNAVAILABLE).
struct DeviceResident;
std::shared_ptr<DeviceResident> cudaUploadResident(int device, const float* host, int64_t rows, int64_t cols, bool pinned);
std::shared_ptr<DeviceResident> cudaAllocateResident(int device, int64_t rows, int64_t cols);
// Rows [row, row + count) of a resident matrix, as one of its own that shares the memory (a batch's product).
std::shared_ptr<DeviceResident> cudaResidentRows(const std::shared_ptr<DeviceResident>& matrix, int64_t row, int64_t count);
void cudaDownloadResident(const DeviceResident& matrix, float* host, bool pinned);
// c = a·b, all on the same device (the plan checked the shapes and the device).
void cudaMultiplyResident(const KernelPlan& plan, const DeviceResident& a, const DeviceResident& b, DeviceResident& c);

// gemm's pieces around the product, on the device (gemm_ops.cu): the transpose of a matrix, and
// c = α·t + β·c (β = 0: c = α·t, whatever c held).
std::shared_ptr<DeviceResident> cudaTransposeResident(const DeviceResident& matrix);
void cudaCombineResident(DeviceResident& c, const DeviceResident& t, float alpha, float beta);

// Page-locked host memory for allocHost (host_memory.cpp): nullptr when it cannot be had.
void* cudaAllocatePinned(size_t bytes);
void cudaFreePinned(void* data);

// Small products from host arrays, started on the JavaScript thread and finished by polling (device_inline.cu,
// matmul_inline.cpp). cudaInlineFits: the product is small enough, and its device already up. cudaStartInline
// copies A and B and launches; cudaInlineDone polls (cudaInlineWait blocks); cudaInlineFinish copies C out.
// CUDA failures throw MatmulError.
struct InlineProduct;
bool cudaInlineFits(const MatmulRequest& request);
std::shared_ptr<InlineProduct> cudaStartInline(const KernelPlan& plan, const MatmulRequest& request);
bool cudaInlineDone(const InlineProduct& product);
void cudaInlineWait(const InlineProduct& product);
void cudaInlineFinish(const InlineProduct& product, float* c);

// C = A·B for the request's host arrays on its device, as the plan decided (kernel, tile, precision,
// panels), through the host wrapper Mul. Throws MatmulError on any CUDA failure.
void cudaMultiply(const KernelPlan& plan, const MatmulRequest& request);

}  // namespace cuda_matmul
