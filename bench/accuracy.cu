// Accuracy against cuBLAS on the same inputs (the trust issue's bar): our kernels, launched as the product
// launches them (native/kernels/launch.cu, long K split into slices summed in float64), against cuBLAS SGEMM and
// cuBLAS TF32, by relative Frobenius error to a float64 reference, for 2×K×2 products from K = 1 to 2·10^7;
// and IEEE special values (±Inf, NaN, values near FLT_MAX, subnormals), counted as the elements whose class
// (NaN, +Inf, −Inf, finite) differs from the float64 reference's rounded to float32.
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -DCUDA_MATMUL_WGMMA -I native bench/accuracy.cu \
//        -lcublas -o accuracy && ./accuracy
// Then the input classes the accuracy contract names (docs/accuracy.md, "The two precisions"): uniform, log-uniform magnitudes over
// 2^±24, rows of A and columns of B scaled by 2^±50, pairs of terms that cancel to 1e-3 of their size, and small
// integers (exact), on a square-ish product and on one of few rows (gemv), each kernel and 'auto' against cuBLAS.
// Prints one line per case, and "FAIL" where ours exceeds twice cuBLAS's error or a class differs (the cancelling
// class is reported, not judged: there 3xTF32 carries each term to about 2^-22 where an FMA carries it exactly);
// exits 1 then.
#include <cublas_v2.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cuda/kernels/1_blocktile.cu"
#include "cuda/device.cu"
#include "cuda/pools.cu"
#include "cuda/kernels/launch.cu"
#include "cuda/kernels/2_mma.cu"
#include "cuda/kernels/0_muld.cu"
#include "cuda/kernels/transpose.cu"
#include "cuda/kernels/3_wgmma.cu"
#include "cuda/kernels/4_wgmma_transposed.cu"
#include "cuda/kernels/5_wgmma_f16.cu"
#include "cuda/kernels/6_few_rows.cu"
#include "bench_common.cuh"

using cuda_matmul::GemmOperands;
using cuda_matmul::Kernel;
using cuda_matmul::KernelPlan;
using cuda_matmul::launchTranspose;
using cuda_matmul::paddedPitch;
using cuda_matmul::Precision;
using cuda_matmul::ProductLaunch;
using cuda_matmul::Rounding;

