// The GPU suite, kernel wgmma-t in tf32 (gpu-wgmma-t.test.ts has fp32). Without a usable GPU of compute capability
// 9.0 it is reported as skipped.
import { correctnessSuite } from './correctness.shared';
import { describeGpu, describeHopper, gpuSuiteName, TF32_TOLERANCE, WGMMA_T_TEST_SHAPES } from './helpers';

// In tf32 wgmma-t also has 256 × 128 tiles (LARGE_TILE_SHAPES).
describeGpu(gpuSuiteName('CUDA backend, kernel wgmma-t'), () => {
  describeHopper('kernel wgmma-t, precision tf32', () => {
    correctnessSuite({ backend: 'cuda', kernel: 'wgmma-t', precision: 'tf32' }, WGMMA_T_TEST_SHAPES, TF32_TOLERANCE);
  });
});
