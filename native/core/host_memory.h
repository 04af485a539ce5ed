// allocHost's memory: page-locked (pinned) where CUDA is usable, so the GPU copies straight from and into it
// by DMA, with no staging copy; plain 64-byte-aligned memory otherwise (it still works everywhere, only
// without the speed-up). Every allocation is registered, so a product can ask whether its arrays are pinned,
// and freeing one that a product in flight still uses waits until that product is done with it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cuda_matmul {

struct HostAllocation {
  uint64_t id;  // stable handle for release (addresses are reused after a free)
  void* data;
  bool pinned;
};

// Throws MatmulError (Failure, ERR_OUT_OF_MEMORY) when no memory can be had.
HostAllocation allocateHost(size_t bytes);

// Frees the allocation now, or once the last product using it ends. Releasing an id twice is a no-op (the
// garbage collector's finalizer runs after an explicit freeHost).
void releaseHost(uint64_t id);

// A product's hold on the allocation (if any) that [data, data+bytes) lies in: while it exists, freeHost
// only marks the allocation for release. Taken on the JavaScript thread when the call is made, before
// freeHost could run. pinned(): whether copies may DMA straight from/into the range.
class HostUse {
 public:
  HostUse() = default;
  HostUse(const void* data, size_t bytes);
  ~HostUse();
  HostUse(HostUse&& other) noexcept : id_(other.id_), pinned_(other.pinned_) { other.id_ = 0; }
  HostUse& operator=(HostUse&& other) noexcept;
  HostUse(const HostUse&) = delete;
  HostUse& operator=(const HostUse&) = delete;
  bool pinned() const { return pinned_; }

 private:
  uint64_t id_ = 0;
  bool pinned_ = false;
};

// The allocation whose first byte is `data`, if `data` starts one (freeHost checks its argument with it).
bool findHostAllocation(const void* data, size_t bytes, uint64_t* id);

}  // namespace cuda_matmul
