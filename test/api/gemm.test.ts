// gemm: C = α·op(A)·op(B) + β·C on Float32Arrays (batches with strides) and on Matrices, every backend,
// against a float64 reference; and its bad-argument errors.
import { gemm, info, KernelName, Matrix, Precision } from '../../lib';
import { native } from '../../lib/native';
import { productGrowth } from '../support/child';
import { describeGpu, FP32_TOLERANCE, GemmCase as Case, gemmLabel as label, gemmReference as reference, gpuSuiteName, isHopper, randomMatrix, relativeTo, sameBytes, TF32_TOLERANCE, thrownBy } from '../support/helpers';

const BACKENDS = ['cpu', ...(info().backend === 'cuda' ? ['cuda' as const] : [])] as const;

const CASES: Case[] = [];
for (const [m, k, n] of [[37, 53, 29], [1, 300, 211], [129, 1, 65], [64, 64, 64]])
  for (const transA of [false, true])
    for (const transB of [false, true]) CASES.push({ m, k, n, transA, transB, alpha: 0.5, beta: -1.5 });
CASES.push({ m: 97, k: 131, n: 61, transA: true, transB: false, alpha: 1, beta: 0 });
CASES.push({ m: 6, k: 0, n: 4, transA: false, transB: true, alpha: 2, beta: 3 });

