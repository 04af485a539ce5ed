#include "cuda/withdrawal.h"

#include <mutex>
#include <vector>

#include "cuda/check.h"

namespace cuda_matmul {

// One write's words in mapped page-locked host memory: `requested` written by the host, `withdrawn` by the device.
struct AbortWords {
  volatile int requested;
  volatile int withdrawn;
};

namespace {

// Words handed out from mapped pages that are never freed: cudaFreeHost would wait for the device, and a call
// with a signal must not.
class AbortWordPool {
 public:
  std::shared_ptr<AbortWords> take() {
    AbortWords* words = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (free_.empty()) grow();
      words = free_.back();
      free_.pop_back();
    }
    words->requested = 0;
    words->withdrawn = 0;
    return std::shared_ptr<AbortWords>(words, [this](AbortWords* given) {
      std::lock_guard<std::mutex> lock(mutex_);
      free_.push_back(given);
    });
  }

 private:
  void grow() {
    constexpr size_t kPageBytes = 4096;
    void* page = nullptr;
    checkCuda(cudaHostAlloc(&page, kPageBytes, cudaHostAllocMapped | cudaHostAllocPortable), "cudaHostAlloc(abort words)");
    auto* words = static_cast<AbortWords*>(page);
    for (size_t i = 0; i < kPageBytes / sizeof(AbortWords); ++i) free_.push_back(words + i);
  }

  std::mutex mutex_;
  std::vector<AbortWords*> free_;
};

AbortWordPool& abortWordPool() {
  static auto* pool = new AbortWordPool();  // never destroyed: words may be in use until the process ends
  return *pool;
}

// On the device, with unified addressing: mapped host memory is read through the host pointer. The decision also
// goes to device memory (`decision`, where there is a copy to put back), which the copy kernel's threads read: each
// read of mapped memory crosses the bus, and a thread each made a 512² write take 1.9 ms instead of 30 µs.
__global__ void decideWithdrawal(AbortWords* words, int* decision) {
  const int withdrawn = words->requested;
  words->withdrawn = withdrawn;
  if (decision) *decision = withdrawn;
}

__global__ void copyBackIfWithdrawn(const int* decision, const float4* __restrict__ kept, float4* __restrict__ elements,
                                    int64_t count) {
  if (!*decision) return;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x)
    elements[i] = kept[i];
}

// The decision, as the host reads it once the stream has passed the write.
class WithdrawableWork : public DeviceWork {
 public:
  WithdrawableWork(cudaStream_t stream, HeldResources held, std::shared_ptr<AbortWords> words)
      : DeviceWork(stream, std::move(held)), words_(std::move(words)) {}
  bool committed() const override { return words_->withdrawn == 0; }

 private:
  std::shared_ptr<AbortWords> words_;
};

// Floats of the written Matrix's memory, rows padded (a multiple of 4: kernels/kernel.h, paddedPitch).
int64_t paddedFloats(const DeviceResident& m) { return m.rows * m.pitch; }

// The kept copy holds the elements, then the device's copy of the decision, 16 bytes on.
int* decisionIn(const DeviceAllocation& kept, int64_t floats) { return reinterpret_cast<int*>(kept.floats() + floats); }

}  // namespace

WithdrawableWrite::WithdrawableWrite(const DeviceResident& written, cudaStream_t stream, std::shared_ptr<CallAbort> abort,
                                     HeldResources& held)
    : written_(written), words_(abortWordPool().take()) {
  const size_t bytes = sizeof(float) * static_cast<size_t>(paddedFloats(written));
  if (bytes > 0) {
    kept_ = std::make_shared<DeviceAllocation>(written.device, bytes + 16);
    checkCuda(cudaMemcpyAsync(kept_->floats(), written.floats(), bytes, cudaMemcpyDeviceToDevice, stream),
              "cudaMemcpyAsync(a withdrawable write's elements)");
    held.push_back(kept_);
  }
  abort->onRequest([words = words_] { words->requested = 1; });
}

std::unique_ptr<Work> WithdrawableWrite::seal(cudaStream_t stream, HeldResources held) {
  const int64_t floats = paddedFloats(written_);
  int* decision = kept_ ? decisionIn(*kept_, floats) : nullptr;
  decideWithdrawal<<<1, 1, 0, stream>>>(words_.get(), decision);
  if (kept_) {
    const int64_t count = floats / 4;
    const int blocks = static_cast<int>(std::min<int64_t>((count + 255) / 256, 1024));
    copyBackIfWithdrawn<<<blocks, 256, 0, stream>>>(decision, reinterpret_cast<const float4*>(kept_->floats()),
                                                    reinterpret_cast<float4*>(written_.floats()), count);
  }
  checkCuda(cudaGetLastError(), "a withdrawable write's decision");
  return std::make_unique<WithdrawableWork>(stream, std::move(held), words_);
}

}  // namespace cuda_matmul
