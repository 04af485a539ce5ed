#include "cuda/gemm_ops.h"

#include <algorithm>

#include "cuda/check.h"
#include "cuda/kernels/launch.h"

namespace cuda_matmul {
namespace {

// c = α·t + β·c; t may be c itself (β = 0: C scaled in place), each element read before it is written, by one thread.
__global__ void combineRows(float* c, int64_t cPitch, const float* t, int64_t tPitch, int64_t rows, int64_t cols,
                            float alpha, float beta) {
  const int64_t col = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    float* out = c + row * cPitch + col;
    const float product = alpha * t[row * tPitch + col];
    *out = beta == 0.0f ? product : product + beta * *out;
  }
}

// Rows of C per launch. Row panels overlap host copies with kernels (choose.h, choosePanelRows); operands
// already on the device have none to overlap, and each panel boundary drains the GPU: 4096³ fp32 on wgmma, back
// to back, 134.6 TFLOP/s whole against 127.1 in 1024-row panels (bench/NOTES.md). So one launch, within the
// grid's limit — unless K is split, whose workspace holds one panel's partial results.
int64_t rowsPerLaunch(const KernelPlan& plan, const GemmShape& s) {
  if (s.k > sliceDepth(*plan.row, plan.precision)) return std::min(plan.panelRows, s.m);
  return std::min(s.m, kMaxGridRows * plan.variant->tile.rows);
}

}  // namespace

void enqueueCombine(DeviceRows c, DeviceRows t, int64_t rows, int64_t cols, const Scale& scale, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  constexpr int kThreads = 256;
  const dim3 grid(static_cast<unsigned>((cols + kThreads - 1) / kThreads), static_cast<unsigned>(std::min<int64_t>(rows, 65535)));
  combineRows<<<grid, kThreads, 0, stream>>>(c.data, c.pitch, t.data, t.pitch, rows, cols, scale.alpha, scale.beta);
  checkCuda(cudaGetLastError(), "combine");
}

void enqueueGemm(const KernelPlan& plan, const DeviceResident& a, const DeviceResident& b,
                 const DeviceResident& c, const GemmShape& s, cudaStream_t stream, const StreamScratch& scratch,
                 HeldResources& held, const uint32_t* aClasses, const uint32_t* bClasses,
                 const std::shared_ptr<KernelOperandB>& madeB) {
  if (s.m == 0 || s.n == 0) return;
  const int device = c.device;
  const StoredLayouts layouts = storedLayouts(s);
  // The product goes straight into c where β = 0 (then scaled there by α ≠ 1), else into a temporary combined into c.
  std::shared_ptr<const DeviceResident> product(std::shared_ptr<const DeviceResident>{}, &c);
  if (s.beta != 0.0f) {
    auto temporary = std::make_shared<DeviceResident>(device, s.m, s.n);
    held.push_back(temporary);
    product = temporary;
  }
  auto operandB = madeB ? madeB : std::make_shared<KernelOperandB>(plan, device, s.k, s.n, scratch);
  const int64_t launchRows = rowsPerLaunch(plan, s);
  auto launch = std::make_shared<ProductLaunch>(plan, device, launchRows, s.n, s.k, scratch);
  held.push_back(operandB);
  held.push_back(launch);
  const DeviceRows bk = madeB ? operandB->made(b.data()) : operandB->from(b.data(), s.k, s.n, layouts.transB, stream);
  for (int64_t row = 0; row < s.m; row += launchRows) {
    const int64_t rows = std::min(launchRows, s.m - row);
    launch->run(productOf(rowsOfOperand(a.data(), row, layouts.transA), bk, product->rowsFrom(row), rows, s.k, s.n,
                          b.data(), aClasses, bClasses ? bClasses : operandB->classes(), layouts),
                stream);
  }
  if (!s.unscaled()) enqueueCombine(c.data(), product->data(), s.m, s.n, {s.alpha, s.beta}, stream);
}

}  // namespace cuda_matmul
