// Reusable CUDA resources, so a call does not pay cudaMalloc/cudaFree (cudaFree also waits for the whole
// device), stream creation or page-locking every time. Each pool is thread-safe and gives back what it caches
// once it has been idle for a while (cudaTrimIdle, status.h); device memory and streams are per device, and the
// device memory cache is bounded.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace cuda_matmul {

// Device memory from the per-device cache; returned to it (or freed, past the cache bound) on destruction.
// Throws MatmulError (cudaErrorMemoryAllocation) when the device is out of memory even after the cache of
// unused blocks has been freed.
class DeviceAllocation {
 public:
  DeviceAllocation(int device, size_t bytes);
  ~DeviceAllocation();
  DeviceAllocation(const DeviceAllocation&) = delete;
  DeviceAllocation& operator=(const DeviceAllocation&) = delete;
  float* floats() const { return static_cast<float*>(data_); }

 private:
  int device_;
  size_t bytes_;  // the block's own size, which may be larger than asked for (a cached block)
  void* data_;
};

// A non-blocking stream of `device`, which it makes current, from its pool. Destruction waits for the stream's work
// (errors ignored: they were reported where they happened) before handing it back, so no later user — and
// no buffer released after it — sees work still in flight.
class PooledStream {
 public:
  explicit PooledStream(int device);
  ~PooledStream();
  PooledStream(const PooledStream&) = delete;
  PooledStream& operator=(const PooledStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  int device_;
  cudaStream_t stream_;
};

// Whether an earlier call has brought the device up (created a stream on it): the first use of a device
// initialises its CUDA context, which takes long enough to keep off the JavaScript thread.
bool cudaDeviceStarted(int device);

// Page-locked host buffers for staging copies to and from pageable memory, in two sizes: kStagingBytes for large
// transfers, which go through them piece by piece, and kSmallStagingBytes for what fits one. Making a buffer
// (cudaHostAlloc) takes the driver's time in proportion to its size, and while it runs the other threads' CUDA calls
// wait, the JavaScript thread's included: 64 loops of 1 MiB Matrix traffic made 57 buffers of 8 MiB as they started,
// and the JavaScript thread's calls waited up to 12 ms (docs/lifecycle.md, "The event loop").
constexpr size_t kStagingBytes = size_t{8} << 20;
constexpr size_t kSmallStagingBytes = size_t{1} << 20;
// The size of staging buffer that `bytes` take: the small one where it holds them.
constexpr size_t stagingSizeFor(size_t bytes) { return bytes <= kSmallStagingBytes ? kSmallStagingBytes : kStagingBytes; }

// Buffers go back to the pool's cache and stay there until the process is idle (trimIdle): freeing one
// (cudaFreeHost) waits for the device, and making one (cudaHostAlloc) takes milliseconds, too long for the
// JavaScript thread, which gives buffers back as calls settle.
class StagingBuffer {
 public:
  // A buffer of stagingSizeFor(bytes).
  explicit StagingBuffer(size_t bytes = kStagingBytes);
  ~StagingBuffer();
  StagingBuffer(const StagingBuffer&) = delete;
  StagingBuffer& operator=(const StagingBuffer&) = delete;
  void* get() const { return data_; }
  size_t bytes() const { return bytes_; }
  // A cached buffer of stagingSizeFor(bytes), or null where the cache has none: for the JavaScript thread, which
  // must not make one.
  static std::unique_ptr<StagingBuffer> ifCached(size_t bytes);

 private:
  StagingBuffer(void* data, size_t bytes) : data_(data), bytes_(bytes) {}
  void* data_;
  size_t bytes_;
};

}  // namespace cuda_matmul
