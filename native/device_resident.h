// DeviceResident's definition, for the files that operate on resident matrices (device_resident.cu,
// gemm_ops.cu); everything else sees it only through cuda_backend.h's functions.
#pragma once

#include "device_kernels.h"
#include "device_pools.h"
#include "transfers.h"

namespace cuda_matmul {

struct DeviceResident {
  DeviceResident(int device, int64_t rows, int64_t cols)
      : device(device), rows(rows), cols(cols), pitch(paddedPitch(cols)), memory(device, sizeof(float) * rows * pitch) {}
  DeviceRows data() const { return {memory.floats(), pitch}; }

  int device;
  int64_t rows, cols, pitch;
  DeviceAllocation memory;
};

}  // namespace cuda_matmul
