// The magnitude classes of a host array (kernels/magnitude_classes.h), for the inline route, which finds A's and
// B's on the JavaScript thread before its kernel runs (transfer/staged_product.h, classify).
#pragma once

#include <cstdint>

namespace cuda_matmul {

// kTinySeen and kHugeSeen ORed over x[0..count): what helpers.cuh's magnitudeClass gives element by element.
uint32_t hostMagnitudeClasses(const float* x, int64_t count);

}  // namespace cuda_matmul
