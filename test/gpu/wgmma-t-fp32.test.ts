// The GPU suite, kernel wgmma-t in fp32 (its own file so that jest runs it beside the others; tf32 is
// wgmma-t-tf32.test.ts, since the two took longer in one file than any other file). Without a usable GPU of
// compute capability 9.0 it is reported as skipped.
import { correctnessSuite } from '../support/correctness';
import { describeGpu, describeHopper, FP32_TOLERANCE, gpuSuiteName } from '../support/helpers';
import { WGMMA_T_SUITE_SHAPES } from '../support/shapes';

// wgmma-t: the same tensor cores on Cᵀ = Bᵀ·Aᵀ, B read as stored; its tiles are 64 rows × 192 or 128 columns of C.
describeGpu(gpuSuiteName('CUDA backend, kernel wgmma-t'), () => {
  describeHopper('kernel wgmma-t, precision fp32 (3xTF32)', () => {
    correctnessSuite({ backend: 'cuda', kernel: 'wgmma-t' }, WGMMA_T_SUITE_SHAPES, FP32_TOLERANCE);
  });
});
