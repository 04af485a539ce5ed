// The numbers 'auto' chooses kernels by (choose.h), one row per device they were measured on. They are where one
// kernel starts to beat another, and that moves with the device's SMs, clocks and memory: `bench/kernels.cu
// --tune-rules` times the kernels on both sides of each threshold on the device it runs on and prints that device's
// row in this form, to be added here (docs/kernels.md, "How a kernel is chosen"). A device without a row takes the
// row of its compute capability with the nearest count of SMs, else the first row.
#pragma once

#include <cstdint>
#include <cstdlib>

namespace cuda_matmul {

struct DeviceCaps {
  int major = 0, minor = 0, multiprocessors = 1;
};

// wgmma-f16 pays for products whose m·n / (m + n) is at least `size` with K, in whole 64-deep stages, at least `k`
// (choose.h, halfCopiesPay).
struct HalfCopiesStep {
  int64_t size, k;
};
constexpr int kHalfCopiesSteps = 3;

struct AutoRules {
  const char* measuredOn;  // the device's name
  int major, minor, multiprocessors;
  // wgmma over mma (choose.h, wgmmaPaysFor): in fp32 from wgmmaFp32Columns columns and K wgmmaFp32MinK; in tf32 from
  // wgmmaTf32Columns columns, and from wgmmaTf32MinRows rows where K is at least wgmmaTf32MinK, or from
  // wgmmaTf32LongKRows where it is at least wgmmaTf32LongK.
  int64_t wgmmaFp32Columns, wgmmaFp32MinK, wgmmaTf32Columns, wgmmaTf32MinRows, wgmmaTf32MinK, wgmmaTf32LongKRows,
      wgmmaTf32LongK;
  // wgmma-t over the others (choose.h, wgmmaTransposedPaysFor): from K transposedMinK and transposedMinColumns
  // columns; under 256 rows in tf32 always, in fp32 from transposedFp32Columns columns or a B of transposedFp32BFloats;
  // from 256 rows in tf32 from K transposedTallMinK, up to transposedTallMaxColumns columns.
  int64_t transposedMinK, transposedMinColumns, transposedFp32Columns, transposedFp32BFloats, transposedTallMinK,
      transposedTallMaxColumns;
  // wgmma-t's 256×128 tiles (choose.h, largeTilesPay): from this many rows, and from largeTilesWaveRows where they
  // fill more than half the SMs; under that, where the rows they cover are at most largeTilesPaddingPercent of those
  // 64-row tiles cover.
  int64_t largeTilesRows, largeTilesWaveRows, largeTilesPaddingPercent;
  HalfCopiesStep halfCopies[kHalfCopiesSteps];
  // B held as Bᵀ in fp32: wgmma-t, which reads it as stored, under this many rows; wgmma, which makes its TF32
  // parts from it (twice B's size in device memory), from there (choose.h, autoKernel). A rule of memory as much as
  // of speed, which --tune-rules measures but does not set: wgmma is the faster from 256 rows on an H100, but its
  // parts of a corpus of 1 000 000 × 768 would take 6 GB.
  int64_t transposedBFp32Rows;
};

// Measured on an H100 SXM: --tune-rules for the wgmma and wgmma-f16 thresholds, checked against the row before on
// the shapes they move (tf32 rows from 512, where the tuner's two sweeps disagreed and the check found wgmma 10%
// faster: docs/kernels.md, "How a kernel is chosen"); the others as choose.h's comments say.
inline constexpr AutoRules kAutoRules[] = {
    {"NVIDIA H100 80GB HBM3", 9, 0, 132,
     /* wgmma */ 32, 192, 32, 512, 256, 192, 1024,
     /* wgmma-t */ 256, 64, 1024, int64_t{1} << 22, 4096, 512,
     /* 256×128 tiles */ 256, 512, 115,
     /* wgmma-f16 */ {{1536, 4096}, {2700, 2048}, {4096, 1024}},
     /* Bᵀ in fp32 */ 1024},
};

// The row for `device`: its own (compute capability and SMs), else its compute capability's with the nearest count
// of SMs, else the first.
inline const AutoRules& autoRulesFor(const DeviceCaps& device) {
  const AutoRules* best = &kAutoRules[0];
  bool sameCapability = false;
  for (const AutoRules& rules : kAutoRules) {
    if (rules.major != device.major || rules.minor != device.minor) continue;
    if (!sameCapability || std::abs(rules.multiprocessors - device.multiprocessors) <
                               std::abs(best->multiprocessors - device.multiprocessors))
      best = &rules;
    sameCapability = true;
  }
  return *best;
}

}  // namespace cuda_matmul
