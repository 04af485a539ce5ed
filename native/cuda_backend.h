// What the rest of the addon may ask of CUDA. Implemented by cuda_device.cu + device_matmul.cu when the addon is
// built with nvcc, and by cuda_absent.cpp in a CPU-only build, so no other file needs #ifdefs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "request.h"

namespace cuda_matmul {

struct CudaDeviceInfo {
  int index = 0;
  std::string name;
  std::string computeCapability;  // "9.0"
  int major = 0, minor = 0;       // the same, as numbers
  int multiprocessors = 0;
  uint64_t totalMemory = 0;       // bytes
};

struct CudaStatus {
  bool usable = false;
  std::string reason;  // why CUDA is not usable; empty when it is
  std::vector<CudaDeviceInfo> devices;
};

// Probed once per process (thread-safe), then cached.
const CudaStatus& cudaStatus();

// C = A·B on `device` as the plan decided (kernel, tile, precision) through the host wrapper Mul: host
// pointers in and out. Throws MatmulError on any CUDA failure.
void cudaMultiply(const KernelPlan& plan, const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n,
                  int device);

}  // namespace cuda_matmul