describe.each(BACKENDS)('gemm on backend %s', (backend) => {
  test.each(CASES.map((s) => [label(s), s] as const))('arrays: %s', async (_name, s) => {
    const a = randomMatrix(s.m * s.k);
    const b = randomMatrix(s.k * s.n);
    const c = s.beta === 0 ? new Float32Array(s.m * s.n).fill(NaN) : randomMatrix(s.m * s.n);
    const want = reference(a, b, c, s);
    const result = await gemm({ a, b, c, ...s }, { backend });
    expect(result).toBe(c);
    expect(relativeTo(c, want)).toBeLessThanOrEqual(1e-5);
  });

  // Transposed and scaled (one product after another on CUDA), and plain small products (one gathered batch on
  // CUDA: native/cuda/transfer/routes.h), K = 0 among them.
  test.each(([
    [{ m: 33, k: 17, n: 9, transA: true, transB: true, alpha: -1, beta: 0.25 }, 3],
    [{ m: 20, k: 30, n: 10, transA: false, transB: false, alpha: 1, beta: 0 }, 300],
    [{ m: 64, k: 64, n: 64, transA: false, transB: false, alpha: 1, beta: 0 }, 50],
    [{ m: 7, k: 0, n: 5, transA: false, transB: false, alpha: 1, beta: 0 }, 20],
  ] as [Case, number][]).map(([s, batch]) => [`${label(s)}, batch ${batch}`, s, batch] as const))(
    'a strided batch: every product right, the gaps between them untouched (%s)', async (_name, s, batch) => {
    const [strideA, strideB, strideC] = [s.m * s.k + 5, s.k * s.n + 2, s.m * s.n + 7];
    const a = randomMatrix(strideA * batch);
    const b = randomMatrix(strideB * batch);
    const c = randomMatrix(strideC * batch);
    const before = c.slice();
    await gemm({ a, b, c, ...s, batch, strideA, strideB, strideC }, { backend });
    for (let i = 0; i < batch; i++) {
      const want = reference(a.subarray(i * strideA), b.subarray(i * strideB), before.subarray(i * strideC), s);
      expect(relativeTo(c.subarray(i * strideC, i * strideC + s.m * s.n), want)).toBeLessThanOrEqual(1e-5);
      expect(Array.from(c.subarray(i * strideC + s.m * s.n, (i + 1) * strideC))).toEqual(
        Array.from(before.subarray(i * strideC + s.m * s.n, (i + 1) * strideC)),
      );
    }
  });

  // Transposed and scaled (one product after another on CUDA), and plain (one grouped launch on CUDA, over rows
  // padded to 4 floats: native/cuda/resident.cu).
  test.each(([
    [{ m: 21, k: 13, n: 70, transA: true, transB: false, alpha: 0.75, beta: -0.5 }, 3],
    [{ m: 21, k: 13, n: 70, transA: false, transB: false, alpha: 1, beta: 0 }, 40],
    // 64×64 tiles over edges of every kind, several stages of K, and one k
    [{ m: 70, k: 45, n: 67, transA: false, transB: false, alpha: 1, beta: 0 }, 12],
    [{ m: 100, k: 100, n: 100, transA: false, transB: false, alpha: 1, beta: 0 }, 6],
    [{ m: 33, k: 1, n: 65, transA: false, transB: false, alpha: 1, beta: 0 }, 5],
  ] as [Case, number][]).map(([s, batch]) => [`${label(s)}, batch ${batch}`, s, batch] as const))(
    'Matrices, a batch stacked by rows: every product right, one B shared (strideB 0), gap rows untouched (%s)', async (_name, s, batch) => {
    const [rowsOfA, colsOfA] = s.transA ? [s.k, s.m] : [s.m, s.k]; // A stored k×m per product when transA
    const [strideA, strideC] = [rowsOfA + 2, s.m + 3];
    const rowsA = (batch - 1) * strideA + rowsOfA;
    const rowsC = (batch - 1) * strideC + s.m;
    const a = randomMatrix(rowsA * colsOfA);
    const b = randomMatrix(s.k * s.n);
    const c = randomMatrix(rowsC * s.n);
    const [A, B, C] = await Promise.all([
      Matrix.from(a, rowsA, colsOfA, { backend }),
      Matrix.from(b, s.k, s.n, { backend }),
      Matrix.from(c, rowsC, s.n, { backend }),
    ]);
    expect(await gemm({ a: A, b: B, c: C, ...s, batch, strideA, strideB: 0, strideC })).toBe(C);
    const got = await C.toArray();
    for (let i = 0; i < batch; i++) {
      const want = reference(a.subarray(i * strideA * colsOfA), b, c.subarray(i * strideC * s.n), s);
      expect(relativeTo(got.subarray(i * strideC * s.n, (i * strideC + s.m) * s.n), want)).toBeLessThanOrEqual(1e-5);
      if (i < batch - 1) expect(sameBytes(got.subarray((i * strideC + s.m) * s.n, (i + 1) * strideC * s.n), c.subarray((i * strideC + s.m) * s.n, (i + 1) * strideC * s.n))).toBe(true);
    }
    // A plain batch from host arrays gives the same bits (on CUDA: gathered, against one strided launch).
    if (s.alpha !== 1 || s.beta !== 0) return;
    const onArrays = c.slice();
    await gemm({ a, b, c: onArrays, ...s, batch, strideA: strideA * colsOfA, strideB: 0, strideC: strideC * s.n }, { backend });
    expect(sameBytes(onArrays, got)).toBe(true);
  });

  test.each(CASES.filter((s) => s.m === 37 || s.k === 0).map((s) => [label(s), s] as const))('Matrices: %s', async (_name, s) => {
    const a = randomMatrix(s.m * s.k);
    const b = randomMatrix(s.k * s.n);
    const c = randomMatrix(s.m * s.n);
    const want = reference(a, b, c, s);
    const [A, B, C] = await Promise.all([
      Matrix.from(a, s.transA ? s.k : s.m, s.transA ? s.m : s.k, { backend }),
      Matrix.from(b, s.transB ? s.n : s.k, s.transB ? s.k : s.n, { backend }),
      Matrix.from(c, s.m, s.n, { backend }),
    ]);
    expect(await gemm({ a: A, b: B, c: C, ...s })).toBe(C);
    expect(relativeTo(await C.toArray(), want)).toBeLessThanOrEqual(1e-5);
  });
});

