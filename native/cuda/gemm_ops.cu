#include "cuda/gemm_ops.h"

#include <algorithm>

#include "cuda/check.h"
#include "cuda/kernels/launch.h"

namespace cuda_matmul {
namespace {

// Rows of C per launch. Row panels overlap host copies with kernels (choose.h, choosePanelRows); operands
// already on the device have none to overlap, and each panel boundary drains the GPU: 4096³ fp32 on wgmma, back
// to back, 134.6 TFLOP/s whole against 127.1 in 1024-row panels (docs/kernels.md, "Tiles for narrow products and small grids"). So one launch, within the
// grid's limit — unless K is split, whose workspace holds one panel's partial results.
int64_t rowsPerLaunch(const KernelPlan& plan, const GemmShape& s) {
  if (s.k > sliceDepth(*plan.row, plan.precision)) return std::min(plan.panelRows, s.m);
  return std::min(s.m, kMaxGridRows * plan.variant->tile.rows);
}

}  // namespace

void enqueueGemm(const KernelPlan& plan, const DeviceResident& a, const DeviceResident& b,
                 const DeviceResident& c, const GemmShape& s, cudaStream_t stream, const StreamScratch& scratch,
                 HeldResources& held, const uint32_t* aClasses, const uint32_t* bClasses,
                 const std::shared_ptr<KernelOperandB>& madeB) {
  if (s.m == 0 || s.n == 0) return;
  const int device = c.device;
  const StoredLayouts layouts = storedLayouts(s);
  auto operandB = madeB ? madeB : std::make_shared<KernelOperandB>(plan, device, s.k, s.n, scratch);
  const int64_t launchRows = rowsPerLaunch(plan, s);
  auto launch = std::make_shared<ProductLaunch>(plan, device, launchRows, s.n, s.k, scratch);
  held.push_back(operandB);
  held.push_back(launch);
  const DeviceRows bk = madeB ? operandB->made(b.data()) : operandB->from(b.data(), s.k, s.n, layouts.transB, stream);
  for (int64_t row = 0; row < s.m; row += launchRows) {
    const int64_t rows = std::min(launchRows, s.m - row);
    GemmOperands operands = productOf(rowsOfOperand(a.data(), row, layouts.transA), bk, c.rowsFrom(row), rows, s.k, s.n,
                                      b.data(), aClasses, bClasses ? bClasses : operandB->classes(), layouts);
    operands.epilogue = {s.alpha, s.beta};  // in the kernel's store, or in the sum of K's slices
    operands.sameSumsPerRow = plan.sameSumsPerRow;
    launch->run(operands, stream);
  }
}

}  // namespace cuda_matmul
