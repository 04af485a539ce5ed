// How the plan chooses, for one product on one device: the kernel ('auto'), its variant (block tile), the split
// of a long K, and the rows of C per pipelined panel. Header-only, so that bench/kernels.cu times exactly what
// 'auto' picks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "core/options.h"
#include "cuda/kernels/auto_rules.h"
#include "cuda/kernels/registry.h"

namespace cuda_matmul {

// Tiles of rows×cols that cover an m×n C.
inline int64_t tilesOf(int64_t m, int64_t n, int64_t rows, int64_t cols) {
  return ((m + rows - 1) / rows) * ((n + cols - 1) / cols);
}

// Whether the wgmma kernel (on an H100/H200) beats mma for an m×k×n product (docs/kernels.md, "Step 3: wgmma"), its transpose
// of B included. In tf32 from 512 rows, 64 columns and k 256, since it has 128×128 and 128×64 tiles beside 128×256:
// 1000³ 1.27× cuBLAS TF32 against mma's 0.83×, 100000×768×64 2.27× against 1.58×; 512³ ties, 256³ stays on mma. Also
// from 128 rows where k is 1024 or more, where its few blocks split K to fill the SMs (chooseFillSlices) and mma's do
// not: 256×1024×1024 0.023 ms against 0.030, 384×1024×384 0.025 against 0.030 (docs/kernels.md, "Tiles for narrow products and small grids"); under 256 rows wgmma-t takes those
// (wgmmaTransposedPaysFor). In fp32 (3xTF32, three products per step, so the transpose weighs a third as much) from
// 64 columns and k 256, any rows: 256³ 1.23× cuBLAS SGEMM against mma's 1.22×, 100000×768×64 1.59× against 0.96×;
// under 256 rows its 64×32 and 64×64 tiles with K split to fill the SMs (docs/kernels.md, "Tiles for narrow products and small grids"): 64×4096×256 0.022 ms against mma's 0.185, 1×256×64 0.013 against 0.017. At 1000×128×1000 (k under 256) mma
// wins (1.39× against 1.28×). The numbers are the device's row of auto_rules.h; `--tune-rules` then moved the H100's
// to 32 columns in both precisions, k 192 in fp32 and 192 rows at a long K (docs/kernels.md, "How a kernel is chosen":
// 4096×1024×32 fp32 0.045 → 0.031–0.034 ms, 2048×200×2048 fp32 0.047 → 0.034, 100000×768×32 fp32 0.228 → 0.137).
inline bool wgmmaPaysFor(const AutoRules& r, Precision precision, int64_t m, int64_t k, int64_t n) {
  if (precision == Precision::Tf32)
    return n >= r.wgmmaTf32Columns &&
           ((m >= r.wgmmaTf32MinRows && k >= r.wgmmaTf32MinK) || (m >= r.wgmmaTf32LongKRows && k >= r.wgmmaTf32LongK));
  return n >= r.wgmmaFp32Columns && k >= r.wgmmaFp32MinK;
}

// Whether wgmma-t (step 4: Cᵀ = Bᵀ·Aᵀ, B read as stored) pays for an m×k×n product of under 256 rows, from 64 columns
// and k 256 (docs/kernels.md, "Tiles for narrow products and small grids", 'auto' before and after on an H100). Such a product
// is bound by reading B, which wgmma-t reads once as stored where wgmma transposes it first and mma's few blocks do
// not fill the SMs: tf32 at every shape measured (1, 16, 64, 128, 192 rows; k 256 to 16384; 64 to 4096 columns):
// 128×65536×1024 0.125 ms against wgmma's 0.335 (cuBLAS TF32 0.133), 64×4096×1024 0.020 against mma's 0.095,
// 192×16384×4096 0.162 against 0.458; 64×768×100000 1.14× cuBLAS TF32. fp32 where B is large (1024 columns, or k·n
// from 4M floats); on smaller Bs wgmma's narrower tiles tie or win by 1–2 µs: 64×16384×1024 0.048 against mma's 0.374
// (cuBLAS SGEMM 0.064), 1×16384×256 0.026 against wgmma's 0.037 (--tune), 64×768×100000 1.62× SGEMM. In tf32 also for
// taller products with a long K (from 4096) and few columns (up to 512) whose 64×128 tiles fit one wave: their grid
// is wgmma's at most, with four times the rows per SM of B read as stored ("Products under 256 rows off mma", 'auto'
// on wgmma against wgmma-t's plan, 22 of 22 such shapes of 1024–4096 rows as fast or faster): 2048×4096×512 0.042 ms
// against 0.056 (cuBLAS TF32 0.063), 4096×8192×256 0.077 against 0.096 (0.081), 2048×16384×128 0.109 against 0.125
// (0.085). Where 64×128 tiles take more than a wave, wgmma-t's 64×192 lost (4096×4096×512 0.116 against 0.071).
inline bool wgmmaTransposedPaysFor(const AutoRules& r, Precision precision, int64_t m, int64_t k, int64_t n,
                                   int multiprocessors) {
  if (k < r.transposedMinK || n < r.transposedMinColumns) return false;
  if (m >= 256)
    return precision == Precision::Tf32 && k >= r.transposedTallMinK && n <= r.transposedTallMaxColumns &&
           tilesOf(m, n, 64, 128) <= multiprocessors;
  return precision == Precision::Tf32 || n >= r.transposedFp32Columns || k * n >= r.transposedFp32BFloats;
}

// A tensor-core kernel (registry.h, splitsKToFill) with a grid of at most half the SMs splits K so that its slices
// fill them, each at least kMinFillDepth deep, where a block's K loop is long enough that the sum of the slices (one
// more launch) costs less than the idle SMs: from the precision's minFillK (registry.h), k 2048 in tf32, 1024 in fp32
// (three products per step). Measured on an H100 (docs/kernels.md, "Tiles for narrow products and small grids"), against slices
// of at least 1024 on wgmma and wgmma-t: 64×4096×1024 fp32 0.044 → 0.023 ms, tf32 1×4096×256 0.022 → 0.016,
// 300×3000×300 tf32 0.035 → 0.027; slices of 256 from k 1024 in tf32 too lost (16×1024×4096 0.016 → 0.019, 512³ 0.015
// → 0.020). mma, which did not split, against itself: 1024×8192×16 fp32 0.362 → 0.069 ms, 256×4096×1024 0.184 →
// 0.106, 512×2048×512 tf32 0.051 → 0.038.
constexpr int64_t kMinFillDepth = 256;
// Slices of K that fill the SMs with `blocks` blocks each; 1 for none (an empty product), more than half the SMs,
// or a K too short to pay.
inline int64_t fillSlices(Precision precision, int64_t blocks, int64_t k, int multiprocessors) {
  if (blocks == 0 || 2 * blocks > multiprocessors || k < precisionRow(precision).minFillK) return 1;
  return std::max<int64_t>(1, std::min(multiprocessors / blocks, k / kMinFillDepth));
}
inline int64_t chooseFillSlices(const KernelRow& row, const KernelVariant& variant, Precision precision, int64_t m,
                                int64_t k, int64_t n, int multiprocessors) {
  if (!row.splitsKToFill) return 1;
  return fillSlices(precision, tilesOf(m, n, variant.tile.rows, variant.tile.cols), k, multiprocessors);
}

// Whether wgmma-t's 256×128 tiles (tf32) pay: for a product of at least 512 rows where they are more than half the
// SMs, wgmma would keep its 128×256 tile (chooseVariant) with as many blocks, and wgmma-t reads B as stored at the
// tensor cores' full rate where wgmma transposes B first (docs/kernels.md, "Step 4: wgmma-t, B read as stored"):
// 4096³ 0.350 ms against 0.411 (cuBLAS TF32 0.363), 8192³ 2.78 against 2.99 (cuBLAS 2.72), 2048³ (128 tiles) 0.052
// against 0.069, 1536×2048×2048 (96) 0.048 against 0.065. Fewer tiles fill the SMs only by splitting K (fillSlices),
// whose slices are then summed: that pays where transposing B (k·n floats read and written) moves more than twice
// what the sum does ((slices + 1)·m·n), that is k > (slices + 1)·m (docs/kernels.md, "Splitting K", cuBLAS TF32 in brackets): 1024×8192×2048 0.136 against 0.172 (0.117), 512×8192×1024
// 0.058 against 0.099 (0.065), 768×16384×768 0.204 against 0.257 (0.111), 513×2049×1409 0.053 against 0.057 (0.056);
// where it does not, 2048×4096×1024 0.089 against 0.078, 1024×2048×2048 and 1024×4096×1024 about the same. (All
// before the faster element-wise passes, launch.cu, which both run.) 768×16384×768 and 512×65536×256 then ran 2 and 8
// slices, long K's, not the 7 and 33 that fill the SMs; with those (chooseKSplit; "K split for both reasons") 0.088
// and 0.138 ms (cuBLAS 0.111–0.116, 0.116–0.123). The split tiles pay from 256 rows ("K split for both reasons": each
// kernel K split as its plan splits it; 'auto' was wgmma): 256×32768×512 0.070 ms against 0.123 (cuBLAS 0.074),
// 384×20000×640 0.066 against 0.119 (0.077), 256×16384×2048 0.082 against 0.207 (0.101).
// Under 512 rows they cover up to 255 rows too many, 64-row tiles (64×192) up to 63. Per row covered they took 0.84
// of the 64-row tiles' time at 256×768×1000000, so they pay where they cover at most 15% more rows
// (docs/kernels.md, "Step 4: wgmma-t, B read as stored", m from 256 to 500, cuBLAS TF32 in brackets): 256×768×1000000
// 1.46 ms against 1.73 (1.46), 500 2.47 against 3.89 (2.54); 384 3.19 against 2.44 (2.95), 320 3.68 against 2.08 (3.27).
// What whole tiles (or stages) of `tile` cover of `extent`.
inline int64_t coveredBy(int64_t extent, int64_t tile) { return (extent + tile - 1) / tile * tile; }

// Whether an m×n C's 256×128 tiles are more than half the SMs' worth.
inline bool largeTilesFillHalf(int64_t m, int64_t n, int multiprocessors) {
  return 2 * tilesOf(m, n, 256, 128) > multiprocessors;
}

inline bool largeTilesPay(const AutoRules& r, int64_t m, int64_t k, int64_t n, int multiprocessors) {
  if (m < r.largeTilesRows) return false;
  if (largeTilesFillHalf(m, n, multiprocessors))
    return m >= r.largeTilesWaveRows || 100 * coveredBy(m, 256) <= r.largeTilesPaddingPercent * coveredBy(m, 64);
  const int64_t tiles = tilesOf(m, n, 256, 128);
  const int64_t slices = fillSlices(Precision::Tf32, tiles, k, multiprocessors);
  return 2 * tiles * slices > multiprocessors && k > (slices + 1) * m;
}

// Whether wgmma-f16 (step 5: tf32 exactly on the fp16 tensor cores) pays for a tf32 product: where the time its fp16
// product saves over the TF32 kernels (~30% of it, ∝ m·n·k) exceeds what its two passes over A and B cost (∝ (m +
// n)·k) and a fixed ~40 µs (the passes' and recomputations' launches, a last wave). So by the product's m·n / (m + n)
// (its "size" for this trade), with a longer K needed where that is smaller. Measured on an H100 (docs/kernels.md, "Step 5: tf32 on the fp16 tensor cores": 48 shapes from 2048 to 8192 against 'auto' before): 4096³ 0.315 ms against
// 0.345, 8192×1024×8192 0.367 against 0.404, 3000×5000×7001 0.605 against 0.855; where it lost or tied, it is not
// taken: 4096×4096×2048 0.202 against 0.176, 4096×1024×8192 0.219 against 0.207, 2048×4096×8192 0.344 against 0.348,
// 8192×8192×2048 (1.09×, left out: 2048 columns pay only from k 8192 there). The steps of size and K are the device's
// row of auto_rules.h; `--tune-rules` moved the H100's first to size 1536 at k 4096 (3500×4096×3500 0.358 → 0.262 ms,
// with B held as Bᵀ 0.324 → 0.255; docs/kernels.md, "How a kernel is chosen").
// K counts in whole 64-deep stages, as both kernels run it (wgmma-f16's stage, 5_wgmma_f16.cu's kDepth; two of
// wgmma-t's): the steps were measured at powers of two, and a K a few short of one runs as that one does
// (docs/kernels.md, "How a kernel is chosen").
inline bool halfCopiesPay(const AutoRules& r, int64_t m, int64_t k, int64_t n) {
  if (m == 0 || n == 0) return false;
  const int64_t size = m * n / (m + n);
  const int64_t stagedK = coveredBy(k, 64);
  return std::any_of(std::begin(r.halfCopies), std::end(r.halfCopies),
                     [&](const HalfCopiesStep& step) { return size >= step.size && stagedK >= step.k; });
}

// 'auto' takes the fastest kernel measured (docs/kernels.md, "How a kernel is chosen"): step 6 for products with at most 16 rows or columns
// on every device (bound by reading the large operand once, which it does as stored); where wgmma runs, wgmma-f16
// for large tf32 products, wgmma-t for products with few rows and wgmma for large ones; otherwise the tensor-core
// kernel where the device has tensor cores it can use (3xTF32 beats FFMA at every shape measured, at better than
// fp32 accuracy), else blocktile. Muld is never the fastest; it stays selectable as the readable baseline.
// B held transposed (`bTransposed`: n×k, as a corpus of rows is read in q·corpusᵀ) goes, where wgmma-f16 does not
// take the product (it reads Bᵀ as stored too), to wgmma-t, which reads it as stored, instead of wgmma, which
// rounds it into its TF32 parts first (twice the size of B in fp32): in tf32 always, in fp32 under
// transposedBFp32Rows rows (auto_rules.h: 1024 on an H100). Past those wgmma's 3xTF32 is so much faster than
// wgmma-t's (4096³ 130 against 83 TFLOP/s on an H100) that making its parts pays for itself; at 512×768×1000000
// wgmma-t took 9.24 ms against wgmma's 10.25 with a transpose of B (docs/kernels.md, "Step 6: few rows"). wgmma-f16 from Bᵀ:
// 4096³ 0.332 ms against wgmma-t's 0.368 (docs/kernels.md, "Step 5: tf32 on the fp16 tensor cores").
// A held as Aᵀ (`aTransposed`): wgmma-t transposes each stage's tile of A in shared memory, which its 256×128 tiles
// pay for most (8192×1024×512 tf32 0.125 ms against 0.060 from A), so those products go to wgmma, which reads Aᵀ as
// it reads A (0.061; docs/kernels.md, "Operands as stored, α and β in the epilogue").
inline Kernel autoKernel(Precision precision, int64_t m, int64_t k, int64_t n, const DeviceCaps& device,
                         bool bTransposed = false, bool aTransposed = false) {
  if (kernelRow(Kernel::FewRows).canImplement(m, k, n)) return Kernel::FewRows;
  const AutoRules& rules = autoRulesFor(device);
  const bool transposedRuns = runsOn(kernelRow(Kernel::WgmmaT), device.major, device.minor);
  const bool takesBAsStored =
      bTransposed && transposedRuns && (precision == Precision::Tf32 || m < rules.transposedBFp32Rows);
  if (precision == Precision::Tf32 && runsOn(kernelRow(Kernel::WgmmaF16), device.major, device.minor) &&
      halfCopiesPay(rules, m, k, n))
    return Kernel::WgmmaF16;
  const bool largeTf32 = precision == Precision::Tf32 && k >= 256 && largeTilesPay(rules, m, k, n, device.multiprocessors);
  // Under wgmma's rows, tf32 from the 256×128 tiles' rows over more than half the SMs: wgmma-t's tiles of either
  // height (largeTilesPay) against mma's, at 256 to 500 × 768 × 1000000 1.46–2.47 ms against 4.0–8.0.
  const bool manyTilesTf32 = precision == Precision::Tf32 && k >= 256 && m >= rules.largeTilesRows &&
                             largeTilesFillHalf(m, n, device.multiprocessors);
  const bool transposedPays =
      wgmmaTransposedPaysFor(rules, precision, m, k, n, device.multiprocessors) || largeTf32 || manyTilesTf32;
  const bool wgmmaRuns = runsOn(kernelRow(Kernel::Wgmma), device.major, device.minor);
  if (transposedRuns && transposedPays) return aTransposed && largeTf32 && wgmmaRuns ? Kernel::Wgmma : Kernel::WgmmaT;
  if (wgmmaRuns && wgmmaPaysFor(rules, precision, m, k, n))
    return takesBAsStored ? Kernel::WgmmaT : Kernel::Wgmma;
  return runsOn(kernelRow(Kernel::Mma), device.major, device.minor) ? Kernel::Mma : Kernel::BlockTile;
}

// Which block tile a kernel with several (mma, wgmma) uses for an m×n product. Measured on an H100 (docs/kernels.md, "Tiles for narrow products and small grids"):
//   - 128×128 tiles reuse each loaded element most and win once the grid fills the GPU
//     (2048³ and up: 1.04× cuBLAS against 0.85–0.91× for the smaller tiles); wgmma's tf32 mode has a 128×256 tile,
//     which wins there too (4096³: cuBLAS TF32's speed);
//   - a side of 64 or less gets a 64-wide tile, not a half-empty 128 one (64×768×100000: 0.95× with 64×128,
//     0.58× with 128×128; 100000×768×64: 1.03× with 128×64);
//   - a grid of under 1.5 blocks per multiprocessor leaves SMs idle, so the tile shrinks until it is not
//     (1024³: 64 blocks of 128×128 reach 0.62×, 256 blocks of 64×64 1.12×). A kernel whose block takes a whole
//     SM (wgmma) shrinks only while the smaller tile's grid still fits one wave: a second wave of half-size blocks
//     takes as long as one wave of whole ones. wgmma has no 64-row tile; it shrinks its columns, to 32 in fp32;
//   - wgmma-t has 64-row tiles, 192 columns wide (three consumer warpgroups) or, for grids under one wave,
//     128 (16×4096×16384 fp32: 0.143 ms against 0.175); in tf32 also 256×128, where those fill the SMs, alone
//     or over slices of K (largeTilesPay);
//   - wgmma's fp32 mode also has 64×64 and 64×32 tiles (one consumer warpgroup), taken after 128×32 for grids
//     still under one wave: 512³ 0.019 ms on 128 blocks of 64×32 against 0.021 on 64 of 128×32, 512×1024×512 0.023
//     against 0.030.
inline const KernelVariant& chooseVariant(KernelVariants variants, int64_t m, int64_t k, int64_t n,
                                          const DeviceCaps& device) {
  const int multiprocessors = device.multiprocessors;
  auto find = [&](int64_t rows, int64_t cols) -> const KernelVariant* {
    for (const KernelVariant& variant : variants)
      if (variant.tile.rows == rows && variant.tile.cols == cols) return &variant;
    return nullptr;
  };
  auto hasRows = [&](int64_t rows) {
    for (const KernelVariant& variant : variants)
      if (variant.tile.rows == rows) return true;
    return false;
  };
  auto narrowestWith = [&](int64_t rows) {
    int64_t narrowest = 0;
    for (const KernelVariant& variant : variants)
      if (variant.tile.rows == rows && (narrowest == 0 || variant.tile.cols < narrowest)) narrowest = variant.tile.cols;
    return narrowest;
  };
  if (const KernelVariant* large = find(256, 128); large && largeTilesPay(autoRulesFor(device), m, k, n, multiprocessors))
    return *large;
  int64_t rows = (m <= 64 || !hasRows(128)) && hasRows(64) ? 64 : 128, cols = n <= 64 ? 64 : 128;
  if (n > 128 && find(rows, 256))
    cols = 256;
  else if (n > 128 && find(rows, 192))
    cols = 192;
  auto blocks = [&](int64_t width) { return tilesOf(m, n, rows, width); };
  // The next narrower tile: half as wide, or 128 after wgmma-t's 192.
  auto narrower = [&] { return cols == 192 ? 128 : cols / 2; };
  while (cols > 32 && !find(rows, cols)) cols = narrower();  // wgmma's fp32 64-row tiles are 64 wide at most
  // None that narrow (wgmma-t's are 128 wide at least): the narrowest there is. For 64 columns 64×128 beat 64×192 by
  // up to 13% (1×256×64 tf32 0.009 ms against 0.011, 128×16384×64 0.021 against 0.024; docs/kernels.md, "Tiles for narrow products and small grids").
  if (!find(rows, cols) && hasRows(rows)) cols = narrowestWith(rows);
  const bool waves = variants.front().wholeSm;  // a property of the kernel: every variant has the same
  while (2 * blocks(cols) < 3 * static_cast<int64_t>(multiprocessors) &&
         (!waves || blocks(narrower()) <= static_cast<int64_t>(multiprocessors))) {
    if (cols > 32 && find(rows, narrower()))
      cols = narrower();
    else if (rows == 128 && find(64, cols))
      rows = 64;
    else
      break;
  }
  const KernelVariant* chosen = find(rows, cols);
  return chosen ? *chosen : variants.front();  // a kernel built for one tile
}

// Which block tile a kernel uses where it reads A and B over the bus from page-locked host memory (the inline
// route, transfer/inline_product.cu): there the reads, not the arithmetic, take the time, and they go faster in
// 64-row blocks (more of them wait on the bus at once) with B's rows read 128 columns at a time. Measured on the
// H100 host (docs/transfers.md, "The inline route"; launch and wait included): 128³ with 64×128 tiles 24.7–25.9 µs,
// 128×128 28.0, 128×64 30.6, 64×64 (chooseVariant's pick, which fills SMs instead) 34.0; 64³ 17.0 µs on any 64-wide
// tile. A kernel without such tiles keeps `planned`.
inline const KernelVariant& chooseBusVariant(KernelVariants variants, int64_t n, const KernelVariant& planned) {
  const int64_t cols = n > 64 ? 128 : 64;
  for (const KernelVariant& variant : variants)
    if (variant.tile.rows == 64 && variant.tile.cols == cols) return variant;
  return planned;
}

// Long K (docs/accuracy.md, "Long K"). Each kernel sums its products in fp32 registers, so its rounding error
// grows with K: at 2×20,000,000×2 mma had 2.0e-5 and blocktile 8.2e-5 against cuBLAS SGEMM's 2.9e-6, and mma's
// tf32 5.9e-2 against cuBLAS TF32's 6.6e-4. Past its row's slice depth (registry.h), K is split: each slice is
// summed into a partial result, and the partials are added in float64 (launch.cu). The partials take
// slices × rows × pitch floats of device memory, at most kSplitWorkspaceBytes: a product too large for two
// slices there is not split.
constexpr int64_t kSplitWorkspaceBytes = int64_t{64} << 20;
constexpr int64_t kMaxSlices = 65535;    // a grid's z (wgmma: y) dimension
constexpr int64_t kSliceAlignment = 32;  // whole k tiles of every kernel, and 16-byte aligned slices of A

struct KSplit {
  int slices = 1;
  int64_t depth = 0;  // 0: not split
};

// How a launch of up to `rows` rows of C (row pitch `pitch`) splits K into slices of at most `maxDepth`.
// K in `wanted` slices of equal depth (whole k tiles), as many as the workspace holds; not split under 2.
inline KSplit sliceK(int64_t wanted, int64_t rows, int64_t pitch, int64_t k) {
  if (rows == 0 || pitch == 0) return {};
  const int64_t fit = kSplitWorkspaceBytes / (rows * pitch * static_cast<int64_t>(sizeof(float)));
  const int64_t slices = std::min({wanted, fit, kMaxSlices});
  if (slices < 2) return {};
  const int64_t depth = ((k + slices - 1) / slices + kSliceAlignment - 1) / kSliceAlignment * kSliceAlignment;
  return {static_cast<int>((k + depth - 1) / depth), depth};
}
// The split that serves both reasons to split: slices no deeper than `maxDepth` (accuracy), and at least `toFill`
// of them (chooseFillSlices: tiles that leave SMs idle). Accuracy's slices alone leave them idle: 768×16384×768 on
// wgmma-t's 256×128 tiles in 2 slices of 8192 ran on 36 of 132 SMs (docs/kernels.md, "Splitting K").
inline KSplit chooseKSplit(int64_t maxDepth, int64_t toFill, int64_t rows, int64_t pitch, int64_t k) {
  const int64_t forAccuracy = k > maxDepth ? (k + maxDepth - 1) / maxDepth : 1;
  return sliceK(std::max(forAccuracy, toFill), rows, pitch, k);
}

// CUDA grids hold at most 65535 blocks in y; a panel never needs more.
constexpr int64_t kMaxGridRows = 65535;

// Rows of C per panel. From host arrays, the product is computed in row panels so that copies overlap the
// kernels (transfer/panels.cu). About 8 panels overlap well, but each panel must be whole waves of blocks
// (2 blocks of 128×128 run per SM at once): a panel of 1.1 waves takes as long as 2 (docs/transfers.md, "The routes": 4096³ from allocHost memory, 9-tile-row panels 6.5 ms).
constexpr int64_t kBlocksPerSm = 2;
inline int64_t choosePanelRows(int64_t m, int64_t n, TileShape tile, int multiprocessors) {
  const int64_t blocksPerTileRow = std::max<int64_t>(1, (n + tile.cols - 1) / tile.cols);
  const int64_t tileRowsPerWave = std::max<int64_t>(1, kBlocksPerSm * multiprocessors / blocksPerTileRow);
  const int64_t eighthInTileRows = ((m + 7) / 8 + tile.rows - 1) / tile.rows;
  const int64_t waves = (eighthInTileRows + tileRowsPerWave - 1) / tileRowsPerWave;
  return std::min(waves * tileRowsPerWave, kMaxGridRows) * tile.rows;
}

// What the plan decided for one product shape on one device.
struct KernelPlan {
  const KernelRow* row = nullptr;
  const KernelVariant* variant = nullptr;
  Precision precision = Precision::Fp32;
  int64_t panelRows = 0;
  int64_t fillSlices = 1;  // chooseFillSlices
  bool sameSumsPerRow = false;  // kernel.h, GemmOperands::sameSumsPerRow

