// The GPU suite, kernel 'auto' in both precisions: the kernels, tiles and K splits the plan picks by shape (its own
// file so that jest runs it beside the others). Without a usable GPU it is reported as skipped.
import { correctnessSuite } from '../support/correctness';
import { describeGpu, FP32_TOLERANCE, gpuSuiteName, TF32_TOLERANCE } from '../support/helpers';
import { MID_ROWS_MANY_TILES_SHAPES, UNDER_256_ROW_SHAPES, NARROW_LONG_K_SHAPES, TALL_LONG_K_SHAPES, K_SPLIT_TO_FILL_SHAPES, WGMMA_T_256_TILE_SHAPES, MMA_BLOCK_TILE_SHAPES, EDGE_SHAPES, AUTO_TAKES_WGMMA_SHAPE, FEW_ROWS_WIDE_B_SHAPES } from '../support/shapes';

describeGpu(gpuSuiteName('CUDA backend, kernel auto'), () => {
  describe('precision fp32', () => {
    correctnessSuite({ backend: 'auto' }, [...EDGE_SHAPES, ...MMA_BLOCK_TILE_SHAPES, ...FEW_ROWS_WIDE_B_SHAPES, ...K_SPLIT_TO_FILL_SHAPES, ...UNDER_256_ROW_SHAPES, ...NARROW_LONG_K_SHAPES], FP32_TOLERANCE);
  });
  describe('precision tf32', () => {
    correctnessSuite({ backend: 'auto', precision: 'tf32' }, [...EDGE_SHAPES, AUTO_TAKES_WGMMA_SHAPE, ...FEW_ROWS_WIDE_B_SHAPES, ...K_SPLIT_TO_FILL_SHAPES, ...WGMMA_T_256_TILE_SHAPES, ...MID_ROWS_MANY_TILES_SHAPES, ...UNDER_256_ROW_SHAPES, ...NARROW_LONG_K_SHAPES, ...TALL_LONG_K_SHAPES], TF32_TOLERANCE);
  });
});
