#include "core/host_memory.h"

#include <cstdlib>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <new>

#include "core/backend.h"
#include "core/errors.h"

namespace cuda_matmul {
namespace {

struct Entry {
  void* data;
  size_t bytes;
  bool pinned;
  int uses = 0;              // products in flight using it
  bool releasePending = false;
};

class Registry {
 public:
  static Registry& instance() {
    static auto* registry = new Registry();  // never destroyed: finalizers may run during shutdown
    return *registry;
  }

  uint64_t add(const Entry& entry) {
    std::lock_guard<std::mutex> lock(mutex_);
    const uint64_t id = nextId_++;
    entries_.emplace(id, entry);
    byAddress_.emplace(entry.data, id);
    return id;
  }

  void release(uint64_t id) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto it = entries_.find(id);
    if (it == entries_.end()) return;
    if (it->second.uses > 0) {
      it->second.releasePending = true;
      return;
    }
    eraseAndFree(it, lock);
  }

  // The id of the live allocation holding [data, data+bytes), with a use taken on it; 0 if none. Every
  // matmul asks this of its three arrays, so it is a lookup by address, not a scan.
  uint64_t acquire(const void* data, size_t bytes, bool* pinned) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto after = byAddress_.upper_bound(data);
    if (after == byAddress_.begin()) return 0;
    const uint64_t id = std::prev(after)->second;
    Entry& entry = entries_.at(id);
    const auto* p = static_cast<const char*>(data);
    const auto* begin = static_cast<const char*>(entry.data);
    if (entry.releasePending || p + bytes > begin + entry.bytes) return 0;
    ++entry.uses;
    *pinned = entry.pinned;
    return id;
  }

  void endUse(uint64_t id) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto it = entries_.find(id);
    if (it == entries_.end() || --it->second.uses > 0 || !it->second.releasePending) return;
    eraseAndFree(it, lock);
  }

  bool findStart(const void* data, size_t bytes, uint64_t* id) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = byAddress_.find(data);
    if (it == byAddress_.end()) return false;
    const Entry& entry = entries_.at(it->second);
    if (entry.bytes != bytes || entry.releasePending) return false;
    *id = it->second;
    return true;
  }

 private:
  // Forgets the entry, then frees its memory outside the lock (cudaFreeHost can take a while).
  void eraseAndFree(std::map<uint64_t, Entry>::iterator it, std::unique_lock<std::mutex>& lock) {
    const Entry entry = it->second;
    byAddress_.erase(entry.data);
    entries_.erase(it);
    lock.unlock();
    freeMemory(entry);
  }

  static void freeMemory(const Entry& entry) {
    if (entry.pinned)
      cudaBackend().freePinned(entry.data);
    else
      ::operator delete(entry.data, std::align_val_t{64});
  }

  std::mutex mutex_;
  std::map<uint64_t, Entry> entries_;
  std::map<const void*, uint64_t, std::less<>> byAddress_;  // live allocations by first byte
  uint64_t nextId_ = 1;
};

}  // namespace

HostAllocation allocateHost(size_t bytes) {
  const size_t size = bytes == 0 ? 1 : bytes;
  void* data = cudaBackend().allocatePinned(size);  // nullptr without a usable GPU
  const bool pinned = data != nullptr;
  if (!pinned) {
    data = ::operator new(size, std::align_val_t{64}, std::nothrow);
    if (!data)
      throw MatmulError(ErrorKind::Failure, "allocHost: could not allocate " + std::to_string(bytes) + " bytes",
                        "ERR_OUT_OF_MEMORY");
  }
  return {Registry::instance().add({data, size, pinned}), data, pinned};
}

void releaseHost(uint64_t id) { Registry::instance().release(id); }

HostUse::HostUse(const void* data, size_t bytes) {
  // In the body, not the initializer list: pinned_'s default initializer would run after id_'s and reset it.
  id_ = Registry::instance().acquire(data, bytes, &pinned_);
}

HostUse::~HostUse() {
  if (id_) Registry::instance().endUse(id_);
}

HostUse& HostUse::operator=(HostUse&& other) noexcept {
  if (this != &other) {
    if (id_) Registry::instance().endUse(id_);
    id_ = other.id_;
    pinned_ = other.pinned_;
    other.id_ = 0;
  }
  return *this;
}

bool findHostAllocation(const void* data, size_t bytes, uint64_t* id) {
  return Registry::instance().findStart(data, bytes == 0 ? 1 : bytes, id);
}

}  // namespace cuda_matmul
