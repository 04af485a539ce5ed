// Host memory copies spread over a few threads. One thread's memcpy from pageable memory into pinned staging
// buffers moves far less than the PCIe link can (bench/NOTES.md, "Transfers"); several in parallel keep up.
#pragma once

#include <cstddef>
#include <vector>

namespace cuda_matmul {

// Copies `bytes` from src to dst (non-overlapping) with a team of threads, the caller among them: every
// core, at most 16, or CUDA_MATMUL_COPY_THREADS, as many as the core budget lends (core/core_budget.h).
// Safe to call from several threads at once: they share one persistent team.
void parallelCopy(void* dst, const void* src, size_t bytes);

// Copies `rows` rows of `rowBytes` bytes between buffers with row strides srcStride and dstStride.
void parallelCopyRows(void* dst, size_t dstStride, const void* src, size_t srcStride, size_t rowBytes, size_t rows);

// Many small copies (a gathered batch's matrices, kilobytes each), spread over the team in runs of consecutive
// pieces, one run per member.
struct CopyPiece {
  void* dst;
  const void* src;
  size_t bytes;
};
void parallelCopyPieces(const std::vector<CopyPiece>& pieces);

// Asks the kernel to back a large pageable destination that is about to be written (a product's new result)
// with 2 MiB pages where it can (transparent huge pages in "madvise" mode): the first writes into a fresh 64 MiB
// result otherwise take 16 384 page faults, which cost a 4096³ product from plain arrays 6 ms of its 14 on the
// H100 host (bench/NOTES.md). Only ranges of at least 32 MiB, which glibc always maps on their own, are advised,
// so no part of the heap shared with other allocations changes its page size. A hint: it does nothing where
// huge pages are off, and errors are ignored.
void preferHugePages(void* data, size_t bytes);

// gemm's α and β applied on the host as a product comes back: c = α·t + β·c over rows×cols elements (pitches in
// floats); β = 0 sets c = α·t whatever c held, NaN included, as BLAS does.
void parallelCombineRows(float* c, size_t cPitch, const float* t, size_t tPitch, size_t cols, size_t rows, float alpha,
                         float beta);

}  // namespace cuda_matmul
