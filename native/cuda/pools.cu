#include "cuda/pools.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "cuda/status.h"
#include "cuda/check.h"

namespace cuda_matmul {
namespace {

using Clock = std::chrono::steady_clock;

// Blocks are rounded up to 1 MiB so that similar sizes share blocks; a cached block serves requests down to
// half its size, so a small call does not tie up a huge block.
constexpr size_t kGranule = size_t{1} << 20;
constexpr size_t kMaxCachedDeviceBytes = size_t{2} << 30;

size_t roundUp(size_t bytes) { return std::max<size_t>(1, (bytes + kGranule - 1) / kGranule) * kGranule; }

// A block of device memory and its size: a cached block may be larger than the request it serves, and it is
// counted, released and cached again at its own size.
struct Block {
  void* data;
  size_t bytes;
};

class DeviceMemoryPool {
 public:
  Block acquire(int device, size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      lastUse_ = Clock::now();
      auto fit = free_.lower_bound(bytes);
      if (fit != free_.end() && fit->first <= 2 * bytes) {
        const Block block{fit->second, fit->first};
        cached_ -= block.bytes;
        inUse_ += block.bytes;
        free_.erase(fit);
        return block;
      }
    }
    void* data = nullptr;
    cudaError_t status = cudaMalloc(&data, bytes);
    if (status == cudaErrorMemoryAllocation) {  // the cache may be what fills the device: empty it, try again
      cudaGetLastError();
      releaseAllCached(device);
      status = cudaMalloc(&data, bytes);
    }
    checkCuda(status, "cudaMalloc");
    std::lock_guard<std::mutex> lock(mutex_);
    inUse_ += bytes;
    return {data, bytes};
  }

  void release(const Block& block) {
    std::lock_guard<std::mutex> lock(mutex_);
    lastUse_ = Clock::now();
    inUse_ -= block.bytes;
    if (cached_ + block.bytes <= kMaxCachedDeviceBytes) {
      free_.emplace(block.bytes, block.data);
      cached_ += block.bytes;
      return;
    }
    cudaFree(block.data);
  }

  // Frees every cached block if the pool has been idle since `idleSince` and nothing is in use.
  void releaseCachedIfIdle(int device, Clock::time_point idleSince) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (inUse_ > 0 || lastUse_ > idleSince) return;
    }
    releaseAllCached(device);
  }

  // Frees every cached block (blocks in use are not in the cache); unlocked while it frees, as the staging pool.
  void releaseAllCached(int device) {
    std::multimap<size_t, void*> cached;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      cached.swap(free_);
      cached_ = 0;
    }
    // Nothing to free: the device is left alone. cudaSetDevice would make its context, which on a host of several
    // GPUs the idle trim did for every device this process never used, holding the driver up to half a second a time.
    if (cached.empty()) return;
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(device);
    for (auto& [size, data] : cached) cudaFree(data);
    cudaSetDevice(previous);
  }

  MemoryUsage usage() {
    std::lock_guard<std::mutex> lock(mutex_);
    return {inUse_, cached_, 0};
  }

 private:
  std::mutex mutex_;
  std::multimap<size_t, void*> free_;
  size_t inUse_ = 0, cached_ = 0;
  Clock::time_point lastUse_ = Clock::now();
};

class StreamPool {
 public:
  cudaStream_t acquire(int device) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        cudaStream_t stream = free_.back();
        free_.pop_back();
        return stream;
      }
    }
    cudaStream_t stream = nullptr;
    checkCuda(cudaSetDevice(device), "cudaSetDevice");  // a stream belongs to the device current when it is made
    checkCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    started_ = true;
    return stream;
  }
  bool started() const { return started_; }
  void release(cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(stream);  // streams are few (one set per call in flight) and cheap to keep
  }

 private:
  std::mutex mutex_;
  std::vector<cudaStream_t> free_;
  std::atomic<bool> started_{false};
};

