// The cores the library's own threads may keep busy at once: every core but one, which stays the JavaScript thread's.
// Without a bound, products in flight together each took a thread per core (4 pool threads on a 16-core host could
// keep 64 busy), and the JavaScript thread waited for a core (docs/transfers.md, "The core budget"). A thread
// that computes for the library holds a lease on its share first; when every core of the budget is leased, the next
// product waits for one, and a product that finds fewer free runs with fewer threads. A helper that joins work its
// caller can finish alone (the host-copy team) takes a core only if one is free, and never waits.
#pragma once

#include <atomic>

namespace cuda_matmul {

class CoreLease {
 public:
  // Waits until at least one core of the budget is free, then takes up to `wanted` (at least 1).
  explicit CoreLease(int wanted);
  enum NoWait { kIfFree };
  // One core if one is free now, else none (cores() == 0).
  explicit CoreLease(NoWait);
  ~CoreLease();
  CoreLease(const CoreLease&) = delete;
  CoreLease& operator=(const CoreLease&) = delete;
  int cores() const { return cores_; }
  // Gives back those of the lease's cores that will not be used (threads the system refused).
  void shrinkTo(int cores);

 private:
  int cores_;
};

// Whether the work on this thread should stop: the stop flag of the JavaScript environment the work is for, or the
// abort of the call it is (core/call_abort.h), set by the binding around each thread-pool task (StopScope). Made on
// the product's thread and read from any (the threads that help a product have no flag of their own). A product that
// waited for cores asks once it has them, so a terminated Worker no longer waits for products that had only begun to
// wait: the pool threads queued behind the budget computed theirs one after another (teardown.test.ts). One already
// computing stops at its next k-slice (cpu/gemm.cpp).
class StopSignal {
 public:
  StopSignal();  // the flags of the work on this thread, if any
  bool requested() const {
    return (stop_ && stop_->load(std::memory_order_acquire)) || (abort_ && abort_->load(std::memory_order_acquire));
  }

 private:
  const std::atomic<bool>* stop_;
  const std::atomic<bool>* abort_;
};
class StopScope {
 public:
  // `abort`: the call's own flag, where it has one.
  StopScope(const std::atomic<bool>& stop, const std::atomic<bool>* abort);
  ~StopScope();
  StopScope(const StopScope&) = delete;
  StopScope& operator=(const StopScope&) = delete;

 private:
  const std::atomic<bool>* previousStop_;
  const std::atomic<bool>* previousAbort_;
};

// How many cores of the budget no lease holds at this moment (it may change at once): how many helpers are worth
// waking.
int freeCores();

// The budget's size: the cores this process may run on (core/process_limits.h) less one, at least 1;
// CUDA_MATMUL_CPU_THREADS (1 to 1024) sets it, for a process with no event loop to keep responsive (a batch job)
// that wants every core. Worked out once.
int coreBudget();

}  // namespace cuda_matmul
