// Work a backend has started for a call and that the binding completes: a product launched on a stream, a
// Matrix operation queued in program order, or work that runs only when a thread waits for it. The binding
// (binding/completion.h) polls done() on the JavaScript thread while that is cheap and quick, and otherwise
// hands wait() to the thread pool; then finish() does what is left on the host (copies into the caller's
// array), and the Work is destroyed on the JavaScript thread, releasing what it held (device memory, staging).
#pragma once

#include <cstdint>

namespace cuda_matmul {

class Work {
 public:
  virtual ~Work() = default;
  // Whether done() can say the work is complete without running it: device work in flight.
  virtual bool pollable() const { return false; }
  // Non-blocking. Throws MatmulError for a failure found.
  virtual bool done() { return false; }
  // Blocks until the work is complete, running it if it runs on the host. Throws MatmulError.
  virtual void wait() = 0;
  // After done() or wait(): the host's part (e.g. staging → the caller's array). Throws MatmulError.
  virtual void finish() {}
  // Bytes finish() copies: the binding keeps large copies off the JavaScript thread.
  virtual int64_t finishBytes() const { return 0; }
};

}  // namespace cuda_matmul

#include <functional>
#include <utility>

namespace cuda_matmul {

// Work done on the host by whichever thread waits for it (the thread pool, or matmulSync's caller).
class HostWork : public Work {
 public:
  explicit HostWork(std::function<void()> run) : run_(std::move(run)) {}
  void wait() override { run_(); }

 private:
  std::function<void()> run_;
};

}  // namespace cuda_matmul
