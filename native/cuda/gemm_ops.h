// gemm on device operands, queued on a stream with no synchronization: op(A) and op(B) as stored for a kernel that
// reads either layout, else materialised by a transpose where needed (kernels/transpose.cu), the product by the plan's kernel (kernels/launch.h), and
// c = α·t + β·c where α and β are not 1 and 0. Used by the Matrices' ordered stream (resident.cu) and by
// host-array gemm on page-locked C (transfer/panels.cu).
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <vector>

#include "core/request.h"
#include "cuda/kernels/choose.h"
#include "cuda/kernels/launch.h"
#include "cuda/resident.h"

namespace cuda_matmul {

// What queued work uses and must outlive it: released once the work's event has passed (device_work.h).
using HeldResources = std::vector<std::shared_ptr<const void>>;

// c = α·t + β·c over rows×cols (β = 0: c = α·t, whatever c held; t may then be c itself, scaled in place).
void enqueueCombine(DeviceRows c, DeviceRows t, int64_t rows, int64_t cols, const Scale& scale, cudaStream_t stream);

// Device memory of at least `bytes` that work queued on `stream` may use until the next operation queued there
// (which runs after it): the stream's scratch buffer.
using StreamScratch = ProductLaunch::ScratchSource;

// c = op(a)·op(b) by the plan's kernel, in one launch where the grid allows and K is not split, else in slices of
// the plan's panel height (which keeps every grid within CUDA's 65535 blocks in y); a and b as stored for `shape`
// (transposes made here where the kernel needs them), α and β applied. A kernel that reads Bᵀ gets it made in `scratch`, or madeB's, made
// from b earlier on `stream`; one that makes fp16 copies (wgmma-f16) makes them in `scratch`.
// aClasses, bClasses: the operands' magnitude classes where known (kernels/kernel.h), else null.
void enqueueGemm(const KernelPlan& plan, const DeviceResident& a, const DeviceResident& b, const DeviceResident& c,
                 const GemmShape& shape, cudaStream_t stream, const StreamScratch& scratch, HeldResources& held,
                 const uint32_t* aClasses = nullptr, const uint32_t* bClasses = nullptr,
                 const std::shared_ptr<KernelOperandB>& madeB = nullptr);

}  // namespace cuda_matmul
