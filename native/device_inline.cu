// Small products from host arrays, for latency (matmul_inline.cpp): started on the JavaScript thread and
// finished when a poll finds them done, so that a 64³ product pays neither the thread pool's two hops nor
// Mul's three copy calls. A, B and C share one page-locked staging buffer, which every kernel can read and
// write directly (unified addressing maps page-locked memory into the device's address space): one host copy
// in, one kernel launch on a stream of its own (so "the stream is idle" means "done"), one host copy out.
#include <cuda_runtime.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "device_kernels.h"
#include "device_pools.h"
#include "staged_product.h"

namespace cuda_matmul {
namespace {

// Up to this much of A, B and C together (64³: 48 KiB), the JavaScript thread's own copies cost a microsecond
// or two, and the kernel's reads over PCIe are few; beyond, copies by DMA (Mul) pay for themselves.
constexpr double kInlineBytes = 128 * 1024;

}  // namespace

struct InlineProduct {
  InlineProduct(int device, const MatmulRequest& r) : stream(device), layout(r) {}
  // Declared in this order so that the stream (whose destructor waits for its work) goes first.
  StagingBuffer staging;
  PooledStream stream;
  StagedProduct layout;
  float* base() const { return static_cast<float*>(staging.get()); }
};

bool cudaInlineFits(const MatmulRequest& r) {
  return cudaDeviceStarted(r.device) && StagedProduct(r).bytes() <= kInlineBytes;
}

std::shared_ptr<InlineProduct> cudaStartInline(const KernelPlan& plan, const MatmulRequest& r) {
  checkCuda(cudaSetDevice(r.device), "cudaSetDevice");
  const DeviceKernel& kernel = deviceKernel(plan);
  auto product = std::make_shared<InlineProduct>(r.device, r);
  product->layout.copyIn(r, product->base());
  kernel.launch(product->layout.operands(product->base()), plan.precision, product->stream.get());  // K unsplit (plan.cpp)
  checkCuda(cudaGetLastError(), kernel.name);
  return product;
}

bool cudaInlineDone(const InlineProduct& product) {
  const cudaError_t status = cudaStreamQuery(product.stream.get());
  if (status == cudaErrorNotReady) return false;
  checkCuda(status, "matmul");
  return true;
}

void cudaInlineWait(const InlineProduct& product) { checkCuda(cudaStreamSynchronize(product.stream.get()), "matmul"); }


void cudaInlineFinish(const InlineProduct& product, float* c) { product.layout.copyOut(product.base(), c); }

}  // namespace cuda_matmul
