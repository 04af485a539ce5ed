// Hopper (sm_90a) building blocks the wgmma kernels share (3_wgmma.cu, 4_wgmma_transposed.cu), written once:
// mbarriers, TMA tile loads and stores, shared-memory matrix descriptors, the wgmma instructions, and on the host the tensor
// maps the TMA reads through. Tiles are 32 floats (128 bytes) wide, in the 128-byte swizzle: 16-byte chunk c of
// row r sits at chunk c ^ (r % 8), so that both the TMA and the wgmma read them without bank conflicts.
#pragma once

#include <cuda.h>  // CUtensorMap (the driver function itself is reached through the runtime, no -lcuda)
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/kernels/kernel.h"
#include "cuda/kernels/registry.h"
#include "cuda/status.h"

namespace cuda_matmul {
namespace hopper {

constexpr int kTileWidth = 32;  // floats: one 128-byte swizzle row
constexpr int kSharedMemoryPerBlock = 227 * 1024;  // the most a block may opt in to on sm_90

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

__device__ __forceinline__ uint32_t sharedAddress(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

// --- mbarriers: the producer's "stage full" and the consumers' "stage free" signals --------------------------

__device__ __forceinline__ void barrierInit(uint64_t* barrier, int arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(sharedAddress(barrier)), "r"(arrivals));
}

// Arrives on the barrier and has its phase also wait for `bytes` more to land (the TMA's, complete_tx).
__device__ __forceinline__ void barrierExpectBytes(uint64_t* barrier, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(sharedAddress(barrier)), "r"(bytes));
}

// Has the barrier's phase also wait for `bytes` more to land, without arriving.
__device__ __forceinline__ void barrierAddBytes(uint64_t* barrier, int bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(sharedAddress(barrier)), "r"(bytes));
}

// Waits until the barrier's phase of this parity has completed.
__device__ __forceinline__ void barrierWait(uint64_t* barrier, int parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "wait:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait;\n"
      "}\n" ::"r"(sharedAddress(barrier)),
      "r"(parity));
}

// One box of a 2-D tensor map (inner coordinate first) into shared memory; completes on `barrier`.
__device__ __forceinline__ void tmaLoad(void* shared, const CUtensorMap* map, int inner, int outer, uint64_t* barrier) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
          sharedAddress(shared)),
      "l"(map), "r"(sharedAddress(barrier)), "r"(inner), "r"(outer)
      : "memory");
}

// One box of shared memory out to a 2-D tensor map (inner coordinate first), in this thread's current bulk group;
// the part of the box outside the tensor is not written.
__device__ __forceinline__ void tmaStore(const void* shared, const CUtensorMap* map, int inner, int outer) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(map),
               "r"(sharedAddress(shared)), "r"(inner), "r"(outer)
               : "memory");
}
__device__ __forceinline__ void bulkCommit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Waits until at most PENDING of this thread's bulk groups still read shared memory.
template <int PENDING>
__device__ __forceinline__ void bulkWaitRead() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(PENDING) : "memory");
}
// Waits until all of this thread's bulk groups have written global memory, visibly to ordinary loads and stores.
__device__ __forceinline__ void bulkWaitWritten() {
  asm volatile("cp.async.bulk.wait_group 0;\nfence.proxy.async.global;\n" ::: "memory");
}

// Named barrier `id` over `threads` threads (a warpgroup's 128: the warpgroups wait on each other nowhere else).
__device__ __forceinline__ void namedBarrier(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
// The same, returning whether `flag` was set in any of the threads.
__device__ __forceinline__ bool namedBarrierAny(int id, int threads, bool flag) {
  uint32_t any;
  asm volatile(
      "{\n"
      ".reg .pred flag, any;\n"
      "setp.ne.u32 flag, %1, 0;\n"
      "bar.red.or.pred any, %2, %3, flag;\n"
      "selp.u32 %0, 1, 0, any;\n"
      "}\n"
      : "=r"(any)
      : "r"(flag ? 1u : 0u), "r"(id), "r"(threads)
      : "memory");
  return any != 0;
}

__device__ __forceinline__ void barrierArrive(uint64_t* barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(sharedAddress(barrier)));
}

