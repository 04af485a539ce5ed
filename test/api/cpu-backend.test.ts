import { correctnessSuite } from '../support/correctness';
import { EDGE_SHAPES } from '../support/shapes';

describe('CPU backend', () => {
  correctnessSuite({ backend: 'cpu' }, [...EDGE_SHAPES, { m: 300, k: 400, n: 500 }], 1e-5);
});

// 'tf32' permits up to ~1e-3; the CPU backend has no TF32 mode and computes it in fp32, at fp32 accuracy.
describe('CPU backend, precision tf32', () => {
  correctnessSuite({ backend: 'cpu', precision: 'tf32' }, EDGE_SHAPES, 1e-5);
});
