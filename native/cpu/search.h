// The CPU backend's search: for each of r.queries rows of `queries` (row-major, r.dims floats each), the r.k best
// rows of `corpus` (rows×r.dims, row-major), best first, into scores and indices (r.queries×r.k each, row-major).
// Computed in fp32 whatever r.precision asks. Throws MatmulError if the call is stopped (its abort, or its
// JavaScript environment ending).
#pragma once

#include <cstdint>

#include "core/search.h"

namespace cuda_matmul {

void cpuSearch(const float* corpus, int64_t rows, const float* queries, const SearchRequest& r, float* scores,
               uint32_t* indices);

}  // namespace cuda_matmul
