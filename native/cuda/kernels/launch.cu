#include "cuda/kernels/launch.h"

#include <algorithm>
#include <string>

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/kernels/helpers.cuh"

namespace cuda_matmul {
namespace {

// c = the sum of `slices` partial results (each rows×cols, row pitch `pitch`, sliceStride floats apart), added
// in float64 and rounded once, through the epilogue (α and β). A thread per column, rows in a grid-stride loop
// (elementwiseGrid).
__global__ void sumSlices(const float* __restrict__ partials, int64_t pitch, int64_t sliceStride, int slices,
                          float* __restrict__ c, int64_t ldc, int64_t rows, int64_t cols, Epilogue epilogue) {
  const int64_t col = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const float* p = partials + row * pitch + col;
    double sums[4] = {0, 0, 0, 0};  // independent sums, so the loads of several slices are in flight at once
    int z = 0;
    for (; z + 4 <= slices; z += 4)
      for (int q = 0; q < 4; ++q) sums[q] += p[(z + q) * sliceStride];
    for (; z < slices; ++z) sums[0] += p[z * sliceStride];
    float* const out = c + row * ldc + col;
    *out = epilogueValue(epilogue, static_cast<float>((sums[0] + sums[1]) + (sums[2] + sums[3])), out);
  }
}

// ORs the magnitude classes (helpers.cuh) of a rows×cols matrix (row pitch `pitch`) into *classes. Rows in a
// grid-stride loop, four loads in flight per thread; one atomic per warp that found anything.
__global__ void classifyMagnitudes(const float* __restrict__ x, int64_t pitch, int64_t rows, int64_t cols,
                                   uint32_t* classes) {
  uint32_t seen = 0;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (col < cols) {
    const int64_t step = gridDim.y;
    int64_t row = blockIdx.y;
    for (; row + 3 * step < rows; row += 4 * step) {
      const float* const p = x + row * pitch + col;
      const float v0 = p[0], v1 = p[step * pitch], v2 = p[2 * step * pitch], v3 = p[3 * step * pitch];
      seen |= magnitudeClass(v0) | magnitudeClass(v1) | magnitudeClass(v2) | magnitudeClass(v3);
    }
    for (; row < rows; row += step) seen |= magnitudeClass(x[row * pitch + col]);
  }
  orWarpClasses(seen, classes);
}

// The grid of the element-wise passes over a rows×cols matrix (classes, the sum of K's slices): a thread per
// column, rows in a grid-stride loop, about 2048 blocks whatever the shape. With a block per row (one or two loads
// per thread) they read 1.0–1.5 TB/s on an H100; so, A's classes at 768×16384 take 20 µs instead of 46, at
// 1024×8192 15 instead of 31, and 2 slices of 1024×2048 are summed in 13.9 µs instead of 15.1 (ncu; docs/kernels.md, "Splitting K").
constexpr int kElementwiseThreads = 256;
dim3 elementwiseGrid(int64_t rows, int64_t cols) {
  constexpr int64_t kBlocks = 2048;
  const int64_t columnBlocks = (cols + kElementwiseThreads - 1) / kElementwiseThreads;
  const int64_t rowBlocks = std::clamp<int64_t>(kBlocks / columnBlocks, 1, std::min<int64_t>(rows, 65535));
  return dim3(static_cast<unsigned>(columnBlocks), static_cast<unsigned>(rowBlocks));
}

}  // namespace

void launchClassify(const float* x, int64_t pitch, int64_t rows, int64_t cols, uint32_t* classes, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  classifyMagnitudes<<<elementwiseGrid(rows, cols), kElementwiseThreads, 0, stream>>>(x, pitch, rows, cols, classes);
  checkCuda(cudaGetLastError(), "magnitude classes");
}

ProductLaunch::ProductLaunch(const KernelPlan& plan, int device, int64_t maxRows, int64_t n, int64_t k,
                             const ScratchSource& scratch)
    : plan_(plan), kernel_(*plan.variant), pitch_(paddedPitch(n)), device_(device) {
  split_ = plan.splitFor(maxRows, pitch_, k);
  if (splits()) workspace_.emplace(device, sizeof(float) * static_cast<size_t>(split_.slices * maxRows * pitch_));
  if (multipliesHalfCopies(*plan.row, plan.precision)) {
    const auto bytes = static_cast<size_t>(halfOperandBytes(maxRows, k, n));
    scratch_ = scratch ? scratch(bytes) : std::make_shared<DeviceAllocation>(device, bytes);
  }
}

void ProductLaunch::run(GemmOperands o, cudaStream_t stream) const {
  if (!readsLayouts(*plan_.row, o.transA, o.transB))
    throw MatmulError(ErrorKind::Failure, std::string("internal error: ") + kernel_.name + " given an operand stored transposed");
  if (!o.exactB) {
    o.exactB = o.b;
    o.exactLdb = o.ldb;
  }
  if (scratch_) {
    o.scratch = scratch_->floats();
    o.scratchHoldsB = scratchHoldsB_;
    scratchHoldsB_ = true;
  }
  if (classifiesFirst(*plan_.row, plan_.precision) && (!o.aClasses || !o.bClasses)) {
    if (!classes_) classes_.emplace(device_, 2 * sizeof(uint32_t));
    auto* const own = reinterpret_cast<uint32_t*>(classes_->floats());  // A's word, then B's
    if (!classified_) {
      checkCuda(cudaMemsetAsync(own, 0, 2 * sizeof(uint32_t), stream), "cudaMemsetAsync(classes)");
      if (!o.bClasses)  // once: the runs share B
        launchClassify(o.exactB, o.exactLdb, o.transB ? o.n : o.k, o.transB ? o.k : o.n, own + 1, stream);
      classified_ = true;
    }
    if (!o.bClasses) o.bClasses = own + 1;
    if (!o.aClasses) {
      launchClassify(o.a, o.lda, o.transA ? o.k : o.m, o.transA ? o.m : o.k, own, stream);  // ORed over the panels
      o.aClasses = own;
    }
  }
  if (!plan_.row->checksMagnitudes) o.aClasses = o.bClasses = nullptr;
  if (!splits()) {
    kernel_.launch(o, plan_.precision, stream);
    return checkCuda(cudaGetLastError(), kernel_.name);
  }
  float* const c = o.c;
  const int64_t ldc = o.ldc;
  const Epilogue epilogue = o.epilogue;
  o.epilogue = Epilogue{};  // the slices are plain products; their sum takes α and β
  o.c = workspace_->floats();
  o.ldc = pitch_;
  o.slices = split_.slices;
  o.sliceDepth = split_.depth;
  o.sliceStride = o.m * pitch_;
  kernel_.launch(o, plan_.precision, stream);
  checkCuda(cudaGetLastError(), kernel_.name);
  if (o.m == 0 || o.n == 0) return;
  sumSlices<<<elementwiseGrid(o.m, o.n), kElementwiseThreads, 0, stream>>>(o.c, pitch_, o.sliceStride, o.slices, c, ldc,
                                                                           o.m, o.n, epilogue);
  checkCuda(cudaGetLastError(), "sum of K slices");
}

}  // namespace cuda_matmul
