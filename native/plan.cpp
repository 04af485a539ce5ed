// The plan: backend and kernel selection. 'auto' prefers CUDA when a device is usable and falls back to the
// CPU otherwise (info().reason says why); an explicit choice that cannot be honoured is an error, never a
// silent substitution.
#include "plan.h"

#include <algorithm>

#include "cpu_gemm.h"
#include "cuda_backend.h"
#include "errors.h"

namespace cuda_matmul {
namespace {

std::string kernelName(Kernel kernel) { return kernel == Kernel::Muld ? "muld" : "blocktile"; }

Backend resolveBackend(const MatmulRequest& request) {
  const CudaStatus& cuda = cudaStatus();
  switch (request.backend) {
    case Backend::Cpu:
      if (request.kernel != Kernel::Auto)
        throw MatmulError(ErrorKind::Range, "kernel: '" + kernelName(request.kernel) + "' is a CUDA kernel and cannot run on backend 'cpu'");
      return Backend::Cpu;
    case Backend::Cuda:
      if (!cuda.usable)
        throw MatmulError(ErrorKind::Failure, "backend 'cuda' was requested but CUDA is unavailable: " + cuda.reason,
                          "ERR_CUDA_UNAVAILABLE");
      return Backend::Cuda;
    case Backend::Auto:
      break;
  }
  if (cuda.usable) return Backend::Cuda;
  if (request.kernel != Kernel::Auto)
    throw MatmulError(ErrorKind::Failure, "kernel '" + kernelName(request.kernel) + "' was requested but CUDA is unavailable: " + cuda.reason,
                      "ERR_CUDA_UNAVAILABLE");
  return Backend::Cpu;
}

void checkDevice(int device) {
  const auto& devices = cudaStatus().devices;
  if (device < 0 || device >= static_cast<int>(devices.size()))
    throw MatmulError(ErrorKind::Range, "device: " + std::to_string(device) + " does not exist; " +
                                            std::to_string(devices.size()) + " CUDA device(s) found");
}

// 'auto' takes the fastest kernel measured for every shape so far (bench/NOTES.md): blocktile.
Kernel chooseKernel(const MatmulRequest& request) {
  return request.kernel == Kernel::Auto ? Kernel::BlockTile : request.kernel;
}

}  // namespace

void runMatmul(const MatmulRequest& r) {
  if (resolveBackend(r) == Backend::Cpu) {
    cpuGemm(r.a, r.b, r.c, r.m, r.k, r.n);
    return;
  }
  checkDevice(r.device);
  if (r.m == 0 || r.n == 0) return;
  if (r.k == 0) {  // an empty sum: zeros, with no device round trip
    std::fill(r.c, r.c + r.m * r.n, 0.0f);
    return;
  }
  cudaMultiply(chooseKernel(r), r.a, r.b, r.c, r.m, r.k, r.n, r.device);
}

}  // namespace cuda_matmul
