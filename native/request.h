// One validated matrix product, as the plan (plan.cpp) receives it: raw row-major pointers and dims.
// C (m×n) = A (m×k) · B (k×n). Nothing here owns memory; the caller keeps the arrays alive.
#pragma once

#include <cstdint>

namespace cuda_matmul {

enum class Backend { Auto, Cuda, Cpu };
enum class Kernel { Auto, Muld, BlockTile, Mma, Wgmma };
struct KernelName {
  Kernel kernel;
  const char* name;  // as JavaScript spells it
};
inline constexpr KernelName kKernelNames[] = {
    {Kernel::Auto, "auto"}, {Kernel::Muld, "muld"}, {Kernel::BlockTile, "blocktile"}, {Kernel::Mma, "mma"}, {Kernel::Wgmma, "wgmma"}};
// fp32: float32 accuracy (default). tf32: tensor-core TF32 products, ~1e-4 relative error, faster.
enum class Precision { Fp32, Tf32 };
// The block tiles (rows × columns of C) the mma kernel is built for; the plan picks one per shape
// (plan_tiles.h). kMmaKernels in device_kernels.h lists them in this order.
enum class MmaTile { Rows128Cols128, Rows128Cols64, Rows64Cols128, Rows64Cols64 };
constexpr int kMmaTileCount = 4;

struct MatmulRequest {
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  int64_t m = 0, k = 0, n = 0;
  Backend backend = Backend::Auto;
  Kernel kernel = Kernel::Auto;
  Precision precision = Precision::Fp32;
  int device = 0;
  // Which arrays are page-locked (allocHost), so the GPU may DMA straight from or into them.
  bool pinnedA = false, pinnedB = false, pinnedC = false;
};

// gemm: C = α·op(A)·op(B) + β·C, op(X) = Xᵀ when trans is set; op(A) is m×k, op(B) k×n, C m×n.
struct GemmShape {
  int64_t m = 0, k = 0, n = 0;
  bool transA = false, transB = false;
  float alpha = 1.0f, beta = 0.0f;
};

// gemm on host arrays: `batch` products, the i-th reading a + i·strideA, b + i·strideB, writing c + i·strideC.
struct GemmRequest {
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  GemmShape shape;
  int64_t batch = 1, strideA = 0, strideB = 0, strideC = 0;
  Backend backend = Backend::Auto;
  Kernel kernel = Kernel::Auto;
  Precision precision = Precision::Fp32;
  int device = 0;
  bool pinnedA = false, pinnedB = false, pinnedC = false;
};

// gemm on Matrices: `count` products stacked by rows. The i-th reads rows i·strideA… of A (as many as A's
// stored shape has: k when transA, else m) and i·strideB… of B, and writes rows i·strideC… of C. spanA, spanB
// and spanC: the rows the whole batch covers, (count − 1)·stride + rows of one product.
struct RowBatch {
  int64_t count = 1, strideA = 0, strideB = 0, strideC = 0;
  int64_t spanA = 0, spanB = 0, spanC = 0;
};

// What the plan decided for a CUDA run: which kernel, at which tile shape (mma only), in which precision,
// and how many rows of C each pipelined panel covers.
struct KernelPlan {
  Kernel kernel = Kernel::BlockTile;
  MmaTile tile = MmaTile::Rows128Cols128;
  Precision precision = Precision::Fp32;
  int64_t panelRows = 0;
};

}  // namespace cuda_matmul
