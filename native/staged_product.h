// How a small product's A, B and C lie together in one page-locked staging buffer: A | B | C, each with rows
// padded to 16 bytes (paddedPitch), one after another. Mul's small path (device_matmul.cu) copies that block to
// and from the device; the inline path (device_inline.cu) has the kernel read and write it where it is.
#pragma once

#include <cstddef>
#include <cstdint>

#include "device_kernels.h"
#include "host_copy.h"
#include "request.h"

namespace cuda_matmul {

struct StagedProduct {
  explicit StagedProduct(const MatmulRequest& r)
      : m(r.m), k(r.k), n(r.n), lda(paddedPitch(r.k)), ldb(paddedPitch(r.n)), ldc(paddedPitch(r.n)),
        aFloats(r.m * lda), bFloats(r.k * ldb), cFloats(r.m * ldc) {}

  double bytes() const { return (double(aFloats) + double(bFloats) + double(cFloats)) * sizeof(float); }
  // The operands of a kernel launch on this layout starting at `base` (host or device memory).
  GemmOperands operands(float* base) const { return {base, b(base), c(base), m, k, n, lda, ldb, ldc}; }
  float* b(float* base) const { return base + aFloats; }
  float* c(float* base) const { return base + aFloats + bFloats; }

  // A and B from the request's row-major arrays into the layout at `base`.
  void copyIn(const MatmulRequest& r, float* base) const {
    parallelCopyRows(base, sizeof(float) * lda, r.a, sizeof(float) * k, sizeof(float) * k, m);
    parallelCopyRows(b(base), sizeof(float) * ldb, r.b, sizeof(float) * n, sizeof(float) * n, k);
  }
  // C from the layout at `base` into a row-major m×n array.
  void copyOut(const float* base, float* out) const {
    parallelCopyRows(out, sizeof(float) * n, base + aFloats + bFloats, sizeof(float) * ldc, sizeof(float) * n, m);
  }

  int64_t m, k, n, lda, ldb, ldc, aFloats, bFloats, cFloats;
};

}  // namespace cuda_matmul
