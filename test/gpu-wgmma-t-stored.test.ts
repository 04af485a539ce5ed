// The GPU suite, kernel wgmma-t reading B held as Bᵀ (n×k) as it is stored, as q·corpusᵀ holds its corpus:
// gemm with transB from host arrays and on Matrices in both precisions, special values (recomputed from Bᵀ),
// and no copy of B. Without a usable GPU of compute capability 9.0 it is reported as skipped.
import { gemm, Matrix } from '../lib';
import { classMismatches, describeGpu, deviceBytes, describeHopper, FP32_TOLERANCE, GemmCase, gemmReference, gpuSuiteName, randomMatrix, relativeTo, TF32_TOLERANCE } from './helpers';

// Each of its tiles (64×192, 64×128, 256×128 in tf32) cut at every edge; K in two slices and in 8 (513×8193×257).
const SHAPES = [[97, 300, 2053], [61, 300, 3001], [37, 2500, 64], [4097, 33, 4095], [513, 2049, 1409], [513, 8193, 257]];

describeGpu(gpuSuiteName('CUDA backend, kernel wgmma-t on B held as Bᵀ'), () => {
  describeHopper('kernel wgmma-t, transB', () => {
    describe.each([['fp32', FP32_TOLERANCE], ['tf32', TF32_TOLERANCE]] as const)('precision %s', (precision, tolerance) => {
      test.each(SHAPES)('gemm %i×%i×%i, Bᵀ held, α and β, on arrays and on Matrices', async (m, k, n) => {
        const s: GemmCase = { m, k, n, transA: false, transB: true, alpha: 0.5, beta: -1.5 };
        const a = randomMatrix(m * k), b = randomMatrix(k * n), c = randomMatrix(m * n);
        const want = gemmReference(a, b, c, s);
        const onArrays = c.slice();
        await gemm({ a, b, c: onArrays, ...s }, { backend: 'cuda', kernel: 'wgmma-t', precision });
        expect(relativeTo(onArrays, want)).toBeLessThanOrEqual(tolerance);
        const [A, B, C] = await Promise.all([Matrix.from(a, m, k), Matrix.from(b, n, k), Matrix.from(c, m, n)]);
        await gemm({ a: A, b: B, c: C, ...s }, { kernel: 'wgmma-t', precision });
        expect(relativeTo(await C.toArray(), want)).toBeLessThanOrEqual(tolerance);
        [A, B, C].forEach((x) => x.dispose());
      });
    });

    test('±Infinity and NaN in B held as Bᵀ: NaN and ±Infinity where float64 has them', async () => {
      const [m, k, n] = [70, 300, 200];
      const a = randomMatrix(m * k), b = randomMatrix(k * n); // b holds Bᵀ: element (p, j) of B at b[j·k + p]
      b[5 * k + 7] = Infinity; // column 5 of C: ±Infinity
      b[9 * k + 3] = NaN; // column 9: NaN
      a[2 * k + 7] = 0; // C(2, 5) = 0 · ∞ = NaN
      const c = await gemm({ a, b, c: new Float32Array(m * n), m, k, n, transB: true }, { backend: 'cuda', kernel: 'wgmma-t', precision: 'tf32' });
      const want = gemmReference(a, b, new Float32Array(m * n), { m, k, n, transA: false, transB: true, alpha: 1, beta: 0 });
      expect(classMismatches(c, want, n)).toEqual([]);
      expect(Number.isNaN(c[2 * n + 5])).toBe(true);
    });

    test('64 queries against a corpus of 200 000 rows of 256 held as Bᵀ (tf32, auto): no copy of it, nor of the scores', async () => {
      const [m, rows, d] = [64, 200_000, 256];
      const [C, Q, S] = await Promise.all([
        Matrix.from(randomMatrix(rows * d), rows, d), Matrix.from(randomMatrix(m * d), m, d), Matrix.from(new Float32Array(m * rows), m, rows),
      ]);
      const before = deviceBytes();
      await gemm({ a: Q, b: C, c: S, m, k: d, n: rows, transB: true }, { precision: 'tf32' });
      expect(deviceBytes() - before).toBeLessThan(4e6); // the corpus is 204.8 MB, the scores 51.2 MB
      [C, Q, S].forEach((x) => x.dispose());
    });
  });
});
