#include "core/result_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "core/backend.h"
#include "core/errors.h"
#include "core/process_limits.h"

namespace cuda_matmul {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kCacheLimitBytes = size_t{512} << 20;
// Blocks from here up are mapped on their own (returned to the system when freed), 2 MiB-aligned.
constexpr size_t kMappedBytes = size_t{2} << 20;
constexpr size_t kHugePage = size_t{2} << 20;
// Blocks from here up get huge pages advised (faulting in a 64 MiB result took 38–45 ms on one thread of the H100
// host, 2.6–2.9 ms with huge pages over 15: docs/transfers.md, "New result arrays"), and the
// ones made ahead (prepareSpares) are page-locked: registering 64 MiB took 4.0 ms there, and DMA straight into it
// saved 2.3 ms of every 4096³ product's copies out of staging (docs/transfers.md, "New result arrays", and "Where result blocks are page-locked").
constexpr size_t kLargeBytes = size_t{32} << 20;
// Blocks of a large size made ahead when its last cached one is taken (prepareSpares), each on a thread of its own.
constexpr size_t kSpares = 4;

// Four block sizes per power of two, so a block is at most a quarter unused; the sizes of square results
// (16³: 1 KiB, 64³: 16 KiB, 4096³: 64 MiB) are block sizes themselves.
size_t blockSize(size_t bytes) {
  if (bytes <= 64) return 64;
  const size_t step = std::bit_floor(bytes - 1) / 4;
  return (bytes + step - 1) / step * step;
}

void* mapBlock(size_t size) {
  // Over-map by a huge page, then unmap what lies outside the aligned block.
  void* mapped = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(mapped);
  const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) munmap(mapped, aligned - start);
  munmap(reinterpret_cast<void*>(aligned + size), start + kHugePage - aligned);  // what is left: 4 KiB to 2 MiB
  // Only large blocks (preferHugePages): with the host's `madvise` defrag mode a huge-page fault may compact
  // memory first.
  preferHugePages(reinterpret_cast<void*>(aligned), size);
  return reinterpret_cast<void*>(aligned);
}

// One write per page: with huge pages, the first in each 2 MiB faults the whole of it in.
void faultIn(void* data, size_t size) {
  for (size_t offset = 0; offset < size; offset += 4096) static_cast<volatile char*>(data)[offset] = 0;
}

// An eighth of the memory this process may use (core/process_limits.h): a container's limit, not its host's memory.
size_t cacheLimit() {
  const uint64_t usable = usableMemoryBytes();
  if (usable == 0) return kCacheLimitBytes;  // not known
  return static_cast<size_t>(std::min<uint64_t>(kCacheLimitBytes, usable / 8));
}

class ResultCache {
 public:
  static ResultCache& instance() {
    static auto* cache = new ResultCache();  // never destroyed: V8 may free results during and after exit
    return *cache;
  }