// Stores x at shared-memory address `at`: an STS, where a pointer to shared memory that went through an integer (as
// the stages' does) is generic, and each store through it works out a 64-bit address.
__device__ __forceinline__ void storeShared(uint32_t at, float x) {
  asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(at), "f"(x) : "memory");
}
// Makes this thread's ordinary stores to shared memory visible to the async proxy (the wgmma's reads); before the
// arrival that hands the stage over.
__device__ __forceinline__ void fenceSharedForAsync() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// --- wgmma ---------------------------------------------------------------------------------------------------

// Shared-memory matrix descriptor of a tile in the 128-byte swizzled layout: rows of 128 bytes, 8-row groups 1024
// bytes apart (the stride byte offset). K-major, the leading byte offset is unused; MN-major (16-bit operands,
// wgmma-f16's B), it is the distance between the tile's 64-element (128-byte) wide boxes along M or N.
__device__ __forceinline__ uint64_t sharedDescriptor(const void* tile, uint32_t leadingByteOffset = 16) {
  const uint64_t address = sharedAddress(tile);
  return ((address & 0x3FFFF) >> 4) | (uint64_t{leadingByteOffset >> 4} << 16) | (uint64_t{1024 >> 4} << 32) |
         (uint64_t{1} << 62);
}

#define D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define D32 D8(0), D8(8), D8(16), D8(24)
#define D64 D32, D8(32), D8(40), D8(48), D8(56)
#define D128 D64, D8(64), D8(72), D8(80), D8(88), D8(96), D8(104), D8(112), D8(120)

// d (64×N per warpgroup, fp32, N/2 per thread) = A (64×8, tf32, this thread's fragment in registers:
// loadFragmentA) · B (8×N, tf32, from shared memory), + d if `accumulate`; for the block widths the variants use.
template <int N>
__device__ __forceinline__ void wgmma64xNx8(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t b, bool accumulate);

template <>
__device__ __forceinline__ void wgmma64xNx8<32>(float (&d)[16], const uint32_t (&a)[4], uint64_t b, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %21, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, accumulate, 1, 1;\n"
      "}\n"
      : D8(0), D8(8)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate ? 1 : 0));
}

template <>
__device__ __forceinline__ void wgmma64xNx8<64>(float (&d)[32], const uint32_t (&a)[4], uint64_t b, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, accumulate, 1, 1;\n"
      "}\n"
      : D32
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate ? 1 : 0));
}

template <>
__device__ __forceinline__ void wgmma64xNx8<128>(float (&d)[64], const uint32_t (&a)[4], uint64_t b, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, accumulate, 1, 1;\n"
      "}\n"
      : D64
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate ? 1 : 0));
}

template <>
__device__ __forceinline__ void wgmma64xNx8<256>(float (&d)[128], const uint32_t (&a)[4], uint64_t b, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %133, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, accumulate, 1, 1;\n"
      "}\n"
      : D128
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate ? 1 : 0));
}
// d (64×N per warpgroup, fp32, N/2 per thread) = A (64×8, tf32, K-major) · B (8×N, tf32, K-major), both from shared
// memory, + d if `accumulate`: wgmma-t's products on B held as Bᵀ, whose tiles wgmma reads as they lie.
template <int N>
__device__ __forceinline__ void wgmma64xNx8Shared(float (&d)[N / 2], uint64_t a, uint64_t b, bool accumulate);

template <>
__device__ __forceinline__ void wgmma64xNx8Shared<64>(float (&d)[32], uint64_t a, uint64_t b, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, accumulate, 1, 1;\n"
      "}\n"
      : D32
      : "l"(a), "l"(b), "r"(accumulate ? 1 : 0));
}

