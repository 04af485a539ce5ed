// The staged and panel routes of a gemm on host arrays (routes.h), one batch entry at a time. The panel route is
// Mul, the seeds' host wrapper (../shared/seeds/000: allocate A, B and C on the device, copy A and B in,
// launch, copy C out, free), grown into a pipeline, because from host arrays the copies, not the arithmetic,
// take most of the time (docs/transfers.md, "The routes"):
//   - device memory, streams and page-locked staging come from pools (pools.h), not cudaMalloc per call;
//   - B (and A, when it is held transposed) goes in first, as it is stored (every kernel reads either layout); then
//     C is computed in row panels, panel p's rows of A copied in while panel p−1 computes and panel p−2's results
//     are copied out, on three streams joined by events;
//   - copies go through staging buffers filled by several host threads, or straight by DMA from and into
//     allocHost memory and into large results the library made (transfer_queue.h); α and β are applied on the
//     host as C comes back;
//   - device rows are padded (paddedPitch, kernels/kernel.h).
// Every CUDA call is checked; on any error every stream is drained before its buffers go back to the pools.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/result_memory.h"
#include "cuda/check.h"
#include "cuda/kernels/launch.h"
#include "cuda/event.h"
#include "cuda/pools.h"
#include "cuda/resident.h"
#include "cuda/transfer/host_copy.h"
#include "cuda/transfer/routes.h"
#include "cuda/transfer/staged_product.h"
#include "cuda/transfer/transfer_queue.h"

namespace cuda_matmul {

bool fitsOneStagingBuffer(const GemmShape& shape) { return StagedProduct(shape).bytes() <= double(kStagingBytes); }

// One copy in, one launch, one copy out, on one stream.
void multiplyStaged(const KernelPlan& plan, const GemmRequest& r, int64_t entry) {
  const GemmShape& s = r.shape;
  const int device = r.choice.device;
  const StagedProduct layout(s);  // the same on both sides
  const DeviceAllocation memory(device, static_cast<size_t>(layout.bytes()));
  KernelOperandB operandB(plan, device, s.k, s.n);
  const ProductLaunch launch(plan, device, s.m, s.n, s.k);
  const StagingBuffer staging(static_cast<size_t>(layout.bytes()));
  const PooledStream stream(device);  // destroyed first: waits for the copies before the buffers go back
  float* const host = static_cast<float*>(staging.get());
  float* const dev = memory.floats();
  layout.copyIn(r.aOf(entry), r.bOf(entry), host);
  checkCuda(cudaMemcpyAsync(dev, host, sizeof(float) * (layout.aFloats + layout.bFloats), cudaMemcpyHostToDevice, stream.get()),
            "cudaMemcpyAsync(A and B to device)");
  const StoredLayouts layouts = storedLayouts(s);
  const DeviceRows a{dev, layout.lda}, b{layout.b(dev), layout.ldb};
  launch.run(productOf(a, operandB.from(b, s.k, s.n, layouts.transB, stream.get()), {layout.c(dev), layout.ldc}, s.m, s.k, s.n, b,
                       nullptr, operandB.classes(), layouts),
             stream.get());
  checkCuda(cudaMemcpyAsync(layout.c(host), layout.c(dev), sizeof(float) * layout.cFloats, cudaMemcpyDeviceToHost, stream.get()),
            "cudaMemcpyAsync(C to host)");
  prefetchForCopyInto(r.cOf(entry), sizeof(float) * s.m * s.n);  // while the GPU works
  checkCuda(cudaStreamSynchronize(stream.get()), plan.variant->name);
  layout.copyOut(host, r.cOf(entry));
}

// B first, then row panels of A in and of C out overlapping the kernels (see the top).
void multiplyInPanels(const KernelPlan& plan, const GemmRequest& r, int64_t entry) {
  const GemmShape& s = r.shape;
  const int device = r.choice.device;
  const float* const A = r.aOf(entry);
  float* const C = r.cOf(entry);
  const DeviceResident Ad(device, s.rowsA(), s.colsA()), Bd(device, s.rowsB(), s.colsB()), Cd(device, s.m, s.n);
  KernelOperandB operandB(plan, device, s.k, s.n);
  const ProductLaunch launch(plan, device, std::min(plan.panelRows, s.m), s.n, s.k);
  // Declared after the buffers, so destroyed first: each waits for its stream before the buffers are released.
  const PooledStream in(device), compute(device), out(device);
  TransferQueue uploads(in.get()), downloads(out.get());
  Event inputsReady, productReady;

  const StoredLayouts layouts = storedLayouts(s);
  uploads.upload({r.bOf(entry), s.rowsB(), s.colsB(), r.pinnedB}, Bd.data());
  const DeviceRows bExact = Bd.data(), a = Ad.data();
  const DeviceRows b = operandB.from(bExact, s.k, s.n, layouts.transB, in.get());
  // A's rows of op(A) are its columns: all of it goes up first
  if (s.transA) uploads.upload({A, s.rowsA(), s.colsA(), r.pinnedA}, Ad.data());
  // α and β on the host as C comes back: through staging, even into allocHost memory.
  const Scale scale{s.alpha, s.beta};
  const Scale* const combine = s.unscaled() ? nullptr : &scale;
  // A large result the library made (core/result_memory.h) on a page-locked block is written by DMA like allocHost
  // memory.
  const size_t cBytes = sizeof(float) * static_cast<size_t>(s.m * s.n);
  const bool cPinned = r.pinnedC || pinnedResultBlock(C, cBytes);
  const bool dmaOut = cPinned && !combine;
  if (!cPinned) preferHugePages(C, cBytes);
  int64_t pendingRow = -1, pendingRows = 0;  // the panel computed but not yet copied out
  auto copyOutPending = [&] {
    if (pendingRow < 0) return;
    downloads.download(Cd.rowsFrom(pendingRow), C + pendingRow * s.n, pendingRows, s.n, dmaOut, combine);
  };
  for (int64_t row = 0; row < s.m; row += plan.panelRows) {
    const int64_t rows = std::min(plan.panelRows, s.m - row);
    if (!s.transA) uploads.upload({A + row * s.k, rows, s.k, r.pinnedA}, Ad.rowsFrom(row));
    inputsReady.join(in.get(), compute.get());
    launch.run(productOf(rowsOfOperand(a, row, layouts.transA), b, Cd.rowsFrom(row), rows, s.k, s.n, bExact, nullptr,
                         operandB.classes(), layouts),
               compute.get());
    copyOutPending();  // the previous panel, while this one computes
    productReady.join(compute.get(), out.get());
    pendingRow = row;
    pendingRows = rows;
  }
  copyOutPending();
  // Reports errors of the kernels (asynchronous) and completes direct DMA into allocHost memory.
  checkCuda(cudaStreamSynchronize(compute.get()), plan.variant->name);
  checkCuda(cudaStreamSynchronize(out.get()), "copy to host");
}

}  // namespace cuda_matmul
