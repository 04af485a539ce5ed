#include "cuda/transfer/host_copy.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/core_budget.h"
#include "core/team_sync.h"
#include "core/environment.h"
#include "core/scaled_sum.h"
#include "core/process_limits.h"

namespace cuda_matmul {
namespace {

// Below this a copy is not worth handing out: waking a helper costs more than copying it.
constexpr size_t kMinimumShare = 256 * 1024;

// One parallel copy's jobs, taken one at a time by whoever works on it: the caller until none is left, and the
// helpers the team sends. The caller alone can finish every job, so no call waits for a helper busy elsewhere.
class CopyCall {
 public:
  explicit CopyCall(std::vector<std::function<void()>>& jobs) : jobs_(jobs), count_(jobs.size()), finished_(jobs.size()) {}
  // Whether a job is still to be taken.
  bool open() const { return next_.load() < count_; }
  // Runs jobs not yet taken until none is left. A helper that comes after the last was taken touches nothing.
  void work() {
    for (size_t i; (i = next_.fetch_add(1)) < count_;) {
      jobs_[i]();
      finished_.count_down();
    }
  }
  void waitForAll() { finished_.wait(); }

 private:
  std::vector<std::function<void()>>& jobs_;  // the caller's, alive until waitForAll() returns
  const size_t count_;
  std::atomic<size_t> next_{0};
  Latch finished_;
};

// A fixed team of helper threads working on the copies queued for them. The helpers are detached and live as
// long as the process (they block on the queue when idle), so no thread is started per copy.
class CopyTeam {
 public:
  static CopyTeam& instance() {
    static CopyTeam* team = new CopyTeam();  // never destroyed: helpers may be waiting on it at exit
    return *team;
  }

  size_t helpers() const { return helpers_; }

  // Runs the jobs on the caller and on the helpers that find a core of the budget free (core/core_budget.h: every
  // core but the JavaScript thread's, shared with other copies and the CPU backend), and returns once all have
  // finished. Each thread holds its one core only while it copies: when the caller leased cores for every helper
  // it woke, the first of several copies in flight took the whole budget, helpers that came late held cores
  // idle, and the other callers waited without copying (HTTP 1024³ per request: 1 048–1 560 requests/s before,
  // 2 002–2 072 after, same runs; docs/transfers.md, "The routes").
  void run(std::vector<std::function<void()>>& jobs) {
    const CoreLease own(1);  // the caller's core: it waits only while every core of the budget is busy
    const auto call = std::make_shared<CopyCall>(jobs);
    const size_t sent = std::min({jobs.size() - 1, helpers_, static_cast<size_t>(std::max(freeCores(), 0))});
    if (sent > 0) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        for (size_t i = 0; i < sent; ++i) queue_.push_back(call);
      }
      for (size_t i = 0; i < sent; ++i) wake_.notify_one();
    }
    call->work();
    call->waitForAll();
  }

 private:
  CopyTeam() : helpers_(teamSize() - 1) {
    for (size_t i = 0; i < helpers_; ++i) std::thread([this] { serve(); }).detach();
  }

  // Every usable core (core/process_limits.h), at most 16, unless CUDA_MATMUL_COPY_THREADS says otherwise (1 to 64): copies are short bursts,
  // and on the H100 host 4096³ from plain arrays took 19.5 ms with 4 threads, 12.1 with 12, 9.5 with 16.
  static size_t teamSize() {
    const long cores = std::clamp<long>(usableCores(), 1, 16);
    return static_cast<size_t>(environmentCount("CUDA_MATMUL_COPY_THREADS", 1, 64, cores));
  }

  void serve() {
    for (;;) {
      std::shared_ptr<CopyCall> call;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return !queue_.empty(); });
        call = std::move(queue_.front());
        queue_.pop_front();
      }
      if (!call->open()) continue;  // came after the last job was taken
      const CoreLease lease(CoreLease::kIfFree);
      if (lease.cores() > 0) call->work();  // else every core is busy: the threads on it finish without this one
    }
  }

  const size_t helpers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<CopyCall>> queue_;
};

