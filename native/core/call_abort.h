// A call's abort: the native side of the `signal` option (lib/abort.ts; docs/lifecycle.md, "Cancellation"). The binding
// requests it on the JavaScript thread when the caller's AbortSignal fires; the call's work reads it from any
// thread (a CPU product stops at its next k-slice: core_budget.h, StopSignal). What must happen at once, on the
// JavaScript thread (a queued task dropped, the device told that a Matrix write is withdrawn), is registered
// with onRequest; the binding closes the abort when it settles the call, and a request after that does nothing.
#pragma once

#include <atomic>
#include <functional>
#include <vector>

#include "core/errors.h"

namespace cuda_matmul {

class CallAbort {
 public:
  bool requested() const noexcept { return requested_.load(std::memory_order_acquire); }
  const std::atomic<bool>& flag() const noexcept { return requested_; }

  // JavaScript thread. Sets the flag and runs the hooks, once; nothing after close().
  void request() {
    if (closed_ || requested()) return;
    requested_.store(true, std::memory_order_release);
    const std::vector<std::function<void()>> hooks = std::move(hooks_);  // a hook may close this abort
    hooks_.clear();
    for (const auto& hook : hooks) hook();
  }
  // JavaScript thread. Runs `hook` at once if the abort was already requested.
  void onRequest(std::function<void()> hook) {
    if (closed_) return;
    if (requested()) return hook();
    hooks_.push_back(std::move(hook));
  }
  // JavaScript thread: the call is settled.
  void close() {
    closed_ = true;
    hooks_.clear();
  }

 private:
  std::atomic<bool> requested_{false};
  bool closed_ = false;
  std::vector<std::function<void()>> hooks_;
};

// What an aborted call rejects with; lib/abort.ts replaces it with the signal's reason.
inline MatmulError abortedError() {
  return MatmulError(ErrorKind::Failure, "the call was aborted", "ERR_CUDA_MATMUL_ABORTED");
}

}  // namespace cuda_matmul
