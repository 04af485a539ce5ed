import { correctnessSuite } from './correctness.shared';
import { SMALL_SHAPES } from './helpers';

describe('CPU backend', () => {
  correctnessSuite({ backend: 'cpu' }, [...SMALL_SHAPES, { m: 300, k: 400, n: 500 }], 1e-5);
});
