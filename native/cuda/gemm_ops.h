// gemm on device operands, queued on a stream with no synchronization: op(A) and op(B) as stored (every kernel reads
// either layout), the product by the plan's kernel (kernels/launch.h) with α and β applied as it stores C. Used by
// the Matrices' ordered stream (resident.cu).
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

// Device memory of at least `bytes` that work queued on `stream` may use until the next operation queued there
// (which runs after it): the stream's scratch buffer.
using StreamScratch = ProductLaunch::ScratchSource;

// c = α·op(a)·op(b) + β·c by the plan's kernel, in one launch where the grid allows and K is not split, else in
// slices of the plan's panel height (which keeps every grid within CUDA's 65535 blocks in y); a and b as stored
// for `shape`. A kernel that reads a rounded Bᵀ (wgmma) gets it made in `scratch`, or madeB's, made from b earlier
// on `stream`; one that makes fp16 copies (wgmma-f16) makes them in `scratch`.
// aClasses, bClasses: the operands' magnitude classes where known (kernels/kernel.h), else null.
void enqueueGemm(const KernelPlan& plan, const DeviceResident& a, const DeviceResident& b, const DeviceResident& c,
                 const GemmShape& shape, cudaStream_t stream, const StreamScratch& scratch, HeldResources& held,
                 const uint32_t* aClasses = nullptr, const uint32_t* bClasses = nullptr,
                 const std::shared_ptr<KernelOperandB>& madeB = nullptr);

}  // namespace cuda_matmul
