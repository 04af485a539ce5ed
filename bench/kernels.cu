// GPU kernel benchmark: our kernels against cuBLAS (fp32 SGEMM and TF32) on device-resident data, timed with CUDA
// events. It includes the product's kernel sources and tile rule directly, so it times exactly what ships; "auto" is
// the kernel and tile that kernel: 'auto' picks for the shape. --tune adds every mma tile and configurations not
// built into the product, and every wgmma tile; --back-to-back also times each kernel 40 times queued at once
// (--back-to-back=N: N times; the H100 reaches its power cap within a few hundred, docs/benchmarks.md); --tiny=N plants N
// values of 1e-12 in A and in B (wgmma-f16's recomputed rows and columns); --only=TEXT times only the kernels whose
// names contain TEXT (cuBLAS always; repeatable); --resident times only what a Matrix product runs, in both
// precisions or (--resident=fp32|tf32) one (bench/inflight.js sets Matrices in flight against it). --tune-rules
// measures the thresholds of 'auto''s rules on this device and prints its row of native/cuda/kernels/auto_rules.h.
//   nvcc -O3 -std=c++17 -arch=sm_90 -I native bench/kernels.cu -lcublas -o kernels && ./kernels [sizes...]
// On an H100/H200, -gencode=arch=compute_90a,code=sm_90a -DCUDA_MATMUL_WGMMA adds the wgmma kernel (step 3),
// timed with the transpose of B it needs ("wgmma") and without ("wgmma, Bᵀ given").
// Where nvcc has no cuBLAS (the development machine), -I bench/cublas-stand-in -c builds an object that the GPU
// host links with -lcublas in seconds (bench/cublas-stand-in/cublas_v2.h).
// Method: U[-1,1] inputs, several input sets rotated so repeated runs do not measure L2 (50 MB on H100),
// warm-up runs first, then the median of the timed runs; accuracy against a float64 GPU reference.
#include <cublas_v2.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <utility>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cuda/kernels/1_blocktile.cu"
#include "cuda/check.h"
#include "cuda/device.cu"
#include "cuda/pools.cu"
#include "cuda/kernels/launch.cu"
#include "cuda/kernels/2_mma.cu"
#include "cuda/kernels/0_muld.cu"
#include "cuda/kernels/choose.h"
#include "cuda/kernels/transpose.cu"
#include "cuda/kernels/3_wgmma.cu"
#include "cuda/kernels/4_wgmma_transposed.cu"
#include "cuda/kernels/5_wgmma_f16.cu"
#include "cuda/kernels/6_few_rows.cu"
#include "bench_common.cuh"

using cuda_matmul::checkCuda;

