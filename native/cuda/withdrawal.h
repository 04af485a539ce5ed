// A write into a Matrix that its call's abort may withdraw (core/backend.h, enqueueGemm), on the Matrix's
// ordered stream (resident.cu). Before the write, the Matrix's elements are copied aside on the device; after it,
// one device thread reads the abort's word in mapped host memory (set by the JavaScript thread when the abort is
// requested) and records the decision, and the elements are copied back if it says withdrawn. The decision is
// made once, on the device, after the write: the write is whole or not at all, every operation queued after it
// sees the same, and the host learns which from the decision (committed()). The cost, only for such writes: the
// Matrix's size in device memory while the write is in flight, one device-to-device copy of it, two small launches.
#pragma once

#include <cuda_runtime.h>

#include <memory>

#include "core/call_abort.h"
#include "cuda/device_work.h"
#include "cuda/gemm_ops.h"
#include "cuda/resident.h"

namespace cuda_matmul {

struct AbortWords;

class WithdrawableWrite {
 public:
  // Copies `written`'s elements aside (queued on `stream`) and arms the abort; what the write needs is added to
  // `held`.
  WithdrawableWrite(const DeviceResident& written, cudaStream_t stream, std::shared_ptr<CallAbort> abort,
                    HeldResources& held);

  // After the write is queued: the decision and the copy back, queued on `stream`; the call's Work, which holds
  // `held` and says whether the write was made.
  std::unique_ptr<Work> seal(cudaStream_t stream, HeldResources held);

 private:
  const DeviceResident& written_;
  std::shared_ptr<AbortWords> words_;
  std::shared_ptr<DeviceAllocation> kept_;
};

}  // namespace cuda_matmul
