// The CUDA backend (core/backend.h): checks a call against the devices found (status.h) and the kernel
// registry (kernels/registry.h), plans it once (kernels/choose.h), and hands it to the transfer routes
// (transfer/routes.h) for host arrays or to the ordered stream (resident.cu) for Matrices.
#include <cuda_runtime.h>

#include <string>

#include "core/errors.h"
#include "core/matrix_data.h"
#include "cuda/kernels/choose.h"
#include "cuda/resident_ops.h"
#include "cuda/status.h"
#include "cuda/transfer/routes.h"

namespace cuda_matmul {
namespace {

std::string gigabytes(double bytes) {
  const std::string text = std::to_string(bytes / 1e9);
  return text.substr(0, text.find('.') + 3) + " GB";
}

// Floats a rows×cols matrix takes on a device: rows padded to 4 floats (kernels/kernel.h, paddedPitch).
double deviceFloats(int64_t rows, int64_t cols) { return double(rows) * double(paddedPitch(cols)); }

std::shared_ptr<DeviceResident> residentOf(const MatrixData& matrix) {
  return std::static_pointer_cast<DeviceResident>(matrix.storage);
}

class CudaBackend final : public ComputeBackend {
 public:
  Backend kind() const override { return Backend::Cuda; }
  std::string unusableReason() const override { return cudaStatus().usable ? "" : cudaStatus().reason; }
  std::vector<DeviceDescription> devices() const override { return cudaStatus().devices; }
  MemoryUsage memoryUsage() const override { return cudaMemoryUsage(); }
  void trimIdle(double idleSeconds) override { cudaTrimIdle(idleSeconds); }

