// The inline route (routes.h), for latency: a small product started on the JavaScript thread and finished when
// a poll finds it done, so that a 64³ product pays neither the thread pool's two hops nor the staged route's
// three copy calls. A, B and C share one page-locked staging buffer, which every kernel can read and write
// directly (unified addressing maps page-locked memory into the device's address space), taken from the pool's
// cache (this thread must not make one, pools.h; with none cached the call takes the thread pool's route, whose
// buffer the pool then keeps): one host copy in,
// one kernel launch on a stream of its own (so "the stream is idle" means "done"), one host copy out. The launch
// takes the tile that reads the bus fastest (kernels/choose.h, chooseBusVariant), not the one that fills the SMs,
// where its kernel has such tiles (a product that may be gathered runs on Muld: kernels/choose.h, planAsGathered).
#include <cuda_runtime.h>

#include <atomic>
#include <memory>

#include "cuda/check.h"
#include "cuda/pools.h"
#include "cuda/transfer/host_copy.h"
#include "cuda/transfer/routes.h"
#include "cuda/transfer/staged_product.h"

namespace cuda_matmul {
namespace {

std::atomic<int> inFlight{0};

class InlineProduct : public Work {
 public:
  InlineProduct(int device, const GemmShape& shape, float* c, std::unique_ptr<StagingBuffer> staging)
      : staging_(std::move(staging)), stream_(device), layout_(shape), c_(c) {
    ++inFlight;
  }
  ~InlineProduct() override { --inFlight; }  // after stream_'s destructor has waited for the kernel

  float* base() const { return static_cast<float*>(staging_->get()); }
  const StagedProduct& layout() const { return layout_; }
  cudaStream_t stream() const { return stream_.get(); }

  bool pollable() const override { return true; }
  bool done() override {
    const cudaError_t status = cudaStreamQuery(stream_.get());
    if (status == cudaErrorNotReady) return false;
    checkCuda(status, "matmul");
    return true;
  }
  void wait() override { checkCuda(cudaStreamSynchronize(stream_.get()), "matmul"); }
  void finish() override { layout_.copyOut(base(), c_); }
  int64_t finishBytes() const override { return static_cast<int64_t>(sizeof(float)) * layout_.shape.m * layout_.shape.n; }

 private:
  // Declared in this order so that the stream (whose destructor waits for its work) goes first.
  std::unique_ptr<StagingBuffer> staging_;
  PooledStream stream_;
  StagedProduct layout_;
  float* c_;
};

// `bytes`: the product's staged layout (StagedProduct).
bool takesInlineRoute(const KernelPlan& plan, const GemmRequest& r, double bytes) {
  const GemmShape& s = r.shape;
  return r.batch == 1 && !s.transA && !s.transB && !plan.row->transposedB && !multipliesHalfCopies(*plan.row, plan.precision) && cudaDeviceStarted(r.choice.device) &&
         bytes <= kInlineBytes && !plan.splitsForAccuracy(s.m, paddedPitch(s.n), s.k) &&
         inFlight.load() < kMaxInline;
}

}  // namespace

std::unique_ptr<Work> startInline(const KernelPlan& plan, const GemmRequest& r) {
  const double bytes = StagedProduct(r.shape).bytes();
  if (!takesInlineRoute(plan, r, bytes)) return nullptr;
  std::unique_ptr<StagingBuffer> staging = StagingBuffer::ifCached(static_cast<size_t>(bytes));
  if (!staging) return nullptr;
  checkCuda(cudaSetDevice(r.choice.device), "cudaSetDevice");
  auto product = std::make_unique<InlineProduct>(r.choice.device, r.shape, r.c, std::move(staging));
  product->layout().copyInClassified(r.a, r.b, product->base());
  const KernelVariant& kernel = chooseBusVariant(plan.row->variants(plan.precision), r.shape.n, *plan.variant);
  kernel.launch(product->layout().operands(product->base()), plan.precision, product->stream());
  checkCuda(cudaGetLastError(), kernel.name);
  prefetchForCopyInto(r.c, sizeof(float) * r.shape.m * r.shape.n);  // while the kernel runs (finish() copies C out)
  return product;
}

}  // namespace cuda_matmul
