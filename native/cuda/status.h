// Whether CUDA can run here, on which devices, and what the pools hold: found once per process (device.cu,
// pools.cu). Inside cuda/ only; the rest of the addon asks through the backend interface (core/backend.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/backend.h"

namespace cuda_matmul {

struct CudaStatus {
  bool usable = false;
  std::string reason;  // why CUDA is not usable; empty when it is
  std::vector<DeviceDescription> devices;
};

// Probed once per process (thread-safe), then cached.
const CudaStatus& cudaStatus();

// What the pools hold over all devices, and giving back what has been idle for idleSeconds (pools.cu).
MemoryUsage cudaMemoryUsage();
void cudaTrimIdle(double idleSeconds);

}  // namespace cuda_matmul
