// The correctness suite, run once per backend/kernel: fresh random inputs, a float64 reference,
// NaN-poisoned outputs, subarray views, sync and async, inputs left unchanged.
import { gemm, matmul, matmulSync, MatmulOptions, Matrix } from '../../lib';
import { GemmCase, gemmReference, poisoned, randomMatrix, relativeError, relativeTo, sameBytes } from './helpers';
import { Case, EMPTY_SHAPES, shapeName } from './shapes';

export function correctnessSuite(options: MatmulOptions, shapes: Case[], tolerance: number): void {
  describe.each(shapes.map((s) => [shapeName(s), s] as const))('%s', (_name, { m, k, n }) => {
    test('async matmul into a NaN-filled out matches float64, inputs unchanged', async () => {
      const a = randomMatrix(m * k);
      const b = randomMatrix(k * n);
      const [aCopy, bCopy] = [a.slice(), b.slice()];
      const out = poisoned(m * n);
      const c = await matmul(a, b, { m, k, n }, { ...options, out });
      expect(c).toBe(out);
      expect(relativeError(c, a, b, m, k, n)).toBeLessThanOrEqual(tolerance);
      expect(sameBytes(a, aCopy)).toBe(true);
      expect(sameBytes(b, bCopy)).toBe(true);
    });

    test('matmulSync into a new array matches float64', () => {
      const a = randomMatrix(m * k);
      const b = randomMatrix(k * n);
      const c = matmulSync(a, b, { m, k, n }, options);
      expect(c).toBeInstanceOf(Float32Array);
      expect(c.length).toBe(m * n);
      expect(relativeError(c, a, b, m, k, n)).toBeLessThanOrEqual(tolerance);
    });

    test('subarray views with non-zero byteOffset, out a view too', async () => {
      const aBig = randomMatrix(m * k + 7);
      const bBig = randomMatrix(k * n + 3);
      const outBig = poisoned(m * n + 9);
      const a = aBig.subarray(5, 5 + m * k);
      const b = bBig.subarray(1, 1 + k * n);
      const out = outBig.subarray(4, 4 + m * n);
      await matmul(a, b, { m, k, n }, { ...options, out });
      expect(relativeError(out, a, b, m, k, n)).toBeLessThanOrEqual(tolerance);
      // nothing outside the view was touched
      expect(Array.from(outBig.subarray(0, 4)).every(Number.isNaN)).toBe(true);
      expect(Array.from(outBig.subarray(4 + m * n)).every(Number.isNaN)).toBe(true);
    });
  });

  describe.each(EMPTY_SHAPES.map((s) => [shapeName(s), s] as const))('empty %s', (_name, { m, k, n }) => {
    test('m·n = 0 gives an empty array; k = 0 gives zeros', async () => {
      const a = randomMatrix(m * k);
      const b = randomMatrix(k * n);
      const c = await matmul(a, b, { m, k, n }, { ...options, out: poisoned(m * n) });
      expect(c.length).toBe(m * n);
      expect(Array.from(c).every((x) => x === 0)).toBe(true);
      expect(matmulSync(a, b, { m, k, n }, options)).toEqual(new Float32Array(m * n));
    });
  });
}

/**
 * gemm with A and B in every layout, row-major or held transposed (Aᵀ k×m, Bᵀ n×k), which every kernel reads as
 * stored, with no transposed copy: α and β (applied as the kernel stores C, or as K's slices are summed), from host
 * arrays and on Matrices, against float64; `shapes` as [m, k, n].
 */
export function gemmLayoutsSuite(options: MatmulOptions, shapes: number[][], tolerance: number): void {
  describe.each([[false, false], [true, false], [false, true], [true, true]] as const)('transA %s, transB %s', (transA, transB) => {
    test.each(shapes)('gemm %i×%i×%i, α and β, on arrays and on Matrices', async (m, k, n) => {
      const s: GemmCase = { m, k, n, transA, transB, alpha: 0.5, beta: -1.5 };
      const a = randomMatrix(m * k), b = randomMatrix(k * n), c = randomMatrix(m * n);
      const want = gemmReference(a, b, c, s);
      const onArrays = c.slice();
      await gemm({ a, b, c: onArrays, ...s }, { ...options, backend: 'cuda' });
      expect(relativeTo(onArrays, want)).toBeLessThanOrEqual(tolerance);
      const [A, B, C] = await Promise.all([
        transA ? Matrix.from(a, k, m) : Matrix.from(a, m, k), transB ? Matrix.from(b, n, k) : Matrix.from(b, k, n), Matrix.from(c, m, n),
      ]);
      await gemm({ a: A, b: B, c: C, ...s }, options);
      expect(relativeTo(await C.toArray(), want)).toBeLessThanOrEqual(tolerance);
      [A, B, C].forEach((x) => x.dispose());
    });
  });
}