// The staging buffers of one size.
class StagingPool {
 public:
  explicit StagingPool(size_t bytes) : bytes_(bytes) {}
  // A cached buffer, else a new one.
  void* acquire() {
    if (void* cached = tryAcquire()) return cached;
    void* data = nullptr;
    checkCuda(cudaHostAlloc(&data, bytes_, cudaHostAllocPortable), "cudaHostAlloc(staging)");
    std::lock_guard<std::mutex> lock(mutex_);
    ++allocated_;
    return data;
  }
  // A cached buffer, or null.
  void* tryAcquire() {
    std::lock_guard<std::mutex> lock(mutex_);
    lastUse_ = Clock::now();
    if (free_.empty()) return nullptr;
    void* data = free_.back();
    free_.pop_back();
    return data;
  }
  // Kept however many there are (StagingBuffer, pools.h): as many as were in use at once, until idle.
  void release(void* data) {
    std::lock_guard<std::mutex> lock(mutex_);
    lastUse_ = Clock::now();
    free_.push_back(data);
  }
  void releaseCachedIfIdle(Clock::time_point idleSince) {
    std::vector<void*> idle;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (lastUse_ > idleSince) return;
      idle.swap(free_);
      allocated_ -= idle.size();
    }
    for (void* data : idle) cudaFreeHost(data);  // unlocked: a call taking a buffer meanwhile does not wait for it
  }
  MemoryUsage usage() {
    std::lock_guard<std::mutex> lock(mutex_);
    return {0, 0, allocated_ * bytes_};
  }

 private:
  const size_t bytes_;
  std::mutex mutex_;
  std::vector<void*> free_;
  size_t allocated_ = 0;
  Clock::time_point lastUse_ = Clock::now();
};

struct DevicePools {
  DeviceMemoryPool memory;
  StreamPool streams;
};

// Pools live for the whole process (never destroyed: a worker thread may still be returning to them at exit).
DevicePools& poolsOf(int device) {
  static std::mutex mutex;
  static auto* pools = new std::map<int, std::unique_ptr<DevicePools>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto& entry = (*pools)[device];
  if (!entry) entry = std::make_unique<DevicePools>();
  return *entry;
}

// The staging pools, small then large (never destroyed, as the device pools).
const std::array<StagingPool*, 2>& stagingPools() {
  static const std::array<StagingPool*, 2> pools{new StagingPool(kSmallStagingBytes), new StagingPool(kStagingBytes)};
  return pools;
}
// The pool of stagingSizeFor(bytes) buffers.
StagingPool& stagingPool(size_t bytes) { return *stagingPools()[stagingSizeFor(bytes) == kSmallStagingBytes ? 0 : 1]; }

// The devices the probe found (device.cu), without asking the driver again.
std::vector<int> knownDevices() {
  std::vector<int> devices;
  for (const DeviceDescription& device : cudaStatus().devices) devices.push_back(device.index);
  return devices;
}

}  // namespace

DeviceAllocation::DeviceAllocation(int device, size_t bytes) : device_(device) {
  const Block block = poolsOf(device).memory.acquire(device, roundUp(bytes));
  data_ = block.data;
  bytes_ = block.bytes;
}
DeviceAllocation::~DeviceAllocation() { poolsOf(device_).memory.release({data_, bytes_}); }

bool cudaDeviceStarted(int device) { return poolsOf(device).streams.started(); }

PooledStream::PooledStream(int device) : device_(device), stream_(poolsOf(device).streams.acquire(device)) {}
PooledStream::~PooledStream() {
  cudaStreamSynchronize(stream_);
  cudaGetLastError();
  poolsOf(device_).streams.release(stream_);
}

StagingBuffer::StagingBuffer(size_t bytes) : data_(stagingPool(bytes).acquire()), bytes_(stagingSizeFor(bytes)) {}
StagingBuffer::~StagingBuffer() { stagingPool(bytes_).release(data_); }
std::unique_ptr<StagingBuffer> StagingBuffer::ifCached(size_t bytes) {
  void* data = stagingPool(bytes).tryAcquire();
  return data ? std::unique_ptr<StagingBuffer>(new StagingBuffer(data, stagingSizeFor(bytes))) : nullptr;
}

MemoryUsage cudaMemoryUsage() {
  MemoryUsage total;
  for (StagingPool* pool : stagingPools()) total.stagingBytes += pool->usage().stagingBytes;
  for (int device : knownDevices()) {
    const MemoryUsage usage = poolsOf(device).memory.usage();
    total.deviceBytesInUse += usage.deviceBytesInUse;
    total.deviceBytesCached += usage.deviceBytesCached;
  }
  return total;
}

void cudaTrimIdle(double idleSeconds) {
  const auto idleSince = Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(idleSeconds));
  for (int device : knownDevices()) poolsOf(device).memory.releaseCachedIfIdle(device, idleSince);
  for (StagingPool* pool : stagingPools()) pool->releaseCachedIfIdle(idleSince);
}

}  // namespace cuda_matmul
