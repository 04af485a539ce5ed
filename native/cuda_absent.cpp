// The CUDA backend of a CPU-only build (no nvcc at build time): reports why, never runs.
#include "cuda_backend.h"
#include "errors.h"

namespace cuda_matmul {

const CudaStatus& cudaStatus() {
  static const CudaStatus status{false, "this build of cuda-matmul has no CUDA support (nvcc was not found when it was compiled)", {}};
  return status;
}

namespace {
[[noreturn]] void unavailable() { throw MatmulError(ErrorKind::Failure, cudaStatus().reason, "ERR_CUDA_UNAVAILABLE"); }
}  // namespace

struct DeviceResident {};
std::shared_ptr<DeviceResident> cudaUploadResident(int, const float*, int64_t, int64_t, bool) { unavailable(); }
std::shared_ptr<DeviceResident> cudaAllocateResident(int, int64_t, int64_t) { unavailable(); }
struct InlineProduct {};
bool cudaInlineFits(const MatmulRequest&) { return false; }
std::shared_ptr<InlineProduct> cudaStartInline(const KernelPlan&, const MatmulRequest&) { unavailable(); }
bool cudaInlineDone(const InlineProduct&) { unavailable(); }
void cudaInlineWait(const InlineProduct&) { unavailable(); }
void cudaInlineFinish(const InlineProduct&, float*) { unavailable(); }
std::shared_ptr<DeviceResident> cudaResidentRows(const std::shared_ptr<DeviceResident>&, int64_t, int64_t) { unavailable(); }
void cudaDownloadResident(const DeviceResident&, float*, bool) { unavailable(); }
void cudaMultiplyResident(const KernelPlan&, const DeviceResident&, const DeviceResident&, DeviceResident&) { unavailable(); }

std::shared_ptr<DeviceResident> cudaTransposeResident(const DeviceResident&) { unavailable(); }
void cudaCombineResident(DeviceResident&, const DeviceResident&, float, float) { unavailable(); }

MemoryUsage cudaMemoryUsage() { return {}; }
void cudaTrimIdle(double) {}
void* cudaAllocatePinned(size_t) { return nullptr; }
void cudaFreePinned(void*) {}

void cudaMultiply(const KernelPlan&, const MatmulRequest&) { unavailable(); }

}  // namespace cuda_matmul
