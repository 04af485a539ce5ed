#include "cuda/transfer/routes.h"

#include "core/work.h"
#include "cuda/check.h"

namespace cuda_matmul {

namespace {

std::vector<SmallProduct> productsOf(const GemmRequest& r) {
  std::vector<SmallProduct> products;
  products.reserve(static_cast<size_t>(r.batch));
  for (int64_t i = 0; i < r.batch; ++i) products.push_back({r.aOf(i), r.bOf(i), r.cOf(i), r.shape.m, r.shape.k, r.shape.n});
  return products;
}

}  // namespace

std::unique_ptr<Work> startHostGemm(const KernelPlan& plan, const GemmRequest& r) {
  if (r.choice.kernel == Kernel::Auto && batchRunsGrouped(r.shape, r.batch))
    return std::make_unique<HostWork>([r] { runGathered(productsOf(r), r.choice.device); });
  if (auto work = startInline(plan, r)) return work;
  return std::make_unique<HostWork>([plan, r] {
    checkCuda(cudaSetDevice(r.choice.device), "cudaSetDevice");
    for (int64_t i = 0; i < r.batch; ++i) {
      if (fitsOneStagingBuffer(r.shape))
        multiplyStaged(plan, r, i);
      else
        multiplyInPanels(plan, r, i);
    }
  });
}

}  // namespace cuda_matmul
