// IEEE semantics and long K on every backend, kernel and precision, against a float64 reference: a result
// element is NaN or ±Infinity exactly where the reference (rounded to float32) is; finite operands near FLT_MAX
// stay finite where the exact result is; subnormals count. Long K stays within twice cuBLAS's error, measured
// on the H100 by bench/accuracy.cu in the same way (2·K·2 products, U[-1,1]): SGEMM 2.9e-6, TF32 6.6e-4.
import { gemm, info, matmul, Matrix, MatmulOptions } from '../../lib';
import { classMismatches, finiteAgree, gemmReference, gpuSuiteName, isHopper, randomMatrix, referenceProduct, relativeTo, transposed } from '../support/helpers';

interface Variant {
  name: string;
  options: MatmulOptions;
  longKBound: number;
}
const VARIANTS: Variant[] = [
  { name: 'cpu', options: { backend: 'cpu' }, longKBound: 2 * 2.9e-6 },
  ...(info().backend === 'cuda'
    ? ([
        ...(['muld', 'blocktile', 'mma'] as const).map((kernel) => ({ name: `cuda ${kernel}`, options: { kernel }, longKBound: 2 * 2.9e-6 })),
        { name: 'cuda auto', options: {}, longKBound: 2 * 2.9e-6 },
        { name: 'cuda mma tf32', options: { kernel: 'mma', precision: 'tf32' }, longKBound: 2 * 6.6e-4 },
        { name: 'cuda auto tf32', options: { precision: 'tf32' }, longKBound: 2 * 6.6e-4 },
        ...(isHopper
          ? [
              { name: 'cuda wgmma tf32', options: { kernel: 'wgmma', precision: 'tf32' }, longKBound: 2 * 6.6e-4 },
              { name: 'cuda wgmma fp32', options: { kernel: 'wgmma' }, longKBound: 2 * 2.9e-6 },
              { name: 'cuda wgmma-t tf32', options: { kernel: 'wgmma-t', precision: 'tf32' }, longKBound: 2 * 6.6e-4 },
              { name: 'cuda wgmma-t fp32', options: { kernel: 'wgmma-t' }, longKBound: 2 * 2.9e-6 },
              { name: 'cuda wgmma-f16 tf32', options: { kernel: 'wgmma-f16', precision: 'tf32' }, longKBound: 2 * 6.6e-4 },
            ]
          : []),
      ] as Variant[])
    : []),
];

// The special operands bench/special-values.js and bench/accuracy.cu use (bench/inputs.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { specialOperands: specialInputs } = require('../../bench/inputs') as {
  specialOperands: (m: number, k: number, n: number) => [Float32Array, Float32Array];
};

