// The GPU suite, kernel 'auto' in both precisions: the kernels, tiles and K splits the plan picks by shape (its own
// file so that jest runs it beside the others). Without a usable GPU it is reported as skipped.
import { correctnessSuite } from './correctness.shared';
import { describeGpu, FEW_ROW_SHAPES, NARROW_SHAPES, TALL_TF32_SHAPES, FP32_TOLERANCE, gpuSuiteName, K_FILL_SHAPES, LARGE_TILE_SHAPES, MMA_TILE_SHAPES, SMALL_SHAPES, TF32_TOLERANCE, WGMMA_AUTO_SHAPE, WGMMA_T_SHAPES } from './helpers';

describeGpu(gpuSuiteName('CUDA backend, kernel auto'), () => {
  describe('precision fp32', () => {
    correctnessSuite({ backend: 'auto' }, [...SMALL_SHAPES, ...MMA_TILE_SHAPES, ...WGMMA_T_SHAPES, ...K_FILL_SHAPES, ...FEW_ROW_SHAPES, ...NARROW_SHAPES], FP32_TOLERANCE);
  });
  describe('precision tf32', () => {
    correctnessSuite({ backend: 'auto', precision: 'tf32' }, [...SMALL_SHAPES, WGMMA_AUTO_SHAPE, ...WGMMA_T_SHAPES, ...K_FILL_SHAPES, ...LARGE_TILE_SHAPES, ...FEW_ROW_SHAPES, ...NARROW_SHAPES, ...TALL_TF32_SHAPES], TF32_TOLERANCE);
  });
});