namespace {

struct Variant {
  std::string name;
  Kernel kernel;
  Precision precision;
};

// A row-major problem on the device, rows padded to 4 floats as the product pads them.
struct DeviceProblem {
  int64_t m, k, n, lda, ldb, ldc;
  float *a, *b, *bt, *c;
  double* ref;
};

DeviceProblem upload(const std::vector<float>& a, const std::vector<float>& b, int64_t m, int64_t k, int64_t n) {
  DeviceProblem p{m, k, n, paddedPitch(k), paddedPitch(n), paddedPitch(n)};
  checkCuda(cudaMalloc(&p.a, 4 * m * p.lda), "malloc a");
  checkCuda(cudaMalloc(&p.b, 4 * k * p.ldb), "malloc b");
  checkCuda(cudaMalloc(&p.bt, 4 * 2 * n * paddedPitch(k)), "malloc bt");  // room for Bᵀ's remainders too
  checkCuda(cudaMalloc(&p.c, 4 * m * p.ldc), "malloc c");
  checkCuda(cudaMalloc(&p.ref, 8 * m * n), "malloc ref");
  checkCuda(cudaMemcpy2D(p.a, 4 * p.lda, a.data(), 4 * k, 4 * k, m, cudaMemcpyHostToDevice), "copy a");
  checkCuda(cudaMemcpy2D(p.b, 4 * p.ldb, b.data(), 4 * n, 4 * n, k, cudaMemcpyHostToDevice), "copy b");
  referenceFloat64<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(p.a, p.b, p.ref, m, k, n, p.lda, p.ldb);
  checkCuda(cudaDeviceSynchronize(), "reference");
  return p;
}

void release(DeviceProblem& p) {
  for (void* x : {static_cast<void*>(p.a), static_cast<void*>(p.b), static_cast<void*>(p.bt), static_cast<void*>(p.c),
                  static_cast<void*>(p.ref)})
    cudaFree(x);
}

// Ours: the plan's launch of `v`, with B transposed first for wgmma, into a NaN-poisoned C.
void runOurs(const Variant& v, DeviceProblem& p, const cudaDeviceProp& props) {
  const KernelPlan plan =
      cuda_matmul::planKernel(v.kernel, v.precision, p.m, p.k, p.n, {props.major, props.minor, props.multiProcessorCount});
  checkCuda(cudaMemset(p.c, 0xFF, 4 * p.m * p.ldc), "poison");
  const ProductLaunch launch(plan, 0, p.m, p.n, p.k);
  GemmOperands o{p.a, p.b, p.c, p.m, p.k, p.n, p.lda, p.ldb, p.ldc};
  o.exactB = p.b;
  o.exactLdb = p.ldb;
  if (plan.row->transposedB) {
    launchTranspose(p.b, p.ldb, p.bt, paddedPitch(p.k), p.k, p.n, cuda_matmul::transposedBRounding(plan.precision), nullptr);
    o.b = p.bt;
    o.ldb = paddedPitch(p.k);
  }
  launch.run(o, nullptr);
  checkCuda(cudaDeviceSynchronize(), v.name.c_str());
}

// cuBLAS on the same row-major data: Cᵀ = Bᵀ·Aᵀ in its column-major terms.
void runCublas(cublasHandle_t handle, bool tf32, DeviceProblem& p) {
  checkCublas(cublasSetMathMode(handle, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH), "math mode");
  checkCuda(cudaMemset(p.c, 0xFF, 4 * p.m * p.ldc), "poison");
  const float one = 1, zero = 0;
  checkCublas(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(p.n), int(p.m), int(p.k), &one, p.b, int(p.ldb), p.a,
                          int(p.lda), &zero, p.c, int(p.ldc)),
              "sgemm");
  checkCuda(cudaDeviceSynchronize(), "cublas");
}

std::vector<float> uniform(size_t count, std::mt19937& random) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(count);
  for (float& v : x) v = u(random);
  return x;
}

// The special operands of test/gpu/special-values.test.ts.
void makeSpecial(std::vector<float>& a, std::vector<float>& b, int64_t k, int64_t n) {
  const float inf = INFINITY, fltMax = 3.40282347e38f;
  for (size_t i = 0; i < a.size(); i += 7) a[i] *= 1e-39f;
  a[3 * k + 5] = inf;
  a[7 * k + 2] = -inf;
  a[11 * k + 9] = NAN;
  a[13 * k + 1] = inf;
  b[1 * n + 13] = 0;
  a[24 * k + 4] = 1e-40f;
  b[4 * n + 20] = -inf;
  a[17 * k + 0] = fltMax;
  a[17 * k + 1] = -3.4025e38f;
  for (int64_t j = 0; j < n; ++j) b[j] *= 0.5f, b[n + j] *= 0.25f;
}

// The input classes of the accuracy contract: A (m×k) and B (k×n).
enum class InputClass { Uniform, LogUniform, ScaledRowsAndColumns, Cancelling, SmallIntegers };
constexpr const char* kInputClassNames[] = {"uniform", "log-uniform 2^±24", "rows, columns ×2^±50", "cancelling to 1e-3",
                                            "small integers"};

