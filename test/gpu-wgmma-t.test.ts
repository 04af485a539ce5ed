// The GPU suite, kernel wgmma-t in both precisions (its own file so that jest runs it beside the others). Without a
// usable GPU of compute capability 9.0 it is reported as skipped.
import { correctnessSuite } from './correctness.shared';
import { describeGpu, describeHopper, FP32_TOLERANCE, gpuSuiteName, K_FILL_SHAPES, LARGE_SHAPES, LARGE_TILE_SHAPES, PANEL_SHAPES, SMALL_SHAPES, TF32_TOLERANCE, WGMMA_T_SHAPES } from './helpers';

// wgmma-t: the same tensor cores on Cᵀ = Bᵀ·Aᵀ, B read as stored; its tiles are 64 rows × 192 or 128 columns of C,
// and in tf32 also 256 × 128 (LARGE_TILE_SHAPES).
describeGpu(gpuSuiteName('CUDA backend, kernel wgmma-t'), () => {
  const shapes = [...SMALL_SHAPES, ...LARGE_SHAPES, ...PANEL_SHAPES, ...WGMMA_T_SHAPES, ...K_FILL_SHAPES, ...LARGE_TILE_SHAPES];
  describeHopper('kernel wgmma-t, precision fp32 (3xTF32)', () => {
    correctnessSuite({ backend: 'cuda', kernel: 'wgmma-t' }, shapes, FP32_TOLERANCE);
  });
  describeHopper('kernel wgmma-t, precision tf32', () => {
    correctnessSuite({ backend: 'cuda', kernel: 'wgmma-t', precision: 'tf32' }, shapes, TF32_TOLERANCE);
  });
});
