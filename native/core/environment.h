// Counts a user may set in the environment (UV_THREADPOOL_SIZE, CUDA_MATMUL_COPY_THREADS, CUDA_MATMUL_CPU_THREADS),
// read one way.
#pragma once

#include <cstdlib>

namespace cuda_matmul {

// The variable's value as a whole number in [lowest, highest]; `otherwise` when it is unset, not a number, or
// out of range.
inline long environmentCount(const char* name, long lowest, long highest, long otherwise) {
  const char* text = std::getenv(name);
  if (!text) return otherwise;
  const long value = std::strtol(text, nullptr, 10);
  return value >= lowest && value <= highest ? value : otherwise;
}

}  // namespace cuda_matmul
