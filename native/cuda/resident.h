// A rows×cols matrix in pooled device memory, rows padded (paddedPitch): a Matrix's storage (MatrixStorage,
// core/backend.h), and the device copies of A, B and C in the host wrapper Mul (transfer/panels.cu).
#pragma once

#include <memory>
#include <optional>

#include "core/backend.h"
#include "cuda/check.h"
#include "cuda/kernels/kernel.h"
#include "cuda/pools.h"
#include "cuda/kernels/choose.h"
#include "cuda/transfer/transfer_queue.h"

namespace cuda_matmul {

class KernelOperandB;

struct DeviceResident : MatrixStorage {
  DeviceResident(int device, int64_t rows, int64_t cols)
      : DeviceResident(std::make_shared<DeviceAllocation>(device, sizeof(float) * rows * paddedPitch(cols)), device, rows, cols) {}
  // In memory the caller provides (at least rows·paddedPitch(cols) floats): a stream's scratch buffer.
  DeviceResident(std::shared_ptr<DeviceAllocation> memory, int device, int64_t rows, int64_t cols)
      : device(device), rows(rows), cols(cols), pitch(paddedPitch(cols)), memory(std::move(memory)), first(this->memory->floats()) {}
  // Rows [row, row + count) of `whole`, sharing (and keeping alive) its memory: one product of a batch.
  DeviceResident(const DeviceResident& whole, int64_t row, int64_t count)
      : device(whole.device), rows(count), cols(whole.cols), pitch(whole.pitch), memory(whole.memory),
        first(whole.first + row * whole.pitch) {}
  float* floats() const { return first; }
  DeviceRows data() const { return rowsFrom(0); }
  DeviceRows rowsFrom(int64_t row) const { return {first + row * pitch, pitch}; }

  int device;
  int64_t rows, cols, pitch;
  std::shared_ptr<DeviceAllocation> memory;
  float* first;  // the first element: memory's, or a later row's in a view
  // A Matrix's magnitude classes (kernels/helpers.cuh) as of `classifiedAt` writes, found on its device's ordered
  // stream the first time a tensor-core product reads it after a write (resident.cu), so that weights read by
  // many products are classified once.
  std::shared_ptr<DeviceAllocation> classes;
  uint64_t writes = 0, classifiedAt = ~uint64_t{0};
  // Bᵀ as a kernel that reads it (wgmma) wants it, made from this Matrix as of `transposedAt` writes, kept so that
  // a Matrix read whole as B by many products (a weight) is transposed once (resident.cu, transposedOf).
  std::shared_ptr<KernelOperandB> transposed;
  uint64_t transposedAt = ~uint64_t{0};
  // Each row's normTerm (core/search.h) for the metric `normsFor`, as of `normsAt` writes: a corpus searched by
  // cosine or l2 many times reads its rows' norms, found once per write (resident.cu, normTermsOf).
  std::shared_ptr<DeviceAllocation> normTerms;
  Metric normsFor = Metric::Dot;
  uint64_t normsAt = ~uint64_t{0};
};

// How A and B are stored: row-major, or held transposed (gemm's transA, transB), as every kernel reads them
// (registry.h, readsTransposedA, readsTransposedB; the plan takes no kernel that does not).
struct StoredLayouts {
  bool transA = false, transB = false;
};
inline StoredLayouts storedLayouts(const GemmShape& s) { return {s.transA, s.transB}; }
// Rows [row, …) of op(X) held at `stored`: its rows from `row`, or, for X held transposed, its columns.
inline DeviceRows rowsOfOperand(DeviceRows stored, int64_t row, bool transposed) {
  return {stored.data + (transposed ? row : row * stored.pitch), stored.pitch};
}

// The operands of one launch: rows×k of A times B (as the kernel reads it) into rows×n of C, in `layouts`; exactB
// is B as the caller holds it (kernels/kernel.h).
inline GemmOperands productOf(DeviceRows a, DeviceRows b, DeviceRows c, int64_t rows, int64_t k, int64_t n,
                              DeviceRows exactB, const uint32_t* aClasses = nullptr,
                              const uint32_t* bClasses = nullptr, StoredLayouts layouts = {}) {
  GemmOperands o{a.data, b.data, c.data, rows, k, n, a.pitch, b.pitch, c.pitch, layouts.transA, layouts.transB};
  o.exactB = exactB.data;
  o.exactLdb = exactB.pitch;
  o.aClasses = aClasses;
  o.bClasses = bClasses;
  return o;
}

// B as a kernel reads it: B itself, or for kernels whose registry row says transposedB (wgmma) Bᵀ rounded to
// TF32 (for fp32 followed by its remainders: registry.h, transposedBRounding) in its own padded matrix. Constructed before the caller's stream, so that Bᵀ outlives the work queued on it.
class KernelOperandB {
 public:
  KernelOperandB(const KernelPlan& plan, int device, int64_t k, int64_t n)
      : KernelOperandB(plan, device, k, n, [device](size_t bytes) { return std::make_shared<DeviceAllocation>(device, bytes); }) {}
  // Bᵀ in `scratch(bytes)`'s memory instead of its own: a buffer that work queued on one stream reuses, one
  // operation after another (resident.cu). Bᵀ's rows, then a word for B's magnitude classes.
  template <class Scratch>
  KernelOperandB(const KernelPlan& plan, int device, int64_t k, int64_t n, Scratch&& scratch)
      : rounding_(transposedBRounding(plan.precision)) {
    const int64_t rows = n * transposedBParts(plan.precision);
    if (plan.row->transposedB) transposed_.emplace(scratch(sizeof(float) * (rows * paddedPitch(k) + 4)), device, rows, k);
  }
  // The operand to pass for B (k×n at b, or n×k where `heldTransposed`); Bᵀ, when needed, is made on `stream`
  // first: a transpose of B, or a B held as Bᵀ rounded as it is.
  DeviceRows from(DeviceRows b, int64_t k, int64_t n, bool heldTransposed, cudaStream_t stream) {
    if (!transposed_) return b;
    checkCuda(cudaMemsetAsync(classes(), 0, sizeof(uint32_t), stream), "cudaMemsetAsync(classes of B)");
    float* const made = transposed_->floats();
    if (heldTransposed)
      launchRoundedCopy(b.data, b.pitch, made, transposed_->pitch, n, k, rounding_, stream, classes());
    else
      launchTranspose(b.data, b.pitch, made, transposed_->pitch, k, n, rounding_, stream, classes());
    checkCuda(cudaGetLastError(), "Bᵀ");
    return transposed_->data();
  }
  // The operand from() last returned, for a Bᵀ made earlier on the same stream (its rounding: rounding()).
  DeviceRows made(DeviceRows b) const { return transposed_ ? transposed_->data() : b; }
  Rounding rounding() const { return rounding_; }
  // B's magnitude classes (kernel.h, GemmOperands::bClasses), found by from(); null when B is read as is.
  uint32_t* classes() const {
    return transposed_ ? reinterpret_cast<uint32_t*>(transposed_->floats() + transposed_->rows * transposed_->pitch) : nullptr;
  }

 private:
  Rounding rounding_;
  std::optional<DeviceResident> transposed_;
};

}  // namespace cuda_matmul
