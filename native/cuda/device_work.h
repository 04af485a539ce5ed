// Device work in flight for a call (core/work.h): an event recorded after it on its stream, and what the work
// uses (device memory, staging buffers, operands' storage), held until the event has passed — the binding
// polls done() and destroys the Work once it has settled the call. A Work destroyed before its event passed
// (its environment torn down) waits for it first, so nothing it held is reused while a kernel still runs.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <vector>

#include "core/work.h"
#include "cuda/check.h"

namespace cuda_matmul {

class DeviceWork : public Work {
 public:
  // Records the event on `stream` now (the caller has set the stream's device current).
  DeviceWork(cudaStream_t stream, std::vector<std::shared_ptr<const void>> held, std::function<void()> finish = {},
             int64_t finishBytes = 0)
      : held_(std::move(held)), finish_(std::move(finish)), finishBytes_(finishBytes) {
    checkCuda(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreate");
    const cudaError_t recorded = cudaEventRecord(event_, stream);
    if (recorded != cudaSuccess) {
      cudaEventDestroy(event_);
      checkCuda(recorded, "cudaEventRecord");
    }
  }
  ~DeviceWork() override {
    if (!passed_) cudaEventSynchronize(event_);
    cudaEventDestroy(event_);
    cudaGetLastError();
  }
  DeviceWork(const DeviceWork&) = delete;
  DeviceWork& operator=(const DeviceWork&) = delete;

  bool pollable() const override { return true; }
  bool done() override {
    const cudaError_t status = cudaEventQuery(event_);
    if (status == cudaErrorNotReady) return false;
    passed_ = true;
    checkCuda(status, "the queued operation");
    return true;
  }
  void wait() override {
    const cudaError_t status = cudaEventSynchronize(event_);
    passed_ = true;
    checkCuda(status, "the queued operation");
  }
  void finish() override {
    if (finish_) finish_();
  }
  int64_t finishBytes() const override { return finishBytes_; }

 private:
  cudaEvent_t event_ = nullptr;
  bool passed_ = false;
  std::vector<std::shared_ptr<const void>> held_;
  std::function<void()> finish_;
  int64_t finishBytes_;
};

}  // namespace cuda_matmul
