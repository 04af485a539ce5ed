// The plan: given a validated request, pick the backend (and on CUDA the kernel, its tile and precision)
// and run it.
#pragma once

#include <memory>
#include <optional>

#include "matrix_data.h"
#include "request.h"

namespace cuda_matmul {

// Runs C = A·B on the calling thread. Throws MatmulError: RangeError kind for a device that does not
// exist or a kernel that needs CUDA on the CPU backend, Failure kind when CUDA was asked for but is unusable,
// the device cannot run the kernel asked for, or a CUDA call fails.
void runMatmul(const MatmulRequest& request);

// The plan for a product small enough to launch from the JavaScript thread and finish by polling
// (matmul_inline.h): a CUDA product of at most a few hundred KiB on a device already up, with a kernel that
// reads B as it is. Nothing otherwise. Throws what runMatmul would for the request's backend and kernel.
std::optional<KernelPlan> planInline(const MatmulRequest& request);

// Matrices (lib/matrix.ts). `backend` Auto means CUDA when usable; errors as for runMatmul.
std::shared_ptr<MatrixData> runMatrixUpload(const float* data, int64_t rows, int64_t cols, Backend backend, int device,
                                            bool pinned);
void runMatrixDownload(const MatrixData& matrix, float* out, bool pinned);
// The checks of out = a·b (out null: a new Matrix): backends, devices, shapes that chain, a result that can
// exist (RangeError). Made when the call is made, before anything is allocated.
void checkMatrixProduct(const MatrixData& a, const MatrixData& b, const MatrixData* out);
// out = a·b, checked by checkMatrixProduct; checks the kernel against the backend.
void runMatrixProduct(const MatrixData& a, const MatrixData& b, MatrixData& out, Kernel kernel, Precision precision);
// gemm on host arrays (request.h, GemmRequest), on the backend it names, errors as for runMatmul.
void runGemm(const GemmRequest& request);
// gemm on Matrices: their stored shapes must agree with `shape` (op(a) m×k, op(b) k×n, c m×n), c is neither a
// nor b, all on one backend and device (RangeError). Made when the call is made.
void checkMatrixGemm(const MatrixData& a, const MatrixData& b, const MatrixData& c, const GemmShape& shape,
                     const RowBatch& batch);
// gemm on Matrices, checked by checkMatrixGemm.
void runMatrixGemm(const MatrixData& a, const MatrixData& b, MatrixData& c, const GemmShape& shape, const RowBatch& batch,
                   Kernel kernel,
                   Precision precision);

// A new matrix of a's backend and device for a·b.
std::shared_ptr<MatrixData> allocateMatrixLike(const MatrixData& a, int64_t rows, int64_t cols);

}  // namespace cuda_matmul
