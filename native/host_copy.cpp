#include "host_copy.h"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <latch>
#include <mutex>
#include <thread>
#include <vector>

namespace cuda_matmul {
namespace {

// Below this a copy is not worth handing out: waking a helper costs more than copying it.
constexpr size_t kMinimumShare = 256 * 1024;

// A fixed team of helper threads taking copy jobs from one queue. The helpers are detached and live as long
// as the process (they block on the queue when idle), so no thread is started per copy.
class CopyTeam {
 public:
  static CopyTeam& instance() {
    static CopyTeam* team = new CopyTeam();  // never destroyed: helpers may be waiting on it at exit
    return *team;
  }

  size_t helpers() const { return helpers_; }

  // Runs jobs[1..] on helpers and jobs[0] on the caller, and returns once all have finished.
  void run(std::vector<std::function<void()>>& jobs) {
    std::latch done(static_cast<std::ptrdiff_t>(jobs.size()));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (size_t i = 1; i < jobs.size(); ++i)
        queue_.push_back([&done, job = &jobs[i]] {
          (*job)();
          done.count_down();
        });
    }
    wake_.notify_all();
    jobs[0]();
    done.count_down();
    done.wait();
  }

 private:
  CopyTeam() : helpers_(teamSize() - 1) {
    for (size_t i = 0; i < helpers_; ++i) std::thread([this] { serve(); }).detach();
  }

  // Every core, at most 16, unless CUDA_MATMUL_COPY_THREADS says otherwise (1 to 64): copies are short bursts,
  // and on the H100 host 4096³ from plain arrays took 19.5 ms with 4 threads, 12.1 with 12, 9.5 with 16.
  static size_t teamSize() {
    if (const char* text = std::getenv("CUDA_MATMUL_COPY_THREADS")) {
      const long wanted = std::strtol(text, nullptr, 10);
      if (wanted >= 1 && wanted <= 64) return static_cast<size_t>(wanted);
    }
    return std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 16);
  }

  void serve() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return !queue_.empty(); });
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();
    }
  }

  const size_t helpers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
};

// How many pieces to split `bytes` into: one per team member, none smaller than kMinimumShare.
size_t shares(size_t bytes) {
  return std::clamp<size_t>(bytes / kMinimumShare, 1, CopyTeam::instance().helpers() + 1);
}

}  // namespace

void parallelCopy(void* dst, const void* src, size_t bytes) {
  parallelCopyRows(dst, bytes, src, bytes, bytes, 1);
}

void parallelCopyRows(void* dst, size_t dstStride, const void* src, size_t srcStride, size_t rowBytes, size_t rows) {
  auto* out = static_cast<uint8_t*>(dst);
  const auto* in = static_cast<const uint8_t*>(src);
  const size_t pieces = shares(rowBytes * rows);
  if (rows == 1) {  // one long row: split it in byte ranges
    if (pieces == 1) return void(std::memcpy(out, in, rowBytes));
    std::vector<std::function<void()>> jobs;
    for (size_t p = 0; p < pieces; ++p) {
      const size_t begin = rowBytes * p / pieces, end = rowBytes * (p + 1) / pieces;
      jobs.push_back([=] { std::memcpy(out + begin, in + begin, end - begin); });
    }
    return CopyTeam::instance().run(jobs);
  }
  auto copyRows = [=](size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) std::memcpy(out + r * dstStride, in + r * srcStride, rowBytes);
  };
  if (pieces == 1) return copyRows(0, rows);
  std::vector<std::function<void()>> jobs;
  const size_t parts = std::min(pieces, rows);
  for (size_t p = 0; p < parts; ++p) jobs.push_back([=] { copyRows(rows * p / parts, rows * (p + 1) / parts); });
  CopyTeam::instance().run(jobs);
}

}  // namespace cuda_matmul