void makeClass(InputClass kind, std::vector<float>& a, std::vector<float>& b, int64_t m, int64_t k, int64_t n,
               std::mt19937& random) {
  a = uniform(m * k, random), b = uniform(k * n, random);
  std::uniform_real_distribution<float> exponent(-24.0f, 24.0f), wide(-50.0f, 50.0f);
  std::uniform_int_distribution<int> integer(-8, 8);
  switch (kind) {
    case InputClass::Uniform:
      return;
    case InputClass::LogUniform:
      for (float& x : a) x = std::copysign(std::exp2(exponent(random)), x);
      for (float& x : b) x = std::copysign(std::exp2(exponent(random)), x);
      return;
    case InputClass::ScaledRowsAndColumns:
      for (int64_t i = 0; i < m; ++i) {
        const float scale = std::exp2(std::round(wide(random)));
        for (int64_t p = 0; p < k; ++p) a[i * k + p] *= scale;
      }
      for (int64_t j = 0; j < n; ++j) {
        const float scale = std::exp2(std::round(wide(random)));
        for (int64_t p = 0; p < k; ++p) b[p * n + j] *= scale;
      }
      return;
    case InputClass::Cancelling:  // column p + 1 of A is −(column p)·(1 + 1e-3·u), row p + 1 of B is row p
      for (int64_t p = 0; p + 1 < k; p += 2) {
        for (int64_t i = 0; i < m; ++i) a[i * k + p + 1] = -a[i * k + p] * (1.0f + 1e-3f * uniform(1, random)[0]);
        for (int64_t j = 0; j < n; ++j) b[(p + 1) * n + j] = b[p * n + j];
      }
      return;
    case InputClass::SmallIntegers:
      for (float& x : a) x = static_cast<float>(integer(random));
      for (float& x : b) x = static_cast<float>(integer(random));
      return;
  }
}

int classOf(double x) { return std::isnan(x) ? 0 : std::isinf(x) ? (x > 0 ? 1 : 2) : 3; }

// Elements whose class differs from the float64 reference rounded to float32.
int classMismatches(const DeviceProblem& p) {
  std::vector<float> c(p.m * p.ldc);
  std::vector<double> ref(p.m * p.n);
  checkCuda(cudaMemcpy(c.data(), p.c, 4 * c.size(), cudaMemcpyDeviceToHost), "copy c");
  checkCuda(cudaMemcpy(ref.data(), p.ref, 8 * ref.size(), cudaMemcpyDeviceToHost), "copy ref");
  int wrong = 0;
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) wrong += classOf(static_cast<float>(ref[i * p.n + j])) != classOf(c[i * p.ldc + j]);
  return wrong;
}

}  // namespace

