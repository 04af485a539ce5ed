// One validated call, as the plan (core/plan.h) receives it. There is one request type: matmul is gemm with
// batch 1, no transposes, α = 1 and β = 0. Raw row-major pointers and dims; nothing here owns memory, the
// binding keeps the arrays alive.
#pragma once

#include <cstdint>

#include "core/options.h"

namespace cuda_matmul {

// C = α·op(A)·op(B) + β·C, op(X) = Xᵀ when trans is set; op(A) is m×k, op(B) k×n, C m×n. β = 0: C is only
// written (NaN in it does not matter), as in BLAS.
struct GemmShape {
  int64_t m = 0, k = 0, n = 0;
  bool transA = false, transB = false;
  float alpha = 1.0f, beta = 0.0f;

  // No α or β to apply: C = op(A)·op(B).
  bool unscaled() const { return alpha == 1.0f && beta == 0.0f; }
  // op(A) and op(B) as they are stored (trans: the transpose).
  int64_t rowsA() const { return transA ? k : m; }
  int64_t colsA() const { return transA ? m : k; }
  int64_t rowsB() const { return transB ? n : k; }
  int64_t colsB() const { return transB ? k : n; }
};

// Where a call runs and how: the caller's choices, checked by the plan against what the backend can do.
struct Choice {
  Backend backend = Backend::Auto;
  Kernel kernel = Kernel::Auto;
  Precision precision = Precision::Fp32;
  int device = 0;
};

// gemm on host arrays: `batch` products, the i-th reading a + i·strideA, b + i·strideB, writing c + i·strideC.
struct GemmRequest {
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  GemmShape shape;
  int64_t batch = 1, strideA = 0, strideB = 0, strideC = 0;
  Choice choice;
  // Which arrays are page-locked (allocHost), so the GPU may DMA straight from or into them.
  bool pinnedA = false, pinnedB = false, pinnedC = false;

  const float* aOf(int64_t i) const { return a + i * strideA; }
  const float* bOf(int64_t i) const { return b + i * strideB; }
  float* cOf(int64_t i) const { return c + i * strideC; }
};

// A request small enough for the host to compute on the JavaScript thread at once (the CPU backend, and the
// degenerate products of any backend): at most a 32³ product's work and elements, batch included. Handing a product
// to the thread pool and back took 35–43 µs of latency on the H100 host and a few µs of the JavaScript thread's time;
// a 32³ product computes in about that. At 64³ (~18 µs there) the calling thread computing 20 000 concurrent products
// one after another did 34 000–35 000/s against 39 000–49 000 on four pool threads (docs/transfers.md, "The inline route"). And a product waiting for a core of the CPU budget would wait behind the
// others.
inline bool runsOnCaller(const GemmRequest& r) {
  constexpr int64_t kFlops = int64_t{32} * 32 * 32, kFloats = 3 * 32 * 32;
  const GemmShape& s = r.shape;
  if (s.m > kFloats || s.k > kFloats || s.n > kFloats || r.batch > kFloats) return false;  // no overflow below
  return r.batch * s.m * s.k * s.n <= kFlops && r.batch * (s.m * s.k + s.k * s.n + s.m * s.n) <= kFloats;
}

// Small products gathered from host arrays while the device was busy (lib/batching.ts), run as one batch: each
// C (m×n) = A (m×k) · B (k×n), row-major and unpadded, in fp32 (a 'tf32' request only permits less).
struct SmallProduct {
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  int64_t m = 0, k = 0, n = 0;
};
// What a gathered product keeps within: A, B and C at most 256 KiB together (the inline route's bound, 128³), and
// k at most 1024, so that one fp32 running sum per element keeps fp32's accuracy (Muld's slice depth, registry.h).
constexpr int64_t kGatheredMaxFloats = 64 * 1024;
constexpr int64_t kGatheredMaxDepth = 1024;

// Whether the gathered route may take an m×k×n product (lib/batching.ts gathers by the same rule).
inline bool gatherableShape(int64_t m, int64_t k, int64_t n) {
  return m * k + k * n + m * n <= kGatheredMaxFloats && k <= kGatheredMaxDepth;
}

// A product the gathered route's arithmetic serves: no transposes, α or β, and a gatherable shape.
inline bool gatherableProduct(const GemmShape& s) {
  return !s.transA && !s.transB && s.unscaled() && gatherableShape(s.m, s.k, s.n);
}

// Whether lib/batching.ts may gather this request with others (one gatherable product, its kernel left to 'auto'):
// alone it is then computed with the gathered route's arithmetic (kernels/choose.h, planAsGathered), so that it
// gives the same bits either way.
inline bool runsAsGathered(const GemmRequest& r) {
  return r.batch == 1 && r.choice.kernel == Kernel::Auto && gatherableProduct(r.shape);
}

// Whether a strided batch of `count` products of shape s runs in one launch (host arrays: as gathered products do,
// transfer/routes.h; Matrices: kernels/batched_tiles.cu): more than one, none transposed or scaled, each within
// what a gathered product keeps to. (The caller also leaves the kernel to 'auto'.) One product after another took 32 µs
// each at 16³ from host arrays (docs/kernels.md, "Step 6: few rows").
inline bool batchRunsGrouped(const GemmShape& s, int64_t count) {
  return count > 1 && gatherableProduct(s);
}

// gemm on Matrices: `count` products stacked by rows. The i-th reads rows i·strideA… of A (as many as A's
// stored shape has) and i·strideB… of B, and writes rows i·strideC… of C. spanA, spanB and spanC: the rows the
// whole batch covers, (count − 1)·stride + rows of one product.
struct RowBatch {
  int64_t count = 1, strideA = 0, strideB = 0, strideC = 0;
  int64_t spanA = 0, spanB = 0, spanC = 0;
};

}  // namespace cuda_matmul
