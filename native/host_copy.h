// Host memory copies spread over a few threads. One thread's memcpy from pageable memory into pinned staging
// buffers moves far less than the PCIe link can (bench/NOTES.md, "Transfers"); several in parallel keep up.
#pragma once

#include <cstddef>

namespace cuda_matmul {

// Copies `bytes` from src to dst (non-overlapping) with a team of threads, the caller among them: every
// core, at most 16, or CUDA_MATMUL_COPY_THREADS.
// Safe to call from several threads at once: they share one persistent team.
void parallelCopy(void* dst, const void* src, size_t bytes);

// Copies `rows` rows of `rowBytes` bytes between buffers with row strides srcStride and dstStride.
void parallelCopyRows(void* dst, size_t dstStride, const void* src, size_t srcStride, size_t rowBytes, size_t rows);

}  // namespace cuda_matmul
