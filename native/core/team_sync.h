// A latch and a barrier for teams of threads, as C++20's std::latch and std::barrier behave. The shipped
// binaries are built with the oldest toolchain of the glibc they support (GCC 10, which has neither header:
// docs/architecture.md, "Shipped binaries"). The CPU GEMM's team meets at the barrier twice per block of K, not in its
// inner loops, so a mutex and a condition variable serve.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace cuda_matmul {

// Opens once count_down() has been called `count` times; wait() blocks until then.
class Latch {
 public:
  explicit Latch(std::ptrdiff_t count) : remaining_(count) {}
  void count_down() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--remaining_ == 0) opened_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    opened_.wait(lock, [&] { return remaining_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  std::ptrdiff_t remaining_;
};

// A reusable barrier for `count` threads: the last to arrive runs onPhaseEnd() before any of them leaves, so
// all of them read what it wrote.
template <typename PhaseEnd>
class Barrier {
 public:
  Barrier(std::ptrdiff_t count, PhaseEnd onPhaseEnd) : count_(count), waiting_(count), onPhaseEnd_(onPhaseEnd) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const std::size_t phase = phase_;
    if (--waiting_ == 0) {
      onPhaseEnd_();
      waiting_ = count_;
      ++phase_;
      released_.notify_all();
      return;
    }
    released_.wait(lock, [&] { return phase_ != phase; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable released_;
  const std::ptrdiff_t count_;
  std::ptrdiff_t waiting_;
  std::size_t phase_ = 0;
  PhaseEnd onPhaseEnd_;
};

}  // namespace cuda_matmul
