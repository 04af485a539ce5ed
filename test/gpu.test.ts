// The GPU suite: every CUDA kernel on every shape. Without a usable GPU it is reported as skipped.
import { correctnessSuite } from './correctness.shared';
import { describeGpu, gpuSuiteName, LARGE_SHAPES, SMALL_SHAPES } from './helpers';

const KERNELS = ['muld', 'blocktile'] as const;

describeGpu(gpuSuiteName('CUDA backend'), () => {
  describe.each(KERNELS)('kernel %s', (kernel) => {
    correctnessSuite({ backend: 'cuda', kernel }, [...SMALL_SHAPES, ...LARGE_SHAPES], 1e-5);
  });
  describe('kernel auto', () => {
    correctnessSuite({ backend: 'auto' }, SMALL_SHAPES, 1e-5);
  });
});
