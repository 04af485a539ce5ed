// Host ↔ device copies of row-major matrices for one product, on one stream. Pageable host memory goes
// through a ring of page-locked staging buffers: the host copy into one buffer (spread over a few threads,
// host_copy.h) overlaps the DMA out of the previous one. Page-locked host memory (allocHost) is copied by
// DMA directly. Device rows may be padded (pitch ≥ cols).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>

#include "cuda/pools.h"

namespace cuda_matmul {

struct HostMatrix {
  const float* data;
  int64_t rows, cols;
  bool pinned;
};

// gemm's α and β, applied where a product meets C.
struct Scale {
  float alpha, beta;
};

struct DeviceRows {
  float* data;
  int64_t pitch;  // floats per row
};

class TransferQueue {
 public:
  explicit TransferQueue(cudaStream_t stream);
  ~TransferQueue();
  TransferQueue(const TransferQueue&) = delete;
  TransferQueue& operator=(const TransferQueue&) = delete;

  // Enqueues host → device. Returns once the host memory has been read (staged) or, when pinned, once the
  // DMA is enqueued: pinned memory must stay untouched until the stream is synchronized.
  void upload(const HostMatrix& host, DeviceRows device);

  // Enqueues device → host. Returns once the host memory holds the rows or, when pinned, once the DMA is
  // enqueued (the rows are there after a stream synchronize). With `scale` (pageable memory only), the rows
  // are combined into what the host holds instead: host = α·rows + β·host (gemm's α and β, routes.h).
  void download(DeviceRows device, float* host, int64_t rows, int64_t cols, bool pinned,
                const Scale* scale = nullptr);

 private:
  struct Slot;
  Slot& slot(size_t index);

  cudaStream_t stream_;
  std::unique_ptr<Slot[]> slots_;
  size_t nextSlot_ = 0;
};

}  // namespace cuda_matmul
