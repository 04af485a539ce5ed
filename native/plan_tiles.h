// The plan's shape rules, in their own header so that bench/kernels.cu times exactly what 'auto' picks:
// each kernel's block tile, and how many rows of C one pipelined panel covers.
//
// Which block tile the mma kernel uses for an m×n product. Measured on an H100 (bench/NOTES.md, step 2):
//   - 128×128 tiles reuse each loaded element most and win once the grid fills the GPU
//     (2048³ and up: 1.04× cuBLAS against 0.85–0.91× for the smaller tiles);
//   - a side of 64 or less gets a 64-wide tile, not a half-empty 128 one (64×768×100000: 0.95× with 64×128,
//     0.58× with 128×128; 100000×768×64: 1.03× with 128×64);
//   - a grid of under 1.5 blocks per multiprocessor leaves SMs idle, so the tile shrinks until it is not
//     (1024³: 64 blocks of 128×128 reach 0.62×, 256 blocks of 64×64 1.12×).
#pragma once

#include <algorithm>
#include <cstdint>

#include "request.h"

namespace cuda_matmul {

inline MmaTile chooseMmaTile(int64_t m, int64_t n, int multiprocessors) {
  int64_t rows = m <= 64 ? 64 : 128, cols = n <= 64 ? 64 : 128;
  auto blocks = [&] { return ((m + rows - 1) / rows) * ((n + cols - 1) / cols); };
  while (2 * blocks() < 3 * static_cast<int64_t>(multiprocessors)) {
    if (cols == 128)
      cols = 64;
    else if (rows == 128)
      rows = 64;
    else
      break;
  }
  if (rows == 128) return cols == 128 ? MmaTile::Rows128Cols128 : MmaTile::Rows128Cols64;
  return cols == 128 ? MmaTile::Rows64Cols128 : MmaTile::Rows64Cols64;
}

// Whether the wgmma kernel (tf32 on an H100/H200) beats mma's tf32 mode for an m×k×n product (bench/NOTES.md,
// step 3): from 1024×1024 outputs, with k deep enough to pay for transposing B. Below, and for skinny
// products, mma's smaller tiles win (64×768×100000: 0.35× cuBLAS TF32 with wgmma, 0.96× with mma).
inline bool wgmmaPaysFor(int64_t m, int64_t k, int64_t n) { return m >= 1024 && n >= 1024 && k >= 256; }

// Long K (bench/NOTES.md, "Long K"). Each kernel sums its products in fp32 registers, so its rounding error
// grows with K: at 2×20,000,000×2 mma had 2.0e-5 and blocktile 8.2e-5 against cuBLAS SGEMM's 2.9e-6, and mma's
// tf32 5.9e-2 against cuBLAS TF32's 6.6e-4. Past a kernel's slice depth, K is split: each slice is summed into a
// partial result, and the partials are added in float64 (kernel_launch.cu). The depths keep one slice's error
// near cuBLAS's: the FFMA kernels add one product at a time (1024), mma in fp32 adds 8-deep sums rounded to
// nearest (8192), tf32 accumulates in the tensor cores (4096, where its error is cuBLAS TF32's). The partials take slices × rows × pitch floats of
// device memory, at most kSplitWorkspaceBytes: a product too large for two slices there is not split.
constexpr int64_t kSplitWorkspaceBytes = int64_t{64} << 20;
constexpr int64_t kMaxSlices = 65535;  // a grid's z (wgmma: y) dimension
constexpr int64_t kSliceAlignment = 32;  // whole k tiles of every kernel, and 16-byte aligned slices of A

constexpr int64_t sliceDepthFor(Kernel kernel, Precision precision) {
  switch (kernel) {
    case Kernel::Muld:
    case Kernel::BlockTile:
      return 1024;
    case Kernel::Mma:
      return precision == Precision::Fp32 ? 8192 : 4096;
    case Kernel::Wgmma:
      return 4096;
    case Kernel::Auto:
      break;  // the plan always names a kernel
  }
  return 1024;
}

struct KSplit {
  int slices = 1;
  int64_t depth = 0;  // 0: not split
};

// How a launch of up to `rows` rows of C (row pitch `pitch`) splits K.
inline KSplit chooseKSplit(Kernel kernel, Precision precision, int64_t rows, int64_t pitch, int64_t k) {
  const int64_t depth = sliceDepthFor(kernel, precision);
  if (k <= depth || rows == 0 || pitch == 0) return {};
  const int64_t fit = kSplitWorkspaceBytes / (rows * pitch * static_cast<int64_t>(sizeof(float)));
  const int64_t slices = std::min({(k + depth - 1) / depth, fit, kMaxSlices});
  if (slices < 2) return {};
  const int64_t sliceDepth = ((k + slices - 1) / slices + kSliceAlignment - 1) / kSliceAlignment * kSliceAlignment;
  return {static_cast<int>((k + sliceDepth - 1) / sliceDepth), sliceDepth};
}

struct TileShape {
  int64_t rows, cols;  // of C, per thread block
};

constexpr TileShape tileShape(const KernelPlan& plan) {
  switch (plan.kernel) {
    case Kernel::Muld:
      return {16, 16};
    case Kernel::BlockTile:
      return {128, 128};
    case Kernel::Mma:
      switch (plan.tile) {
        case MmaTile::Rows128Cols128: return {128, 128};
        case MmaTile::Rows128Cols64: return {128, 64};
        case MmaTile::Rows64Cols128: return {64, 128};
        case MmaTile::Rows64Cols64: return {64, 64};
      }
      return {128, 128};
    case Kernel::Wgmma:
      return {128, 256};
    case Kernel::Auto:
      break;  // the plan always names a kernel
  }
  return {128, 128};
}

// CUDA grids hold at most 65535 blocks in y; a panel never needs more.
constexpr int64_t kMaxGridRows = 65535;

// Rows of C per panel. From host arrays, the product is computed in row panels so that copies overlap the
// kernels (device_matmul.cu). About 8 panels overlap well, but each panel must be whole waves of blocks
// (2 blocks of 128×128 run per SM at once): a panel of 1.1 waves takes as long as 2 (bench/NOTES.md,
// "Transfers": 4096³ from allocHost memory, 9-tile-row panels 6.5 ms).
constexpr int64_t kBlocksPerSm = 2;
inline int64_t choosePanelRows(int64_t m, int64_t n, TileShape tile, int multiprocessors) {
  const int64_t blocksPerTileRow = std::max<int64_t>(1, (n + tile.cols - 1) / tile.cols);
  const int64_t tileRowsPerWave = std::max<int64_t>(1, kBlocksPerSm * multiprocessors / blocksPerTileRow);
  const int64_t eighthInTileRows = ((m + 7) / 8 + tile.rows - 1) / tile.rows;
  const int64_t waves = (eighthInTileRows + tileRowsPerWave - 1) / tileRowsPerWave;
  return std::min(waves * tileRowsPerWave, kMaxGridRows) * tile.rows;
}

}  // namespace cuda_matmul