  void* allocatePinned(size_t bytes) override {
    void* data = nullptr;
    if (!cudaStatus().usable || cudaHostAlloc(&data, bytes, cudaHostAllocPortable) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    return data;
  }
  void freePinned(void* data) override { cudaFreeHost(data); }
  bool pinHost(void* data, size_t bytes) override {
    if (cudaStatus().usable && cudaHostRegister(data, bytes, cudaHostRegisterPortable) == cudaSuccess) return true;
    cudaGetLastError();
    return false;
  }
  void unpinHost(void* data) override {
    if (cudaHostUnregister(data) != cudaSuccess) cudaGetLastError();  // at exit, CUDA may be gone already
  }

  void check(const Choice& choice) const override {
    const DeviceDescription& device = deviceAt(choice.device);
    if (choice.kernel == Kernel::Auto) return;
    const KernelRow& row = kernelRow(choice.kernel);
    if (runsOn(row, device.major, device.minor)) return;
    const std::string needs = row.needsSm90a ? "9.0 (H100, H200) and a build with sm_90a"
                                             : std::to_string(row.minimumMajor) + ".0 or newer";
    throw MatmulError(ErrorKind::Failure,
                      "kernel '" + std::string(kernelOption(choice.kernel).name) + "' needs compute capability " + needs +
                          "; device " + std::to_string(device.index) + " (" + device.name + ") is " + device.computeCapability,
                      "ERR_KERNEL_UNSUPPORTED");
  }

  // What needs more memory than the device has at all can never run there: a RangeError naming it, before
  // anything is allocated. (Running out of the memory free now is a cudaErrorMemoryAllocation Error instead.)
  void checkRoom(const GemmShape& s, int deviceIndex, const std::function<std::string()>& what) const override {
    const DeviceDescription& device = deviceAt(deviceIndex);
    const double bytes = sizeof(float) * (deviceFloats(s.rowsA(), s.colsA()) + deviceFloats(s.rowsB(), s.colsB()) +
                                          deviceFloats(s.m, s.n));
    if (bytes > double(device.totalMemory))
      throw MatmulError(ErrorKind::Range, what() + " needs " + gigabytes(bytes) + " of device memory; device " +
                                              std::to_string(device.index) + " (" + device.name + ") has " +
                                              gigabytes(double(device.totalMemory)));
  }

  std::unique_ptr<Work> startGemm(const GemmRequest& r) override {
    if (runsAsGathered(r))
      return startHostGemm(planAsGathered(r.choice.precision, r.shape.m, r.shape.k, r.shape.n, capsOf(r.choice.device)), r);
    return startHostGemm(plan(r.choice, r.shape), r);
  }

  std::unique_ptr<Work> startGathered(std::vector<SmallProduct> products, int device) override {
    deviceAt(device);
    return std::make_unique<HostWork>([products = std::move(products), device] { runGathered(products, device); });
  }

  std::shared_ptr<MatrixStorage> upload(const float* data, int64_t rows, int64_t cols, int device, bool pinned) override {
    return uploadResident(device, data, rows, cols, pinned);
  }
  std::shared_ptr<MatrixStorage> allocate(int64_t rows, int64_t cols, int device) override {
    return allocateResident(device, rows, cols);
  }
  std::unique_ptr<Work> enqueueGemm(const MatrixData& a, const MatrixData& b, const MatrixData& c, const GemmShape& shape,
                                    const RowBatch& batch, const Choice& choice,
                                    std::shared_ptr<CallAbort> withdrawable) override {
    if (choice.kernel == Kernel::Auto && batchRunsGrouped(shape, batch.count))
      return enqueueResidentBatchedGemm(residentOf(a), residentOf(b), residentOf(c), shape, batch, std::move(withdrawable));
    return enqueueResidentGemm(plan(choice, shape), residentOf(a), residentOf(b), residentOf(c), shape, batch,
                               std::move(withdrawable));
  }
  std::unique_ptr<Work> enqueueDownload(const MatrixData& matrix, float* out, bool pinned) override {
    return enqueueResidentDownload(residentOf(matrix), out, pinned);
  }
  std::unique_ptr<Work> enqueueSearch(const MatrixData& corpus, const MatrixData& queries, const SearchRequest& r,
                                      float* scores, uint32_t* indices) override {
    const Choice choice{Backend::Cuda, Kernel::Auto, r.precision, corpus.device};
    return enqueueResidentSearch(residentOf(corpus), residentOf(queries), r, [choice](const GemmShape& s) { return plan(choice, s); },
                                 scores, indices);
  }

 private:
  static const DeviceDescription& deviceAt(int index) {
    const auto& devices = cudaStatus().devices;
    if (index < 0 || index >= static_cast<int>(devices.size()))
      throw MatmulError(ErrorKind::Range, "device: " + std::to_string(index) + " does not exist; " +
                                              std::to_string(devices.size()) + " CUDA device(s) found");
    return devices[index];
  }

  static DeviceCaps capsOf(int index) {
    const DeviceDescription& device = deviceAt(index);
    return {device.major, device.minor, device.multiprocessors};
  }

  static KernelPlan plan(const Choice& choice, const GemmShape& s) {
    const DeviceCaps caps = capsOf(choice.device);
    const KernelRow& row = kernelRow(choice.kernel);
    if (row.canImplement && !row.canImplement(s.m, s.k, s.n))
      throw MatmulError(ErrorKind::Range, "kernel '" + std::string(kernelOption(choice.kernel).name) + "' implements " +
                                              row.implements + "; this product is " + std::to_string(s.m) + "×" +
                                              std::to_string(s.k) + "×" + std::to_string(s.n) + " (m×k×n)");
    const KernelPlan planned = planKernel(choice.kernel, choice.precision, s.m, s.k, s.n, caps, s.transB, s.transA);
    if (!readsLayouts(*planned.row, s.transA, s.transB))  // no product makes a transposed copy of an operand
      throw MatmulError(choice.kernel == Kernel::Auto ? ErrorKind::Failure : ErrorKind::Range,
                        "kernel '" + std::string(kernelOption(planned.row->kernel).name) +
                            "' does not read an operand held transposed (transA, transB)");
    return planned;
  }
};

}  // namespace

ComputeBackend& cudaBackend() {
  static auto* backend = new CudaBackend();  // never destroyed: used until the process ends
  return *backend;
}

}  // namespace cuda_matmul
