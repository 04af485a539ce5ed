// The kernel registry: one row per kernel, everything the plan and the launch need to know of it, and the
// precision table: one row per precision, what it asks of the kernels. A new kernel is its file (numbered as the
// next step) and one row here; its option (name, precisions) is its row in core/options.h, which the static_asserts
// below keep in step with these tables. A new precision is its name in core/options.h, its row in the precision
// table, its slice depth in each kernel's row and the variants each kernel file lists for it.
#pragma once

#include <cstdint>

#include "core/options.h"
#include "cuda/kernels/kernel.h"

namespace cuda_matmul {

// What a precision asks of the kernels that have more than one way to multiply.
struct PrecisionRow {
  Precision precision;
  // The TF32 tensor-core kernels split each operand into a TF32 big part and a TF32 remainder and take three
  // products (3xTF32) for fp32 accuracy; without, they multiply the operands rounded to TF32.
  bool tf32Parts;
  // A halfOperands kernel multiplies fp16 copies (TF32 exactly, where its scaling holds the values: 5_wgmma_f16.cu).
  bool halfCopies;
  // K from which a tensor-core kernel with idle SMs splits K to fill them (measured: choose.h, fillSlices):
  // shorter for 3xTF32, whose three products a step make a K loop of the same length take longer.
  int64_t minFillK;
};

inline constexpr PrecisionRow kPrecisionTable[] = {
    // precision      TF32 parts  fp16 copies  fill from k
    {Precision::Fp32, true, false, 1024},
    {Precision::Tf32, false, true, 2048},
};

constexpr bool precisionTableFollowsOptions() {
  if (sizeof kPrecisionTable / sizeof *kPrecisionTable != kPrecisionCount) return false;
  for (size_t i = 0; i < kPrecisionCount; ++i)
    if (precisionIndex(kPrecisionTable[i].precision) != i) return false;
  return true;
}
static_assert(precisionTableFollowsOptions(), "one row per precision of core/options.h, in its order");

constexpr const PrecisionRow& precisionRow(Precision precision) { return kPrecisionTable[precisionIndex(precision)]; }

// A kernel's variants, one list per precision in the order of core/options.h (kernel files list theirs so).
using VariantsByPrecision = KernelVariants[kPrecisionCount];

struct KernelRow {
  Kernel kernel;
  KernelVariants (*variants)(Precision);  // tile shapes per precision; the plan picks one per product (choose.h)
  int minimumMajor;                         // compute capability it needs (8: Ampere's mma.sync TF32, cp.async)
  bool needsSm90a;                          // Hopper's wgmma: compute capability 9.0 exactly, built for sm_90a
  bool transposedB;                         // reads B as Bᵀ rounded to TF32 (kernel.h, transposedBRounding)
  bool checksMagnitudes;                    // splits operands into TF32 parts: A's and B's magnitudes are
                                            // classified first (helpers.cuh, splitLosesProducts)
  bool splitsKToFill;                       // splits K where its grid leaves SMs idle (choose.h, chooseFillSlices)
  // In tf32, multiplies fp16 copies of A and B it makes in scratch memory ProductLaunch gives it (halfOperandBytes),
  // finding A's and B's magnitude classes as it makes them.
  bool halfOperands;
  // Long K is split into slices of at most this depth, summed in float64 (choose.h, chooseKSplit), by precision.
  int64_t sliceDepths[kPrecisionCount];
  // Reads A, B held transposed as they are stored (kernel.h, GemmOperands::transA, transB): no product makes a
  // transposed copy of an operand, so the plan takes a kernel only for the layouts it reads (readsLayouts).
  bool readsTransposedA = false, readsTransposedB = false;
  // The products it implements, null for every shape: a plan that names it for another is a RangeError, and
  // 'auto' takes it only for those (choose.h).
  bool (*canImplement)(int64_t m, int64_t k, int64_t n) = nullptr;
  const char* implements = nullptr;  // what canImplement accepts, in words, for that RangeError
  // Its own choice of variant for a product (null: choose.h's chooseVariant, by tile shapes and SMs).
  const KernelVariant& (*chooseOwnVariant)(KernelVariants, int64_t m, int64_t k, int64_t n) = nullptr;
};

// Each kernel file's variants.
KernelVariants muldVariants(Precision);       // 0_muld.cu: step 0, the seeds' 16×16 shared-memory tiles
KernelVariants blockTileVariants(Precision);  // 1_blocktile.cu: step 1, 128×128 blocks, 8×8 per thread
KernelVariants mmaVariants(Precision);        // 2_mma.cu: step 2, tensor cores (3xTF32)
KernelVariants wgmmaVariants(Precision);      // 3_wgmma.cu: step 3, Hopper wgmma + TMA (and 3xTF32 for fp32)
KernelVariants wgmmaTransposedVariants(Precision);  // 4_wgmma_transposed.cu: step 4, Cᵀ = Bᵀ·Aᵀ, B as stored
KernelVariants wgmmaF16Variants(Precision);  // 5_wgmma_f16.cu: step 5, tf32 exactly on the fp16 tensor cores
KernelVariants fewRowsVariants(Precision);   // 6_few_rows.cu: step 6, few rows or columns, operands as stored
// The scratch bytes a halfOperands kernel needs for launches of up to `rows` rows of C, depth k, n columns.
int64_t halfOperandBytes(int64_t rows, int64_t k, int64_t n);

// Step 6 (6_few_rows.cu): products with at most kFewRows rows or columns, the variant holding the fewest that
// suffice, few rows where m ≤ n.
constexpr int64_t kFewRows = 16;
constexpr bool fewRowsImplements(int64_t m, int64_t, int64_t n) { return m <= kFewRows || n <= kFewRows; }
inline const KernelVariant& chooseFewRowsVariant(KernelVariants variants, int64_t m, int64_t, int64_t n) {
  const bool fewColumns = n < m;
  const int64_t side = fewColumns ? n : m;
  const KernelVariant* chosen = nullptr;  // variants list rows (tile.rows ≤ 16) and columns (tile.cols ≤ 16)
  for (const KernelVariant& variant : variants) {
    const int64_t holds = fewColumns ? variant.tile.cols : variant.tile.rows;
    if (holds <= kFewRows && holds >= side && (!chosen || holds < (fewColumns ? chosen->tile.cols : chosen->tile.rows)))
      chosen = &variant;
  }
  return chosen ? *chosen : variants.front();
}

// Slice depths (docs/accuracy.md, "Long K"): the FFMA kernels add one product at a time (1024); mma in fp32 adds
// 8-deep sums rounded to nearest (8192); mma's TF32 accumulates in the tensor cores (4096, where its error is
// cuBLAS TF32's). wgmma and wgmma-t: 8192 in both precisions. Their fp32 (3xTF32) adds each 32-deep stage's
// products rounded to nearest, as mma's fp32 does; their TF32 had cuBLAS TF32's error unsplit at 8192³ (2.6e-4),
// and slices of 4096 put 8192³ in row panels with a float64 sum (Matrices 40 in flight: 0.83× the unsplit kernel
// in tf32, 0.93× in fp32; docs/kernels.md, "Splitting K").
inline constexpr KernelRow kKernelRegistry[] = {
    // kernel         variants           CC  sm_90a  Bᵀ     magnitudes  fill  fp16   depths {fp32, tf32}, reads Aᵀ, Bᵀ
    {Kernel::Auto, nullptr, 0, false, false, false, false, false, {0, 0}},  // the plan always names a kernel
    {Kernel::Muld, muldVariants, 0, false, false, false, false, false, {1024, 1024}, true, true},  // the seeds' kernel
    {Kernel::BlockTile, blockTileVariants, 0, false, false, false, false, false, {1024, 1024}, true, true},
    {Kernel::Mma, mmaVariants, 8, false, false, true, true, false, {8192, 4096}, true, true},
    {Kernel::Wgmma, wgmmaVariants, 9, true, true, true, true, false, {8192, 8192}, true, true},
    {Kernel::WgmmaT, wgmmaTransposedVariants, 9, true, false, true, true, false, {8192, 8192}, true, true},
    {Kernel::WgmmaF16, wgmmaF16Variants, 9, true, false, true, true, true, {8192, 8192}, true, true},
    {Kernel::FewRows, fewRowsVariants, 0, false, false, false, true, false, {1024, 1024}, true, true, fewRowsImplements,
     "products with at most 16 rows or 16 columns", chooseFewRowsVariant},
};

constexpr bool registryFollowsOptions() {
  if (sizeof kKernelRegistry / sizeof *kKernelRegistry != kKernelCount) return false;
  for (size_t i = 0; i < kKernelCount; ++i)
    if (kKernelRegistry[i].kernel != kKernelOptions[i].kernel) return false;
  return true;
}
static_assert(registryFollowsOptions(), "one row per kernel of core/options.h, in its order");

constexpr const KernelRow& kernelRow(Kernel kernel) { return kKernelRegistry[static_cast<size_t>(kernel)]; }

// Whether a kernel reads A and B as they are stored (Aᵀ where transA, Bᵀ where transB).
constexpr bool readsLayouts(const KernelRow& row, bool transA, bool transB) {
  return (!transA || row.readsTransposedA) && (!transB || row.readsTransposedB);
}

// Whether this build has the machine code a row needs (sm_90a for wgmma: CUDA_MATMUL_WGMMA, set by the build
// when its architectures include 90a) and the device can run it.
inline bool runsOn(const KernelRow& row, int major, int minor) {
#if defined(CUDA_MATMUL_WGMMA)
  constexpr bool kSm90aBuilt = true;
#else
  constexpr bool kSm90aBuilt = false;
#endif
  if (row.needsSm90a) return kSm90aBuilt && major == 9 && minor == 0;
  return major >= row.minimumMajor;
}

// How a kernel that reads Bᵀ (transposedB) wants it made: rounded to TF32, and for fp32 (3xTF32) followed by the
// remainders (kernel.h). The number of n×k matrices that takes: transposedBParts.
inline Rounding transposedBRounding(Precision precision) {
  return precisionRow(precision).tf32Parts ? Rounding::Tf32Split : Rounding::Tf32;
}
inline int64_t transposedBParts(Precision precision) { return precisionRow(precision).tf32Parts ? 2 : 1; }

// Whether this launch multiplies fp16 copies made in ProductLaunch's scratch (halfOperands, in a precision that
// takes them).
inline bool multipliesHalfCopies(const KernelRow& row, Precision precision) {
  return row.halfOperands && precisionRow(precision).halfCopies;
}

// Whether A's and B's magnitude classes are found before this launch (checksMagnitudes), by ProductLaunch or with a
// Matrix: not for one that makes fp16 copies, which finds them as it makes them.
inline bool classifiesFirst(const KernelRow& row, Precision precision) {
  return row.checksMagnitudes && !multipliesHalfCopies(row, precision);
}

inline int64_t sliceDepth(const KernelRow& row, Precision precision) { return row.sliceDepths[precisionIndex(precision)]; }

}  // namespace cuda_matmul
