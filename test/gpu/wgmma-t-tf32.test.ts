// The GPU suite, kernel wgmma-t in tf32 (wgmma-t-fp32.test.ts has fp32). Without a usable GPU of compute capability
// 9.0 it is reported as skipped.
import { correctnessSuite } from '../support/correctness';
import { describeGpu, describeHopper, gpuSuiteName, TF32_TOLERANCE } from '../support/helpers';
import { WGMMA_T_SUITE_SHAPES } from '../support/shapes';

// In tf32 wgmma-t also has 256 × 128 tiles (WGMMA_T_256_TILE_SHAPES).
describeGpu(gpuSuiteName('CUDA backend, kernel wgmma-t'), () => {
  describeHopper('kernel wgmma-t, precision tf32', () => {
    correctnessSuite({ backend: 'cuda', kernel: 'wgmma-t', precision: 'tf32' }, WGMMA_T_SUITE_SHAPES, TF32_TOLERANCE);
  });
});
