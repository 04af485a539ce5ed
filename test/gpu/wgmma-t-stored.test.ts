// The GPU suite, kernel wgmma-t reading A and B held transposed (Aᵀ k×m, Bᵀ n×k) as they are stored, as
// q·corpusᵀ holds its corpus: gemm with transA and transB from host arrays and on Matrices in both precisions,
// special values (recomputed from Aᵀ and Bᵀ), and no copy of either. Without a usable GPU of compute capability 9.0
// it is reported as skipped.
import { gemm, Matrix } from '../../lib';
import { productGrowth } from '../support/child';
import { gemmLayoutsSuite } from '../support/correctness';
import { classMismatches, describeGpu, deviceBytes, describeHopper, FP32_TOLERANCE, gemmReference, gpuSuiteName, randomMatrix, TF32_TOLERANCE } from '../support/helpers';

// Each of its tiles (64×192, 64×128, 256×128 in tf32) cut at every edge; K in two slices and in 8 (513×8193×257).
const SHAPES = [[97, 300, 2053], [61, 300, 3001], [37, 2500, 64], [4097, 33, 4095], [513, 2049, 1409], [513, 8193, 257]];

describeGpu(gpuSuiteName('CUDA backend, kernel wgmma-t on B held as Bᵀ'), () => {
  describeHopper('kernel wgmma-t, operands in every layout, α and β', () => {
    describe.each([['fp32', FP32_TOLERANCE], ['tf32', TF32_TOLERANCE]] as const)('precision %s', (precision, tolerance) => {
      gemmLayoutsSuite({ kernel: 'wgmma-t', precision }, SHAPES, tolerance);
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

    test('±Infinity and NaN in A held as Aᵀ: NaN and ±Infinity where float64 has them', async () => {
      const [m, k, n] = [70, 300, 200];
      const a = randomMatrix(m * k), b = randomMatrix(k * n); // a holds Aᵀ: element (i, p) of A at a[p·m + i]
      a[7 * m + 5] = Infinity; // row 5 of C: ±Infinity
      a[3 * m + 9] = NaN; // row 9: NaN
      b[7 * n + 2] = 0; // C(5, 2) = ∞ · 0 = NaN
      const s = { m, k, n, transA: true, transB: false, alpha: 1, beta: 0 };
      const c = await gemm({ a, b, c: new Float32Array(m * n), ...s }, { backend: 'cuda', kernel: 'wgmma-t', precision: 'tf32' });
      expect(classMismatches(c, gemmReference(a, b, new Float32Array(m * n), s), n)).toEqual([]);
      expect(Number.isNaN(c[5 * n + 2])).toBe(true);
    });

    // Measured in a fresh process, where no pool holds such a copy: A is 33.6 MB.
    test.each(['fp32', 'tf32'] as const)('A held as Aᵀ, 8192×1024×512 in %s: device memory grows by small buffers alone, no transposed copy of A', (precision) => {
      const [m, k, n] = [8192, 1024, 512];
      const { grown, error } = productGrowth(m, k, n, true, false, { kernel: 'wgmma-t', precision });
      expect(grown).toBeLessThan(4e6);
      expect(error).toBeLessThanOrEqual(precision === 'fp32' ? FP32_TOLERANCE : TF32_TOLERANCE);
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