template <>
__device__ __forceinline__ void wgmma64xNx8Shared<256>(float (&d)[128], uint64_t a, uint64_t b, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, accumulate, 1, 1;\n"
      "}\n"
      : D128
      : "l"(a), "l"(b), "r"(accumulate ? 1 : 0));
}
// d (64×256 per warpgroup, fp32, 128 per thread) += A (64×16, fp16, K-major) · B (16×256, fp16: MN-major, or
// K-major where B_K_MAJOR), both from shared memory (wgmma-f16).
template <bool B_K_MAJOR = false>
__device__ __forceinline__ void wgmmaF16x256(float (&d)[128], uint64_t a, uint64_t b) {
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, 1, 1, 1, 0, %130;\n"
      : D128
      : "l"(a), "l"(b), "n"(B_K_MAJOR ? 0 : 1));
}
#undef D128
#undef D64
#undef D32
#undef D8

__device__ __forceinline__ void wgmmaFence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmmaCommit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int PENDING>
__device__ __forceinline__ void wgmmaWait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(PENDING) : "memory");
}

// Keeps registers that an asynchronous wgmma reads or writes where they are (the compiler must not move or
// reuse them meanwhile).
template <class T, int N>
__device__ __forceinline__ void pinRegisters(T (&x)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
    if constexpr (std::is_same_v<T, float>)
      asm volatile("" : "+f"(x[i])::"memory");
    else
      asm volatile("" : "+r"(x[i])::"memory");
  }
}

// One tile of work of a persistent grid (wgmma-t, wgmma-f16): ROWS rows of C by COLS columns, over one slice of K.
struct WorkTile {
  int64_t row, col;  // C's first row and column
  int64_t kBegin, depth;
};

// Tile t of `tiles`: in each slice of K, groups of `groupRows` tile rows sweep the columns, the rows of a group
// varying fastest (a group of all the rows: the rows fastest, then the columns); then the slices.
template <int ROWS, int COLS>
__device__ __forceinline__ WorkTile workTile(int64_t t, int64_t M, int64_t N, int64_t K, int64_t sliceDepth,
                                             int64_t groupRows) {
  const int64_t rowTiles = (M + ROWS - 1) / ROWS, colTiles = (N + COLS - 1) / COLS;
  const int64_t slice = t / (rowTiles * colTiles), inSlice = t % (rowTiles * colTiles);
  const int64_t kBegin = sliceDepth > 0 ? slice * sliceDepth : 0;
  const int64_t depth = sliceDepth > 0 && K - kBegin > sliceDepth ? sliceDepth : K - kBegin;
  const int64_t perGroup = groupRows * colTiles, firstRow = inSlice / perGroup * groupRows;
  const int64_t rowsInGroup = min(rowTiles - firstRow, groupRows), inGroup = inSlice % perGroup;
  return {(firstRow + inGroup % rowsInGroup) * ROWS, inGroup / rowsInGroup * COLS, kBegin, depth};
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// cuTensorMapEncodeTiled, from the driver the runtime has loaded (so the addon needs no -lcuda at link time).
inline PFN_cuTensorMapEncodeTiled_v12000 encodeTiled() {
  static const PFN_cuTensorMapEncodeTiled_v12000 function = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    // CUDA 13 has only the versioned query; it asks for the entry point as CUDA 12.0 defined it.
    checkCuda(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &found),
              "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)");
#else
    // The CUDA 12 variant (docs/architecture.md, "Shipped binaries"): runtimes before 12.5 have only the unversioned query.
    checkCuda(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &entry, cudaEnableDefault, &found),
              "cudaGetDriverEntryPoint(cuTensorMapEncodeTiled)");
#endif
    if (found != cudaDriverEntryPointSuccess || entry == nullptr)
      throw MatmulError(ErrorKind::Failure, "the CUDA driver has no cuTensorMapEncodeTiled (wgmma needs CUDA 12+)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry);
  }();
  return function;
}

