// A and B staged for the inline route together with their magnitude classes (kernels/magnitude_classes.h), which
// that route finds on the JavaScript thread before its kernel runs (transfer/staged_product.h, copyInClassified).
#pragma once

#include <cstdint>

namespace cuda_matmul {

// Copies `rows` rows of `cols` floats from src (row pitch srcPitch floats) to dst (dstPitch), bit for bit, and returns
// kTinySeen and kHugeSeen ORed over every element copied: what helpers.cuh's magnitudeClass gives element by element.
uint32_t copyRowsWithClasses(float* dst, int64_t dstPitch, const float* src, int64_t srcPitch, int64_t cols,
                             int64_t rows);

}  // namespace cuda_matmul
