// Every route a gemm on host arrays takes to the device and back, and the thresholds between them, in one
// place (routes.cu decides; the files beside it carry each route out):
//   - inline (inline_product.cu): A, B and C of a product together at most kInlineBytes (128³: 192 KiB), its
//     device already up, one product, no transposes, a kernel that reads B as it is and K unsplit: staged in
//     one page-locked buffer on the JavaScript thread and launched there; the kernel reads and writes that
//     buffer over the bus (unified addressing), and the binding polls for the end. At most kMaxInline at once,
//     each holding one staging buffer, a cached one (with none cached, the call takes the thread pool).
//   - staged (panels.cu): A, B and C fit one staging buffer (pools.h: the 1 MiB ones where they hold them, else
//     kStagingBytes, 8 MiB): one copy in, one
//     launch (transposes first where asked), one copy out, on one stream — for a 64³ product panels and
//     events would cost more than the work.
//   - panels (panels.cu, the seeds' Mul grown into a pipeline): B (and a transposed A) go up first; then C is
//     computed in row panels (kernels/choose.h, choosePanelRows), panel p's rows of A going up while panel p−1
//     computes and panel p−2's results come down, on three streams joined by events. Pageable memory goes
//     through staging buffers filled by several host threads (transfer_queue.h); allocHost memory by DMA.
//   - gathered (gathered_products.cu): small products gathered while the device was busy (lib/batching.ts), and a
//     strided batch of such products (no transposes, α or β, the kernel left to 'auto'), in chunks of one
//     staging buffer with one copy each way and one grouped Muld launch each.
// α and β are applied on the host as C comes back (host_copy.h, parallelCombineRows), so C never goes up:
// gemm moves the same bytes as matmul (docs/transfers.md, "The routes").
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "core/request.h"
#include "core/work.h"
#include "cuda/kernels/choose.h"

namespace cuda_matmul {

constexpr double kInlineBytes = 256 * 1024;
constexpr int kMaxInline = 4;

// Starts the request's route: the inline one now, from the calling (JavaScript) thread, with the Work polled;
// the others when the Work is waited for, on a thread-pool thread. The request's arrays outlive the Work.
std::unique_ptr<Work> startHostGemm(const KernelPlan& plan, const GemmRequest& request);

// The gathered route (gathered_products.cu): small products gathered while the device was busy, as one batch on
// the calling thread (a thread-pool thread): chunks of one staging buffer, one copy each way and one launch each.
void runGathered(const std::vector<SmallProduct>& products, int device);

// The inline route, when the request may take it (inline_product.cu); nullptr otherwise.
std::unique_ptr<Work> startInline(const KernelPlan& plan, const GemmRequest& request);
// The staged and panel routes, on the calling thread (panels.cu): one batch entry.
void multiplyStaged(const KernelPlan& plan, const GemmRequest& request, int64_t entry);
void multiplyInPanels(const KernelPlan& plan, const GemmRequest& request, int64_t entry);
bool fitsOneStagingBuffer(const GemmShape& shape);

}  // namespace cuda_matmul
