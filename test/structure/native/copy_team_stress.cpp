// The host-copy team under the core budget, without a GPU (test/runtime/copy-team.test.ts builds this with g++ against
// native/cuda/transfer/host_copy.cpp, native/core/core_budget.cpp, native/core/scaled_sum.cpp and
// native/core/process_limits.cpp): 8 threads copy and combine at once, as pool threads do, every byte is checked, and
// ThreadSanitizer watches. A copy that lost a job, or a lease that never came back, fails here (wrong bytes, or a
// hang the test's timeout catches).
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include "core/core_budget.h"
#include "cuda/transfer/host_copy.h"

// A helper's lease (CoreLease::kIfFree) takes a free core without waiting, and none while the budget is spent:
// the copy team's helpers depend on it never blocking.
bool helperLeaseNeverWaits() {
  using namespace cuda_matmul;
  bool right = true;
  {
    const CoreLease all(coreBudget());
    right = right && all.cores() == coreBudget() && freeCores() == 0;
    const CoreLease none(CoreLease::kIfFree);
    right = right && none.cores() == 0;
  }
  const CoreLease one(CoreLease::kIfFree);
  return right && one.cores() == 1 && freeCores() == coreBudget() - 1;
}

int main() {
  using namespace cuda_matmul;
  std::printf("helper lease: %s\n", helperLeaseNeverWaits() ? "right" : "WRONG");
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([t, &wrong] {
      std::mt19937 random(t);
      for (int round = 0; round < 40; ++round) {
        // 4 KiB to 2 MiB: from one share (under 512 KiB) to 8, which spreads over the team (host_copy.cpp)
        const size_t rows = 1 + random() % 32, rowBytes = (1 + random() % 16) * 4096;
        std::vector<uint64_t> src(rows * rowBytes / 8), dst(rows * rowBytes / 8, 0);
        for (size_t i = 0; i < src.size(); ++i) src[i] = i * 2654435761u + t + round;
        parallelCopyRows(dst.data(), rowBytes, src.data(), rowBytes, rowBytes, rows);
        if (src != dst) ++wrong;
        std::vector<float> c(rows * 1024, 1.0f), product(rows * 1024, 2.0f);
        parallelCombineRows(c.data(), 1024, product.data(), 1024, 1024, rows, 0.5f, 3.0f);  // 0.5·2 + 3·1
        for (float x : c)
          if (x != 4.0f) {
            ++wrong;
            break;
          }
      }
    });
  for (std::thread& thread : threads) thread.join();
  std::printf("wrong copies: %d\n", wrong.load());
  return wrong.load() == 0 ? 0 : 1;
}
