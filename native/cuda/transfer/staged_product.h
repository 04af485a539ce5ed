// How a small product's A, B and C lie together in one page-locked staging buffer: A | B | C as stored (A
// k×m when transA, B n×k when transB), each with rows padded to 16 bytes (paddedPitch), one after another, then
// two words: A's and B's magnitude classes (kernels/helpers.cuh), found on the host for the inline route. The
// staged route (panels.cu) copies A and B to the device and back; the inline route (inline_product.cu) has the
// kernel read and write the buffer where it is. C comes back through copyOut, which applies α and β.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/request.h"
#include "cuda/kernels/kernel.h"
#include "cuda/transfer/host_classes.h"
#include "cuda/transfer/host_copy.h"

namespace cuda_matmul {

struct StagedProduct {
  explicit StagedProduct(const GemmShape& s)
      : shape(s), lda(paddedPitch(s.colsA())), ldb(paddedPitch(s.colsB())), ldc(paddedPitch(s.n)),
        aFloats(s.rowsA() * lda), bFloats(s.rowsB() * ldb), cFloats(s.m * ldc) {}

  double bytes() const { return (double(aFloats) + double(bFloats) + double(cFloats) + 4) * sizeof(float); }
  // The operands of a kernel launch on this layout starting at `base` (host or device memory), A and B as stored,
  // with the classes words copyInClassified() fills.
  GemmOperands operands(float* base) const {
    GemmOperands o{base, b(base), c(base), shape.m, shape.k, shape.n, lda, ldb, ldc};
    o.exactB = o.b;
    o.exactLdb = ldb;
    o.aClasses = reinterpret_cast<uint32_t*>(base + aFloats + bFloats + cFloats);
    o.bClasses = o.aClasses + 1;
    return o;
  }
  float* b(float* base) const { return base + aFloats; }
  float* c(float* base) const { return base + aFloats + bFloats; }

  // A and B from the caller's row-major arrays into the layout at `base`.
  void copyIn(const float* a, const float* b, float* base) const {
    parallelCopyRows(base, sizeof(float) * lda, a, sizeof(float) * shape.colsA(), sizeof(float) * shape.colsA(),
                     shape.rowsA());
    parallelCopyRows(this->b(base), sizeof(float) * ldb, b, sizeof(float) * shape.colsB(), sizeof(float) * shape.colsB(),
                     shape.rowsB());
  }
  // A and B into the layout at `base` with their magnitude classes in its two words, in one pass, for a kernel
  // reading the layout where it is (the inline route; the staged route's ProductLaunch finds them on the device).
  // On the calling thread: the inline route's operands are under a copy team's share (host_copy.cpp).
  void copyInClassified(const float* a, const float* b, float* base) const {
    auto* classes = reinterpret_cast<uint32_t*>(base + aFloats + bFloats + cFloats);
    classes[0] = copyRowsWithClasses(base, lda, a, shape.colsA(), shape.colsA(), shape.rowsA());
    classes[1] = copyRowsWithClasses(this->b(base), ldb, b, shape.colsB(), shape.colsB(), shape.rowsB());
  }
  // The product from the layout at `base` into the caller's m×n C: copied, or combined when α, β ask for it.
  void copyOut(const float* base, float* out) const {
    const float* product = base + aFloats + bFloats;
    if (shape.unscaled())
      parallelCopyRows(out, sizeof(float) * shape.n, product, sizeof(float) * ldc, sizeof(float) * shape.n, shape.m);
    else
      parallelCombineRows(out, shape.n, product, ldc, shape.n, shape.m, shape.alpha, shape.beta);
  }

  GemmShape shape;
  int64_t lda, ldb, ldc, aFloats, bFloats, cFloats;
};

}  // namespace cuda_matmul
