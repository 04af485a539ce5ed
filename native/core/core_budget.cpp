#include "core/core_budget.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include "core/environment.h"
#include "core/process_limits.h"

namespace cuda_matmul {
namespace {

struct Budget {
  std::mutex mutex;
  std::condition_variable freed;
  int free = coreBudget();
};

Budget& budget() {
  static auto* shared = new Budget();  // never destroyed: pool threads may hold leases at exit
  return *shared;
}

void giveBack(int cores) {
  if (cores <= 0) return;
  Budget& b = budget();
  {
    std::lock_guard<std::mutex> lock(b.mutex);
    b.free += cores;
  }
  for (int i = 0; i < cores; ++i) b.freed.notify_one();  // each waiter needs one; waking all made a herd
}

thread_local const std::atomic<bool>* currentStop = nullptr;
thread_local const std::atomic<bool>* currentAbort = nullptr;

}  // namespace

StopSignal::StopSignal() : stop_(currentStop), abort_(currentAbort) {}

StopScope::StopScope(const std::atomic<bool>& stop, const std::atomic<bool>* abort)
    : previousStop_(currentStop), previousAbort_(currentAbort) {
  currentStop = &stop;
  currentAbort = abort;
}
StopScope::~StopScope() {
  currentStop = previousStop_;
  currentAbort = previousAbort_;
}

int coreBudget() {
  static const int cores = static_cast<int>(environmentCount(
      "CUDA_MATMUL_CPU_THREADS", 1, 1024, std::max(1, usableCores() - 1)));
  return cores;
}

CoreLease::CoreLease(int wanted) {
  Budget& b = budget();
  std::unique_lock<std::mutex> lock(b.mutex);
  b.freed.wait(lock, [&] { return b.free > 0; });
  cores_ = std::clamp(wanted, 1, b.free);
  b.free -= cores_;
}

CoreLease::CoreLease(NoWait) {
  Budget& b = budget();
  std::lock_guard<std::mutex> lock(b.mutex);
  cores_ = b.free > 0 ? 1 : 0;
  b.free -= cores_;
}

CoreLease::~CoreLease() { giveBack(cores_); }

int freeCores() {
  Budget& b = budget();
  std::lock_guard<std::mutex> lock(b.mutex);
  return b.free;
}

void CoreLease::shrinkTo(int cores) {
  const int kept = std::clamp(cores, 1, cores_);
  giveBack(cores_ - kept);
  cores_ = kept;
}

}  // namespace cuda_matmul
