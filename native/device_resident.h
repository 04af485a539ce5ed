// A rows×cols matrix in pooled device memory, rows padded (paddedPitch): a Matrix's storage, and the
// device copies of A, B and C in the host wrapper Mul. Defined here for the CUDA files (device_matmul.cu,
// device_resident.cu, gemm_ops.cu); everything else sees it only through cuda_backend.h's functions.
#pragma once

#include "device_kernels.h"
#include "device_pools.h"
#include "transfers.h"

namespace cuda_matmul {

struct DeviceResident {
  DeviceResident(int device, int64_t rows, int64_t cols)
      : device(device), rows(rows), cols(cols), pitch(paddedPitch(cols)), memory(device, sizeof(float) * rows * pitch) {}
  DeviceRows data() const { return rowsFrom(0); }
  DeviceRows rowsFrom(int64_t row) const { return {memory.floats() + row * pitch, pitch}; }

  int device;
  int64_t rows, cols, pitch;
  DeviceAllocation memory;
};

}  // namespace cuda_matmul
