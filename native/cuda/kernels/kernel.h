// The launch signature every product kernel shares: C (m×n) = A (m×k) · B (k×n) on device pointers, row-major
// with leading dimensions (row pitches, in floats) lda ≥ k, ldb ≥ n, ldc ≥ n, launched on `stream`. A kernel whose
// registry row says readsTransposedA or readsTransposedB also takes A or B held transposed (GemmOperands::transA,
// transB). Kernels
// without a faster, less exact mode compute 'tf32' requests in full fp32 (more accurate than asked). A kernel
// whose registry row says transposedB multiplies in TF32 and reads B as Bᵀ (n×k, ldb ≥ k) rounded to TF32, and
// in fp32 (3xTF32) also each element's remainder B − tf32(B), rounded to TF32, as n more rows after it: its
// callers make that once (launchTranspose with transposedBRounding, registry.h, or launchRoundedCopy from a B
// held as Bᵀ) before the launches.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/options.h"
#include "cuda/check.h"

namespace cuda_matmul {

// C = α·A·B + β·C: what every kernel does with an element x of its product as it stores it into C
// (helpers.cuh, epilogueValue). α = 1, β = 0 store x itself.
struct Epilogue {
  float alpha = 1.0f, beta = 0.0f;
  // α = 1, β = 0: the product itself, C's old values neither read nor scaled.
  __host__ __device__ bool storesProduct() const { return alpha == 1.0f && beta == 0.0f; }
};

struct GemmOperands {
  const float* a;
  const float* b;
  float* c;
  int64_t m, k, n;
  int64_t lda, ldb, ldc;
  // The operands as stored, for a kernel that reads them so (registry.h, readsTransposedA, readsTransposedB):
  // transA, A is held as Aᵀ (k×m, lda ≥ m); transB, B as Bᵀ (n×k, ldb ≥ k; exactB too). Otherwise row-major.
  bool transA = false, transB = false;
  // C = α·A·B + β·C, applied as each element is stored (one pass over C). Where K is split, the slices' partial
  // results are plain products and the reduction that adds them applies it (launch.cu).
  Epilogue epilogue;
  // Split K (kernels/helpers.cuh, takeKSlice): `slices` blocks along the grid's z (y for wgmma), each
  // multiplying sliceDepth of K into a partial result sliceStride floats after the previous one, from c on.
  // One slice (the default): the whole of K straight into C.
  int slices = 1;
  int64_t sliceDepth = 0, sliceStride = 0;
  // B as the caller holds it (k×n, row pitch exactLdb), for the exact recomputation of non-finite results
  // (kernels/helpers.cuh, recomputeNonFinite): b itself, except for kernels that read a transposed, rounded copy.
  const float* exactB = nullptr;
  int64_t exactLdb = 0;
  // For the tensor-core kernels: A's and B's magnitude classes, a word each that the device can read
  // (helpers.cuh, splitLosesProducts). Where the caller knows them (a Matrix classified since its last write, a
  // transposed B, the inline route) it passes them; ProductLaunch (launch.cu) finds the others.
  const uint32_t* aClasses = nullptr;
  const uint32_t* bClasses = nullptr;
  // For a kernel that multiplies copies of its operands it makes itself (registry.h, halfOperands): device memory
  // ProductLaunch gives it (halfOperandBytes), and whether an earlier run on the same stream (a row panel before
  // this one) already made B's copy there.
  void* scratch = nullptr;
  bool scratchHoldsB = false;
  // When set, the kernel does nothing unless *onlyIf is non-zero by the time it runs: step 4 as step 5's fallback,
  // decided on the device (5_wgmma_f16.cu).
  const uint32_t* onlyIf = nullptr;
  // Each row of C summed the same way however many rows the product has, so that a row of A gets the same bits
  // beside any others (the search's queries, gathered or alone: docs/search.md, "Search on the GPU"). The few-rows
  // kernel then takes a warp per column (6_few_rows.cu, columnDots) for any number of rows, not only up to 3.
  bool sameSumsPerRow = false;
};

// Whether every row of a matrix at p with row pitch ld starts 16-byte aligned (float4 / 16-byte copies).
inline bool rowsAligned16(const float* p, int64_t ld) { return reinterpret_cast<uintptr_t>(p) % 16 == 0 && ld % 4 == 0; }

// A block tile: rows × columns of C per thread block.
struct TileShape {
  int64_t rows, cols;
};

// One compiled configuration of a kernel (the mma kernel has four tile shapes), behind the launch signature
// every kernel shares. The registry (registry.h) lists each kernel's variants.
using LaunchFunction = void (*)(const GemmOperands& operands, Precision precision, cudaStream_t stream);
struct KernelVariant {
  const char* name;  // for messages and benchmarks: "mma 128x64"
  LaunchFunction launch;
  TileShape tile;
  bool wholeSm;  // a block takes a whole multiprocessor (wgmma: ~200 KB of shared memory), so a grid runs in waves
                 // of one block per SM (choose.h, chooseVariant)
};

// A kernel's variants, as its file lists them (the CUDA files are C++17: no std::span).
struct KernelVariants {
  const KernelVariant* first;
  size_t count;
  template <size_t N>
  constexpr KernelVariants(const KernelVariant (&list)[N]) : first(list), count(N) {}
  constexpr const KernelVariant* begin() const { return first; }
  constexpr const KernelVariant* end() const { return first + count; }
  constexpr const KernelVariant& front() const { return *first; }
};

// Above 48 KB a block's shared memory must be opted into, per kernel and device, once per process: one of these
// per kernel (a static beside its launch).
class SharedMemoryOptIn {
 public:
  template <class KernelFunction>
  void ensure(KernelFunction kernel, int bytes, const char* what) {
    int device = 0;
    checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    const uint64_t bit = device < 64 ? uint64_t{1} << device : 0;  // devices past 63 ask each time
    if (devices_.load(std::memory_order_relaxed) & bit) return;
    checkCuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes), what);
    devices_.fetch_or(bit, std::memory_order_relaxed);
  }

 private:
  std::atomic<uint64_t> devices_{0};  // bit d: done on device d
};

