// How the plan splits K (native/cuda/kernels/choose.h, KernelPlan::splitFor), without a GPU: test/structure/plan.test.ts
// builds this with g++ and the CUDA headers. K is split for two reasons, and a split must serve both: slices no
// deeper than the kernel's slice depth (accuracy: registry.h), and at least as many as fill the SMs where the
// tiles alone do not (chooseFillSlices). Prints the first 20 wrong splits, then "wrong: N".
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <initializer_list>

#include "cuda/kernels/choose.h"
#include "stub_variants.h"

using namespace cuda_matmul;

constexpr int kSms = 132;  // an H100 SXM
int wrong = 0;

void report(const char* what, Kernel kernel, Precision precision, int64_t m, int64_t k, int64_t n, const KSplit& split) {
  if (++wrong > 20) return;  // the first 20 say enough
  std::printf("%s: kernel %d %s %lldx%lldx%lld: %d slices of %lld\n", what, static_cast<int>(kernel),
              precision == Precision::Fp32 ? "fp32" : "tf32", static_cast<long long>(m), static_cast<long long>(k),
              static_cast<long long>(n), split.slices, static_cast<long long>(split.depth));
}

KernelPlan planOn(Kernel kernel, Precision precision, const KernelVariant& variant, int64_t m, int64_t k, int64_t n) {
  return planVariant(kernelRow(kernel), variant, precision, m, k, n, {9, 0, kSms});
}

// Every split is whole k tiles that cover K once; no slice deeper than the row's slice depth, unless the
// workspace (kSplitWorkspaceBytes) holds fewer slices than that takes (under two: K is not split); and no slice
// deeper than those that fill the SMs.
void checkSplit(Kernel kernel, Precision precision, const KernelVariant& variant, int64_t m, int64_t k, int64_t n) {
  const KernelPlan plan = planOn(kernel, precision, variant, m, k, n);
  const int64_t pitch = paddedPitch(n);
  const KSplit split = plan.splitFor(m, pitch, k);
  const int64_t workspaceSlices = kSplitWorkspaceBytes / (std::max<int64_t>(m * pitch, 1) * int64_t{4});
  const int64_t limit = sliceDepth(*plan.row, precision);
  if (split.slices == 1) {
    if (split.depth != 0) report("one slice with a depth", kernel, precision, m, k, n, split);
    if (k > limit && workspaceSlices >= 2 && m > 0 && n > 0) report("long K not split", kernel, precision, m, k, n, split);
    if (plan.fillSlices >= 2 && workspaceSlices >= 2 && k >= 2 * kSliceAlignment)
      report("SMs left empty", kernel, precision, m, k, n, split);
    return;
  }
  if (split.depth % kSliceAlignment != 0 || split.depth * split.slices < k || split.depth * (split.slices - 1) >= k)
    report("slices that do not cover K once", kernel, precision, m, k, n, split);
  if (split.depth > limit && (k + limit - 1) / limit <= workspaceSlices) report("slices deeper than the slice depth", kernel, precision, m, k, n, split);
  const int64_t filling = std::min(plan.fillSlices, workspaceSlices);
  const int64_t fillDepth = ((k + filling - 1) / filling + kSliceAlignment - 1) / kSliceAlignment * kSliceAlignment;
  if (filling >= 2 && split.depth > fillDepth) report("fewer slices than fill the SMs", kernel, precision, m, k, n, split);
}

int main() {
  const KernelVariant large{"256x128", nullptr, {256, 128}, true}, small{"64x128", nullptr, {64, 128}, true},
      partial{"128x128, several blocks per SM", nullptr, {128, 128}, false};
  // The shapes that showed it (docs/kernels.md, "Splitting K"): K past wgmma-t's 8192 was split in 2 and 8
  // slices for accuracy only, leaving 96 and 100 of the 132 SMs idle.
  const KSplit wide = planOn(Kernel::WgmmaT, Precision::Tf32, large, 768, 16384, 768).splitFor(768, 768, 16384);
  if (wide.slices != 7) report("768x16384x768 on 256x128 tiles wants 7 slices", Kernel::WgmmaT, Precision::Tf32, 768, 16384, 768, wide);
  const KSplit tall = planOn(Kernel::WgmmaT, Precision::Tf32, large, 512, 65536, 256).splitFor(512, 256, 65536);
  if (tall.slices != 33) report("512x65536x256 on 256x128 tiles wants 33 slices", Kernel::WgmmaT, Precision::Tf32, 512, 65536, 256, tall);
  // Products with nothing to multiply can reach the plan (a Matrix of 0 columns is a valid operand): planning them
  // must not divide by their zero tiles (it did: SIGFPE, the process gone, for tf32 from 256 rows with n = 0).
  for (Kernel kernel : {Kernel::Auto, Kernel::Mma, Kernel::Wgmma, Kernel::WgmmaT, Kernel::WgmmaF16, Kernel::FewRows})
    for (Precision precision : {Precision::Fp32, Precision::Tf32})
      for (int64_t m : {0, 1, 256, 512, 4096})
        for (int64_t n : {0, 1, 4096})
          for (int64_t k : {0, 1, 256, 2048, 5000}) {
            const KernelPlan plan = planKernel(kernel, precision, m, k, n, {9, 0, kSms});
            if ((m == 0 || n == 0) && plan.fillSlices != 1)
              report("an empty product with fill slices", kernel, precision, m, k, n, plan.splitFor(m, paddedPitch(n), k));
          }
  int shapes = 2 + 6 * 2 * 5 * 3 * 5;
  for (Kernel kernel : {Kernel::BlockTile, Kernel::Mma, Kernel::Wgmma, Kernel::WgmmaT, Kernel::WgmmaF16, Kernel::FewRows})
    for (Precision precision : {Precision::Fp32, Precision::Tf32})
      for (const KernelVariant* variant : {&large, &small, &partial})
        for (int64_t m : {0, 1, 64, 300, 768, 2048, 100000})
          for (int64_t n : {1, 256, 768, 3001})
            for (int64_t k : {1, 1000, 4097, 8192, 8193, 16384, 70001, 20000000}) {
              checkSplit(kernel, precision, *variant, m, k, n);
              ++shapes;
            }
  std::printf("shapes: %d\nwrong: %d\n", shapes, wrong);
  return wrong == 0 ? 0 : 1;
}
