// The plan: backend, kernel, tile and precision. 'auto' prefers CUDA when a device is usable and falls back to
// the CPU otherwise (info().reason says why); an explicit choice that cannot be honoured is an error, never a
// silent substitution.
#include "plan.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "cpu_gemm.h"
#include "cuda_backend.h"
#include "errors.h"
#include "plan_tiles.h"

namespace cuda_matmul {
namespace {

std::string kernelName(Kernel kernel) {
  for (const KernelName& known : kKernelNames)
    if (known.kernel == kernel) return known.name;
  return "?";
}

// The tensor-core kernel's mma.sync TF32 and cp.async need compute capability 8.0 (Ampere) or newer.
constexpr int kMmaMinimumMajor = 8;

// wgmma exists on compute capability 9.0 alone (H100, H200), in sm_90a machine code, which the build has
// when its architectures include 90a (CUDA_MATMUL_WGMMA, set by CMakeLists.txt and binding.gyp).
bool wgmmaRuns(const CudaDeviceInfo& device) {
#if defined(CUDA_MATMUL_WGMMA)
  return device.major == 9 && device.minor == 0;
#else
  (void)device;
  return false;
#endif
}

bool wgmmaPays(const MatmulRequest& r, const CudaDeviceInfo& device) {
  return r.precision == Precision::Tf32 && wgmmaRuns(device) && wgmmaPaysFor(r.m, r.k, r.n);
}

void checkExplicitKernel(const MatmulRequest& request, const CudaDeviceInfo& device) {
  auto unsupported = [&](const std::string& why) {
    throw MatmulError(ErrorKind::Failure, "kernel '" + kernelName(request.kernel) + "' " + why, "ERR_KERNEL_UNSUPPORTED");
  };
  const std::string onDevice =
      "device " + std::to_string(device.index) + " (" + device.name + ") is " + device.computeCapability;
  if (request.kernel == Kernel::Mma && device.major < kMmaMinimumMajor)
    unsupported("needs compute capability " + std::to_string(kMmaMinimumMajor) + ".0 or newer; " + onDevice);
  if (request.kernel == Kernel::Wgmma && !wgmmaRuns(device))
    unsupported("needs compute capability 9.0 (H100, H200) and a build with sm_90a; " + onDevice);
}

void checkKernelOnCpu(Kernel kernel) {
  if (kernel != Kernel::Auto)
    throw MatmulError(ErrorKind::Range, "kernel: '" + kernelName(kernel) + "' is a CUDA kernel and cannot run on backend 'cpu'");
}

const CudaDeviceInfo& checkDevice(int device) {
  const auto& devices = cudaStatus().devices;
  if (device < 0 || device >= static_cast<int>(devices.size()))
    throw MatmulError(ErrorKind::Range, "device: " + std::to_string(device) + " does not exist; " +
                                            std::to_string(devices.size()) + " CUDA device(s) found");
  return devices[device];
}

Backend resolveBackend(const MatmulRequest& request) {
  const CudaStatus& cuda = cudaStatus();
  // A device other than the default must exist, with or without a GPU, whatever the backend.
  if (request.device != 0) checkDevice(request.device);
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

// Matrices hold at most 2^53 − 1 elements (exact JavaScript integers), so rows·cols never wraps.
constexpr int64_t kMaxMatrixElements = (int64_t{1} << 53) - 1;

void requireSamePlace(const MatrixData& a, const MatrixData& b, const MatrixData& c, const char* what) {
  if (a.backend != b.backend || a.device != b.device || c.backend != a.backend || c.device != a.device)
    throw MatmulError(ErrorKind::Range, std::string("matrix: ") + what + " must live on the same backend and device");
}

std::string dims(int64_t rows, int64_t cols) { return std::to_string(rows) + "×" + std::to_string(cols); }

// Floats a rows×cols matrix takes on a device: rows padded to 4 floats (device_kernels.h, paddedPitch).
double deviceFloats(int64_t rows, int64_t cols) { return double(rows) * double((cols + 3) / 4 * 4); }

std::string gigabytes(double bytes) {
  const std::string text = std::to_string(bytes / 1e9);
  return text.substr(0, text.find('.') + 3) + " GB";
}

// What needs more memory than the device has at all can never run there: a RangeError naming it, before
// anything is allocated. (Running out of the memory free now is a cudaErrorMemoryAllocation Error instead.)
void requireDeviceRoom(const CudaDeviceInfo& device, double floats, const std::string& what) {
  const double bytes = floats * sizeof(float);
  if (bytes > double(device.totalMemory))
    throw MatmulError(ErrorKind::Range, what + " needs " + gigabytes(bytes) + " of device memory; device " +
                                            std::to_string(device.index) + " (" + device.name + ") has " +
                                            gigabytes(double(device.totalMemory)));
}

// The same for a product from host arrays: A, B and C on the device at once (Mul, gemm's batch entries).
void requireProductRoom(const CudaDeviceInfo& device, int64_t m, int64_t k, int64_t n) {
  requireDeviceRoom(device, deviceFloats(m, k) + deviceFloats(k, n) + deviceFloats(m, n),
                    "shape: the " + dims(m, k) + "×" + std::to_string(n) + " product");
}


// 'auto' takes the fastest kernel measured (bench/NOTES.md): wgmma for large tf32 products on an H100/H200,
// otherwise the tensor-core kernel where the device has tensor cores it can use (3xTF32 beats FFMA at every
// shape measured, at better than fp32 accuracy), else blocktile. Muld is never the fastest; it stays
// selectable as the readable baseline.
Kernel autoKernel(const MatmulRequest& request, const CudaDeviceInfo& device) {
  if (wgmmaPays(request, device)) return Kernel::Wgmma;
  return device.major >= kMmaMinimumMajor ? Kernel::Mma : Kernel::BlockTile;
}

KernelPlan planKernel(const MatmulRequest& request, const CudaDeviceInfo& device) {
  checkExplicitKernel(request, device);
  KernelPlan plan;
  plan.precision = request.precision;
  plan.kernel = request.kernel != Kernel::Auto ? request.kernel : autoKernel(request, device);
  if (plan.kernel == Kernel::Mma) plan.tile = chooseMmaTile(request.m, request.n, device.multiprocessors);
  plan.panelRows = choosePanelRows(request.m, request.n, tileShape(plan), device.multiprocessors);
  return plan;
}

// The shape a gemm operand is stored in: op(X) is rows×cols, X itself the transpose when trans is set.
struct Stored {
  int64_t rows, cols;
};
Stored storedShape(int64_t rows, int64_t cols, bool trans) { return trans ? Stored{cols, rows} : Stored{rows, cols}; }

MatmulRequest productRequest(const GemmShape& shape, Kernel kernel, Precision precision, int device) {
  MatmulRequest request;
  request.m = shape.m;
  request.k = shape.k;
  request.n = shape.n;
  request.kernel = kernel;
  request.precision = precision;
  request.device = device;
  return request;
}

// Tiny products skip Mul's copies (device_inline.cu); wgmma reads a transposed copy of B from device memory,
// which that path does not make, and a split of K needs device memory for its partial results.
bool runsInline(const KernelPlan& plan, const MatmulRequest& r) {
  return r.m > 0 && r.k > 0 && r.n > 0 && plan.kernel != Kernel::Wgmma && cudaInlineFits(r) &&
         chooseKSplit(plan.kernel, plan.precision, r.m, r.n, r.k).slices == 1;  // a split needs device memory for its partials
}

}  // namespace

std::optional<KernelPlan> planInline(const MatmulRequest& r) {
  if (resolveBackend(r) != Backend::Cuda) return std::nullopt;
  const KernelPlan plan = planKernel(r, checkDevice(r.device));
  if (!runsInline(plan, r)) return std::nullopt;
  return plan;
}

void runMatmul(const MatmulRequest& r) {
  if (resolveBackend(r) == Backend::Cpu) {
    cpuGemm(r.a, r.b, r.c, r.m, r.k, r.n);  // fp32 whatever the precision asked: 'tf32' only permits less
    return;
  }
  const CudaDeviceInfo& device = checkDevice(r.device);
  const KernelPlan plan = planKernel(r, device);
  if (r.m == 0 || r.n == 0) return;
  if (r.k == 0) {  // an empty sum: zeros, with no device round trip
    std::fill(r.c, r.c + r.m * r.n, 0.0f);
    return;
  }
  requireProductRoom(device, r.m, r.k, r.n);
  if (runsInline(plan, r)) {  // matmulSync, or a small call that found the inline path full
    const auto product = cudaStartInline(plan, r);
    cudaInlineWait(*product);
    return cudaInlineFinish(*product, r.c);
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
  requireDeviceRoom(checkDevice(device), deviceFloats(rows, cols),
                    "rows: a " + dims(rows, cols) + " Matrix");
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
  if (a.backend == Backend::Cpu) {
    matrix->onHost.resize(static_cast<size_t>(rows * cols));
  } else {
    requireDeviceRoom(checkDevice(a.device), deviceFloats(rows, cols),
                      "matrix: the " + dims(rows, cols) + " product");
    matrix->onDevice = cudaAllocateResident(a.device, rows, cols);
  }
  return matrix;
}


void checkMatrixProduct(const MatrixData& a, const MatrixData& b, const MatrixData* out) {
  requireSamePlace(a, b, out ? *out : a, "both operands and out");
  if (a.cols != b.rows)
    throw MatmulError(ErrorKind::Range, "matrix: a " + dims(a.rows, a.cols) + " matrix cannot multiply a " +
                                            dims(b.rows, b.cols) + " one: its " + std::to_string(a.cols) +
                                            " columns must equal the other's " + std::to_string(b.rows) + " rows");
  if (b.cols != 0 && a.rows > kMaxMatrixElements / b.cols)
    throw MatmulError(ErrorKind::Range, "matrix: the product would be " + dims(a.rows, b.cols) +
                                            ", more elements than a Matrix can hold (2^53 − 1)");
  if (!out) return;
  if (out == &a || out == &b)
    throw MatmulError(ErrorKind::Range, "out: must not be one of the operands (it is written while they are read)");
  if (out->rows != a.rows || out->cols != b.cols)
    throw MatmulError(ErrorKind::Range, "out: expected a " + dims(a.rows, b.cols) + " Matrix, got " + dims(out->rows, out->cols));
}

void runMatrixProduct(const MatrixData& a, const MatrixData& b, MatrixData& out, Kernel kernel, Precision precision) {
  if (a.backend == Backend::Cpu) {
    checkKernelOnCpu(kernel);
    cpuGemm(a.onHost.data(), b.onHost.data(), out.onHost.data(), a.rows, a.cols, b.cols);
    return;
  }
  GemmShape shape;
  shape.m = a.rows;
  shape.k = a.cols;
  shape.n = b.cols;
  const KernelPlan plan = planKernel(productRequest(shape, kernel, precision, a.device), checkDevice(a.device));
  cudaMultiplyResident(plan, *a.onDevice, *b.onDevice, *out.onDevice);
}

namespace {

// One CPU gemm: c = α·op(a)·op(b) + β·c.
void cpuGemmStep(const float* a, const float* b, float* c, const GemmShape& s) {
  std::vector<float> aT, bT, product;
  if (s.transA) {
    aT.resize(static_cast<size_t>(s.m * s.k));
    cpuTranspose(a, s.k, s.m, aT.data());
    a = aT.data();
  }
  if (s.transB) {
    bT.resize(static_cast<size_t>(s.k * s.n));
    cpuTranspose(b, s.n, s.k, bT.data());
    b = bT.data();
  }
  if (s.alpha == 1.0f && s.beta == 0.0f) return cpuGemm(a, b, c, s.m, s.k, s.n);
  product.resize(static_cast<size_t>(s.m * s.n));
  cpuGemm(a, b, product.data(), s.m, s.k, s.n);
  cpuCombine(c, product.data(), s.m * s.n, s.alpha, s.beta);
}

// One CUDA gemm on resident operands: op(a) and op(b) materialised by a transpose where needed, the product
// written straight into c when α = 1 and β = 0, else into a temporary combined into c.
void cudaGemmStep(const KernelPlan& plan, int device, std::shared_ptr<DeviceResident> a, std::shared_ptr<DeviceResident> b,
                  DeviceResident& c, const GemmShape& s) {
  if (s.transA) a = cudaTransposeResident(*a);
  if (s.transB) b = cudaTransposeResident(*b);
  if (s.alpha == 1.0f && s.beta == 0.0f) return cudaMultiplyResident(plan, *a, *b, c);
  auto product = cudaAllocateResident(device, s.m, s.n);
  cudaMultiplyResident(plan, *a, *b, *product);
  cudaCombineResident(c, *product, s.alpha, s.beta);
}

}  // namespace

void runGemm(const GemmRequest& r) {
  MatmulRequest request = productRequest(r.shape, r.kernel, r.precision, r.device);
  request.backend = r.backend;
  const Backend backend = resolveBackend(request);
  const GemmShape& s = r.shape;
  const Stored aShape = storedShape(s.m, s.k, s.transA), bShape = storedShape(s.k, s.n, s.transB);
  if (backend == Backend::Cpu) {
    for (int64_t i = 0; i < r.batch; ++i) cpuGemmStep(r.a + i * r.strideA, r.b + i * r.strideB, r.c + i * r.strideC, s);
    return;
  }
  const CudaDeviceInfo& device = checkDevice(r.device);
  const KernelPlan plan = planKernel(request, device);
  if (s.m == 0 || s.n == 0) return;
  requireProductRoom(device, s.m, s.k, s.n);
  for (int64_t i = 0; i < r.batch; ++i) {
    auto a = cudaUploadResident(r.device, r.a + i * r.strideA, aShape.rows, aShape.cols, r.pinnedA);
    auto b = cudaUploadResident(r.device, r.b + i * r.strideB, bShape.rows, bShape.cols, r.pinnedB);
    float* c = r.c + i * r.strideC;
    // β ≠ 0 reads C: it goes up too. Otherwise C on the device is only written.
    auto cOnDevice = s.beta != 0.0f ? cudaUploadResident(r.device, c, s.m, s.n, r.pinnedC) : cudaAllocateResident(r.device, s.m, s.n);
    cudaGemmStep(plan, r.device, a, b, *cOnDevice, s);
    cudaDownloadResident(*cOnDevice, c, r.pinnedC);
  }
}

void checkMatrixGemm(const MatrixData& a, const MatrixData& b, const MatrixData& c, const GemmShape& s, const RowBatch& batch) {
  requireSamePlace(a, b, c, "a, b and c");
  if (&c == &a || &c == &b)
    throw MatmulError(ErrorKind::Range, "c: must not be a or b (it is written while they are read)");
  const Stored aShape = storedShape(s.m, s.k, s.transA), bShape = storedShape(s.k, s.n, s.transB);
  // Each operand's stored shape, its rows stacked for the batch (an empty batch reads no rows).
  auto check = [&](const char* name, const MatrixData& x, Stored one, int64_t span) {
    const Stored want{batch.count == 0 ? x.rows : span, one.cols};
    if (x.rows != want.rows || x.cols != want.cols)
      throw MatmulError(ErrorKind::Range, std::string(name) + ": expected a " + dims(want.rows, want.cols) +
                                              " Matrix for this m, k, n" +
                                              (batch.count == 1 ? " and trans" : ", trans, batch and strides") + ", got " +
                                              dims(x.rows, x.cols));
  };
  check("a", a, aShape, batch.spanA);
  check("b", b, bShape, batch.spanB);
  check("c", c, {s.m, s.n}, batch.spanC);
}

void runMatrixGemm(const MatrixData& a, const MatrixData& b, MatrixData& c, const GemmShape& s, const RowBatch& batch,
                   Kernel kernel, Precision precision) {
  const Stored aShape = storedShape(s.m, s.k, s.transA), bShape = storedShape(s.k, s.n, s.transB);
  if (a.backend == Backend::Cpu) {
    checkKernelOnCpu(kernel);
    for (int64_t i = 0; i < batch.count; ++i)
      cpuGemmStep(a.onHost.data() + i * batch.strideA * a.cols, b.onHost.data() + i * batch.strideB * b.cols,
                  c.onHost.data() + i * batch.strideC * c.cols, s);
    return;
  }
  const KernelPlan plan = planKernel(productRequest(s, kernel, precision, a.device), checkDevice(a.device));
  if (s.m == 0 || s.n == 0) return;
  for (int64_t i = 0; i < batch.count; ++i) {
    const auto cRows = cudaResidentRows(c.onDevice, i * batch.strideC, s.m);
    cudaGemmStep(plan, a.device, cudaResidentRows(a.onDevice, i * batch.strideA, aShape.rows),
                 cudaResidentRows(b.onDevice, i * batch.strideB, bShape.rows), *cRows, s);
  }
}

}  // namespace cuda_matmul
