// The plan's tests without a GPU (test/structure/plan.test.ts) read only the registry's rows and the plan's rules; the kernel
// files (CUDA) are not linked, so their variant lists are stand-ins that the tests do not read.
#pragma once

#include "cuda/kernels/kernel.h"
#include "cuda/kernels/registry.h"

namespace cuda_matmul {
namespace {
constexpr KernelVariant kNoVariants[] = {{"none", nullptr, {1, 1}, false}};
}
KernelVariants muldVariants(Precision) { return kNoVariants; }
KernelVariants blockTileVariants(Precision) { return kNoVariants; }
KernelVariants mmaVariants(Precision) { return kNoVariants; }
KernelVariants wgmmaVariants(Precision) { return kNoVariants; }
KernelVariants wgmmaTransposedVariants(Precision) { return kNoVariants; }
KernelVariants wgmmaF16Variants(Precision) { return kNoVariants; }
KernelVariants fewRowsVariants(Precision) { return kNoVariants; }
}  // namespace cuda_matmul
