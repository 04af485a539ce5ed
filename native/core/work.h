// Work a backend has started for a call and that the binding completes: a product launched on a stream, a
// Matrix operation queued in program order, or work that runs only when a thread waits for it. The binding
// (binding/completion.h) polls done() on the JavaScript thread while that is cheap and quick, runs wait() there
// when it is short host work (runsOnCaller), and otherwise hands wait() to the thread pool; then finish() does
// what is left on the host (copies into the caller's array), and the Work is destroyed on the JavaScript thread,
// releasing what it held (device memory, staging).
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
  // Whether wait() is host work short enough to run on the JavaScript thread at once, the Promise settled before
  // the call returns: less than handing it to the thread pool costs (request.h, runsOnCaller).
  virtual bool runsOnCaller() const { return false; }
  // After done() or wait(): whether the work's effect is already part of program order, so that an abort can no
  // longer withdraw it (a Matrix write made whole: resident.cu, cpu_backend.cpp). A call whose abort
  // (core/call_abort.h) is requested before it settles rejects unless its work says so.
  virtual bool committed() const { return false; }
};

}  // namespace cuda_matmul

#include <functional>
#include <utility>

namespace cuda_matmul {

// Work done on the host by whichever thread waits for it (the thread pool, or matmulSync's caller), or at once by
// the JavaScript thread when `onCaller`.
class HostWork : public Work {
 public:
  explicit HostWork(std::function<void()> run, bool onCaller = false) : run_(std::move(run)), onCaller_(onCaller) {}
  void wait() override { run_(); }
  bool runsOnCaller() const override { return onCaller_; }

 private:
  std::function<void()> run_;
  bool onCaller_;
};

}  // namespace cuda_matmul
