// Many products in flight at once share the backend: every result is right and belongs to its own call,
// and a failing call fails alone.
import { matmul, MatmulOptions } from '../../lib';
import { describeGpu, gpuSuiteName, randomMatrix, relativeError } from '../support/helpers';

const CALLS = 1000;
const SHAPES = [
  [1, 1, 1],
  [17, 33, 9],
  [64, 64, 64],
  [97, 131, 61],
  [5, 300, 2],
  [128, 16, 130],
];

async function manyAtOnce(options: MatmulOptions): Promise<void> {
  const calls = Array.from({ length: CALLS }, (_, i) => {
    const [m, k, n] = SHAPES[i % SHAPES.length];
    return { m, k, n, a: randomMatrix(m * k), b: randomMatrix(k * n) };
  });
  const results = await Promise.all(calls.map(({ a, b, m, k, n }) => matmul(a, b, { m, k, n }, options)));
  calls.forEach(({ a, b, m, k, n }, i) => {
    expect(results[i].length).toBe(m * n);
    expect(relativeError(results[i], a, b, m, k, n)).toBeLessThanOrEqual(1e-5);
  });
}

test(`${CALLS} concurrent matmul calls of mixed shapes on the CPU are all correct`, () => manyAtOnce({ backend: 'cpu' }));

describeGpu(gpuSuiteName('concurrency on CUDA'), () => {
  test(`${CALLS} concurrent matmul calls of mixed shapes are all correct`, () => manyAtOnce({ backend: 'cuda' }));

  test('a call that fails among many in flight fails alone; the others succeed', async () => {
    const a = randomMatrix(64 * 64);
    const b = randomMatrix(64 * 64);
    const good = Array.from({ length: 20 }, () => matmul(a, b, { m: 64, k: 64, n: 64 }, { backend: 'cuda' }));
    const bad = matmul(a, b, { m: 64, k: 64, n: 64 }, { backend: 'cuda', device: 4096 });
    await expect(bad).rejects.toThrow(/device: 4096 does not exist/);
    for (const c of await Promise.all(good)) expect(relativeError(c, a, b, 64, 64, 64)).toBeLessThanOrEqual(1e-5);
  });
});
