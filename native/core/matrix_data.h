// One Matrix's elements (lib/matrix.ts), wherever its backend keeps them. Shared (std::shared_ptr) between the
// JavaScript object and the operations in flight that use it, so dispose() while a product runs frees the
// memory only when that product is done.
#pragma once

#include <cstdint>
#include <memory>

#include "core/backend.h"

namespace cuda_matmul {

struct MatrixData {
  ComputeBackend* backend = nullptr;
  int device = 0;
  int64_t rows = 0, cols = 0;
  std::shared_ptr<MatrixStorage> storage;
};

}  // namespace cuda_matmul
