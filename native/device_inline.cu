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
#include "host_copy.h"

namespace cuda_matmul {
namespace {

// Up to this much of A, B and C together (64³: 48 KiB), the JavaScript thread's own copies cost a microsecond
// or two, and the kernel's reads over PCIe are few; beyond, copies by DMA (Mul) pay for themselves.
constexpr double kInlineBytes = 128 * 1024;

struct StagedLayout {
  int64_t lda, ldb, ldc, aFloats, bFloats, cFloats;
};

StagedLayout stagedLayout(const MatmulRequest& r) {
  const int64_t lda = paddedPitch(r.k), ldb = paddedPitch(r.n), ldc = paddedPitch(r.n);
  return {lda, ldb, ldc, r.m * lda, r.k * ldb, r.m * ldc};
}

}  // namespace

struct InlineProduct {
  explicit InlineProduct(int device) : stream(device) {}
  // Declared in this order so that the stream (whose destructor waits for its work) goes first.
  StagingBuffer staging;
  PooledStream stream;
  int64_t m = 0, n = 0, ldc = 0;
  const float* c = nullptr;  // C in the staging buffer
};

bool cudaInlineFits(const MatmulRequest& r) {
  if (!cudaDeviceStarted(r.device)) return false;
  const StagedLayout layout = stagedLayout(r);
  return double(layout.aFloats + layout.bFloats + layout.cFloats) * sizeof(float) <= kInlineBytes;
}

std::shared_ptr<InlineProduct> cudaStartInline(const KernelPlan& plan, const MatmulRequest& r) {
  checkCuda(cudaSetDevice(r.device), "cudaSetDevice");
  const DeviceKernel& kernel = deviceKernel(plan);
  const StagedLayout layout = stagedLayout(r);
  auto product = std::make_shared<InlineProduct>(r.device);
  float* const a = static_cast<float*>(product->staging.get());
  float* const b = a + layout.aFloats;
  float* const c = b + layout.bFloats;
  parallelCopyRows(a, sizeof(float) * layout.lda, r.a, sizeof(float) * r.k, sizeof(float) * r.k, r.m);
  parallelCopyRows(b, sizeof(float) * layout.ldb, r.b, sizeof(float) * r.n, sizeof(float) * r.n, r.k);
  kernel.launch({a, b, c, r.m, r.k, r.n, layout.lda, layout.ldb, layout.ldc}, plan.precision, product->stream.get());
  checkCuda(cudaGetLastError(), kernel.name);
  product->m = r.m;
  product->n = r.n;
  product->ldc = layout.ldc;
  product->c = c;
  return product;
}

bool cudaInlineDone(const InlineProduct& product) {
  const cudaError_t status = cudaStreamQuery(product.stream.get());
  if (status == cudaErrorNotReady) return false;
  checkCuda(status, "matmul");
  return true;
}

void cudaInlineWait(const InlineProduct& product) { checkCuda(cudaStreamSynchronize(product.stream.get()), "matmul"); }

int64_t cudaInlineOutputLength(const InlineProduct& product) { return product.m * product.n; }

void cudaInlineFinish(const InlineProduct& product, float* c) {
  parallelCopyRows(c, sizeof(float) * product.n, product.c, sizeof(float) * product.ldc, sizeof(float) * product.n, product.m);
}

}  // namespace cuda_matmul