  void* take(size_t size) {
    void* data = nullptr;
    size_t left = 0;  // blocks of this size still cached after this one
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = free_.find(size); it != free_.end()) {
        auto& blocks = it->second;
        const auto chosen = newestPinnedOrNewest(size, blocks);
        data = chosen->data;
        blocks.erase(chosen);
        left = blocks.size();
        if (blocks.empty()) free_.erase(it);
        cachedBytes_ -= size;
      }
    }
    if (size >= kLargeBytes && left == 0) prepareSpares(size);  // this size has run dry
    return data ? data : newBlock(size);
  }

  // Large blocks of a size that has run dry, made ahead: the garbage collector gives earlier results back only
  // every few calls, so without them the next calls of this size would get fresh memory (4096³: 13–15 ms, against
  // 7–8 on a block used before). Up to kSpares, at most half the cache, are mapped, faulted in and page-locked, each
  // on a thread of its own, and cached as if given back (so the idle trim frees them if no call comes). They stop
  // once the collector keeps up. Only they are page-locked (~4 ms for 64 MiB): done in the call that reused a block
  // (the rule before), or in the background to every block given back (tried), it put 3–4 ms outliers among a
  // process's first 4096³ products. One thread per block: on two threads, after rounds of small products (a short
  // warm-up), the second pair was still being made, and page-locked, during the runs that followed, which took up
  // to 22 ms instead of 7 (docs/transfers.md, "New result arrays", to "The inline route's tile").
  void prepareSpares(size_t size) {
    const size_t count = std::min(kSpares, limit_ / 2 / size);  // older blocks make room (giveBack)
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (count == 0 || preparing_.contains(size)) return;
      preparing_[size] = count;
    }
    for (size_t i = 0; i < count; ++i) {
      try {
        std::thread([this, size] {
          if (void* data = newBlock(size)) {
            faultIn(data, size);  // over huge pages where it can: faster than page-locking's own faults
            pin(data);
            giveBack(data, size);
          }
          sparesThreadDone(size);
        }).detach();
      } catch (const std::system_error&) {  // no thread to be had: fewer spares, or none, as before them
        sparesThreadDone(size);
      }
    }
  }

  void sparesThreadDone(size_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--preparing_[size] == 0) preparing_.erase(size);
  }

  // Over the limit, the blocks given back longest ago make room: a cache full of one size must not turn away another
  // (after rounds of small products, every 4096³ result was unmapped and mapped anew: docs/transfers.md, "New result arrays").
  void giveBack(void* data, size_t size) {
    std::vector<std::pair<void*, size_t>> evicted;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (size <= limit_) {
        while (cachedBytes_ + size > limit_) evicted.push_back(evictOldest());
        free_[size].push_back({data, Clock::now()});
        cachedBytes_ += size;
        data = nullptr;
      }
    }
    for (const auto& [block, blockSize] : evicted) freeBlock(block, blockSize);
    if (data) freeBlock(data, size);
  }

  void trim(double idleSeconds) {
    const auto cutoff = Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(idleSeconds));
    std::vector<std::pair<void*, size_t>> freed;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto it = free_.begin(); it != free_.end();) {
        auto& [size, blocks] = *it;
        // Given back in time order, so the idle ones are a prefix.
        const auto idleEnd = std::find_if(blocks.begin(), blocks.end(), [&](const Cached& b) { return b.since > cutoff; });
        for (auto b = blocks.begin(); b != idleEnd; ++b) freed.emplace_back(b->data, size);
        cachedBytes_ -= size * static_cast<size_t>(idleEnd - blocks.begin());
        blocks.erase(blocks.begin(), idleEnd);
        it = blocks.empty() ? free_.erase(it) : std::next(it);
      }
    }
    for (const auto& [data, size] : freed) freeBlock(data, size);
  }

  bool pinned(void* data, size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = mapped_.find(data);
    return it != mapped_.end() && it->second.pinned && bytes <= it->second.size;
  }

  size_t cachedBytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return cachedBytes_;
  }

  size_t pinnedBytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return pinnedBytes_;
  }

 private:
  struct Cached {
    void* data;
    Clock::time_point since;
  };
  struct Mapped {
    size_t size;
    bool pinned = false;
  };

  // The block to hand out: the most recently given back (likeliest still in the CPU's caches) among those
  // page-locked, else the most recently given back. Under the lock; `blocks` is not empty.
  std::deque<Cached>::iterator newestPinnedOrNewest(size_t size, std::deque<Cached>& blocks) {
    if (size < kLargeBytes) return std::prev(blocks.end());  // none of this size is page-locked
    for (auto it = blocks.end(); it != blocks.begin();) {
      --it;
      if (mapped_.at(it->data).pinned) return it;
    }
    return std::prev(blocks.end());
  }

  // Page-locks a block made ahead (prepareSpares), not yet handed out. Page-locked memory cannot be swapped or
  // reclaimed, and blocks stay locked while their results are kept: at most the cache's limit of it in all.
  void pin(void* data) {
    size_t size;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      size = mapped_.at(data).size;
      if (pinnedBytes_ + size > limit_) return;
      pinnedBytes_ += size;  // reserved: spares of another size may be page-locked meanwhile
    }
    const bool pinnedNow = cudaBackend().pinHost(data, size);  // milliseconds: outside the lock
    std::lock_guard<std::mutex> lock(mutex_);
    if (pinnedNow) mapped_.at(data).pinned = true;
    else pinnedBytes_ -= size;
  }

  // The block given back longest ago, taken out of the cache. Under the lock, with the cache not empty.
  std::pair<void*, size_t> evictOldest() {
    auto oldest = free_.begin();
    for (auto it = free_.begin(); it != free_.end(); ++it)
      if (it->second.front().since < oldest->second.front().since) oldest = it;
    const std::pair<void*, size_t> block{oldest->second.front().data, oldest->first};
    oldest->second.pop_front();
    if (oldest->second.empty()) free_.erase(oldest);
    cachedBytes_ -= block.second;
    return block;
  }

  void* newBlock(size_t size) {
    if (size < kMappedBytes) return ::operator new(size, std::align_val_t{64}, std::nothrow);
    void* data = mapBlock(size);
    if (data) {
      std::lock_guard<std::mutex> lock(mutex_);
      mapped_.emplace(data, Mapped{size});
    }
    return data;
  }

  void freeBlock(void* data, size_t size) {
    if (size < kMappedBytes) return ::operator delete(data, std::align_val_t{64});
    bool wasPinned;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto it = mapped_.find(data);
      wasPinned = it->second.pinned;
      if (wasPinned) pinnedBytes_ -= size;
      mapped_.erase(it);
    }
    if (wasPinned) cudaBackend().unpinHost(data);
    munmap(data, size);
  }

  std::mutex mutex_;
  std::map<size_t, std::deque<Cached>> free_;  // by block size, none empty, each oldest first
  std::map<void*, Mapped> mapped_;              // every mapped block, handed out or cached
  std::map<size_t, size_t> preparing_;          // sizes whose spares are being made: threads still at it
  size_t cachedBytes_ = 0;
  size_t pinnedBytes_ = 0;  // of mapped blocks, handed out or cached
  const size_t limit_ = cacheLimit();
};

}  // namespace

void preferHugePages(void* data, size_t bytes) {
  if (bytes < kLargeBytes) return;
  const auto begin = (reinterpret_cast<uintptr_t>(data) + kHugePage - 1) / kHugePage * kHugePage;
  const auto end = (reinterpret_cast<uintptr_t>(data) + bytes) / kHugePage * kHugePage;
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

void* takeResultMemory(size_t bytes) {
  if (void* data = ResultCache::instance().take(blockSize(bytes))) return data;
  throw MatmulError(ErrorKind::Failure, "could not allocate " + std::to_string(bytes) + " bytes for the result",
                    "ERR_OUT_OF_MEMORY");
}

void giveBackResultMemory(void* data, size_t bytes) { ResultCache::instance().giveBack(data, blockSize(bytes)); }

void trimResultMemory(double idleSeconds) { ResultCache::instance().trim(idleSeconds); }

bool pinnedResultBlock(void* data, size_t bytes) { return ResultCache::instance().pinned(data, bytes); }

size_t resultBytesCached() { return ResultCache::instance().cachedBytes(); }

size_t resultBytesPinned() { return ResultCache::instance().pinnedBytes(); }

}  // namespace cuda_matmul
