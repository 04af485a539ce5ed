// Every CUDA runtime call goes through checkCuda: a failure becomes a MatmulError carrying the CUDA error
// name as its code and the error text in its message, so JavaScript sees a rejected Promise, not a crash.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "core/errors.h"

namespace cuda_matmul {

inline void checkCuda(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  throw MatmulError(ErrorKind::Failure,
                    std::string("CUDA error in ") + what + ": " + cudaGetErrorString(status) + " (" +
                        cudaGetErrorName(status) + ")",
                    cudaGetErrorName(status));
}

}  // namespace cuda_matmul
