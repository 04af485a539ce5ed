// One product launch as the plan decided it: the kernel straight into C, or, where K is long enough for the
// plan to split it (choose.h, chooseKSplit), the kernel into partial results in a pooled workspace and a
// reduction that adds them in float64 into C. Every caller launches through this (Mul, Matrices, gemm).
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <optional>

#include "cuda/kernels/kernel.h"
#include "cuda/pools.h"
#include "cuda/kernels/choose.h"

namespace cuda_matmul {

class ProductLaunch {
 public:
  // For launches of up to maxRows rows of C, n columns, depth k. Constructed before the caller's stream, so
  // that its workspace outlives the work queued on that stream.
  // A halfOperands kernel's scratch (registry.h) comes from `scratch` where given (a Matrix operation's stream
  // scratch, which the next operation on that stream reuses at once), else from the pool.
  using ScratchSource = std::function<std::shared_ptr<DeviceAllocation>(size_t bytes)>;
  ProductLaunch(const KernelPlan& plan, int device, int64_t maxRows, int64_t n, int64_t k,
                const ScratchSource& scratch = nullptr);

  // C = A·B for `operands` (b as the kernel reads it; exactB, when unset, is b) on `stream`. Successive runs
  // (row panels) share B. For a kernel that splits its operands into TF32 parts (registry.h,
  // checksMagnitudes), A's and B's magnitudes are classified first (helpers.cuh, splitLosesProducts): B once;
  // a kernel that makes fp16 copies (halfOperands) finds them itself as it makes them.
  void run(GemmOperands operands, cudaStream_t stream) const;

  // Whether this launch splits K (it then needs its workspace).
  bool splits() const { return split_.slices > 1; }

 private:
  const KernelPlan plan_;
  const KernelVariant& kernel_;
  KSplit split_;
  int64_t pitch_;  // of each partial result
  const int device_;
  std::optional<DeviceAllocation> workspace_;
  // A's and B's classes, where the caller's operands do not carry them: allocated by the first run that needs
  // them (a Matrix carries its own: its products allocate nothing here).
  mutable std::optional<DeviceAllocation> classes_;
  mutable bool classified_ = false;  // B's found, A's begun (ORed over the runs: the row panels)
  // A halfOperands kernel's scratch (registry.h): its fp16 copies; B's is made by the first run and kept.
  std::shared_ptr<DeviceAllocation> scratch_;
  mutable bool scratchHoldsB_ = false;
};

}  // namespace cuda_matmul
