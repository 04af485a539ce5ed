// Mul, the seeds' host wrapper (../shared/seeds/000): allocate A, B and C on the device, copy A and B in,
// launch, copy C out, free. Grown into a pipeline, because from host arrays the copies, not the arithmetic,
// take most of the time (bench/NOTES.md, "Transfers"):
//   - device memory, streams and page-locked staging come from pools (device_pools.h), not cudaMalloc per call;
//   - small products go in and out through one staging buffer on one stream (fewest calls, for latency);
//   - larger ones: B goes in first; then C is computed in row panels (plan_tiles.h): panel p's rows of A are copied in
//     while panel p−1 computes and panel p−2's results are copied out, on three streams joined by events;
//   - copies go through staging buffers filled by several host threads, or straight by DMA from and into
//     allocHost memory (transfers.h);
//   - device rows are padded (paddedPitch, device_kernels.h).
// Every CUDA call is checked; on any error every stream is drained before its buffers go back to the pools.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "device_kernels.h"
#include "device_pools.h"
#include "device_resident.h"
#include "kernel_launch.h"
#include "plan_tiles.h"
#include "staged_product.h"
#include "transfers.h"

namespace cuda_matmul {
namespace {

class Event {
 public:
  Event() { checkCuda(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreate"); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  // Makes `waiter` wait for what `stream` has been given so far.
  void join(cudaStream_t stream, cudaStream_t waiter) {
    checkCuda(cudaEventRecord(event_, stream), "cudaEventRecord");
    checkCuda(cudaStreamWaitEvent(waiter, event_, 0), "cudaStreamWaitEvent");
  }

 private:
  cudaEvent_t event_ = nullptr;
};

// Small products, whose A, B and C fit one staging buffer together: one copy in, one launch and one copy out
// on one stream, with no panels or events — for a 64³ product those would cost more than the work.
bool fitsOneStagingBuffer(const MatmulRequest& r) { return StagedProduct(r).bytes() <= double(kStagingBytes); }

void multiplySmall(const KernelPlan& plan, const DeviceKernel& kernel, const MatmulRequest& r) {
  const StagedProduct layout(r);  // the same on both sides
  const DeviceAllocation device(r.device, static_cast<size_t>(layout.bytes()));
  KernelOperandB operandB(kernel, r.device, r.k, r.n);
  const ProductLaunch launch(plan, r.device, r.m, r.n, r.k);
  const StagingBuffer staging;
  const PooledStream stream(r.device);  // destroyed first: waits for the copies before the buffers go back
  float* const host = static_cast<float*>(staging.get());
  float* const dev = device.floats();
  layout.copyIn(r, host);
  checkCuda(cudaMemcpyAsync(dev, host, sizeof(float) * (layout.aFloats + layout.bFloats), cudaMemcpyHostToDevice, stream.get()),
            "cudaMemcpyAsync(A and B to device)");
  GemmOperands operands = layout.operands(dev);
  const DeviceRows b = operandB.from({layout.b(dev), layout.ldb}, r.k, r.n, stream.get());
  operands.b = b.data;
  operands.ldb = b.pitch;
  operands.exactB = layout.b(dev);
  operands.exactLdb = layout.ldb;
  launch.run(operands, stream.get());
  checkCuda(cudaMemcpyAsync(layout.c(host), operands.c, sizeof(float) * layout.cFloats, cudaMemcpyDeviceToHost, stream.get()),
            "cudaMemcpyAsync(C to host)");
  checkCuda(cudaStreamSynchronize(stream.get()), kernel.name);
  layout.copyOut(host, r.c);
}

// Larger products: B first, then row panels of A in and of C out overlapping the kernels (see the top).
void multiplyInPanels(const KernelPlan& plan, const DeviceKernel& kernel, const MatmulRequest& r) {
  const float *A = r.a, *B = r.b;
  float* C = r.c;
  const int64_t hA = r.m, wA = r.k, wB = r.n;
  const int device = r.device;

  const DeviceResident Ad(device, hA, wA), Bd(device, wA, wB), Cd(device, hA, wB);
  KernelOperandB operandB(kernel, device, wA, wB);
  const ProductLaunch launch(plan, device, std::min(plan.panelRows, hA), wB, wA);
  // Declared after the buffers, so destroyed first: each waits for its stream before the buffers are released.
  const PooledStream in(device), compute(device), out(device);
  TransferQueue uploads(in.get()), downloads(out.get());
  Event inputsReady, productReady;

  uploads.upload({B, wA, wB, r.pinnedB}, Bd.rowsFrom(0));
  const DeviceRows b = operandB.from(Bd.rowsFrom(0), wA, wB, in.get());
  int64_t pendingRow = -1, pendingRows = 0;  // the panel computed but not yet copied out
  auto copyOutPending = [&] {
    if (pendingRow < 0) return;
    downloads.download(Cd.rowsFrom(pendingRow), C + pendingRow * wB, pendingRows, wB, r.pinnedC);
  };
  for (int64_t row = 0; row < hA; row += plan.panelRows) {
    const int64_t rows = std::min(plan.panelRows, hA - row);
    uploads.upload({A + row * wA, rows, wA, r.pinnedA}, Ad.rowsFrom(row));
    inputsReady.join(in.get(), compute.get());
    launch.run(productOf(Ad.rowsFrom(row), b, Cd.rowsFrom(row), rows, wA, wB, Bd.data()), compute.get());
    copyOutPending();  // the previous panel, while this one computes
    productReady.join(compute.get(), out.get());
    pendingRow = row;
    pendingRows = rows;
  }
  copyOutPending();
  // Reports errors of the kernels (asynchronous) and completes direct DMA into allocHost memory.
  checkCuda(cudaStreamSynchronize(compute.get()), kernel.name);
  checkCuda(cudaStreamSynchronize(out.get()), "copy to host");
}

// Host multiplication function: C = A·B for host arrays (A is m×k, B is k×n, C is m×n).
void Mul(const KernelPlan& plan, const MatmulRequest& r) {
  const DeviceKernel& kernel = deviceKernel(plan);
  if (fitsOneStagingBuffer(r))
    multiplySmall(plan, kernel, r);
  else
    multiplyInPanels(plan, kernel, r);
}

}  // namespace

void cudaMultiply(const KernelPlan& plan, const MatmulRequest& request) {
  checkCuda(cudaSetDevice(request.device), "cudaSetDevice");
  Mul(plan, request);
}

}  // namespace cuda_matmul
