// The GPU suite, kernel gemv (step 6: at most 16 rows or 16 columns, A and B read as stored): the correctness
// shapes in both precisions (fp32 in both), gemm with every transpose from host arrays and on Matrices, no copy of
// a transposed operand, the same bits every call, and the RangeError for a product it does not implement.
import { gemm, Matrix, matmul } from '../../lib';
import { describeChild, runScenario } from '../support/child';
import { correctnessSuite } from '../support/correctness';
import { classMismatches, describeGpu, deviceBytes, finiteAgree, FP32_TOLERANCE, GemmCase, gemmLabel, gemmReference, gpuSuiteName, randomMatrix, referenceProduct, relativeTo, sameBytes, transposed } from '../support/helpers';
import { AT_MOST_16_ROWS_OR_COLUMNS_SHAPES } from '../support/shapes';

const CASES: GemmCase[] = [];
for (const [m, k, n] of [[1, 300, 1000], [7, 129, 33], [1000, 65, 3], [16, 2100, 16], [3, 1, 500]])
  for (const transA of [false, true])
    for (const transB of [false, true]) CASES.push({ m, k, n, transA, transB, alpha: 0.5, beta: -1.5 });


describeGpu(gpuSuiteName('CUDA backend, kernel gemv'), () => {
  describe('kernel gemv, precision fp32', () => {
    correctnessSuite({ backend: 'cuda', kernel: 'gemv' }, AT_MOST_16_ROWS_OR_COLUMNS_SHAPES, FP32_TOLERANCE);
  });
  describe('kernel gemv, precision tf32 (computed in fp32)', () => {
    correctnessSuite({ backend: 'cuda', kernel: 'gemv', precision: 'tf32' }, AT_MOST_16_ROWS_OR_COLUMNS_SHAPES, FP32_TOLERANCE);
  });

  test.each(CASES.map((s) => [gemmLabel(s), s] as const))('gemm on arrays and on Matrices: %s', async (_name, s) => {
    const a = randomMatrix(s.m * s.k);
    const b = randomMatrix(s.k * s.n);
    const c = randomMatrix(s.m * s.n);
    const want = gemmReference(a, b, c, s);
    const onArrays = c.slice();
    await gemm({ a, b, c: onArrays, ...s }, { backend: 'cuda', kernel: 'gemv' });
    expect(relativeTo(onArrays, want)).toBeLessThanOrEqual(FP32_TOLERANCE);
    const [A, B, C] = await Promise.all([
      Matrix.from(a, s.transA ? s.k : s.m, s.transA ? s.m : s.k, { backend: 'cuda' }),
      Matrix.from(b, s.transB ? s.n : s.k, s.transB ? s.k : s.n, { backend: 'cuda' }),
      Matrix.from(c, s.m, s.n, { backend: 'cuda' }),
    ]);
    await gemm({ a: A, b: B, c: C, ...s }, { kernel: 'gemv' });
    expect(sameBytes(await C.toArray(), onArrays)).toBe(true); // the same kernel, the same bits
    [A, B, C].forEach((x) => x.dispose());
  });

  test('16 queries against a corpus read as Bᵀ (200 000 rows of 256) make no copy of it, nor of the scores', async () => {
    const [m, rows, d] = [16, 200_000, 256];
    const corpus = randomMatrix(rows * d);
    const queries = randomMatrix(m * d);
    const [C, Q, S] = await Promise.all([
      Matrix.from(corpus, rows, d, { backend: 'cuda' }),
      Matrix.from(queries, m, d, { backend: 'cuda' }),
      Matrix.from(new Float32Array(m * rows), m, rows, { backend: 'cuda' }),
    ]);
    const before = deviceBytes();
    await gemm({ a: Q, b: C, c: S, m, k: d, n: rows, transB: true });
    // The corpus is 204.8 MB (its transpose would be as large), the scores 12.8 MB (a temporary for them too).
    expect(deviceBytes() - before).toBeLessThan(4e6);
    const s: GemmCase = { m, k: d, n: rows, transA: false, transB: true, alpha: 1, beta: 0 };
    expect(relativeTo(await S.toArray(), gemmReference(queries, corpus, new Float32Array(m * rows), s))).toBeLessThanOrEqual(FP32_TOLERANCE);
    [C, Q, S].forEach((x) => x.dispose());
  });

  // Each variant has a kernel per layout of its large operand, each with over 48 KB of shared memory to opt into:
  // in a fresh process, the k-rows layout (B as stored) first, then the column-contiguous one (B held as Bᵀ).
  test('a fresh process runs each variant on both layouts, one after the other', () => {
    const result = runScenario(`
      const { gemm } = require(ROOT);
      (async () => {
        for (const m of [1, 8, 16]) for (const transB of [false, true]) {
          const [k, n] = [40, 300];
          const c = await gemm({ a: new Float32Array(m * k).fill(1), b: new Float32Array(k * n).fill(0.5), c: new Float32Array(m * n), m, k, n, transB }, { backend: 'cuda', kernel: 'gemv' });
          if (!c.every((x) => x === 20)) throw new Error('wrong result for m ' + m + ', transB ' + transB);
        }
        console.log('all six ran');
      })().catch((error) => { console.error(error); process.exit(1); });
    `);
    expect(result.status).toBe(0);
    expect(result.output).toContain('all six ran');
    if (result.status !== 0) throw new Error(describeChild(result));
  });

  // Every sum is fp32 FMAs: IEEE around special values with no recomputation (kernels/6_few_rows.cu).
  test.each([[3, 40, 500], [500, 40, 3]])('±Infinity, NaN, subnormals and huge values, %i×%i×%i: NaN and ±Infinity where float64 has them', async (m, k, n) => {
    const a = randomMatrix(m * k), b = randomMatrix(k * n);
    const [i, j] = m < n ? [1, 7] : [7, 1]; // an element in the middle of the output
    a[0 * k + 3] = Infinity; // row 0: ±Infinity, or NaN where B's row 3 holds a zero
    b[3 * n + 2] = 0;
    a[i * k + 5] = NaN;
    a[2 * k + 4] = 5e36; // times a subnormal: −0.015, a term no splitting may lose
    b[4 * n + j] = -3e-39;
    for (let p = 10; p < 20; p++) a[2 * k + p] = 1e-40;
    const c = await matmul(a, b, { m, k, n }, { backend: 'cuda', kernel: 'gemv' });
    const want = referenceProduct(a, b, m, k, n);
    expect(classMismatches(c, want, n)).toEqual([]);
    expect(Number.isNaN(c[0 * n + 2])).toBe(true);
    expect(finiteAgree(c, want, a, b, m, k, n, 1e-6)).toBe(true);
  });

  // One row against a column-contiguous W takes a kernel of its own (6_few_rows.cu, launchColumnDots) that sums
  // as the kernel of up to 3 rows does: a query's scores are the same bits alone as beside two others, and so is
  // A·x with A held as rows (few columns).
  test('one query against a corpus read as Bᵀ gives the bits it gets beside two others; so does A·x', async () => {
    const [rows, d] = [5000, 768];
    const corpus = randomMatrix(rows * d), queries = randomMatrix(3 * d);
    const three = await gemm({ a: queries, b: corpus, c: new Float32Array(3 * rows), m: 3, k: d, n: rows, transB: true }, { backend: 'cuda', kernel: 'gemv' });
    const one = await gemm({ a: queries.subarray(0, d), b: corpus, c: new Float32Array(rows), m: 1, k: d, n: rows, transB: true }, { backend: 'cuda', kernel: 'gemv' });
    expect(sameBytes(one, three.subarray(0, rows))).toBe(true);
    expect(relativeTo(one, referenceProduct(queries.subarray(0, d), transposed(corpus, rows, d), 1, d, rows))).toBeLessThanOrEqual(FP32_TOLERANCE);
    // A (rows × d) · x: W = Aᵀ, column-contiguous; x beside two other columns, B held as Bᵀ (3 × d; for one column
    // the same d floats as B).
    const x3 = await gemm({ a: corpus, b: queries, c: new Float32Array(rows * 3), m: rows, k: d, n: 3, transB: true }, { backend: 'cuda', kernel: 'gemv' });
    const x1 = await gemm({ a: corpus, b: queries.subarray(0, d), c: new Float32Array(rows), m: rows, k: d, n: 1, transB: true }, { backend: 'cuda', kernel: 'gemv' });
    expect(sameBytes(x1, Float32Array.from({ length: rows }, (_, i) => x3[3 * i]))).toBe(true);
  });

  test('the same call gives the same bits every time', async () => {
    const [m, k, n] = [3, 4097, 2000];
    const a = randomMatrix(m * k);
    const b = randomMatrix(k * n);
    const first = await matmul(a, b, { m, k, n }, { backend: 'cuda' });
    for (let i = 0; i < 5; i++) expect(sameBytes(await matmul(a, b, { m, k, n }, { backend: 'cuda' }), first)).toBe(true);
  });

  test('asked for a product of more than 16 rows and columns, it is a RangeError naming what it implements', async () => {
    const [m, k, n] = [17, 8, 17];
    await expect(matmul(randomMatrix(m * k), randomMatrix(k * n), { m, k, n }, { backend: 'cuda', kernel: 'gemv' })).rejects.toThrow(
      new RangeError("kernel 'gemv' implements products with at most 16 rows or 16 columns; this product is 17×8×17 (m×k×n)"),
    );
  });
});
