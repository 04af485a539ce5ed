#include "core/plan.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/backend.h"
#include "core/errors.h"

namespace cuda_matmul {
namespace {

std::string kernelName(Kernel kernel) { return kernelOption(kernel).name; }

// The backend a call runs on. A device other than the default must exist, with or without a GPU, whatever the
// backend; then the backend checks the rest of the choice.
ComputeBackend& resolveBackend(const Choice& choice) {
  ComputeBackend& cuda = cudaBackend();
  if (choice.device != 0) cuda.check({Backend::Cuda, Kernel::Auto, Precision::Fp32, choice.device});
  const std::string unusable = cuda.unusableReason();
  ComputeBackend* chosen = nullptr;
  switch (choice.backend) {
    case Backend::Cpu:
      chosen = &cpuBackend();
      break;
    case Backend::Cuda:
      if (!unusable.empty())
        throw MatmulError(ErrorKind::Failure, "backend 'cuda' was requested but CUDA is unavailable: " + unusable,
                          "ERR_CUDA_UNAVAILABLE");
      chosen = &cuda;
      break;
    case Backend::Auto:
      if (unusable.empty()) {
        chosen = &cuda;
      } else if (choice.kernel != Kernel::Auto) {
        throw MatmulError(ErrorKind::Failure,
                          "kernel '" + kernelName(choice.kernel) + "' was requested but CUDA is unavailable: " + unusable,
                          "ERR_CUDA_UNAVAILABLE");
      } else {
        chosen = &cpuBackend();
      }
      break;
  }
  chosen->check(choice);
  return *chosen;
}

// Products with nothing to multiply: no output (m or n is 0, an empty batch), or an empty sum (k = 0), where
// C = β·C (0 when β = 0, whatever C held), with no device round trip.
bool degenerate(const GemmRequest& r) { return r.shape.m == 0 || r.shape.n == 0 || r.batch == 0 || r.shape.k == 0; }

void scaleOutputs(const GemmRequest& r) {
  const GemmShape& s = r.shape;
  if (s.m == 0 || s.n == 0) return;
  for (int64_t i = 0; i < r.batch; ++i) {
    float* c = r.cOf(i);
    if (s.beta == 0.0f)
      std::fill(c, c + s.m * s.n, 0.0f);
    else
      std::transform(c, c + s.m * s.n, c, [beta = s.beta](float x) { return beta * x; });
  }
}

// Matrices hold at most 2^53 − 1 elements (exact JavaScript integers), so rows·cols never wraps.
constexpr int64_t kMaxMatrixElements = (int64_t{1} << 53) - 1;

void requireSamePlace(const MatrixData& a, const MatrixData& b, const MatrixData& c, const char* what) {
  if (a.backend != b.backend || a.device != b.device || c.backend != a.backend || c.device != a.device)
    throw MatmulError(ErrorKind::Range, std::string("matrix: ") + what + " must live on the same backend and device");
}

std::string dims(int64_t rows, int64_t cols) { return std::to_string(rows) + "×" + std::to_string(cols); }

// A Matrix's own shape as a product with one side 0: what the backend's room check needs for one matrix.
GemmShape oneMatrix(int64_t rows, int64_t cols) {
  GemmShape shape;
  shape.m = rows;
  shape.n = cols;
  return shape;
}

}  // namespace

std::unique_ptr<Work> startGemm(const GemmRequest& r) {
  ComputeBackend& backend = resolveBackend(r.choice);
  if (degenerate(r)) return std::make_unique<HostWork>([r] { scaleOutputs(r); }, runsOnCaller(r));
  backend.checkRoom(r.shape, r.choice.device, [&] {
    return "shape: the " + dims(r.shape.m, r.shape.k) + "×" + std::to_string(r.shape.n) + " product";
  });
  return backend.startGemm(r);
}

std::unique_ptr<Work> startGathered(std::vector<SmallProduct> products) {
  return resolveBackend(Choice{}).startGathered(std::move(products), 0);
}

std::shared_ptr<MatrixData> uploadMatrix(const float* data, int64_t rows, int64_t cols, const Choice& choice,
                                         bool pinned) {
  ComputeBackend& backend = resolveBackend(choice);
  backend.checkRoom(oneMatrix(rows, cols), choice.device, [&] { return "rows: a " + dims(rows, cols) + " Matrix"; });
  auto matrix = std::make_shared<MatrixData>();
  matrix->backend = &backend;
  matrix->device = backend.kind() == Backend::Cuda ? choice.device : 0;
  matrix->rows = rows;
  matrix->cols = cols;
  matrix->storage = backend.upload(data, rows, cols, matrix->device, pinned);
  return matrix;
}

std::shared_ptr<MatrixData> allocateMatrixLike(const MatrixData& a, int64_t rows, int64_t cols) {
  a.backend->checkRoom(oneMatrix(rows, cols), a.device, [&] { return "matrix: the " + dims(rows, cols) + " product"; });
  auto matrix = std::make_shared<MatrixData>(MatrixData{a.backend, a.device, rows, cols, nullptr});
  matrix->storage = a.backend->allocate(rows, cols, a.device);
  return matrix;
}

void checkMatrixProduct(const MatrixData& a, const MatrixData& b, const MatrixData* out) {
  requireSamePlace(a, b, out ? *out : a, "both operands and out");
  if (a.cols != b.rows)
    throw MatmulError(ErrorKind::Range, "matrix: a " + dims(a.rows, a.cols) + " matrix cannot multiply a " +
                                            dims(b.rows, b.cols) + " one: its " + std::to_string(a.cols) +
                                            " columns must equal the other's " + std::to_string(b.rows) + " rows");
  if (b.cols != 0 && a.rows > kMaxMatrixElements / b.cols)
    throw MatmulError(ErrorKind::Range, "matrix: the product would be " + dims(a.rows, b.cols) +
                                            ", more elements than a Matrix can hold (2^53 − 1)");
  if (!out) return;
  if (out == &a || out == &b)
    throw MatmulError(ErrorKind::Range, "out: must not be one of the operands (it is written while they are read)");
  if (out->rows != a.rows || out->cols != b.cols)
    throw MatmulError(ErrorKind::Range, "out: expected a " + dims(a.rows, b.cols) + " Matrix, got " + dims(out->rows, out->cols));
}

void checkMatrixGemm(const MatrixData& a, const MatrixData& b, const MatrixData& c, const GemmShape& s, const RowBatch& batch) {
  requireSamePlace(a, b, c, "a, b and c");
  if (&c == &a || &c == &b)
    throw MatmulError(ErrorKind::Range, "c: must not be a or b (it is written while they are read)");
  // Each operand's stored shape, its rows stacked for the batch (an empty batch reads no rows).
  auto check = [&](const char* name, const MatrixData& x, int64_t cols, int64_t span) {
    const int64_t rows = batch.count == 0 ? x.rows : span;
    if (x.rows != rows || x.cols != cols)
      throw MatmulError(ErrorKind::Range, std::string(name) + ": expected a " + dims(rows, cols) +
                                              " Matrix for this m, k, n" +
                                              (batch.count == 1 ? " and trans" : ", trans, batch and strides") + ", got " +
                                              dims(x.rows, x.cols));
  };
  check("a", a, s.colsA(), batch.spanA);
  check("b", b, s.colsB(), batch.spanB);
  check("c", c, s.n, batch.spanC);
}

std::unique_ptr<Work> enqueueMatrixGemm(const MatrixData& a, const MatrixData& b, const MatrixData& c,
                                        const GemmShape& shape, const RowBatch& batch, Kernel kernel,
                                        Precision precision, std::shared_ptr<CallAbort> withdrawable) {
  const Choice choice{a.backend->kind(), kernel, precision, a.device};
  a.backend->check(choice);
  return a.backend->enqueueGemm(a, b, c, shape, batch, choice, std::move(withdrawable));
}

void checkSearchCorpus(const MatrixData& corpus, int64_t k) {
  if (corpus.rows == 0 || corpus.cols == 0)
    throw MatmulError(ErrorKind::Range, "corpus: a " + dims(corpus.rows, corpus.cols) + " Matrix has no rows to search");
  // Rows are reported as Uint32Array indices.
  if (corpus.rows > int64_t{UINT32_MAX})
    throw MatmulError(ErrorKind::Range, "corpus: " + std::to_string(corpus.rows) + " rows are more than a search reports (2^32 − 1)");
  const int64_t most = std::min(corpus.rows, kSearchMaxK);
  if (k < 1 || k > most)
    throw MatmulError(ErrorKind::Range, "k: expected 1 to " + std::to_string(most) +
                                            (most == kSearchMaxK ? " (the most a search returns)" : " (the corpus's rows)") +
                                            ", got " + std::to_string(k));
}

void checkSearchQueries(const MatrixData& corpus, const MatrixData& queries) {
  requireSamePlace(corpus, queries, corpus, "the corpus and the queries");
  if (queries.cols != corpus.cols)
    throw MatmulError(ErrorKind::Range, "queries: rows of " + std::to_string(queries.cols) + " values cannot be scored against a corpus of " +
                                            std::to_string(corpus.cols) + "-value rows");
}

std::unique_ptr<Work> enqueueMatrixSearch(const MatrixData& corpus, const MatrixData& queries, const SearchRequest& request,
                                          float* scores, uint32_t* indices) {
  corpus.backend->check(Choice{corpus.backend->kind(), Kernel::Auto, request.precision, corpus.device});
  return corpus.backend->enqueueSearch(corpus, queries, request, scores, indices);
}

std::unique_ptr<Work> enqueueMatrixDownload(const MatrixData& matrix, float* out, bool pinned) {
  return matrix.backend->enqueueDownload(matrix, out, pinned);
}

GemmShape productShape(const MatrixData& a, const MatrixData& b) {
  GemmShape shape;
  shape.m = a.rows;
  shape.k = a.cols;
  shape.n = b.cols;
  return shape;
}

RowBatch singleProduct(const GemmShape& shape) {
  RowBatch batch;
  batch.spanA = shape.rowsA();
  batch.spanB = shape.rowsB();
  batch.spanC = shape.m;
  return batch;
}

}  // namespace cuda_matmul
