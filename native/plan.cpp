// The plan: backend, kernel, tile and precision. 'auto' prefers CUDA when a device is usable and falls back to
// the CPU otherwise (info().reason says why); an explicit choice that cannot be honoured is an error, never a
// silent substitution.
#include "plan.h"

#include <algorithm>

#include "cpu_gemm.h"
#include "cuda_backend.h"
#include "errors.h"
#include "plan_tiles.h"

namespace cuda_matmul {
namespace {

// The tensor-core kernel's mma.sync TF32 and cp.async need compute capability 8.0 (Ampere) or newer.
constexpr int kMmaMinimumMajor = 8;

std::string kernelName(Kernel kernel) {
  for (const KernelName& known : kKernelNames)
    if (known.kernel == kernel) return known.name;
  return "?";
}

void checkKernelOnCpu(Kernel kernel) {
  if (kernel != Kernel::Auto)
    throw MatmulError(ErrorKind::Range, "kernel: '" + kernelName(kernel) + "' is a CUDA kernel and cannot run on backend 'cpu'");
}

Backend resolveBackend(const MatmulRequest& request) {
  const CudaStatus& cuda = cudaStatus();
  switch (request.backend) {
    case Backend::Cpu:
      checkKernelOnCpu(request.kernel);
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

const CudaDeviceInfo& checkDevice(int device) {
  const auto& devices = cudaStatus().devices;
  if (device < 0 || device >= static_cast<int>(devices.size()))
    throw MatmulError(ErrorKind::Range, "device: " + std::to_string(device) + " does not exist; " +
                                            std::to_string(devices.size()) + " CUDA device(s) found");
  return devices[device];
}

// 'auto' takes the fastest kernel measured (bench/NOTES.md): the tensor-core kernel where the device has
// tensor cores it can use (3xTF32 beats FFMA at every shape measured, at better than fp32 accuracy), else
// blocktile. Muld is never the fastest; it stays selectable as the readable baseline.
KernelPlan planKernel(const MatmulRequest& request, const CudaDeviceInfo& device) {
  const bool mmaRuns = device.major >= kMmaMinimumMajor;
  if (request.kernel == Kernel::Mma && !mmaRuns)
    throw MatmulError(ErrorKind::Failure,
                      "kernel 'mma' needs compute capability " + std::to_string(kMmaMinimumMajor) + ".0 or newer; device " +
                          std::to_string(device.index) + " (" + device.name + ") is " + device.computeCapability,
                      "ERR_KERNEL_UNSUPPORTED");
  KernelPlan plan;
  plan.precision = request.precision;
  plan.kernel = request.kernel != Kernel::Auto ? request.kernel : mmaRuns ? Kernel::Mma : Kernel::BlockTile;
  if (plan.kernel == Kernel::Mma) plan.tile = chooseMmaTile(request.m, request.n, device.multiprocessors);
  plan.panelRows = choosePanelRows(request.m, request.n, tileShape(plan), device.multiprocessors);
  return plan;
}

}  // namespace

void runMatmul(const MatmulRequest& r) {
  if (resolveBackend(r) == Backend::Cpu) {
    cpuGemm(r.a, r.b, r.c, r.m, r.k, r.n);  // fp32 whatever the precision asked: 'tf32' only permits less
    return;
  }
  const KernelPlan plan = planKernel(r, checkDevice(r.device));
  if (r.m == 0 || r.n == 0) return;
  if (r.k == 0) {  // an empty sum: zeros, with no device round trip
    std::fill(r.c, r.c + r.m * r.n, 0.0f);
    return;
  }
  cudaMultiply(plan, r);
}

std::shared_ptr<MatrixData> runMatrixUpload(const float* data, int64_t rows, int64_t cols, Backend backend, int device,
                                            bool pinned) {
  MatmulRequest request;
  request.backend = backend;
  request.device = device;
  auto matrix = std::make_shared<MatrixData>();
  matrix->backend = resolveBackend(request);
  matrix->rows = rows;
  matrix->cols = cols;
  if (matrix->backend == Backend::Cpu) {
    matrix->onHost.assign(data, data + rows * cols);
    return matrix;
  }
  checkDevice(device);
  matrix->device = device;
  matrix->onDevice = cudaUploadResident(device, data, rows, cols, pinned);
  return matrix;
}

void runMatrixDownload(const MatrixData& matrix, float* out, bool pinned) {
  if (matrix.backend == Backend::Cpu)
    std::copy(matrix.onHost.begin(), matrix.onHost.end(), out);
  else
    cudaDownloadResident(*matrix.onDevice, out, pinned);
}

std::shared_ptr<MatrixData> allocateMatrixLike(const MatrixData& a, int64_t rows, int64_t cols) {
  auto matrix = std::make_shared<MatrixData>();
  matrix->backend = a.backend;
  matrix->device = a.device;
  matrix->rows = rows;
  matrix->cols = cols;
  if (a.backend == Backend::Cpu)
    matrix->onHost.resize(static_cast<size_t>(rows * cols));
  else
    matrix->onDevice = cudaAllocateResident(a.device, rows, cols);
  return matrix;
}

void runMatrixProduct(const MatrixData& a, const MatrixData& b, MatrixData& out, Kernel kernel, Precision precision) {
  if (a.backend != b.backend || a.device != b.device || out.backend != a.backend || out.device != a.device)
    throw MatmulError(ErrorKind::Range, "matrix: both operands and out must live on the same backend and device");
  if (a.cols != b.rows)
    throw MatmulError(ErrorKind::Range, "matrix: a " + std::to_string(a.rows) + "×" + std::to_string(a.cols) +
                                            " matrix cannot multiply a " + std::to_string(b.rows) + "×" +
                                            std::to_string(b.cols) + " one");
  if (&out == &a || &out == &b)
    throw MatmulError(ErrorKind::Range, "out: must not be one of the operands (it is written while they are read)");
  if (out.rows != a.rows || out.cols != b.cols)
    throw MatmulError(ErrorKind::Range, "out: expected a " + std::to_string(a.rows) + "×" + std::to_string(b.cols) +
                                            " Matrix, got " + std::to_string(out.rows) + "×" + std::to_string(out.cols));
  if (a.backend == Backend::Cpu) {
    checkKernelOnCpu(kernel);
    cpuGemm(a.onHost.data(), b.onHost.data(), out.onHost.data(), a.rows, a.cols, b.cols);
    return;
  }
  MatmulRequest request;
  request.m = a.rows;
  request.k = a.cols;
  request.n = b.cols;
  request.kernel = kernel;
  request.precision = precision;
  request.device = a.device;
  cudaMultiplyResident(planKernel(request, checkDevice(a.device)), *a.onDevice, *b.onDevice, *out.onDevice);
}

}  // namespace cuda_matmul