namespace {

constexpr int kWarmup = 3;
constexpr int kTimed = 15;

// One shape's inputs, laid out as the product's host wrapper Mul lays them out on the device: rows padded to
// a multiple of 4 floats (no padding where k and n are multiples of 4). cuBLAS gets the same layout.
struct Problem {
  int64_t m, k, n, lda, ldb, ldc;
  int sets;  // input sets rotated between runs
  std::vector<float*> a, b;
  float* c = nullptr;
  float* bt = nullptr;  // Bᵀ for kernels that read it (transposedB), and its remainders: 2n × paddedPitch(k)
  double* ref = nullptr;
  cuda_matmul::GemmOperands operands(int set) const { return {a[set], b[set], c, m, k, n, lda, ldb, ldc}; }
};

// `count` values 1e-12 (a value U[-1,1] holds once in ~2^29: 2^-28 below its row's largest, which wgmma-f16's scaling
// cannot hold exactly) at scattered places of a rows×cols matrix (row pitch ld): --tiny=N puts N in A's rows and N
// in B's columns, the case where wgmma-f16 recomputes rows and columns (5_wgmma_f16.cu).
__global__ void plantTiny(float* x, int64_t ld, int64_t rows, int64_t cols, int count, int salt) {
  for (int i = threadIdx.x; i < count; i += blockDim.x)
    x[((int64_t{7 + salt} * i + 1) % rows) * ld + (int64_t{13 + salt} * i + salt) % cols] = 1e-12f;
}

Problem makeProblem(int64_t m, int64_t k, int64_t n, int tiny) {
  Problem p{m, k, n, (k + 3) / 4 * 4, (n + 3) / 4 * 4, (n + 3) / 4 * 4};
  const double bytesPerSet = 4.0 * (m * p.lda + k * p.ldb);
  p.sets = std::max(1, std::min(8, static_cast<int>(std::ceil(200e6 / bytesPerSet))));
  for (int s = 0; s < p.sets; ++s) {
    float *a, *b;
    checkCuda(cudaMalloc(&a, m * p.lda * sizeof(float)), "malloc a");
    checkCuda(cudaMalloc(&b, k * p.ldb * sizeof(float)), "malloc b");
    fillUniform<<<1024, 256>>>(a, m * p.lda, 1234 + 2 * s);
    fillUniform<<<1024, 256>>>(b, k * p.ldb, 1235 + 2 * s);
    if (tiny > 0) plantTiny<<<1, 32>>>(a, p.lda, m, k, tiny, 0), plantTiny<<<1, 32>>>(b, p.ldb, k, n, tiny, 4);
    p.a.push_back(a);
    p.b.push_back(b);
  }
  checkCuda(cudaMalloc(&p.c, m * p.ldc * sizeof(float)), "malloc c");
  checkCuda(cudaMalloc(&p.bt, 2 * n * cuda_matmul::paddedPitch(k) * sizeof(float)), "malloc bt");
  checkCuda(cudaMalloc(&p.ref, m * n * sizeof(double)), "malloc ref");
  referenceFloat64<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(p.a[0], p.b[0], p.ref, m, k, n, p.lda, p.ldb);
  checkCuda(cudaDeviceSynchronize(), "reference");
  return p;
}

void freeProblem(Problem& p) {
  for (float* x : p.a) cudaFree(x);
  for (float* x : p.b) cudaFree(x);
  cudaFree(p.c);
  cudaFree(p.bt);
  cudaFree(p.ref);
}

using Runner = std::function<void(const cuda_matmul::GemmOperands&)>;

struct Result {
  double ms, tflops, error;
};

Result measure(Problem& p, const Runner& run) {
  // accuracy first, on poisoned output, input set 0 (the one the reference used)
  checkCuda(cudaMemset(p.c, 0xFF, p.m * p.ldc * sizeof(float)), "poison");
  run(p.operands(0));
  checkCuda(cudaDeviceSynchronize(), "run");
  const double error = relativeError(p.c, p.ldc, p.ref, p.m, p.n);

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> times;
  for (int i = 0; i < kWarmup + kTimed; ++i) {
    const int s = i % p.sets;
    cudaEventRecord(start);
    run(p.operands(s));
    cudaEventRecord(stop);
    checkCuda(cudaEventSynchronize(stop), "timed run");
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (i >= kWarmup) times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  const double ms = times[times.size() / 2];
  return {ms, 2.0 * p.m * p.k * p.n / (ms * 1e-3) / 1e12, error};
}

// `count` runs queued back to back on one stream, input sets rotated, timed as a whole: what products in flight
// get from the kernel (no host wait between them), per run (--back-to-back).
double backToBackMs(Problem& p, const Runner& run, int count) {
  for (int i = 0; i < kWarmup; ++i) run(p.operands(i % p.sets));
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  for (int i = 0; i < count; ++i) run(p.operands(i % p.sets));
  cudaEventRecord(stop);
  checkCuda(cudaEventSynchronize(stop), "back to back");
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / count;
}

// A kernel of the product, in one precision; kernels that read Bᵀ get it transposed into bt first, as the
// product does, and that transpose is timed with them. Where the plan splits K, the product's ProductLaunch runs
// it (launch.cu: the slices, their float64 sum, and the magnitude classes the product finds too), as it runs a kernel
// that makes fp16 copies in its scratch (wgmma-f16), the copies included.
Runner product(const cuda_matmul::KernelPlan& plan, float* bt) {
  auto split = std::make_shared<std::unique_ptr<cuda_matmul::ProductLaunch>>();
  return [plan, &kernel = *plan.variant, transposedB = plan.row->transposedB, precision = plan.precision, bt,
          split](cuda_matmul::GemmOperands o) {
    o.exactB = o.b;
    o.exactLdb = o.ldb;
    if (transposedB) {
      const int64_t ldbt = cuda_matmul::paddedPitch(o.k);
      cuda_matmul::launchTranspose(o.b, o.ldb, bt, ldbt, o.k, o.n, cuda_matmul::transposedBRounding(precision), nullptr);
      o.b = bt;
      o.ldb = ldbt;
    }
    // A ProductLaunch's runs share B (its row panels): wgmma-f16's, which keeps B's copy, is made for each call
    // (its scratch comes from the pool), since the timed runs rotate the input sets.
    const bool halfCopies = cuda_matmul::multipliesHalfCopies(*plan.row, precision);
    if (plan.splitFor(o.m, cuda_matmul::paddedPitch(o.n), o.k).slices > 1 || halfCopies) {
      if (!*split || halfCopies) *split = std::make_unique<cuda_matmul::ProductLaunch>(plan, 0, o.m, o.n, o.k);
      (*split)->run(o, nullptr);
      return;
    }
    kernel.launch(o, precision, nullptr);
    checkCuda(cudaGetLastError(), kernel.name);
  };
}

// Bᵀ (n×k, row pitch paddedPitch(k), room for the remainders) of each input set's B, made beforehand, untimed, so
// that timed runs read them rotated as they read A.
using GivenTransposes = std::shared_ptr<std::map<const float*, float*>>;
GivenTransposes givenTransposes(const Problem& p, cuda_matmul::Rounding rounding) {
  const int64_t ldbt = cuda_matmul::paddedPitch(p.k);
  GivenTransposes made(new std::map<const float*, float*>, [](auto* m) {
    for (auto& [b, bt] : *m) cudaFree(bt);
    delete m;
  });
  for (const float* b : p.b) {
    float* bt = nullptr;
    checkCuda(cudaMalloc(&bt, 2 * p.n * ldbt * sizeof(float)), "malloc bt");
    cuda_matmul::launchTranspose(b, p.ldb, bt, ldbt, p.k, p.n, rounding, nullptr);
    (*made)[b] = bt;
  }
  return made;
}

// 'auto''s plan for B held as Bᵀ (n×k, as q·corpusᵀ holds its corpus) where that kernel reads it so (registry.h,
// readsTransposedB), on exact transposes made beforehand, through ProductLaunch as the product runs it (K's slices,
// magnitude classes).
Runner onStoredTranspose(const cuda_matmul::KernelPlan& plan, const Problem& p) {
  using namespace cuda_matmul;
  const int64_t ldbt = paddedPitch(p.k);
  const GivenTransposes made = givenTransposes(p, Rounding::None);
  auto launch = std::make_shared<std::unique_ptr<ProductLaunch>>();
  // wgmma-f16's launch is made for each call, as product()'s is, so that each makes B's fp16 copy.
  const bool halfCopies = multipliesHalfCopies(*plan.row, plan.precision);
  return [plan, made, ldbt, launch, halfCopies](GemmOperands o) {
    o.b = o.exactB = made->at(o.b);
    o.ldb = o.exactLdb = ldbt;
    o.transB = true;
    if (!*launch || halfCopies) *launch = std::make_unique<ProductLaunch>(plan, 0, o.m, o.n, o.k);
    (*launch)->run(o, nullptr);
  };
}

// A kernel that reads Bᵀ (wgmma) on Bᵀ made beforehand (a Matrix keeps its Bᵀ: the product through the API
// transposes a weight once).
Runner onGivenTranspose(const cuda_matmul::KernelPlan& plan, const Problem& p) {
  const int64_t ldbt = cuda_matmul::paddedPitch(p.k);
  const GivenTransposes made = givenTransposes(p, cuda_matmul::transposedBRounding(plan.precision));
  return [&kernel = *plan.variant, precision = plan.precision, ldbt, made](cuda_matmul::GemmOperands o) {
    o.b = made->at(o.b);
    o.ldb = ldbt;
    kernel.launch(o, precision, nullptr);
    checkCuda(cudaGetLastError(), kernel.name);
  };
}

// C = A·B by cuBLAS, B given as `b` (ldb): B itself (CUBLAS_OP_N), or Bᵀ (n×k, CUBLAS_OP_T). Row-major C = A·B is
// column-major Cᵀ = Bᵀ·Aᵀ: cuBLAS gets B first.
void cublasProduct(cublasHandle_t handle, cublasComputeType_t compute, const cuda_matmul::GemmOperands& o,
                   cublasOperation_t opB, const float* b, int64_t ldb) {
  const float one = 1, zero = 0;
  checkCublas(cublasGemmEx(handle, opB, CUBLAS_OP_N, o.n, o.m, o.k, &one, b, CUDA_R_32F, ldb, o.a, CUDA_R_32F, o.lda,
                           &zero, o.c, CUDA_R_32F, o.ldc, compute, CUBLAS_GEMM_DEFAULT),
              "gemm");
}

// cuBLAS TF32 on B given K-major, as Bᵀ made beforehand: whether cuBLAS itself pays for reading B as a row-major
// caller holds it (docs/kernels.md, "Step 3: wgmma").
Runner cublasOnGivenTranspose(cublasHandle_t handle, const Problem& p) {
  const int64_t ldbt = cuda_matmul::paddedPitch(p.k);
  const GivenTransposes made = givenTransposes(p, cuda_matmul::Rounding::None);
  return [handle, ldbt, made](const cuda_matmul::GemmOperands& o) {
    cublasProduct(handle, CUBLAS_COMPUTE_32F_FAST_TF32, o, CUBLAS_OP_T, made->at(o.b), ldbt);
  };
}

// Tile configurations tried while tuning (--tune) but not built into the product.
template <class Cfg, cuda_matmul::Precision PRECISION>
Runner variant() {
  return [](const cuda_matmul::GemmOperands& operands) {
    cuda_matmul::launchMma<Cfg>(operands, PRECISION, nullptr);
    checkCuda(cudaGetLastError(), "variant");
  };
}

struct Candidate {
  std::string name;
  bool tf32;  // compared with cuBLAS TF32, else with cuBLAS SGEMM
  Runner run;
};

#if defined(CUDA_MATMUL_WGMMA)
constexpr bool kWgmmaBuilt = true;
#else
constexpr bool kWgmmaBuilt = false;
#endif

// The plan of `kernel` ('auto': what 'auto' runs) on this GPU for this shape and precision: the product's own
// planKernel (native/cuda/kernels/choose.h), so this times exactly what the product picks.
cuda_matmul::KernelPlan planOf(cuda_matmul::Kernel kernel, cuda_matmul::Precision precision, const Problem& p,
                               const cudaDeviceProp& props) {
  return cuda_matmul::planKernel(kernel, precision, p.m, p.k, p.n, {props.major, props.minor, props.multiProcessorCount});
}

// A plan that runs one given variant of a kernel (--tune), K split as the product would split it on that variant.
cuda_matmul::KernelPlan variantPlan(cuda_matmul::Kernel kernel, const cuda_matmul::KernelVariant& variant,
                                    cuda_matmul::Precision precision, const Problem& p, const cudaDeviceProp& props) {
  return cuda_matmul::planVariant(cuda_matmul::kernelRow(kernel), variant, precision, p.m, p.k, p.n,
                                  {props.major, props.minor, props.multiProcessorCount});
}

std::vector<Candidate> candidates(const Problem& p, const cudaDeviceProp& props, bool tune) {
  using namespace cuda_matmul;
  const KernelPlan chosen = planOf(Kernel::Auto, Precision::Fp32, p, props);
  const KernelPlan chosenTf32 = planOf(Kernel::Auto, Precision::Tf32, p, props);
  std::vector<Candidate> list = {{"muld", false, product(planOf(Kernel::Muld, Precision::Fp32, p, props), p.bt)},
                                 {"blocktile", false, product(planOf(Kernel::BlockTile, Precision::Fp32, p, props), p.bt)},
                                 {std::string("auto = ") + chosen.variant->name, false, product(chosen, p.bt)},
                                 {std::string("auto tf32 = ") + chosenTf32.variant->name, true, product(chosenTf32, p.bt)}};
  for (const Precision precision : {Precision::Fp32, Precision::Tf32}) {
    const bool tf32 = precision == Precision::Tf32;
    const KernelPlan held = planKernel(Kernel::Auto, precision, p.m, p.k, p.n, {props.major, props.minor, props.multiProcessorCount}, true);
    if (held.row->readsTransposedB)
      list.push_back({std::string(tf32 ? "Bᵀ held, auto tf32 = " : "Bᵀ held, auto = ") + held.variant->name, tf32,
                      onStoredTranspose(held, p)});
  }
  if (p.m * p.k * p.n > (int64_t(1) << 37)) list.erase(list.begin());  // Muld at 8192³: minutes
  if (runsOn(kernelRow(Kernel::Wgmma), props.major, props.minor)) {
    for (const Precision precision : {Precision::Fp32, Precision::Tf32}) {
      const bool tf32 = precision == Precision::Tf32;
      const std::string suffix = tf32 ? " tf32" : " fp32";
      const KernelPlan mma = planOf(Kernel::Mma, precision, p, props), wgmma = planOf(Kernel::Wgmma, precision, p, props);
      const KernelPlan transposed = planOf(Kernel::WgmmaT, precision, p, props);
      list.push_back({std::string(mma.variant->name) + suffix + " (step 2)", tf32, product(mma, p.bt)});
      list.push_back({std::string(wgmma.variant->name) + ", transposing B", tf32, product(wgmma, p.bt)});
      list.push_back({std::string(wgmma.variant->name) + ", Bᵀ given", tf32, onGivenTranspose(wgmma, p)});
      list.push_back({std::string(transposed.variant->name) + " (step 4)", tf32, product(transposed, p.bt)});
    }
    const KernelPlan half = planOf(Kernel::WgmmaF16, Precision::Tf32, p, props);
    list.push_back({std::string(half.variant->name) + " tf32 (step 5)", true, product(half, p.bt)});
  }
  if (tune) {
    for (const Kernel kernel : {Kernel::Mma, Kernel::Wgmma, Kernel::WgmmaT}) {
      if (!runsOn(kernelRow(kernel), props.major, props.minor)) continue;
      for (const auto& variant : kernelRow(kernel).variants(Precision::Fp32))
        list.push_back({variant.name, false, product(variantPlan(kernel, variant, Precision::Fp32, p, props), p.bt)});
      for (const auto& variant : kernelRow(kernel).variants(Precision::Tf32))
        list.push_back({std::string(variant.name) + " tf32", true, product(variantPlan(kernel, variant, Precision::Tf32, p, props), p.bt)});
    }
    constexpr Precision fp32 = Precision::Fp32, tf32 = Precision::Tf32;
    list.push_back({"t 128x128 w64x32 k16s4", false, variant<MmaConfig<128, 128, 16, 2, 4, 4>, fp32>()});
    list.push_back({"t 128x128 w32x64 k16s4", false, variant<MmaConfig<128, 128, 16, 4, 2, 4>, fp32>()});
    list.push_back({"t 128x128 w64x32 k32s3", false, variant<MmaConfig<128, 128, 32, 2, 4, 3>, fp32>()});
    list.push_back({"t 128x128 w64x32 k16s4 tf32", true, variant<MmaConfig<128, 128, 16, 2, 4, 4>, tf32>()});
    list.push_back({"t 128x256 w64x64 k32s3 tf32", true, variant<MmaConfig<128, 256, 32, 2, 4, 3>, tf32>()});
  }
  return list;
}

// What a Matrix product runs (--resident; --resident=fp32 or =tf32: that precision alone): 'auto''s plan, on the
// Bᵀ the Matrix keeps where the kernel reads Bᵀ (native/cuda/resident.cu, transposedOf), so no transpose is timed.
// Such a plan that also splits K is left out (onGivenTranspose launches unsplit).
std::vector<Candidate> residentCandidates(const Problem& p, const cudaDeviceProp& props, const std::string& only) {
  using namespace cuda_matmul;
  std::vector<Candidate> list;
  for (const Precision precision : {Precision::Fp32, Precision::Tf32}) {
    const bool tf32 = precision == Precision::Tf32;
    if (!only.empty() && only != (tf32 ? "tf32" : "fp32")) continue;
    const KernelPlan plan = planOf(Kernel::Auto, precision, p, props);
    const std::string name = std::string(tf32 ? "resident tf32 = " : "resident = ") + plan.variant->name;
    if (!plan.row->transposedB) {
      list.push_back({name, tf32, product(plan, p.bt)});
    } else if (plan.splitFor(p.m, paddedPitch(p.n), p.k).slices == 1) {
      list.push_back({name + ", Bᵀ kept", tf32, onGivenTranspose(plan, p)});
    } else {
      std::printf("%s: Bᵀ kept and K split, not timed here\n", name.c_str());
    }
  }
  return list;
}

// --tune-rules: the thresholds of 'auto''s rules (native/cuda/kernels/auto_rules.h) measured on this device, each
// the least value from which the kernel 'auto' takes above it beats the one it takes below by kTuneMargin on every
// larger value swept (`lower` and `upper`, each planned as 'auto' plans it), the larger of two sweeps (where the two
// tie, runs differ: 512×512×1024 tf32 went to either kernel by 1%), and the device's row printed in auto_rules.h's
// form.
// The wgmma-t and 256×128 tile thresholds, which depend on K's split as much as on the device, and the rule for B
// held as Bᵀ in fp32, one of memory too (auto_rules.h), are carried over from the first row (printed as such).
struct Sweep {
  const char* name;
  std::vector<int64_t> values;
  std::function<std::array<int64_t, 3>(int64_t)> shape;
  cuda_matmul::Precision precision;
  cuda_matmul::Kernel lower, upper;
  bool bHeldTransposed;
};

// `kernel`'s time on shape s as 'auto' would plan it, and its plan's variant.
std::pair<double, const char*> timeKernel(cuda_matmul::Kernel kernel, const Sweep& sweep, const std::array<int64_t, 3>& s,
                                          const cudaDeviceProp& props) {
  Problem p = makeProblem(s[0], s[1], s[2], 0);
  const cuda_matmul::KernelPlan plan = planOf(kernel, sweep.precision, p, props);
  const double ms = measure(p, sweep.bHeldTransposed ? onStoredTranspose(plan, p) : product(plan, p.bt)).ms;
  freeProblem(p);
  return {ms, plan.variant->name};
}

constexpr double kTuneMargin = 0.05;

// The least value from which `upper` wins at it and every larger one; past the last value where it never does.
int64_t sweepOnce(const Sweep& sweep, const cudaDeviceProp& props) {
  int64_t from = sweep.values.back() + 1;
  for (auto value = sweep.values.rbegin(); value != sweep.values.rend(); ++value) {
    const std::array<int64_t, 3> s = sweep.shape(*value);
    const auto lower = timeKernel(sweep.lower, sweep, s, props), upper = timeKernel(sweep.upper, sweep, s, props);
    std::printf("  %-24s %6lld  %lldx%lldx%lld  %s %.4f ms, %s %.4f ms\n", sweep.name, (long long)*value, (long long)s[0],
                (long long)s[1], (long long)s[2], lower.second, lower.first, upper.second, upper.first);
    if (upper.first > lower.first * (1 - kTuneMargin)) break;
    from = *value;
  }
  return from;
}

int64_t crossover(const Sweep& sweep, const cudaDeviceProp& props) {
  return std::max(sweepOnce(sweep, props), sweepOnce(sweep, props));
}

void tuneRules(const cudaDeviceProp& props) {
  using namespace cuda_matmul;
  const Precision fp32 = Precision::Fp32, tf32 = Precision::Tf32;
  auto measured = [&](const Sweep& sweep) { return crossover(sweep, props); };
  auto shapeOf = [](int64_t m, int64_t k, int64_t n) { return std::array<int64_t, 3>{m, k, n}; };
  const int64_t fp32Columns = measured({"wgmma fp32 columns", {32, 48, 64, 96, 128},
                                        [&](int64_t n) { return shapeOf(4096, 1024, n); }, fp32, Kernel::Mma, Kernel::Wgmma});
  const int64_t fp32K = measured({"wgmma fp32 K", {64, 128, 192, 256, 384, 512},
                                  [&](int64_t k) { return shapeOf(1024, k, 1024); }, fp32, Kernel::Mma, Kernel::Wgmma});
  const int64_t tf32Columns = measured({"wgmma tf32 columns", {32, 48, 64, 96, 128},
                                        [&](int64_t n) { return shapeOf(4096, 1024, n); }, tf32, Kernel::Mma, Kernel::Wgmma});
  const int64_t tf32Rows = measured({"wgmma tf32 rows", {128, 256, 384, 512, 768, 1024},
                                     [&](int64_t m) { return shapeOf(m, 512, 1024); }, tf32, Kernel::Mma, Kernel::Wgmma});
  const int64_t longKRows = measured({"wgmma tf32 long-K rows", {64, 128, 192, 256},
                                      [&](int64_t m) { return shapeOf(m, 2048, 1024); }, tf32, Kernel::Mma, Kernel::Wgmma});
  const int64_t longK = measured({"wgmma tf32 long K", {256, 512, 1024, 2048, 4096},
                                  [&](int64_t k) { return shapeOf(256, k, 1024); }, tf32, Kernel::Mma, Kernel::Wgmma});
  HalfCopiesStep half[kHalfCopiesSteps];
  const int64_t halfKs[kHalfCopiesSteps] = {4096, 2048, 1024};
  for (int i = 0; i < kHalfCopiesSteps; ++i)
    half[i] = {measured({"wgmma-f16 size", {1024, 1536, 2048, 2700, 3072, 4096, 5120},
                         [&, k = halfKs[i]](int64_t size) { return shapeOf(2 * size, k, 2 * size); }, tf32,
                         Kernel::WgmmaT, Kernel::WgmmaF16}),
               halfKs[i]};
  const int64_t bRows = measured({"Bᵀ fp32 rows", {256, 512, 1024, 2048, 4096},
                                  [&](int64_t m) { return shapeOf(m, 768, 65536); }, fp32, Kernel::WgmmaT, Kernel::Wgmma, true});
  const AutoRules& kept = kAutoRules[0];
  std::printf("\nauto_rules.h row for this device (the wgmma-t, 256x128 tile and Bᵀ rules carried over from %s;\n"
              "wgmma from Bᵀ measured faster in fp32 from %lld rows):\n",
              kept.measuredOn, (long long)bRows);
  std::printf("    {\"%s\", %d, %d, %d,\n     /* wgmma */ %lld, %lld, %lld, %lld, %lld, %lld, %lld,\n", props.name,
              props.major, props.minor, props.multiProcessorCount, (long long)fp32Columns, (long long)fp32K,
              (long long)tf32Columns, (long long)tf32Rows, (long long)kept.wgmmaTf32MinK, (long long)longKRows,
              (long long)longK);
  std::printf("     /* wgmma-t */ %lld, %lld, %lld, %lld, %lld, %lld,\n     /* 256×128 tiles */ %lld, %lld, %lld,\n",
              (long long)kept.transposedMinK, (long long)kept.transposedMinColumns, (long long)kept.transposedFp32Columns,
              (long long)kept.transposedFp32BFloats, (long long)kept.transposedTallMinK,
              (long long)kept.transposedTallMaxColumns, (long long)kept.largeTilesRows, (long long)kept.largeTilesWaveRows,
              (long long)kept.largeTilesPaddingPercent);
  std::printf("     /* wgmma-f16 */ {{%lld, %lld}, {%lld, %lld}, {%lld, %lld}},\n     /* Bᵀ in fp32 */ %lld},\n",
              (long long)half[0].size, (long long)half[0].k, (long long)half[1].size, (long long)half[1].k,
              (long long)half[2].size, (long long)half[2].k, (long long)kept.transposedBFp32Rows);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::array<int64_t, 3>> shapes;
  bool tune = false, resident = false, tuneRulesOnly = false;
  std::string residentPrecision;  // --resident=fp32|tf32: that one alone
  int backToBack = 0;  // launches queued at once per kernel, 0: not timed so
  int tiny = 0;        // --tiny=N: N values of 1e-12 planted in A and in B (plantTiny)
  std::vector<std::string> only;  // --only=TEXT (repeatable): time only the kernels whose names contain one of them
  for (int i = 1; i < argc; ++i) {
    long long m, k, n;
    if (std::string(argv[i]) == "--tune") tune = true;
    if (std::string(argv[i]) == "--tune-rules") tuneRulesOnly = true;
    if (std::string(argv[i]) == "--resident") resident = true;
    if (std::string(argv[i]).rfind("--resident=", 0) == 0) resident = true, residentPrecision = argv[i] + 11;
    if (std::string(argv[i]) == "--back-to-back") backToBack = 40;
    if (std::sscanf(argv[i], "--back-to-back=%d", &backToBack) == 1 && backToBack < 1) backToBack = 1;
    if (std::sscanf(argv[i], "%lldx%lldx%lld", &m, &k, &n) == 3) shapes.push_back({m, k, n});
    if (std::string(argv[i]).rfind("--only=", 0) == 0) only.push_back(argv[i] + 7);
    std::sscanf(argv[i], "--tiny=%d", &tiny);
  }
  auto chosen = [&](const std::string& name) {
    return only.empty() ||
           std::any_of(only.begin(), only.end(), [&](const std::string& o) { return name.find(o) != std::string::npos; });
  };
  if (shapes.empty())
    shapes = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4095, 4095, 4095}, {4096, 4096, 4096}, {8192, 8192, 8192},
              {3000, 5000, 7001}, {64, 768, 100000}, {100000, 768, 64}};

