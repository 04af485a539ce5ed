// A CUDA event without timing, owned: made on construction, destroyed with the object. The transfer routes use
// it to order streams (join) and to wait for a point of a stream (record, then synchronize).
#pragma once

#include <cuda_runtime.h>

#include "cuda/check.h"

namespace cuda_matmul {

class Event {
 public:
  Event() { checkCuda(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreate"); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void record(cudaStream_t stream) { checkCuda(cudaEventRecord(event_, stream), "cudaEventRecord"); }
  // Makes `waiter` wait for what `stream` has been given so far.
  void join(cudaStream_t stream, cudaStream_t waiter) {
    record(stream);
    checkCuda(cudaStreamWaitEvent(waiter, event_, 0), "cudaStreamWaitEvent");
  }
  // Waits on the host until the stream has passed the recorded point.
  void synchronize(const char* what) { checkCuda(cudaEventSynchronize(event_), what); }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace cuda_matmul