describe('gemm bad arguments', () => {
  const a = randomMatrix(6);
  const b = randomMatrix(12);
  const c = randomMatrix(8);
  const ok = { a, b, c, m: 2, k: 3, n: 4 };
  const BAD: [string, unknown, typeof TypeError | typeof RangeError, RegExp][] = [
    ['args not an object', 5, TypeError, /^args: /],
    ['a an Array', { ...ok, a: [1, 2] }, TypeError, /^a: expected a Float32Array/],
    ['transA not a boolean', { ...ok, transA: 1 }, TypeError, /^transA: expected a boolean/],
    ['alpha NaN', { ...ok, alpha: NaN }, RangeError, /^alpha: expected a finite number/],
    ['beta a string', { ...ok, beta: '1' }, TypeError, /^beta: /],
    ['c too short', { ...ok, c: randomMatrix(7) }, RangeError, /^c: length 7 is too short/],
    ['batch too long for a', { ...ok, batch: 2 }, RangeError, /^a: length 6 is too short: .* need 12/],
    ['overlapping results', { ...ok, batch: 2, strideC: 4, c: randomMatrix(16), a: randomMatrix(12), b: randomMatrix(24) }, RangeError, /^strideC: /],
    ['c aliases a', { ...ok, c: a.subarray(0, 8) }, RangeError, /^c: .* (too short|must not share)/],
    ['unknown field', { ...ok, transC: true }, TypeError, /^args: unknown key 'transC'$/],
  ];
  test.each(BAD)('%s', async (_name, args, type, message) => {
    const attempt = gemm(args as Parameters<typeof gemm>[0]);
    await expect(attempt).rejects.toThrow(type);
    await expect(gemm(args as Parameters<typeof gemm>[0])).rejects.toThrow(message);
  });

  test('the native binding alone refuses the same', () => {
    for (const [, args, type] of BAD) expect(thrownBy(() => native.gemm(args as object, {})).name).toBe(type.name);
  });

  test('Matrices: wrong stored shapes are RangeErrors naming the operand', async () => {
    const A = await Matrix.from(randomMatrix(6), 2, 3, { backend: 'cpu' });
    const B = await Matrix.from(randomMatrix(12), 3, 4, { backend: 'cpu' });
    const C = await Matrix.from(randomMatrix(8), 2, 4, { backend: 'cpu' });
    await expect(gemm({ a: A, b: B, c: C, m: 2, k: 3, n: 4, transA: true })).rejects.toThrow(/^a: expected a 3×2 Matrix/);
    await expect(gemm({ a: A, b: B, c: A, m: 2, k: 3, n: 4 } as never)).rejects.toThrow(/^c: /);
  });

  test('Matrices in a batch: rows that do not match the batch, and overlapping results, are RangeErrors', async () => {
    const A = await Matrix.from(randomMatrix(6), 2, 3, { backend: 'cpu' });
    const B = await Matrix.from(randomMatrix(12), 3, 4, { backend: 'cpu' });
    const C = await Matrix.from(randomMatrix(16), 4, 4, { backend: 'cpu' });
    const batched = { a: A, b: B, c: C, m: 2, k: 3, n: 4, batch: 2, strideB: 0 };
    await expect(gemm(batched)).rejects.toThrow(/^a: expected a 4×3 Matrix for this m, k, n, trans, batch and strides, got 2×3/);
    await expect(gemm({ ...batched, strideA: 0 })).resolves.toBe(C);
    await expect(gemm({ ...batched, strideA: 0, strideC: 1 })).rejects.toThrow(/^strideC: 1 rows would make the batch's results overlap/);
    const shape = { m: 2, k: 3, n: 4, batch: 2, strideA: 0, strideB: 0, strideC: 1 };
    expect(thrownBy(() => native.matrixGemm(A.handle(), B.handle(), C.handle(), shape, {})).message).toMatch(/^strideC: /);
  });
});

// Grids hold at most 65535 blocks in y: tall operands must be sliced, not refused or cut short.
describeGpu(gpuSuiteName('gemm and Matrix with very tall operands (CUDA grid limits)'), () => {
  const TALL = 2_100_001; // > 65535 × 32 rows (transpose tiles) and > 65535 × 16 (Muld tiles)

  test(`transB of a ${TALL}×1 B`, async () => {
    const s: Case = { m: 1, k: 1, n: TALL, transA: false, transB: true, alpha: 1, beta: 0 };
    const a = randomMatrix(1);
    const b = randomMatrix(TALL);
    const c = new Float32Array(TALL).fill(NaN);
    await gemm({ a, b, c, ...s }, { backend: 'cuda' });
    expect(relativeTo(c, reference(a, b, c, s))).toBeLessThanOrEqual(1e-6);
  });

  test.each(['muld', 'blocktile', 'mma'] as const)(`Matrix ${TALL}×1 · 1×3 with kernel %s`, async (kernel) => {
    const x = randomMatrix(TALL);
    const w = randomMatrix(3);
    const X = await Matrix.from(x, TALL, 1, { backend: 'cuda' });
    const W = await Matrix.from(w, 1, 3, { backend: 'cuda' });
    const y = await (await X.matmul(W, { kernel })).toArray();
    const want = reference(x, w, y, { m: TALL, k: 1, n: 3, transA: false, transB: false, alpha: 1, beta: 0 });
    expect(relativeTo(y, want)).toBeLessThanOrEqual(1e-6);
  });
});

// α and β ≠ 0 are applied as each kernel stores C (or as K's slices are summed): no temporary the size of C and no
// pass of its own over it. k = 64 keeps B's copies that some kernels make (wgmma's TF32 parts, wgmma-f16's fp16) small
// beside C's 33.6 MB. Each in a fresh process, where no pool holds memory yet.
type KernelChoice = { kernel?: KernelName; precision?: Precision };
const SCALED_KERNELS: [string, KernelChoice][] = [
  ['muld', { kernel: 'muld' }], ['blocktile', { kernel: 'blocktile' }], ['mma fp32', { kernel: 'mma' }],
  ['mma tf32', { kernel: 'mma', precision: 'tf32' }], ['auto fp32', {}], ['auto tf32', { precision: 'tf32' }],
  ...(isHopper
    ? ([
        ['wgmma fp32', { kernel: 'wgmma' }], ['wgmma tf32', { kernel: 'wgmma', precision: 'tf32' }],
        ['wgmma-t fp32', { kernel: 'wgmma-t' }], ['wgmma-t tf32', { kernel: 'wgmma-t', precision: 'tf32' }],
        ['wgmma-f16 tf32', { kernel: 'wgmma-f16', precision: 'tf32' }],
      ] as [string, KernelChoice][])
    : []),
];
describeGpu(gpuSuiteName('gemm on Matrices with α and β ≠ 0'), () => {
  test.each(SCALED_KERNELS)('%s, 2048×64×4096, α = 0.75, β = −1.5: device memory does not grow by C\'s size, and the result is right', (_name, options) => {
    const [m, k, n] = [2048, 64, 4096];
    const { grown, error } = productGrowth(m, k, n, false, false, options, 0.75, -1.5);
    expect(grown).toBeLessThan(4 * m * n * 0.25); // C is 33.6 MB
    expect(error).toBeLessThanOrEqual('precision' in options ? TF32_TOLERANCE : FP32_TOLERANCE);
  });
});

// α·t and β·c are each rounded, then added: by a kernel as it stores C on Matrices, and by the host as C comes back
// from a product of host arrays (core/scaled_sum.h). So the same kernel gives the same bits either way ('auto' may
// choose another kernel for arrays, and is left out).
describeGpu(gpuSuiteName('gemm with α and β: host arrays and Matrices'), () => {
  test.each(SCALED_KERNELS.filter(([name]) => !name.startsWith('auto')))('%s, 300×200×500, α = 0.1, β = −0.7: the same bits', async (_name, options) => {
    const s = { m: 300, k: 200, n: 500, alpha: 0.1, beta: -0.7 };
    const a = randomMatrix(s.m * s.k), b = randomMatrix(s.k * s.n), c = randomMatrix(s.m * s.n);
    const onArrays = c.slice();
    await gemm({ a, b, c: onArrays, ...s }, { ...options, backend: 'cuda' });
    const [A, B, C] = await Promise.all([Matrix.from(a, s.m, s.k), Matrix.from(b, s.k, s.n), Matrix.from(c, s.m, s.n)]);
    await gemm({ a: A, b: B, c: C, ...s }, options);
    expect(sameBytes(await C.toArray(), onArrays)).toBe(true);
    [A, B, C].forEach((x) => x.dispose());
  });
});

// α with β = 0 needs nothing of C: the kernel stores α·t straight into C, with no temporary the size of C
// (a corpus's scores times 1/√d would have taken as much again). Measured in a fresh process, where no pool holds
// memory yet; mma keeps no Bᵀ with the Matrix.
describeGpu(gpuSuiteName('gemm on Matrices with α and β = 0'), () => {
  test('2048×256×4096, α = 0.125: device memory does not grow by C\'s size, and the product is right', () => {
    const [m, k, n] = [2048, 256, 4096];
    const { grown, error } = productGrowth(m, k, n, false, false, { kernel: 'mma' }, 0.125);
    expect(grown).toBeLessThan(4 * m * n * 0.25); // C is 33.6 MB
    expect(error).toBeLessThanOrEqual(1e-5);
  });
});
