// A probe: where a 128³ inline product's GPU time goes. Operands in one page-locked buffer (the inline layout),
// each mma tile read over the bus (zero-copy, as the product does), against A|B copied up first.
// Built on the GPU host from the package root: nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a
// -DCUDA_MATMUL_WGMMA -I native <this file> -o inline; each figure is launch (and copy) to stream idle, median of 400.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
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

using namespace cuda_matmul;
using Clock = std::chrono::steady_clock;

static double medianUs(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

template <class F>
double timeUs(cudaStream_t s, F f) {
  std::vector<double> t;
  for (int i = 0; i < 420; ++i) {
    auto start = Clock::now();
    f();
    checkCuda(cudaStreamSynchronize(s), "sync");
    if (i >= 20) t.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  return medianUs(t);
}

__global__ void nothing() {}

int main() {
  cudaStream_t s;
  checkCuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  printf("empty launch + sync: %.1f us\n", timeUs(s, [&] { nothing<<<1, 1, 0, s>>>(); }));
  for (int n : {16, 64, 128}) {
    const size_t floats = 3 * size_t(n) * n + 4;
    float *host, *dev;
    checkCuda(cudaHostAlloc(&host, floats * 4, cudaHostAllocMapped), "host");
    checkCuda(cudaMalloc(&dev, floats * 4), "dev");
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1, 1);
    for (size_t i = 0; i < 2 * size_t(n) * n; ++i) host[i] = u(rng);
    auto* classes = reinterpret_cast<uint32_t*>(host + 3 * size_t(n) * n);
    classes[0] = classes[1] = 0;
    auto ops = [&](float* ab, float* c, uint32_t* cls) {
      GemmOperands o{ab, ab + n * n, c, n, n, n, n, n, n};
      o.exactB = o.b; o.exactLdb = n; o.aClasses = cls; o.bClasses = cls + 1;
      return o;
    };
    const KernelVariant& chosen = chooseVariant(mmaVariants(Precision::Fp32), n, n, 132);
    printf("n=%d: auto picks %s\n", n, chosen.name);
    printf("  copy A|B up (%zu KiB): %.1f us\n", size_t(n) * n * 8 / 1024,
           timeUs(s, [&] { cudaMemcpyAsync(dev, host, size_t(n) * n * 8, cudaMemcpyHostToDevice, s); }));
    for (const KernelVariant& v : mmaVariants(Precision::Fp32)) {
      const double zc = timeUs(s, [&] { v.launch(ops(host, host + 2 * n * n, classes), Precision::Fp32, s); });
      // classes words on the device copy: copy them with A|B (contiguous after C in the host layout; put them beside)
      const double dma = timeUs(s, [&] {
        cudaMemcpyAsync(dev, host, size_t(n) * n * 8, cudaMemcpyHostToDevice, s);
        v.launch(ops(dev, host + 2 * n * n, classes), Precision::Fp32, s);
      });
      const double dev2 = timeUs(s, [&] { v.launch(ops(dev, dev + 2 * n * n, classes), Precision::Fp32, s); });
      // correctness of the zero-copy result
      double worst = 0;
      v.launch(ops(host, host + 2 * n * n, classes), Precision::Fp32, s);
      cudaStreamSynchronize(s);
      for (int i = 0; i < n; i += 7) for (int j = 0; j < n; j += 5) {
        double r = 0; for (int p = 0; p < n; ++p) r += double(host[i * n + p]) * host[n * n + p * n + j];
        worst = std::max(worst, std::abs(r - host[2 * n * n + i * n + j]));
      }
      printf("  %-12s zero-copy %.1f us | A|B copied up, C written over the bus %.1f us | all on device %.1f us | err %.1e\n",
             v.name, zc, dma, dev2, worst);
    }
    cudaFreeHost(host);
    cudaFree(dev);
  }
  checkCuda(cudaGetLastError(), "end");
}
