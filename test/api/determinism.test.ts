// The same bits for the same call (docs/accuracy.md, "Determinism"): a product alone, among thousands of concurrent calls of
// other shapes (gathered into batches on CUDA), behind Matrix work in flight, and in another process, on each
// backend; on CUDA in both precisions. Inputs come from a seeded generator, so that a child process makes the same.
import { createHash } from 'crypto';
import { Matrix, matmul, MatmulOptions } from '../../lib';
import { describeChild, runScenario } from '../support/child';
import { describeGpu, gpuSuiteName, sameBytes } from '../support/helpers';

// U[-1,1) floats from a seed, as the benchmarks make them (bench/inputs.js); the child process requires the same.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { quickUniform: seeded } = require('../../bench/inputs') as { quickUniform: (length: number, seed: number) => Float32Array };

const digest = (x: Float32Array): string => createHash('sha256').update(new Uint8Array(x.buffer, x.byteOffset, x.byteLength)).digest('hex');

// Sizes the gathered route takes on CUDA (A, B and C within 64 Ki floats, k ≤ 1024), at most 16 rows, a long k.
const SHAPES = [[64, 64, 64], [16, 64, 300], [128, 128, 128], [20, 1000, 30], [37, 5, 41]];

function sameBitsSuite(variants: [string, MatmulOptions][]): void {
  describe.each(variants)('%s', (_name, options) => {
    test.each(SHAPES)('%i×%i×%i: alone, among 5 000 concurrent calls of other shapes, behind Matrix work, in another process', async (m, k, n) => {
      const a = seeded(m * k, 11), b = seeded(k * n, 12);
      const alone = await matmul(a, b, { m, k, n }, options);

      const others = Array.from({ length: 5000 }, (_, i) => {
        const [p, q, r] = [8 + (i % 57), 3 + (i % 29), 5 + (i % 43)];
        return matmul(seeded(p * q, i), seeded(q * r, i + 1), { m: p, k: q, n: r }, options);
      });
      const among = matmul(a, b, { m, k, n }, options);
      others.push(...Array.from({ length: 100 }, (_, i) => matmul(seeded(64 * 64, i), seeded(64 * 64, i + 7), { m: 64, k: 64, n: 64 }, options)));
      await Promise.all(others);
      expect(sameBytes(await among, alone)).toBe(true);

      const { backend } = options;
      const [X, W] = await Promise.all([Matrix.from(seeded(1024 * 1024, 3), 1024, 1024, { backend }), Matrix.from(seeded(1024 * 1024, 4), 1024, 1024, { backend })]);
      const queued = [X.matmul(W), X.matmul(W), X.matmul(W)];
      const behind = await matmul(a, b, { m, k, n }, options);
      (await Promise.all(queued)).forEach((x) => x.dispose());
      [X, W].forEach((x) => x.dispose());
      expect(sameBytes(behind, alone)).toBe(true);

      const child = runScenario(`
        const { createHash } = require('crypto');
        const { matmul } = require(ROOT);
        const { quickUniform: seeded } = require(require('path').join(ROOT, 'bench', 'inputs'));
        matmul(seeded(${m * k}, 11), seeded(${k * n}, 12), { m: ${m}, k: ${k}, n: ${n} }, ${JSON.stringify(options)})
          .then((c) => console.log('digest ' + createHash('sha256').update(new Uint8Array(c.buffer, c.byteOffset, c.byteLength)).digest('hex')));
      `);
      if (child.status !== 0) throw new Error(describeChild(child));
      expect(child.output).toContain(`digest ${digest(alone)}`);
    });
  });
}

describe('the same bits for the same call, whatever else is in flight: CPU backend', () => {
  sameBitsSuite([['cpu', { backend: 'cpu' }]]);
});

describeGpu(gpuSuiteName('the same bits for the same call, whatever else is in flight: CUDA backend'), () => {
  sameBitsSuite([['cuda fp32', { backend: 'cuda' }], ['cuda tf32', { backend: 'cuda', precision: 'tf32' }]]);
});
