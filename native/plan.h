// The plan: given a validated request, pick the backend (and on CUDA the kernel, its tile and precision)
// and run it.
#pragma once

#include "request.h"

namespace cuda_matmul {

// Runs C = A·B on the calling thread. Throws MatmulError: RangeError kind for a device that does not
// exist or a kernel that needs CUDA on the CPU backend, Failure kind when CUDA was asked for but is unusable,
// the device cannot run the kernel asked for, or a CUDA call fails.
void runMatmul(const MatmulRequest& request);

}  // namespace cuda_matmul