  cublasHandle_t handle;
  checkCublas(cublasCreate(&handle), "create");
  cudaDeviceProp props{};
  cudaGetDeviceProperties(&props, 0);
  std::printf("device: %s (sm_%d%d), %d warm-up + %d timed runs, median\n", props.name, props.major, props.minor,
              kWarmup, kTimed);
  if (tuneRulesOnly) {
#if defined(CUDA_MATMUL_WGMMA)
    tuneRules(props);
#else
    std::printf("--tune-rules times the wgmma kernels: build with -DCUDA_MATMUL_WGMMA for sm_90a\n");
#endif
    cublasDestroy(handle);
    return 0;
  }
  std::printf("%-18s %-30s %10s %10s %10s %10s\n", "shape (m×k×n)", "kernel", "ms", "TFLOP/s", "vs cuBLAS", "rel.err");
  struct SummaryRow {
    std::string shape, kernel;
    double tflops, cublasTflops, error, cublasError;
  };
  std::vector<SummaryRow> summary;
  for (const auto& s : shapes) {
    Problem p = makeProblem(s[0], s[1], s[2], tiny);
    auto cublas = [&](cublasComputeType_t compute) {
      return [&handle, compute](const cuda_matmul::GemmOperands& o) {
        cublasProduct(handle, compute, o, CUBLAS_OP_N, o.b, o.ldb);
      };
    };
    const Result sgemm = measure(p, cublas(CUBLAS_COMPUTE_32F));
    const Result tf32 = measure(p, cublas(CUBLAS_COMPUTE_32F_FAST_TF32));
    char name[64];
    std::snprintf(name, sizeof name, "%lldx%lldx%lld", (long long)s[0], (long long)s[1], (long long)s[2]);
    auto print = [&](const std::string& kernel, const Result& r, const Result& base) {
      std::printf("%-18s %-30s %10.3f %10.2f %10.2f %10.1e\n", name, kernel.c_str(), r.ms, r.tflops, r.tflops / base.tflops,
                  r.error);
    };
    print("cublas sgemm", sgemm, sgemm);
    print("cublas tf32", tf32, tf32);
    if (!resident) print("cublas tf32, Bᵀ given", measure(p, cublasOnGivenTranspose(handle, p)), tf32);
    const std::string queued = ", " + std::to_string(backToBack) + " back to back";
    if (backToBack && !resident) {  // --resident: what runs before the kernel alone should not heat the GPU more than
                                    // what runs before the Matrices in flight (bench/inflight.js)
      const double ms = backToBackMs(p, cublas(CUBLAS_COMPUTE_32F_FAST_TF32), backToBack);
      print("cublas tf32" + queued, {ms, 2.0 * p.m * p.k * p.n / (ms * 1e-3) / 1e12, tf32.error}, tf32);
    }
    for (const Candidate& c : resident ? residentCandidates(p, props, residentPrecision) : candidates(p, props, tune)) {
      if (!chosen(c.name)) continue;
      const Result r = measure(p, c.run);
      print(c.name, r, c.tf32 ? tf32 : sgemm);
      if (backToBack) {
        const double ms = backToBackMs(p, c.run, backToBack);
        print(c.name + queued, {ms, 2.0 * p.m * p.k * p.n / (ms * 1e-3) / 1e12, r.error}, c.tf32 ? tf32 : sgemm);
      }
      if (c.name.rfind("auto", 0) == 0)
        summary.push_back({name, c.name, r.tflops, (c.tf32 ? tf32 : sgemm).tflops, r.error, (c.tf32 ? tf32 : sgemm).error});
    }
    freeProblem(p);
  }
  std::printf("\nsummary: kernel: 'auto' against cuBLAS (SGEMM for fp32, TF32 for tf32), same inputs, same run\n");
  std::printf("%-18s %-28s %9s %9s %7s %9s %9s\n", "shape", "auto", "TFLOP/s", "cuBLAS", "ratio", "err", "cuBLAS err");
  for (const SummaryRow& row : summary)
    std::printf("%-18s %-28s %9.1f %9.1f %7.2f %9.1e %9.1e\n", row.shape.c_str(), row.kernel.c_str(), row.tflops,
                row.cublasTflops, row.tflops / row.cublasTflops, row.error, row.cublasError);
  cublasDestroy(handle);
  return 0;
}
