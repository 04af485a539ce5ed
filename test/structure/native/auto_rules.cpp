// 'auto''s rules as data (native/cuda/kernels/auto_rules.h), without a GPU: test/structure/plan.test.ts builds this with g++
// and the CUDA headers. A device finds its row (its own, else its compute capability's nearest in SMs, else the
// first); the H100 row gives the choices its thresholds were measured for (choose.h's comments, docs/kernels.md, "How a kernel is chosen");
// and the predicates read the row they are given. Prints each wrong choice, then "wrong: N".
#include <cstdint>
#include <cstdio>

#define CUDA_MATMUL_WGMMA  // as the addon built for sm_90a: wgmma's kernels run on an H100 (registry.h, runsOn)
#include "cuda/kernels/choose.h"
#include "stub_variants.h"

using namespace cuda_matmul;

int wrong = 0;

void expect(bool ok, const char* what) {
  if (ok) return;
  ++wrong;
  std::printf("%s\n", what);
}

int main() {
  const DeviceCaps h100{9, 0, 132}, h100Pcie{9, 0, 114}, a100{8, 0, 108};
  expect(&autoRulesFor(h100) == &kAutoRules[0], "an H100 SXM takes its own row");
  expect(&autoRulesFor(h100Pcie) == &kAutoRules[0], "an H100 PCIe takes its compute capability's nearest row");
  expect(&autoRulesFor(a100) == &kAutoRules[0], "an A100 takes the first row");

  const Precision fp32 = Precision::Fp32, tf32 = Precision::Tf32;
  auto chose = [&](Kernel kernel, Precision precision, int64_t m, int64_t k, int64_t n, bool bTransposed = false,
                   bool aTransposed = false) {
    return autoKernel(precision, m, k, n, h100, bTransposed, aTransposed) == kernel;
  };
  expect(chose(Kernel::FewRows, fp32, 1, 768, 1000000), "m = 1: gemv");
  expect(chose(Kernel::WgmmaF16, tf32, 4096, 4096, 4096), "4096³ tf32: wgmma-f16");
  expect(chose(Kernel::WgmmaF16, tf32, 4096, 4096, 4096, true), "4096³ tf32, Bᵀ held: wgmma-f16");
  expect(chose(Kernel::Wgmma, tf32, 2048, 4096, 1024), "2048×4096×1024 tf32 (size 682): wgmma, not wgmma-f16");
  // K counts in whole 64-deep stages (choose.h, halfCopiesPay).
  expect(chose(Kernel::WgmmaF16, tf32, 4095, 4095, 4095), "4095³ tf32: wgmma-f16, as 4096³");
  expect(chose(Kernel::WgmmaF16, tf32, 6000, 2047, 6000), "6000×2047×6000 tf32 (size 3000): wgmma-f16, as K 2048");
  expect(!chose(Kernel::WgmmaF16, tf32, 4095, 4032, 4095), "4095×4032×4095 tf32: a stage short of 4096, not wgmma-f16");
  expect(chose(Kernel::Wgmma, fp32, 256, 256, 256), "256³ fp32: wgmma");
  expect(chose(Kernel::Mma, fp32, 1000, 128, 1000), "1000×128×1000 fp32 (k under 256): mma");
  expect(chose(Kernel::Mma, tf32, 256, 256, 256), "256³ tf32: mma");
  expect(chose(Kernel::WgmmaT, tf32, 64, 768, 100000), "64×768×100000 tf32: wgmma-t");
  expect(chose(Kernel::WgmmaT, fp32, 512, 768, 1000000, true), "512 rows fp32, Bᵀ held: wgmma-t");
  expect(chose(Kernel::Wgmma, fp32, 2048, 768, 1000000, true), "2048 rows fp32, Bᵀ held: wgmma");
  expect(chose(Kernel::WgmmaT, tf32, 8192, 1024, 512), "8192×1024×512 tf32: wgmma-t's 256×128 tiles");
  expect(chose(Kernel::Wgmma, tf32, 8192, 1024, 512, false, true), "8192×1024×512 tf32, Aᵀ held: wgmma");
  expect(chose(Kernel::WgmmaT, tf32, 128, 4096, 4096, false, true), "128×4096×4096 tf32, Aᵀ held: wgmma-t");
  // From 256 rows to 511, over many tiles, tf32 goes to wgmma-t: the search's 256 to 500 queries over a corpus of
  // 1 000 000 × 768 took 1.5–2.5 ms there, 4.0–8.0 on mma.
  expect(chose(Kernel::WgmmaT, tf32, 500, 768, 1000000, true), "500×768×1000000 tf32, Bᵀ held: wgmma-t");
  expect(chose(Kernel::WgmmaT, tf32, 256, 768, 1000000, true), "256×768×1000000 tf32, Bᵀ held: wgmma-t");
  expect(chose(Kernel::WgmmaT, tf32, 320, 768, 1000000), "320×768×1000000 tf32: wgmma-t");
  expect(chose(Kernel::Mma, tf32, 320, 128, 1000000), "320×128×1000000 tf32 (k under 256): mma");

  // wgmma-t's tiles there: 256×128 where they pad the rows little more than 64-row tiles do, else 64×192.
  const KernelVariant transposedTiles[] = {{"64x192", nullptr, {64, 192}, true}, {"64x128", nullptr, {64, 128}, true},
                                           {"256x128", nullptr, {256, 128}, true}};
  auto tile = [&](int64_t m, int64_t k, int64_t n) { return chooseVariant(transposedTiles, m, k, n, h100).tile.rows; };
  expect(tile(256, 768, 1000000) == 256, "256×768×1000000: 256×128 tiles");
  expect(tile(500, 768, 1000000) == 256, "500×768×1000000: 256×128 tiles (512 rows against 512)");
  expect(tile(384, 768, 1000000) == 64, "384×768×1000000: 64×192 tiles (512 rows against 384)");
  expect(tile(320, 768, 1000000) == 64, "320×768×1000000: 64×192 tiles (512 rows against 320)");
  expect(tile(600, 768, 1000000) == 256, "600×768×1000000: 256×128 tiles, as from 512 rows before");

  // The predicates follow the row: one whose wgmma-f16 steps start past any product never takes it.
  AutoRules never = kAutoRules[0];
  for (HalfCopiesStep& step : never.halfCopies) step.size = INT64_MAX;
  expect(halfCopiesPay(kAutoRules[0], 4096, 4096, 4096) && !halfCopiesPay(never, 4096, 4096, 4096),
         "halfCopiesPay reads its row's steps");
  AutoRules wideOnly = kAutoRules[0];
  wideOnly.wgmmaFp32Columns = 512;
  expect(wgmmaPaysFor(kAutoRules[0], fp32, 1024, 1024, 256) && !wgmmaPaysFor(wideOnly, fp32, 1024, 1024, 256),
         "wgmmaPaysFor reads its row's columns");
  std::printf("wrong: %d\n", wrong);
  return wrong == 0 ? 0 : 1;
}