// Matrices on the device keep rows padded to a multiple of 4 floats, so every kernel can use 16-byte loads
// and stores whatever k and n are (docs/kernels.md, "Step 2: mma and 3xTF32": 3000×5000×7001).
inline int64_t paddedPitch(int64_t cols) { return (cols + 3) / 4 * 4; }

// One product of a gathered batch on the device (grouped_muld.cu): A, B and C at these float offsets from the
// batch's buffer, row-major and unpadded; its blocks are firstBlock … firstBlock + groupedMuldBlocks(m, n) − 1,
// blockCols to a row of its tiles of C. The table lists products in order of firstBlock, from 0.
struct GroupedProduct {
  int64_t a, b, c;
  int32_t m, k, n, firstBlock, blockCols, unused;
};
int groupedMuldBlocks(int64_t m, int64_t n);
int groupedMuldBlockCols(int64_t n);
// Every product of `table` (in device memory, `count` of them, `blocks` blocks in all) on `stream`.
void launchGroupedMuld(const GroupedProduct* table, int count, int blocks, float* base, cudaStream_t stream);

// A strided batch of small products on the device (batched_tiles.cu): product i reads A from a + i·strideA and B
// from b + i·strideB and writes C from c + i·strideC (strides in floats), each row-major with row pitches lda, ldb,
// ldc, every row 16-byte aligned (rowsAligned16; strides multiples of 4), as a Matrix's padded rows are. Each
// product's C in tiles of 16×16 or 64×64, a block each.
struct StridedBatch {
  const float* a;
  const float* b;
  float* c;
  int64_t strideA, strideB, strideC, count;
  int64_t m, k, n, lda, ldb, ldc;
};
void launchStridedBatch(const StridedBatch& batch, cudaStream_t stream);

// *classes |= the magnitude classes (helpers.cuh) of a rows×cols matrix with row pitch `pitch`, on `stream`
// (launch.cu).
void launchClassify(const float* x, int64_t pitch, int64_t rows, int64_t cols, uint32_t* classes, cudaStream_t stream);

// dst (cols×rows, pitch dstPitch) = srcᵀ (src rows×cols, pitch srcPitch), on `stream` (transpose.cu);
// Rounding::Tf32 also rounds each element to TF32, for a kernel that multiplies in TF32; Rounding::Tf32Split
// then writes each element's remainder, rounded to TF32, as cols more rows of dst (3xTF32). classes, when
// given: the magnitude classes of src's elements are ORed into it (helpers.cuh, magnitudeClass).
enum class Rounding { None, Tf32, Tf32Split };
void launchTranspose(const float* src, int64_t srcPitch, float* dst, int64_t dstPitch, int64_t rows, int64_t cols,
                     Rounding rounding, cudaStream_t stream, uint32_t* classes = nullptr);
// dst (rows×cols, pitch dstPitch) = src, rounded and classified as launchTranspose does: Bᵀ for a kernel that
// reads it (transposedB) from a B held as Bᵀ.
void launchRoundedCopy(const float* src, int64_t srcPitch, float* dst, int64_t dstPitch, int64_t rows, int64_t cols,
                       Rounding rounding, cudaStream_t stream, uint32_t* classes = nullptr);

}  // namespace cuda_matmul
