// The options a caller chooses from: backends, kernels and precisions (every kernel takes both). lib/options.ts is
// the same table for the TypeScript validation; test/structure/structure.test.ts checks the two against each other through
// native.options() (binding/addon.cpp). How each kernel runs (launch, tiles, architectures) is its row in
// cuda/kernels/registry.h, which static_asserts that it lists these kernels in this order.
#pragma once

#include <cstddef>

namespace cuda_matmul {

enum class Backend { Auto, Cuda, Cpu };
inline constexpr const char* kBackendNames[] = {"auto", "cuda", "cpu"};  // by Backend

// fp32: float32 accuracy (default). tf32: tensor-core TF32 products, ~1e-4 relative error, faster; a kernel
// without such a mode computes it in fp32 (more accurate than asked).
// What each precision asks of the kernels is its row of cuda/kernels/registry.h's precision table.
enum class Precision { Fp32, Tf32 };
inline constexpr const char* kPrecisionNames[] = {"fp32", "tf32"};  // by Precision
inline constexpr size_t kPrecisionCount = sizeof kPrecisionNames / sizeof *kPrecisionNames;
constexpr size_t precisionIndex(Precision precision) { return static_cast<size_t>(precision); }

enum class Kernel { Auto, Muld, BlockTile, Mma, Wgmma, WgmmaT, WgmmaF16, FewRows };
struct KernelOption {
  Kernel kernel;
  const char* name;  // as JavaScript spells it
};
// By Kernel. Every kernel is a CUDA kernel: on the CPU backend only 'auto' is accepted.
inline constexpr KernelOption kKernelOptions[] = {
    {Kernel::Auto, "auto"}, {Kernel::Muld, "muld"}, {Kernel::BlockTile, "blocktile"}, {Kernel::Mma, "mma"}, {Kernel::Wgmma, "wgmma"},
    {Kernel::WgmmaT, "wgmma-t"}, {Kernel::WgmmaF16, "wgmma-f16"}, {Kernel::FewRows, "gemv"},
};
inline constexpr size_t kKernelCount = sizeof kKernelOptions / sizeof *kKernelOptions;

constexpr const KernelOption& kernelOption(Kernel kernel) { return kKernelOptions[static_cast<size_t>(kernel)]; }

constexpr bool listedInOrder() {
  for (size_t i = 0; i < kKernelCount; ++i)
    if (static_cast<size_t>(kKernelOptions[i].kernel) != i) return false;
  return true;
}
static_assert(listedInOrder(), "kKernelOptions is indexed by Kernel");

}  // namespace cuda_matmul