// How many pieces to split `bytes` into: one per team member, none smaller than kMinimumShare.
size_t shares(size_t bytes) {
  return std::clamp<size_t>(bytes / kMinimumShare, 1, CopyTeam::instance().helpers() + 1);
}


// Runs part(firstRow, endRow, firstCol, endCol) over a rows×cols block in shares, one per team member: whole
// rows, or for one long row, ranges of its columns.
void inShares(size_t rows, size_t cols, size_t elementBytes,
              const std::function<void(size_t, size_t, size_t, size_t)>& part) {
  const size_t pieces = shares(rows * cols * elementBytes);
  if (pieces == 1) return part(0, rows, 0, cols);
  std::vector<std::function<void()>> jobs;
  const size_t parts = rows == 1 ? pieces : std::min(pieces, rows);
  for (size_t p = 0; p < parts; ++p) {
    if (rows == 1)
      jobs.push_back([&part, p, parts, cols] { part(0, 1, cols * p / parts, cols * (p + 1) / parts); });
    else
      jobs.push_back([&part, p, parts, rows, cols] { part(rows * p / parts, rows * (p + 1) / parts, 0, cols); });
  }
  CopyTeam::instance().run(jobs);
}

}  // namespace

void prefetchForCopyInto(const void* dst, size_t bytes) {
  if (shares(bytes) > 1) return;
  const auto* lines = static_cast<const char*>(dst);
  for (size_t offset = 0; offset < bytes; offset += 64) __builtin_prefetch(lines + offset, 1, 3);
}

void parallelCopy(void* dst, const void* src, size_t bytes) { parallelCopyRows(dst, bytes, src, bytes, bytes, 1); }

void parallelCopyRows(void* dst, size_t dstStride, const void* src, size_t srcStride, size_t rowBytes, size_t rows) {
  auto* out = static_cast<uint8_t*>(dst);
  const auto* in = static_cast<const uint8_t*>(src);
  inShares(rows, rowBytes, 1, [=](size_t r0, size_t r1, size_t b0, size_t b1) {
    for (size_t r = r0; r < r1; ++r) std::memcpy(out + r * dstStride + b0, in + r * srcStride + b0, b1 - b0);
  });
}

void parallelCopyPieces(const std::vector<CopyPiece>& pieces) {
  size_t total = 0;
  for (const CopyPiece& piece : pieces) total += piece.bytes;
  const size_t runs = std::min(shares(total), pieces.size());
  auto copyRun = [&pieces](size_t first, size_t end) {
    for (size_t i = first; i < end; ++i)
      if (pieces[i].bytes > 0) std::memcpy(pieces[i].dst, pieces[i].src, pieces[i].bytes);  // k = 0: no memory
  };
  if (runs <= 1) return copyRun(0, pieces.size());
  // A run ends after the piece that takes the bytes copied past the next runs-th of the total.
  std::vector<std::function<void()>> jobs;
  size_t first = 0, copied = 0;
  for (size_t end = 1; end <= pieces.size(); ++end) {
    copied += pieces[end - 1].bytes;
    if (copied * runs < total * (jobs.size() + 1) && end < pieces.size()) continue;
    jobs.push_back([copyRun, first, end] { copyRun(first, end); });
    first = end;
  }
  CopyTeam::instance().run(jobs);
}

void parallelCombineRows(float* c, size_t cPitch, const float* t, size_t tPitch, size_t cols, size_t rows, float alpha,
                         float beta) {
  inShares(rows, cols, sizeof(float), [=](size_t r0, size_t r1, size_t c0, size_t c1) {
    for (size_t r = r0; r < r1; ++r) scaledSumInto(c + r * cPitch + c0, t + r * tPitch + c0, c1 - c0, alpha, beta);
  });
}

}  // namespace cuda_matmul