// A tensor map over a row-major rows×cols matrix (row pitch ld elements) whose boxes are boxRows rows of 128 bytes
// (32 floats; 64 halves for `type` FLOAT16, wgmma-f16's copies), 128-byte swizzled. Reads past the edges fill zeros.
// `type` TFLOAT32: the copies round each float to TF32 (to nearest, as cvt.rna; docs/kernels.md, "Step 4: wgmma-t, B read as stored").
inline CUtensorMap tileMap(const void* matrix, int64_t rows, int64_t cols, int64_t ld, int boxRows,
                           CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32) {
  CUtensorMap map;
  const int elementBytes = type == CU_TENSOR_MAP_DATA_TYPE_FLOAT16 ? 2 : 4;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * elementBytes};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(128 / elementBytes), static_cast<cuuint32_t>(boxRows)}, unit[2] = {1, 1};
  const CUresult result = encodeTiled()(&map, type, 2, const_cast<void*>(matrix), dims, strides, box, unit,
                                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS)
    throw MatmulError(ErrorKind::Failure, "cuTensorMapEncodeTiled failed (error " + std::to_string(result) + ")");
  return map;
}

// Persistent grids (wgmma-t, wgmma-f16): one block per multiprocessor of the current device, as CUDA listed it once
// (device.cu).
inline int multiprocessors() {
  int device = 0;
  checkCuda(cudaGetDevice(&device), "cudaGetDevice");
  for (const DeviceDescription& listed : cudaStatus().devices)
    if (listed.index == device) return listed.multiprocessors;
  throw MatmulError(ErrorKind::Failure, "internal error: a persistent kernel launched on a device CUDA did not list");
}

// TMA coordinates are 32-bit: K goes to the kernel in chunks of at most this many, each with tensor maps of its own.
inline constexpr int64_t kMaxChunkDepth = int64_t{1} << 30;

// Whether the plan split K as the chunks need (choose.h): one slice within a chunk, or slices of whole 32-deep tiles.
inline bool chunksOfK(const GemmOperands& o) {
  return o.slices == 1 ? o.k <= kMaxChunkDepth : o.sliceDepth % kTileWidth == 0;
}

// What both wgmma launches check first: the variant was built for this precision (`split`: 3xTF32, fp32) and the
// rows of A and of the B operand (`bName`: B or Bᵀ) start 16-byte aligned, as TMA needs. Returns false when C is
// empty and nothing is to be launched.
inline bool readyToLaunch(const GemmOperands& o, Precision precision, bool split, const char* kernel, const char* bName) {
  if (precisionRow(precision).tf32Parts != split)
    throw MatmulError(ErrorKind::Failure, std::string("internal error: a ") + kernel + " variant launched for the other precision");
  if (o.m == 0 || o.n == 0) return false;
  if (!rowsAligned16(o.a, o.lda) || !rowsAligned16(o.b, o.ldb))
    throw MatmulError(ErrorKind::Failure, std::string("internal error: ") + kernel + " needs A and " + bName + " rows 16-byte aligned");
  return true;
}

// Calls launch(firstSlice, slices, begin, depth) for each chunk of K: the slices [firstSlice, firstSlice + slices)
// of o's split (or all of K, unsplit), covering K from `begin`, `depth` deep.
template <class Launch>
void forEachChunkOfK(const GemmOperands& o, Launch&& launch) {
  const int64_t slicesPerChunk = o.slices == 1 ? 1 : std::max<int64_t>(1, kMaxChunkDepth / o.sliceDepth);
  for (int64_t first = 0; first < o.slices; first += slicesPerChunk) {
    const int64_t slices = std::min<int64_t>(slicesPerChunk, o.slices - first);
    const int64_t begin = first * o.sliceDepth, depth = o.slices == 1 ? o.k : std::min(slices * o.sliceDepth, o.k - begin);
    launch(first, slices, begin, depth);
  }
}

}  // namespace hopper
}  // namespace cuda_matmul
