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

struct DeviceResident : MatrixStorage {
  DeviceResident(int device, int64_t rows, int64_t cols)
      : device(device), rows(rows), cols(cols), pitch(paddedPitch(cols)),
        memory(std::make_shared<DeviceAllocation>(device, sizeof(float) * rows * pitch)), first(memory->floats()) {}
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
};

// The operands of one launch: rows×k of A times B (as the kernel reads it) into rows×n of C; exactB is B as
// the caller holds it (kernels/kernel.h).
inline GemmOperands productOf(DeviceRows a, DeviceRows b, DeviceRows c, int64_t rows, int64_t k, int64_t n,
                              DeviceRows exactB) {
  GemmOperands o{a.data, b.data, c.data, rows, k, n, a.pitch, b.pitch, c.pitch};
  o.exactB = exactB.data;
  o.exactLdb = exactB.pitch;
  return o;
}

// B as a kernel reads it: B itself, or for kernels whose registry row says transposedB (wgmma) Bᵀ rounded to
// TF32 in its own padded matrix. Constructed before the caller's stream, so that Bᵀ outlives the work queued on it.
class KernelOperandB {
 public:
  KernelOperandB(const KernelPlan& plan, int device, int64_t k, int64_t n) {
    if (plan.row->transposedB) transposed_.emplace(device, n, k);
  }
  // The operand to pass for B (k×n at b); a transpose, when needed, goes on `stream` first.
  DeviceRows from(DeviceRows b, int64_t k, int64_t n, cudaStream_t stream) {
    if (!transposed_) return b;
    launchTranspose(b.data, b.pitch, transposed_->floats(), transposed_->pitch, k, n, Rounding::Tf32, stream);
    checkCuda(cudaGetLastError(), "transpose of B");
    return transposed_->data();
  }

 private:
  std::optional<DeviceResident> transposed_;
};

}  // namespace cuda_matmul