  // K's slices for accuracy and to fill the SMs (chooseKSplit).
  KSplit splitFor(int64_t rows, int64_t pitch, int64_t k) const {
    return chooseKSplit(sliceDepth(*row, precision), fillSlices, rows, pitch, k);
  }
  // Whether accuracy alone asks for K to be split (a launch that must run unsplit, as the inline route's, needs not).
  bool splitsForAccuracy(int64_t rows, int64_t pitch, int64_t k) const {
    return chooseKSplit(sliceDepth(*row, precision), 1, rows, pitch, k).slices > 1;
  }
};

// The plan for an m×k×n product on one variant of a kernel (bench/kernels.cu's --tune times each so).
inline KernelPlan planVariant(const KernelRow& row, const KernelVariant& variant, Precision precision, int64_t m,
                              int64_t k, int64_t n, const DeviceCaps& device) {
  KernelPlan plan;
  plan.precision = precision;
  plan.row = &row;
  plan.variant = &variant;
  plan.panelRows = choosePanelRows(m, n, variant.tile, device.multiprocessors);
  plan.fillSlices = chooseFillSlices(row, variant, precision, m, k, n, device.multiprocessors);
  return plan;
}

// The plan for op(A)·op(B) of m×k×n, A and B held transposed or not: `requested` (already checked against the
// device and the shape: KernelRow::canImplement) or 'auto''s choice.
inline KernelPlan planKernel(Kernel requested, Precision precision, int64_t m, int64_t k, int64_t n,
                             const DeviceCaps& device, bool bTransposed = false, bool aTransposed = false) {
  const KernelRow& row = kernelRow(requested != Kernel::Auto ? requested
                                                             : autoKernel(precision, m, k, n, device, bTransposed, aTransposed));
  const KernelVariants variants = row.variants(precision);
  return planVariant(row,
                     row.chooseOwnVariant ? row.chooseOwnVariant(variants, m, k, n)
                                          : chooseVariant(variants, m, k, n, device),
                     precision, m, k, n, device);
}

// A product from host arrays that lib/batching.ts may gather while others run (core/request.h, runsAsGathered) is
// computed alone as gathered, by Muld: one fp32 running sum per element, FMAs in order of k, in either precision,
// K not split. So the same call gives the same bits alone and gathered among other calls (docs/accuracy.md, "Determinism").
// Muld, not blocktile: with its 16×16 blocks many reads wait on the bus at once (the inline route reads A and B from
// host memory), and it was the faster of the two kernels that sum so, alone and awaited on the H100 host
// (docs/accuracy.md, "Determinism"): 64³ 29 µs against 49, 128³ 58 against 103, 20×1000×30 131 against 440.
inline KernelPlan planAsGathered(Precision precision, int64_t m, int64_t k, int64_t n, const DeviceCaps& device) {
  const KernelRow& row = kernelRow(Kernel::Muld);
  return planVariant(row, row.variants(precision).front(), precision, m, k, n, device);
}

}  // namespace cuda_matmul
