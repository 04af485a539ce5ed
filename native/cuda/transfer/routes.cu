#include "cuda/transfer/routes.h"

#include "core/work.h"
#include "cuda/check.h"

namespace cuda_matmul {

std::unique_ptr<Work> startHostGemm(const KernelPlan& plan, const GemmRequest& r) {
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
