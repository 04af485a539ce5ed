// The CPU backend's driver: the Goto/BLIS loop nest around a micro-kernel (gemm_kernel.inc).
//   for each nc-wide column panel of B and C                  (NC: B panel stays in L3)
//     for each kc-deep slice of k                              (KC: one A strip + one B strip fit in L1)
//       all threads pack their share of B's kc×nc panel, then wait for each other
//       each thread, for its own rows of C, mc rows at a time  (MC: the packed A block stays in L2)
//         packs A's mc×kc block and runs the micro-kernel over the block
//       wait, so nobody repacks B while another thread still reads it; stop here if the product was dropped
// Threads split the rows of C, so they never write the same element; the packed B panel is shared.
#include "cpu/gemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "core/core_budget.h"
#include "core/team_sync.h"
#include "core/errors.h"

namespace cuda_matmul {
namespace {

constexpr int64_t KC = 384;
constexpr int64_t NC = 3072;
constexpr int MC_STRIPS = 16;                // MC = MC_STRIPS · mr rows (192 for AVX-512)
constexpr int64_t kFlopsPerThread = 1 << 22;  // below this much work another thread costs more than it saves


struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
using AlignedFloats = std::unique_ptr<float[], FreeDeleter>;

AlignedFloats allocateAligned(int64_t count) {
  const size_t bytes = ((static_cast<size_t>(count) * sizeof(float)) + 63) / 64 * 64;
  auto* p = static_cast<float*>(std::aligned_alloc(64, bytes));
  if (p == nullptr)
    throw MatmulError(ErrorKind::Failure, "out of memory: the CPU backend could not allocate its packing buffers",
                      "ERR_OUT_OF_MEMORY");
  return AlignedFloats(p);
}

// B[0:kc, 0:nc] (row stride ldb) → strips of nr columns, zero-padded on the right.
void packB(const float* b, int64_t ldb, int64_t kc, int64_t nc, int nr, int64_t strip, float* packed) {
  const int64_t j0 = strip * nr;
  const int64_t cols = std::min<int64_t>(nr, nc - j0);
  float* dst = packed + j0 * kc;
  for (int64_t p = 0; p < kc; ++p, dst += nr) {
    std::memcpy(dst, b + p * ldb + j0, sizeof(float) * cols);
    std::fill(dst + cols, dst + nr, 0.0f);
  }
}

// A[0:mc, 0:kc] (row stride lda) → strips of mr rows, each stored column by column, zero-padded below.
void packA(const float* a, int64_t lda, int64_t mc, int64_t kc, int mr, float* packed) {
  for (int64_t i0 = 0; i0 < mc; i0 += mr, packed += mr * kc) {
    const int64_t rows = std::min<int64_t>(mr, mc - i0);
    for (int64_t i = 0; i < mr; ++i) {
      if (i < rows) {
        const float* src = a + (i0 + i) * lda;
        for (int64_t p = 0; p < kc; ++p) packed[p * mr + i] = src[p];
      } else {
        for (int64_t p = 0; p < kc; ++p) packed[p * mr + i] = 0.0f;
      }
    }
  }
}

// At most the cores the budget holds (the lease takes no more), and not asked of the system per product: a 16³
// product computes in less time than a read of /sys/devices/system/cpu/online.
int chooseThreadCount(int64_t m, int64_t k, int64_t n, int mr) {
  const int64_t budget = coreBudget();
  const int64_t byWork = std::max<int64_t>(1, (m * k * n) / kFlopsPerThread);
  const int64_t byRows = (m + mr - 1) / mr;
  return static_cast<int>(std::min({budget, byWork, byRows}));
}

struct Problem {
  const float* a;
  const float* b;
  float* c;
  int64_t m, k, n;
};

MatmulError droppedError() {
  return MatmulError(ErrorKind::Failure, "the product was dropped: its JavaScript environment is ending");
}

// Run by the barrier once every thread has arrived, so all of them read the same answer when they leave it.
// A product that took its core just before its environment learnt that it was ending (a Worker terminated: the
// environment learns it only when the product before cannot settle its Promise) stops after a k-slice instead of
// computing to the end (teardown.test.ts).
struct StopAtBarrier {
  StopSignal signal;
  bool* stopped;
  void operator()() noexcept { *stopped = signal.requested(); }
};
using TeamBarrier = Barrier<StopAtBarrier>;

void runThread(const Problem& pr, const CpuMicroKernel& kernel, int thread, int threads, float* packedB,
               float* packedA, TeamBarrier& sync, const bool& stopped, const StopSignal& stop) {
  const int mr = kernel.mr, nr = kernel.nr;
  const int64_t mc = static_cast<int64_t>(MC_STRIPS) * mr;
  // This thread's rows: a contiguous share of the mr-row strips of C.
  const int64_t strips = (pr.m + mr - 1) / mr;
  const int64_t rowBegin = std::min(pr.m, strips * thread / threads * mr);
  const int64_t rowEnd = std::min(pr.m, strips * (thread + 1) / threads * mr);

  for (int64_t jc = 0; jc < pr.n; jc += NC) {
    const int64_t nc = std::min(NC, pr.n - jc);
    const int64_t bStrips = (nc + nr - 1) / nr;
    for (int64_t pc = 0; pc < pr.k; pc += KC) {
      const int64_t kc = std::min(KC, pr.k - pc);
      for (int64_t s = thread; s < bStrips; s += threads) packB(pr.b + pc * pr.n + jc, pr.n, kc, nc, nr, s, packedB);
      sync.arrive_and_wait();
      // A stop skips the rest of the slice (a block of a 3072³ product is a few milliseconds); the barrier then
      // tells every thread.
      for (int64_t ic = rowBegin; ic < rowEnd && !stop.requested(); ic += mc) {
        const int64_t rows = std::min(mc, rowEnd - ic);
        packA(pr.a + ic * pr.k + pc, pr.k, rows, kc, mr, packedA);
        kernel.multiplyBlock(packedA, packedB, rows, nc, kc, pr.c + ic * pr.n + jc, pr.n, pc > 0);
      }
      sync.arrive_and_wait();
      if (stopped) return;
    }
  }
}

}  // namespace

const CpuMicroKernel& selectMicroKernel() {
  static const CpuMicroKernel* chosen = [] {
    if (const CpuMicroKernel* k = avx512MicroKernel()) return k;
    if (const CpuMicroKernel* k = avx2MicroKernel()) return k;
    return portableMicroKernel();
  }();
  return *chosen;
}

void cpuGemm(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n, CpuTeam team) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::fill(c, c + m * n, 0.0f);
    return;
  }
  const CpuMicroKernel& kernel = selectMicroKernel();
  // The team's cores, this thread's included, leased from the budget that leaves the JavaScript thread its core
  // (core/core_budget.h): with other products running it may be smaller than the work would take.
  std::optional<CoreLease> lease;
  if (team == CpuTeam::Leased) lease.emplace(chooseThreadCount(m, k, n, kernel.mr));
  const StopSignal stop;
  if (stop.requested()) throw droppedError();
  const int wanted = lease ? lease->cores() : 1;
  // Every buffer is allocated here, before any thread starts, so a failure is a plain exception to the caller.
  const int64_t panelColumns = (std::min(NC, n) + kernel.nr - 1) / kernel.nr * kernel.nr;
  AlignedFloats packedB = allocateAligned(panelColumns * KC);
  std::vector<AlignedFloats> packedA;
  for (int t = 0; t < wanted; ++t) packedA.push_back(allocateAligned(int64_t{MC_STRIPS} * kernel.mr * KC));
  const Problem problem{a, b, c, m, k, n};

  // Helpers wait until the team is known: if the system refuses a thread, the ones it gave split the work.
  Latch teamKnown(1);
  int teamSize = 1;
  bool stopped = false;
  std::optional<TeamBarrier> sync;
  std::vector<std::thread> helpers;
  helpers.reserve(static_cast<size_t>(wanted));  // a std::bad_alloc here comes before any thread exists
  try {
    for (int t = 1; t < wanted; ++t)
      helpers.emplace_back([&, t] {
        teamKnown.wait();
        runThread(problem, kernel, t, teamSize, packedB.get(), packedA[t].get(), *sync, stopped, stop);
      });
  } catch (...) {
    // The system refused a thread (std::system_error): carry on with those that started, which are joined below.
  }
  teamSize = static_cast<int>(helpers.size()) + 1;
  if (lease) lease->shrinkTo(teamSize);
  sync.emplace(teamSize, StopAtBarrier{stop, &stopped});
  teamKnown.count_down();
  runThread(problem, kernel, 0, teamSize, packedB.get(), packedA[0].get(), *sync, stopped, stop);
  for (std::thread& helper : helpers) helper.join();
  if (stopped) throw droppedError();
}

void cpuTranspose(const float* src, int64_t rows, int64_t cols, float* dst) {
  constexpr int64_t kBlock = 32;  // blocks, so both sides are walked a cache line at a time
  for (int64_t i0 = 0; i0 < rows; i0 += kBlock)
    for (int64_t j0 = 0; j0 < cols; j0 += kBlock)
      for (int64_t i = i0; i < std::min(rows, i0 + kBlock); ++i)
        for (int64_t j = j0; j < std::min(cols, j0 + kBlock); ++j) dst[j * rows + i] = src[i * cols + j];
}

}  // namespace cuda_matmul
