// Host memory copies spread over a few threads. One thread's memcpy from pageable memory into pinned staging
// buffers moves far less than the PCIe link can (docs/transfers.md, "The routes"); several in parallel keep up.
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

// For a copy into `dst` that the calling thread will make alone (under one team member's share): brings dst's
// lines into this core's cache now, while the GPU works, so that the copy does not read them in itself. A new
// result's memory comes back from the result cache cold: copying a 128³ C into it took 11.0–14.4 µs on the H100
// host, against 3.2–3.7 into an array used each call (docs/transfers.md, "The inline route"). Larger copies go over
// the team, each member writing its own share; this does nothing for them.
void prefetchForCopyInto(const void* dst, size_t bytes);

// gemm's α and β applied on the host as a product comes back, over rows×cols elements (pitches in floats), by the
// team: core/scaled_sum.h's two roundings, row by row.
void parallelCombineRows(float* c, size_t cPitch, const float* t, size_t tPitch, size_t cols, size_t rows, float alpha,
                         float beta);

}  // namespace cuda_matmul
