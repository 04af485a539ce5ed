// The GPU suite, kernel wgmma-f16 (step 5: tf32 on the fp16 tensor cores, rows of A and B scaled by powers of two so
// that fp16 holds each value exactly as TF32 does): the correctness suite in tf32 at every wgmma-t shape (its K
// splits included, which end halfway through a 64-deep stage), fp32 (step 4's 3xTF32) at the small ones, and the
// scaling's edges: rows and columns it cannot hold recomputed in fp32, and past 4 of them the product computed by
// step 4; and B held as Bᵀ, read as stored. Without a usable GPU of compute capability 9.0 it is reported as skipped.
import { gemm, matmul, Matrix } from '../../lib';
import { productGrowth } from '../support/child';
import { correctnessSuite, gemmLayoutsSuite } from '../support/correctness';
import { classMismatches, describeGpu, describeHopper, finiteAgree, FP32_TOLERANCE, gemmReference, gpuSuiteName, randomMatrix, referenceProduct, sameBytes, TF32_TOLERANCE, transposed } from '../support/helpers';
import { EDGE_SHAPES, WGMMA_T_SUITE_SHAPES } from '../support/shapes';

const TF32 = { kernel: 'wgmma-f16', precision: 'tf32' } as const;

describeGpu(gpuSuiteName('CUDA backend, kernel wgmma-f16'), () => {
  describeHopper('kernel wgmma-f16, precision tf32', () => {
    correctnessSuite(TF32, WGMMA_T_SUITE_SHAPES, TF32_TOLERANCE);
  });
  describeHopper('kernel wgmma-f16, precision fp32 (step 4, 3xTF32)', () => {
    correctnessSuite({ kernel: 'wgmma-f16' }, EDGE_SHAPES, FP32_TOLERANCE);
  });

  describeHopper('the scaling of rows to fp16', () => {
    const [m, k, n] = [300, 200, 310];

    test('rows whose values span more than fp16 holds are recomputed in fp32: the small values count', async () => {
      // Row r of A: 2^30 against B's row 0, which is zero but in column 0, and U[-1,1] elsewhere. Scaled for the
      // 2^30, the rest of the row falls below fp16's range; in every column but 0 it is all there is.
      const a = randomMatrix(m * k), b = randomMatrix(k * n);
      for (let j = 0; j < n; j++) b[j] = j === 0 ? 1 : 0;
      for (const r of [0, 5, 77, 299]) a[r * k] = 2 ** 30;
      const c = await matmul(a, b, { m, k, n }, TF32);
      expect(finiteAgree(c, referenceProduct(a, b, m, k, n), a, b, m, k, n, 3e-3)).toBe(true);
    });

    test('values near FLT_MAX and subnormals scale exactly; a column of subnormals is recomputed in fp32', async () => {
      // Row 3 of A near FLT_MAX (B's row 0 a tenth, so that no sum of |a·b| passes it, in any order), row 4
      // subnormal, column 9 of B subnormal beside B's ordinary values (2^-115 of its rows' largest: marked).
      const a = randomMatrix(m * k), b = randomMatrix(k * n);
      for (let p = 0; p < k; p++) a[3 * k + p] *= p === 0 ? 3.3e38 : 1e36;
      for (let p = 0; p < k; p++) a[4 * k + p] *= 1e-40;
      for (let j = 0; j < n; j++) b[j] *= 0.1;
      for (let p = 0; p < k; p++) b[p * n + 9] *= 1e-39;
      const c = await matmul(a, b, { m, k, n }, TF32);
      const want = referenceProduct(a, b, m, k, n);
      expect(classMismatches(c, want, n)).toEqual([]);
      expect(finiteAgree(c, want, a, b, m, k, n, 3e-3)).toBe(true);
    });

    test('marked rows and columns that cross: each element right where only its recomputation holds it, the same bits twice', async () => {
      // Rows 5, 77 of A: 2^30 against B's row 0 (1 in column 0 only), so that their other values fall below fp16's
      // range; columns 9, 200 of B: 1e-12 of their rows' largest. At (5, 9), (5, 200), (77, 9), (77, 200) every
      // term is one the scaling cannot hold: only the recomputation of the column (not of the row) is right there.
      const a = randomMatrix(m * k), b = randomMatrix(k * n);
      for (let j = 0; j < n; j++) b[j] = j === 0 ? 1 : 0;
      for (const r of [5, 77]) a[r * k] = 2 ** 30;
      for (const col of [9, 200]) for (let p = 1; p < k; p++) b[p * n + col] *= 1e-12;
      const c = await matmul(a, b, { m, k, n }, TF32);
      const want = referenceProduct(a, b, m, k, n);
      expect(finiteAgree(c, want, a, b, m, k, n, 3e-3)).toBe(true);
      for (const r of [5, 77])
        for (const col of [9, 200]) {
          let scale = 0; // Σ|a·b| over the element's terms: fp32 accuracy is relative to it
          for (let p = 0; p < k; p++) scale += Math.abs(a[r * k + p] * b[p * n + col]);
          expect(Math.abs(c[r * n + col] - want[r * n + col])).toBeLessThanOrEqual(FP32_TOLERANCE * scale);
        }
      expect(sameBytes(await matmul(a, b, { m, k, n }, TF32), c)).toBe(true);
    });

    test('tiny values whose terms are all an element has: added by their corrections, each once, the same bits twice', async () => {
      // Rows 0 and 1 of B equal (their terms cancel exactly wherever A's row holds 1 and −1 there), but in columns
      // 7 and 8, where both are 1; B's row 2 U[-1,1]. Rows 3 and 40 of A: 1, −1, 1e-12 (2^40 below: held by no
      // fp16 scaling), zeros after; so C(3, j) is 1e-12·B(2, j) alone. Column 7 of B: 1e-12 at rows 2 … 9 and 0
      // further down, against its rows' largest ~1: C(i, 7) is the sum of A(i, 2 … 9)·1e-12 alone. At (3, 7) and
      // (40, 7) the one term is 1e-12·1e-12, which a correction of A and one of B must not both add.
      const a = randomMatrix(m * k), b = randomMatrix(k * n);
      for (let j = 0; j < n; j++) b[n + j] = b[j] = j === 7 || j === 8 ? 1 : b[j];
      for (const r of [3, 40]) for (let p = 0; p < k; p++) a[r * k + p] = [1, -1, 1e-12][p] ?? 0;
      for (let i = 0; i < m; i++) if (i !== 3 && i !== 40) a[i * k + 1] = -a[i * k]; // their terms cancel in column 7 too
      for (let p = 2; p < k; p++) b[p * n + 7] = p < 10 ? 1e-12 : 0;
      const c = await matmul(a, b, { m, k, n }, TF32);
      const want = referenceProduct(a, b, m, k, n);
      expect(finiteAgree(c, want, a, b, m, k, n, 3e-3)).toBe(true);
      const close = (i: number, j: number) => Math.abs(c[i * n + j] - want[i * n + j]) <= 1e-5 * Math.abs(want[i * n + j]);
      for (const i of [3, 40]) for (const j of [0, 7, 100, 309]) expect(close(i, j)).toBe(true);
      for (const i of [0, 5, 299]) expect(close(i, 7)).toBe(true);
      expect(sameBytes(await matmul(a, b, { m, k, n }, TF32), c)).toBe(true);
    });

    // Hundreds of tiny values in each operand, in elements whose other terms are exact zeros: even rows of A hold 1 at
    // column 0, zeros, and two values 1e-12 of that (held by no fp16 scaling); B's row 0 is zero in columns 3c and
    // 3c + 1, and columns 3c + 1 hold zeros but two values 1e-12 of their rows' largest. So C(even i, 3c) is the sum of
    // A's tiny terms alone and C(odd i, 3c + 1) of B's, judged relative to themselves. Every such element is listed for
    // its correction, more of them than the list holds (one in 256 of C's elements, at least 4 096): with β = 0 step 4
    // computes the product, with β ≠ 0 every element of those rows and columns is corrected. K split into slices in
    // the last shape.
    test.each([
      [700, 600, 900, false, false, 0],
      [700, 600, 900, true, true, 0.5],
      [300, 8193, 257, false, true, 0],
    ])('%i×%i×%i (transA %s, transB %s, β %s): hundreds of tiny values in each operand, right where float64 says, the same bits twice', async (m, k, n, transA, transB, beta) => {
      const a = randomMatrix(m * k), b = randomMatrix(k * n);
      const tinyAt = (x: number, salt: number) => 2 + ((x * salt + salt) % (k - 2));
      for (let i = 0; i < m; i += 2) {
        for (let p = 0; p < k; p++) a[i * k + p] = p === 0 ? 1 : 0;
        for (const p of [tinyAt(i, 7), tinyAt(i, 13)]) a[i * k + p] = 1e-12 * (0.5 + Math.random());
      }
      for (let j = 0; j < n; j++) if (j % 3 !== 2) b[j] = 0;
      for (let j = 1; j < n; j += 3) {
        for (let p = 1; p < k; p++) b[p * n + j] = 0;
        for (const p of [tinyAt(j, 5), tinyAt(j, 11)]) b[p * n + j] = -1e-12 * (0.5 + Math.random());
      }
      const s = { m, k, n, transA, transB, alpha: 0.75, beta };
      // With β ≠ 0, C holds 1e-12-sized values, so that β·C does not hide the tiny terms.
      const c0 = beta === 0 ? new Float32Array(m * n).fill(NaN) : randomMatrix(m * n).map((x) => x * 1e-12);
      const want = gemmReference(a, b, c0, { ...s, transA: false, transB: false });
      const [heldA, heldB] = [transA ? transposed(a, m, k) : a, transB ? transposed(b, k, n) : b];
      const run = () => gemm({ a: heldA, b: heldB, c: c0.slice(), ...s }, TF32);
      const c = await run();
      expect(finiteAgree(c, want, a, b, m, k, n, 3e-3, { alpha: s.alpha, beta, c: c0 })).toBe(true);
      for (const [i, j] of [[0, 0], [2, 3], [m - 2, 0], [1, 1], [3, 4], [m - 1, 1]]) {
        expect(Math.abs(want[i * n + j])).toBeGreaterThan(0);
        expect(Math.abs(want[i * n + j])).toBeLessThan(1e-9); // tiny terms alone
        expect(c[i * n + j]).not.toBe(0);
      }
      expect(sameBytes(await run(), c)).toBe(true);
    });

    // A tiny value's terms are left out where they are under 2^-20 of their element, and added where they could be
    // more. Normal values with 0.01% of them 1e-10 of their size (hundreds in each operand, none in most rows); rows
    // 5 and 6 of A hold 1, −1, 2^-20 and a tiny 1e-12 at columns 0, 1, 64 and 100 and zeros elsewhere to column 200,
    // against rows of B that are 1 there in columns 0 … 9 and 0 in those columns from row 200 on: C(5, j) is
    // 2^-20 + 1e-12 (held terms that cancel to 2^-20, where the tiny term is 1e-6 of the element), which must come out
    // within 1e-7 of float64 (without the tiny term it is 1e-6 off). In the last shape K is split into slices: C(5, j)'s
    // later slices hold no term at all, so they are listed too, and must add nothing.
    test.each([
      [600, 1536, 700, false],
      [600, 1536, 700, true],
      [300, 8193, 257, true],
    ])('%i×%i×%i (transB %s), 0.01%% tiny values: within TF32 of float64, the tiny term added where it is 1e-6 of its element, the same bits twice', async (m, k, n, transB) => {
      const normal = (length: number) => Float32Array.from({ length }, () => Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random()));
      const a = normal(m * k), b = normal(k * n);
      for (const x of [a, b]) for (let e = 0; e < x.length; e++) if (Math.random() < 1e-4) x[e] *= 1e-10;
      const held = new Map([[0, 1], [1, -1], [64, 2 ** -20], [100, 1e-12]]); // 2^-20 and the tiny one in stages of their own
      for (const i of [5, 6]) for (let p = 0; p < 200; p++) a[i * k + p] = held.get(p) ?? 0;
      for (let p = 0; p < k; p++) for (let j = 0; j < 10; j++) b[p * n + j] = held.has(p) ? 1 : p < 200 ? b[p * n + j] : 0;
      const s = { m, k, n, transA: false, transB, alpha: 1, beta: 0 };
      const want = gemmReference(a, b, new Float32Array(m * n), { ...s, transB: false });
      const heldB = transB ? transposed(b, k, n) : b;
      const run = () => gemm({ a, b: heldB, c: new Float32Array(m * n).fill(NaN), ...s }, TF32);
      const c = await run();
      expect(finiteAgree(c, want, a, b, m, k, n, TF32_TOLERANCE)).toBe(true);
      for (const i of [5, 6])
        for (let j = 0; j < 10; j++) expect(Math.abs(c[i * n + j] - want[i * n + j])).toBeLessThanOrEqual(1e-7 * Math.abs(want[i * n + j]));
      expect(sameBytes(await run(), c)).toBe(true);
    });

    test.each([
      ['a few rows and columns (recomputed in fp32)', 3],
      ['more than 4 rows and columns (the product falls back to step 4)', 40],
    ])('NaN and ±Infinity in %s: non-finite exactly where float64 has them', async (_what, count) => {
      const a = randomMatrix(m * k), b = randomMatrix(k * n);
      const specials = [NaN, Infinity, -Infinity];
      for (let i = 0; i < count; i++) {
        a[((7 * i + 1) % m) * k + ((13 * i) % k)] = specials[i % 3];
        b[((11 * i) % k) * n + ((17 * i + 2) % n)] = specials[(i + 1) % 3];
      }
      const c = await matmul(a, b, { m, k, n }, TF32);
      const want = referenceProduct(a, b, m, k, n);
      expect(classMismatches(c, want, n)).toEqual([]);
      expect(finiteAgree(c, want, a, b, m, k, n, 3e-3)).toBe(true);
    });

    test.each([
      ['a row of B all zeros', (_a: Float32Array, b: Float32Array) => b.fill(0, 7 * n, 8 * n)],
      // Columns 3 and 4 of A 2^-120 and 2^120 against rows of B 2^120 and 2^-120: every product is ordinary and
      // fp16 holds every scaled value, but A's factor 2^(s_i − v_k) at column 3 is 2^134, past a float's range.
      ['rows of B 2^240 apart, A compensating', (a: Float32Array, b: Float32Array) => {
        for (let i = 0; i < m; i++) a[i * k + 3] *= 2 ** -120, a[i * k + 4] *= 2 ** 120;
        for (let j = 0; j < n; j++) b[3 * n + j] *= 2 ** 120, b[4 * n + j] *= 2 ** -120;
      }],
    ])('rows scaled value by value where one factor a row cannot serve every column (%s): right as float64 says', async (_what, plant) => {
      const a = randomMatrix(m * k), b = randomMatrix(k * n);
      plant(a, b);
      const c = await matmul(a, b, { m, k, n }, TF32);
      const want = referenceProduct(a, b, m, k, n);
      expect(classMismatches(c, want, n)).toEqual([]);
      expect(finiteAgree(c, want, a, b, m, k, n, 3e-3)).toBe(true);
    });

    test('Matrix products one after another, each B scaled afresh (one with a NaN that marks its column)', async () => {
      const [M, K, N] = [1000, 300, 700];
      const a = randomMatrix(M * K), b1 = randomMatrix(K * N), b2 = randomMatrix(K * N);
      b2[5 * N + 6] = NaN; // marks column 6 of the second product only
      const A = await Matrix.from(a, M, K);
      for (const b of [b1, b2, b1]) {
        const B = await Matrix.from(b, K, N);
        const c = await (await A.matmul(B, TF32)).toArray();
        const want = referenceProduct(a, b, M, K, N);
        expect(classMismatches(c, want, N)).toEqual([]);
        expect(finiteAgree(c, want, a, b, M, K, N, 3e-3)).toBe(true);
      }
    });
  });

  // B held as Bᵀ (n×k) is scaled by its rows (B's columns) into an n×k fp16 copy the product reads K-major; A held as
  // Aᵀ (k×m) is scaled into the same row-major fp16 copy as A: no transposed copy of either, and the same sums as
  // from the operands held row-major.
  describeHopper('operands held transposed, read as stored', () => {
    // Its 128×256 tile cut at every edge; K in two slices, and in 8 (513×8193×257).
    const SHAPES = [[97, 300, 2053], [61, 300, 3001], [37, 2500, 64], [4097, 33, 4095], [513, 2049, 1409], [513, 8193, 257]];
    gemmLayoutsSuite(TF32, SHAPES, TF32_TOLERANCE);

    test.each([[300, 1000, 500], [513, 8193, 257]])('%i×%i×%i: Aᵀ, Bᵀ and both held give the bits of A and B held row-major', async (m, k, n) => {
      const a = randomMatrix(m * k), b = randomMatrix(k * n);
      const rowMajor = await matmul(a, b, { m, k, n }, TF32);
      const [at, bt] = [transposed(a, m, k), transposed(b, k, n)];
      for (const [transA, transB] of [[true, false], [false, true], [true, true]]) {
        const held = await gemm({ a: transA ? at : a, b: transB ? bt : b, c: new Float32Array(m * n), m, k, n, transA, transB }, TF32);
        expect(sameBytes(held, rowMajor)).toBe(true);
      }
    });

    test('tiny values of A and of B corrected, a column recomputed, a NaN: right where float64 says, the same bits twice', async () => {
      // Column 11 of A and row 0 of B are zeros, so that the large values against them count for nothing. Row 3 of
      // A: 1 at column 0, two values 1e-12 of that (corrections), zeros elsewhere; column 30 of B: 1 at row 11, two
      // values 1e-12 of that, zeros elsewhere. So C's row 3 and column 30 are sums of those small terms alone, which
      // finiteAgree judges relative to themselves. Column 20 of B: 1 at row 11, every other value 1e-12 of its own
      // (more than a column's corrections: recomputed); column 40 holds a NaN.
      const [m, k, n] = [300, 200, 310];
      const a = randomMatrix(m * k), b = randomMatrix(k * n);
      for (let i = 0; i < m; i++) a[i * k + 11] = 0;
      for (let j = 0; j < n; j++) b[j] = 0;
      for (let p = 0; p < k; p++) a[3 * k + p] = p === 0 ? 1 : p === 5 || p === 77 ? 1e-12 * a[3 * k + p] : 0;
      for (let p = 0; p < k; p++) b[p * n + 30] = p === 11 ? 1 : p === 40 || p === 41 ? 1e-12 * b[p * n + 30] : 0;
      for (let p = 0; p < k; p++) b[p * n + 20] = p === 11 ? 1 : 1e-12 * b[p * n + 20];
      b[13 * n + 40] = NaN;
      const [at, bt] = [transposed(a, m, k), transposed(b, k, n)];
      const want = referenceProduct(a, b, m, k, n);
      for (const transA of [false, true]) {
        const run = () => gemm({ a: transA ? at : a, b: bt, c: new Float32Array(m * n), m, k, n, transA, transB: true }, TF32);
        const c = await run();
        expect(classMismatches(c, want, n)).toEqual([]);
        expect(finiteAgree(c, want, a, b, m, k, n, 3e-3)).toBe(true);
        expect(c[3 * n + 7]).not.toBe(0); // the corrections' terms are there
        expect(sameBytes(await run(), c)).toBe(true);
      }
    });

    // α and β are applied as C is stored; a marked row and column are recomputed after the product wrote C, so they
    // take β·C from a copy kept before it (keepMarkedOfC), and the corrections add α times their terms.
    test.each([false, true])('α and β on Matrices (transA %s): tiny values corrected, a row and a column recomputed, a NaN', async (transA) => {
      // Row 3 of A: 1 at column 0, two values 1e-12 of that (corrections), zeros elsewhere; row 50: 1 at column 0,
      // every other value 1e-12 of its own (more than a row's corrections: recomputed); column 30 of B: 1 at row 11,
      // two values 1e-12 of that; column 20: 1 at row 11, every other value 1e-12 of its own; column 40 holds a NaN.
      const [m, k, n] = [300, 200, 310];
      const a = randomMatrix(m * k), b = randomMatrix(k * n), c0 = randomMatrix(m * n);
      for (let p = 0; p < k; p++) a[3 * k + p] = p === 0 ? 1 : p === 5 || p === 77 ? 1e-12 * a[3 * k + p] : 0;
      for (let p = 1; p < k; p++) a[50 * k + p] *= 1e-12;
      for (let p = 0; p < k; p++) b[p * n + 30] = p === 11 ? 1 : p === 40 || p === 41 ? 1e-12 * b[p * n + 30] : 0;
      for (let p = 0; p < k; p++) b[p * n + 20] = p === 11 ? 1 : 1e-12 * b[p * n + 20];
      b[13 * n + 40] = NaN;
      const s = { m, k, n, transA, transB: false, alpha: 0.75, beta: -1.5 };
      const want = gemmReference(a, b, c0, { ...s, transA: false });
      const [A, B] = await Promise.all([transA ? Matrix.from(transposed(a, m, k), k, m) : Matrix.from(a, m, k), Matrix.from(b, k, n)]);
      const run = async () => {
        const C = await Matrix.from(c0, m, n);
        await gemm({ a: A, b: B, c: C, ...s }, TF32);
        return C.toArray();
      };
      const c = await run();
      expect(classMismatches(c, want, n)).toEqual([]);
      expect(finiteAgree(c, want, a, b, m, k, n, 3e-3, { alpha: s.alpha, beta: s.beta, c: c0 })).toBe(true);
      for (const [i, j] of [[50, 0], [50, 100], [7, 20], [200, 20], [50, 20]])
        expect(Math.abs(c[i * n + j] - want[i * n + j])).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(want[i * n + j])));
      expect(sameBytes(await run(), c)).toBe(true);
    });

    test.each([
      ['B', 1024, 512, 8192, false, true],
      ['A', 8192, 512, 1024, true, false],
    ])('%s held transposed, %i×%i×%i on Matrices: device memory grows by the fp16 copies alone, no transposed copy', (_name, m, k, n, transA, transB) => {
      const { grown, error } = productGrowth(m, k, n, transA, transB, TF32);
      // The fp16 copies (2·(m·k + k·n) bytes) and small buffers; a transposed copy of A or B adds 4·m·k or 4·k·n.
      expect(grown).toBeLessThan(2 * (m * k + k * n) + 4e6);
      expect(error).toBeLessThanOrEqual(TF32_TOLERANCE);
    });
  });
});