int main() {
  cudaDeviceProp props{};
  checkCuda(cudaGetDeviceProperties(&props, 0), "properties");
  const bool hopper = props.major == 9 && props.minor == 0;
  std::vector<Variant> variants = {{"muld", Kernel::Muld, Precision::Fp32},
                                   {"blocktile", Kernel::BlockTile, Precision::Fp32},
                                   {"mma", Kernel::Mma, Precision::Fp32},
                                   {"mma tf32", Kernel::Mma, Precision::Tf32}};
#if defined(CUDA_MATMUL_WGMMA)
  if (hopper) {
    variants.push_back({"wgmma", Kernel::Wgmma, Precision::Fp32});
    variants.push_back({"wgmma tf32", Kernel::Wgmma, Precision::Tf32});
    variants.push_back({"wgmma-t", Kernel::WgmmaT, Precision::Fp32});
    variants.push_back({"wgmma-t tf32", Kernel::WgmmaT, Precision::Tf32});
  }
#endif
  cublasHandle_t handle;
  checkCublas(cublasCreate(&handle), "create");
  std::mt19937 random(20261123);
  bool failed = false;

  std::printf("long K, 2×K×2, relative Frobenius error to float64 (ours | cuBLAS SGEMM or TF32 | ratio)\n");
  for (const int64_t k : {int64_t{1}, int64_t{1000}, int64_t{100000}, int64_t{1000000}, int64_t{20000000}}) {
    const int64_t m = 2, n = 2;
    DeviceProblem p = upload(uniform(m * k, random), uniform(k * n, random), m, k, n);
    double cublasError[2];
    for (int tf32 = 0; tf32 < 2; ++tf32) {
      runCublas(handle, tf32, p);
      cublasError[tf32] = relativeError(p.c, p.ldc, p.ref, m, n);
    }
    for (const Variant& v : variants) {
      runOurs(v, p, props);
      const double ours = relativeError(p.c, p.ldc, p.ref, m, n), bar = cublasError[v.precision == Precision::Tf32];
      // At tiny K both are a few float32 roundings; the ratio means something from where cuBLAS's error does.
      const bool ok = ours <= 2 * bar || ours <= (v.precision == Precision::Tf32 ? 1e-3 : 1e-6);
      failed |= !ok;
      std::printf("  K=%-9lld %-10s %.2e | %.2e | %.2f %s\n", static_cast<long long>(k), v.name.c_str(), ours, bar, ours / bar,
                  ok ? "" : "FAIL");
    }
    release(p);
  }

  // 513×45×5505: wgmma-t's tf32 256×128 tiles (kernels/choose.h, largeTilesPay).
  for (const auto& [m, k, n] : {std::array<int64_t, 3>{67, 45, 71}, std::array<int64_t, 3>{513, 45, 5505}}) {
    std::printf("special values, %lld×%lld×%lld: elements whose class differs from float64's\n", static_cast<long long>(m),
                static_cast<long long>(k), static_cast<long long>(n));
    std::vector<float> a = uniform(m * k, random), b = uniform(k * n, random);
    makeSpecial(a, b, k, n);
    DeviceProblem p = upload(a, b, m, k, n);
    for (int tf32 = 0; tf32 < 2; ++tf32) {
      runCublas(handle, tf32, p);
      std::printf("  cuBLAS %-10s %d\n", tf32 ? "TF32" : "SGEMM", classMismatches(p));
    }
    for (const Variant& v : variants) {
      runOurs(v, p, props);
      const int wrong = classMismatches(p);
      failed |= wrong != 0;
      std::printf("  ours   %-10s %d %s\n", v.name.c_str(), wrong, wrong ? "FAIL" : "");
    }
    release(p);
  }
  std::vector<Variant> withAuto = variants;
  withAuto.push_back({"auto", Kernel::Auto, Precision::Fp32});
  withAuto.push_back({"auto tf32", Kernel::Auto, Precision::Tf32});
  withAuto.push_back({"gemv", Kernel::FewRows, Precision::Fp32});
  for (const auto& [m, k, n] : {std::array<int64_t, 3>{512, 1024, 512}, std::array<int64_t, 3>{8, 4096, 2048}}) {
    std::printf("input classes, %lld×%lld×%lld, relative Frobenius error to float64 (ours | cuBLAS SGEMM or TF32 | ratio)\n",
                static_cast<long long>(m), static_cast<long long>(k), static_cast<long long>(n));
    for (int kind = 0; kind < 5; ++kind) {
      std::vector<float> a, b;
      makeClass(static_cast<InputClass>(kind), a, b, m, k, n, random);
      DeviceProblem p = upload(a, b, m, k, n);
      double cublasError[2];
      for (int tf32 = 0; tf32 < 2; ++tf32) {
        runCublas(handle, tf32, p);
        cublasError[tf32] = relativeError(p.c, p.ldc, p.ref, m, n);
      }
      for (const Variant& v : withAuto) {
        const cuda_matmul::KernelRow& row = cuda_matmul::kernelRow(v.kernel);
        if (row.canImplement && !row.canImplement(m, k, n)) continue;
        runOurs(v, p, props);
        const double ours = relativeError(p.c, p.ldc, p.ref, m, n), bar = cublasError[v.precision == Precision::Tf32];
        const bool judged = static_cast<InputClass>(kind) != InputClass::Cancelling;
        const bool ok = !judged || ours <= 2 * bar || ours <= (v.precision == Precision::Tf32 ? 1e-3 : 1e-6);
        failed |= !ok;
        std::printf("  %-22s %-10s %.2e | %.2e | %.2f %s\n", kInputClassNames[kind], v.name.c_str(), ours, bar,
                    bar > 0 ? ours / bar : 0.0, ok ? "" : "FAIL");
      }
      release(p);
    }
  }
  cublasDestroy(handle);
  std::printf("accuracy: %s\n", failed ? "FAIL" : "all within the bar");
  return failed ? 1 : 0;
}
