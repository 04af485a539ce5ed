// What the plan asks of a backend. A backend is one folder (cpu/, cuda/) implementing this interface; the plan
// (core/plan.cpp) resolves which one a call runs on, and nothing outside the backend's folder knows how it
// computes. Every function throws MatmulError (core/errors.h) on failure.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/request.h"
#include "core/search.h"
#include "core/work.h"

namespace cuda_matmul {

struct MatrixData;
class CallAbort;

// A backend's own storage for a Matrix's elements (device memory, host memory). Opaque outside the backend.
class MatrixStorage {
 public:
  virtual ~MatrixStorage() = default;
};

// A device a backend runs on, as info() reports it.
struct DeviceDescription {
  int index = 0;
  std::string name;
  std::string computeCapability;  // "9.0"
  int major = 0, minor = 0;       // the same, as numbers
  int multiprocessors = 0;
  uint64_t totalMemory = 0;       // bytes
};

// What a backend's pools hold: device memory in use by calls in flight, device memory cached for reuse,
// page-locked staging buffers.
struct MemoryUsage {
  uint64_t deviceBytesInUse = 0, deviceBytesCached = 0, stagingBytes = 0;
};

class ComputeBackend {
 public:
  virtual ~ComputeBackend() = default;

  virtual Backend kind() const = 0;
  // Why this backend cannot run here (no driver, a CPU-only build); empty when it can.
  virtual std::string unusableReason() const = 0;
  // What a backend with devices and pools reports; the defaults are those of one with neither (the CPU).
  virtual std::vector<DeviceDescription> devices() const { return {}; }
  virtual MemoryUsage memoryUsage() const { return {}; }
  // Gives back what the pools cache if nothing has used them for idleSeconds.
  virtual void trimIdle(double /*idleSeconds*/) {}
  // Page-locked host memory for allocHost, which this backend can copy by DMA: nullptr when it has none.
  virtual void* allocatePinned(size_t /*bytes*/) { return nullptr; }
  virtual void freePinned(void* /*data*/) {}
  // Page-locks memory this library mapped (a large result block, core/result_memory.h) so that copies may DMA
  // into it: false when it cannot. unpinHost undoes it, before the memory is unmapped.
  virtual bool pinHost(void* /*data*/, size_t /*bytes*/) { return false; }
  virtual void unpinHost(void* /*data*/) {}
  // Throws a RangeError or Failure MatmulError unless `choice` (kernel, precision, device) can run here.
  virtual void check(const Choice& choice) const = 0;
  // Throws a RangeError naming what() unless op(A), op(B) and C of `shape` could ever be held at once (device
  // memory): checked before anything is allocated. A single matrix is a shape with k = 0. what() is called only
  // to word the error: every call passes here, and building its text each time cost every call.
  virtual void checkRoom(const GemmShape& shape, int device, const std::function<std::string()>& what) const = 0;

  // gemm on host arrays, planned once: started now when that is quick (a small product launched from the
  // JavaScript thread), else returned for wait() to run.
  virtual std::unique_ptr<Work> startGemm(const GemmRequest& request) = 0;

  // Small products from host arrays (core/request.h, SmallProduct) as one batch on `device`, in fp32; the binding
  // holds their arrays until the Work is done.
  virtual std::unique_ptr<Work> startGathered(std::vector<SmallProduct> products, int device) = 0;

  // Matrices. upload and allocate run on the calling thread; enqueueGemm and enqueueDownload return at once,
  // with the operation queued after every one issued before it on the same matrices (program order). A gemm given
  // `withdrawable` (the abort of a write into an existing Matrix: core/call_abort.h) is made whole or not at all:
  // an abort requested before the write is made leaves c as the operations before it made it, and the Work's
  // committed() says which happened.
  virtual std::shared_ptr<MatrixStorage> upload(const float* data, int64_t rows, int64_t cols, int device,
                                                bool pinned) = 0;
  virtual std::shared_ptr<MatrixStorage> allocate(int64_t rows, int64_t cols, int device) = 0;
  virtual std::unique_ptr<Work> enqueueGemm(const MatrixData& a, const MatrixData& b, const MatrixData& c,
                                            const GemmShape& shape, const RowBatch& batch, const Choice& choice,
                                            std::shared_ptr<CallAbort> withdrawable) = 0;
  virtual std::unique_ptr<Work> enqueueDownload(const MatrixData& matrix, float* out, bool pinned) = 0;
  // Exact search (core/search.h) of `corpus`'s rows for each row of `queries` (a Matrix of the same backend and
  // device, request.dims columns), queued as a read of both: the request.k best, best first, into `scores` and
  // `indices` (host memory, request.queries×request.k each).
  virtual std::unique_ptr<Work> enqueueSearch(const MatrixData& corpus, const MatrixData& queries,
                                              const SearchRequest& request, float* scores, uint32_t* indices) = 0;
};

// The backends this build has. cudaBackend() exists in every build: without nvcc it only says why it cannot run.
ComputeBackend& cpuBackend();
ComputeBackend& cudaBackend();

}  // namespace cuda_matmul
