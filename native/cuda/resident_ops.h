// The CUDA backend's Matrix operations (resident.cu): upload and allocate on the calling thread; gemm and
// download queued on the device's ordered stream, returning at once.
#pragma once

#include <functional>
#include <memory>

#include "core/call_abort.h"
#include "core/request.h"
#include "core/work.h"
#include "cuda/kernels/choose.h"
#include "cuda/resident.h"

namespace cuda_matmul {

std::shared_ptr<DeviceResident> uploadResident(int device, const float* host, int64_t rows, int64_t cols, bool pinned);
std::shared_ptr<DeviceResident> allocateResident(int device, int64_t rows, int64_t cols);
// c's batch of op(a)·op(b) (request.h, RowBatch), all on c's device (the plan checked the shapes and devices);
// `withdrawable`: the abort of a write its call may withdraw (withdrawal.h), or null.
std::unique_ptr<Work> enqueueResidentGemm(const KernelPlan& plan, const std::shared_ptr<DeviceResident>& a,
                                          const std::shared_ptr<DeviceResident>& b,
                                          const std::shared_ptr<DeviceResident>& c, const GemmShape& shape,
                                          const RowBatch& batch, std::shared_ptr<CallAbort> withdrawable);
// The same batch as one launch of the strided batch kernel (kernels/batched_tiles.cu), where batchRunsGrouped
// (core/request.h) says it may.
std::unique_ptr<Work> enqueueResidentBatchedGemm(const std::shared_ptr<DeviceResident>& a,
                                                 const std::shared_ptr<DeviceResident>& b,
                                                 const std::shared_ptr<DeviceResident>& c, const GemmShape& shape,
                                                 const RowBatch& batch, std::shared_ptr<CallAbort> withdrawable);
// Exact search (core/search.h) of corpus's rows for each row of `queries` (both on the corpus's device), queued on
// its ordered stream as a read of both: chunks of the scores by the product planFor plans (q·chunkᵀ), each
// chunk's k best kept on the device (kernels/select.h), and the k best of each query, best first, copied into
// scores and indices (host memory, r.queries×r.k each) when the work is done.
using SearchProductPlanner = std::function<KernelPlan(const GemmShape&)>;
std::unique_ptr<Work> enqueueResidentSearch(const std::shared_ptr<DeviceResident>& corpus,
                                            const std::shared_ptr<DeviceResident>& queries, const SearchRequest& r,
                                            const SearchProductPlanner& planFor, float* scores, uint32_t* indices);
std::unique_ptr<Work> enqueueResidentDownload(const std::shared_ptr<DeviceResident>& matrix, float* out, bool pinned);

}  // namespace cuda_matmul
