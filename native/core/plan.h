// The plan, once per call: which backend runs it ('auto': CUDA when usable, else the CPU), whether the
// caller's choices (kernel, precision, device) can be honoured there, and what is left for the backend to do.
// An explicit choice that cannot be honoured is an error, never a silent substitution. Throws MatmulError:
// RangeError kind for a device that does not exist, a kernel that needs CUDA on the CPU backend, or a size that
// can never fit; Failure kind when CUDA was asked for but is unusable or the device cannot run the kernel.
#pragma once

#include <memory>
#include <vector>

#include "core/matrix_data.h"
#include "core/request.h"
#include "core/search.h"
#include "core/call_abort.h"
#include "core/work.h"

namespace cuda_matmul {

// gemm (and matmul, gemm with batch 1) on host arrays: checked and started; the binding completes the Work.
std::unique_ptr<Work> startGemm(const GemmRequest& request);

// Small products gathered while the device was busy (lib/batching.ts), run as one batch where 'auto' runs
// (CUDA when usable, else the CPU), on device 0.
std::unique_ptr<Work> startGathered(std::vector<SmallProduct> products);

// Matrices (lib/matrix.ts). upload and allocate run on the calling thread (a thread-pool thread).
std::shared_ptr<MatrixData> uploadMatrix(const float* data, int64_t rows, int64_t cols, const Choice& choice, bool pinned);
std::shared_ptr<MatrixData> allocateMatrixLike(const MatrixData& a, int64_t rows, int64_t cols);

// The checks of out = a·b (out null: a new Matrix) and of gemm on Matrices, made when the call is made, before
// anything is allocated: one backend and device, shapes that chain, a result that can exist (RangeError).
void checkMatrixProduct(const MatrixData& a, const MatrixData& b, const MatrixData* out);
void checkMatrixGemm(const MatrixData& a, const MatrixData& b, const MatrixData& c, const GemmShape& shape,
                     const RowBatch& batch);

// Queued in program order after every operation issued before on the same matrices; return at once. The
// product a·b is gemm with the shape and batch of productOf. `withdrawable`: the abort of a write into an
// existing Matrix (core/backend.h, enqueueGemm).
std::unique_ptr<Work> enqueueMatrixGemm(const MatrixData& a, const MatrixData& b, const MatrixData& c,
                                        const GemmShape& shape, const RowBatch& batch, Kernel kernel,
                                        Precision precision, std::shared_ptr<CallAbort> withdrawable);
std::unique_ptr<Work> enqueueMatrixDownload(const MatrixData& matrix, float* out, bool pinned);

// Exact search (core/search.h): the checks when the call is made, before anything is copied: of the corpus (rows
// to search, an index for every row, 1 ≤ k ≤ min(rows, kSearchMaxK)), then of the queries with it (one backend and
// device, rows of the corpus's length): RangeError. Then queued as a read of both Matrices.
void checkSearchCorpus(const MatrixData& corpus, int64_t k);
void checkSearchQueries(const MatrixData& corpus, const MatrixData& queries);
std::unique_ptr<Work> enqueueMatrixSearch(const MatrixData& corpus, const MatrixData& queries, const SearchRequest& request,
                                          float* scores, uint32_t* indices);

// a·b as a gemm on Matrices: one product, no transposes.
GemmShape productShape(const MatrixData& a, const MatrixData& b);
RowBatch singleProduct(const GemmShape& shape);

}  // namespace cuda_matmul