describe.each(VARIANTS.map((v) => [v.name, v] as const))('%s', (_name, { options, longKBound }) => {
  const [m, k, n] = [67, 45, 71];

  // 513×45×5505: the 256×128 tiles that 'auto' and wgmma-t take in tf32 on an H100 (test/support/helpers.ts,
  // WGMMA_T_256_TILE_SHAPES).
  test.each([
    [67, 45, 71],
    [513, 45, 5505],
  ])('±Infinity, NaN, values near FLT_MAX and subnormals: NaN and ±Infinity exactly where float64 has them (matmul, %i×%i×%i)', async (m, k, n) => {
    const [a, b] = specialInputs(m, k, n);
    const c = await matmul(a, b, { m, k, n }, options);
    const want = referenceProduct(a, b, m, k, n);
    expect(classMismatches(c, want, n)).toEqual([]);
    expect(finiteAgree(c, want, a, b, m, k, n, options.precision === 'tf32' ? 3e-3 : 1e-5)).toBe(true);
  });

  test('the same on Matrices (device-resident operands)', async () => {
    const [a, b] = specialInputs(m, k, n);
    const { backend = 'cuda', kernel, precision } = options;
    const [A, B] = await Promise.all([Matrix.from(a, m, k, { backend }), Matrix.from(b, k, n, { backend })]);
    const c = await (await A.matmul(B, { kernel, precision })).toArray();
    expect(classMismatches(c, referenceProduct(a, b, m, k, n), n)).toEqual([]);
  });

  // A held as Aᵀ (k×m) or B as Bᵀ (n×k), read as stored or made into the kernel's operand from that layout, from host
  // arrays and on Matrices; 513 rows: a partial last tile of every kernel's rows.
  test.each([
    [true, false, 67, 45, 71],
    [false, true, 67, 45, 71],
    [true, true, 67, 45, 71],
    [true, false, 513, 45, 300],
  ])('the same with operands held transposed (gemm transA %s, transB %s, %i×%i×%i), from host arrays and on Matrices', async (transA, transB, m, k, n) => {
    const [a, b] = specialInputs(m, k, n);
    const [heldA, heldB] = [transA ? transposed(a, m, k) : a, transB ? transposed(b, k, n) : b];
    const want = referenceProduct(a, b, m, k, n);
    const { backend = 'cuda', kernel, precision } = options;
    const c = new Float32Array(m * n).fill(NaN);
    await gemm({ a: heldA, b: heldB, c, m, k, n, transA, transB }, options);
    expect(classMismatches(c, want, n)).toEqual([]);
    expect(finiteAgree(c, want, a, b, m, k, n, precision === 'tf32' ? 3e-3 : 1e-5)).toBe(true);
    const [A, B, C] = await Promise.all([
      Matrix.from(heldA, transA ? k : m, transA ? m : k, { backend }),
      Matrix.from(heldB, transB ? n : k, transB ? k : n, { backend }),
      Matrix.from(new Float32Array(m * n).fill(NaN), m, n, { backend }),
    ]);
    await gemm({ a: A, b: B, c: C, m, k, n, transA, transB }, { kernel, precision });
    expect(classMismatches(await C.toArray(), want, n)).toEqual([]);
  });

  // α and β are applied as each element is stored, so an element recomputed because its tensor-core sum came out
  // non-finite must find C as it was: the store leaves it (α = 1 keeps values near FLT_MAX finite where they are).
  test.each([
    [1, -1.5],
    [2, 0.25],
  ])('the same with α = %d and β = %d on Matrices: C read where each element is recomputed too', async (alpha, beta) => {
    const [a, b] = specialInputs(m, k, n);
    const c0 = randomMatrix(m * n);
    const s = { m, k, n, transA: false, transB: false, alpha, beta };
    const want = gemmReference(a, b, c0, s);
    const { backend = 'cuda', kernel, precision } = options;
    const [A, B, C] = await Promise.all([Matrix.from(a, m, k, { backend }), Matrix.from(b, k, n, { backend }), Matrix.from(c0, m, n, { backend })]);
    await gemm({ a: A, b: B, c: C, ...s }, { kernel, precision });
    const c = await C.toArray();
    expect(classMismatches(c, want, n)).toEqual([]);
    expect(finiteAgree(c, want, a, b, m, k, n, precision === 'tf32' ? 3e-3 : 1e-5, { alpha, beta, c: c0 })).toBe(true);
  });

  test('a huge value times a subnormal (5e36 · −3e-39 = −0.015) counts as in float64: no term lost to splitting', async () => {
    const [M, K, N] = [36, 6, 33];
    const a = randomMatrix(M * K), b = randomMatrix(K * N);
    for (let p = 0; p < K; p++) a[21 * K + p] = p === 1 ? 5e36 : 0; // C(21, 4) is that one term
    b[1 * N + 4] = -3e-39;
    const c = await matmul(a, b, { m: M, k: K, n: N }, options);
    expect(c[21 * N + 4]).toBeCloseTo(Math.fround(5e36) * Math.fround(-3e-39), options.precision === 'tf32' ? 4 : 8);
    expect(finiteAgree(c, referenceProduct(a, b, M, K, N), a, b, M, K, N, options.precision === 'tf32' ? 3e-3 : 1e-5)).toBe(true);
  });

  test('one +Infinity in a 1024×512×1024 product: its row is ±Infinity, the rest finite and right', async () => {
    const [M, K, N] = [1024, 512, 1024];
    const a = randomMatrix(M * K), b = randomMatrix(K * N);
    a[100 * K + 77] = Infinity;
    const c = await matmul(a, b, { m: M, k: K, n: N }, options);
    for (let j = 0; j < N; j++) expect(c[100 * N + j]).toBe(b[77 * N + j] > 0 ? Infinity : -Infinity);
    let nonFinite = 0;
    c.forEach((x, i) => (nonFinite += Number.isFinite(x) || Math.floor(i / N) === 100 ? 0 : 1));
    expect(nonFinite).toBe(0);
  });

  // 8×K×8: the relative error of 64 elements, not 4. Over 2×K×2 the ratio of two sums of 4 squares swung so much
  // between fresh inputs that a kernel within its usual error failed now and then (mma tf32 at K = 10^6: 1.44e-3
  // against 1.32e-3, with that kernel's code unchanged: docs/transfers.md, "New result arrays").
  test.each([1, 1000, 100_000, 1_000_000])('long K: 8×%i×8 within twice cuBLAS', async (K) => {
    const a = randomMatrix(8 * K), b = randomMatrix(K * 8);
    const c = await matmul(a, b, { m: 8, k: K, n: 8 }, options);
    expect(relativeTo(c, referenceProduct(a, b, 8, K, 8))).toBeLessThanOrEqual(Math.max(longKBound, options.precision === 'tf32' ? 1e-3 : 1e-6));
  });

  test('long K with A and B held transposed: 8×100000×8 within twice cuBLAS (slices of K along Aᵀ\'s columns and Bᵀ\'s rows)', async () => {
    const K = 100_000;
    const a = randomMatrix(8 * K), b = randomMatrix(K * 8);
    const c = new Float32Array(64).fill(NaN);
    await gemm({ a: transposed(a, 8, K), b: transposed(b, K, 8), c, m: 8, k: K, n: 8, transA: true, transB: true }, options);
    expect(relativeTo(c, referenceProduct(a, b, 8, K, 8))).toBeLessThanOrEqual(Math.max(longKBound, options.precision === 'tf32' ? 1e-3 : 1e-6));
  });
});

// 2·10^7 deep: 160 MB per operand, through the API with the kernels 'auto' picks (bench/accuracy.cu runs every
// kernel at this depth against cuBLAS on the same inputs).
const gpuVariants = VARIANTS.filter((v) => v.name === 'cuda auto' || v.name === 'cuda auto tf32');
(gpuVariants.length ? describe : describe.skip)(gpuSuiteName('long K, 2×20,000,000×2'), () => {
  test.each(gpuVariants.map((v) => [v.name, v] as const))('%s within twice cuBLAS', async (_name, { options, longKBound }) => {
    const K = 20_000_000;
    const a = randomMatrix(2 * K), b = randomMatrix(K * 2);
    const c = await matmul(a, b, { m: 2, k: K, n: 2 }, options);
    expect(relativeTo(c, referenceProduct(a, b, 2, K, 2))).toBeLessThanOrEqual(longKBound);
  });
});
