// Property-based tests (fast-check): shapes, views, strides, transposes, α/β and values — ±Infinity, NaN,
// subnormals and large ones among ordinary U[-1,1] — drawn at random, every result compared with a float64
// reference: NaN and ±Infinity exactly where the reference has them, finite elements within tolerance of their
// own scale (Σ|a·b|), and no element outside a view written. On the CPU backend, and on every CUDA kernel
// when a GPU is usable.
import fc from 'fast-check';
import { gemm, info, matmul, MatmulOptions } from '../../lib';
import { classOf, isHopper } from '../support/helpers';

// [name, options, tolerance, fewRows]: fewRows, a kernel for at most 16 rows or columns (gemv), whose drawn m
// is taken modulo 17 where m and n are both over 16.
const OPTIONS: [string, MatmulOptions, number, boolean?][] = [
  ['cpu', { backend: 'cpu' }, 1e-5],
  ...(info().backend === 'cuda'
    ? ([
        ['cuda muld', { kernel: 'muld' }, 1e-5],
        ['cuda blocktile', { kernel: 'blocktile' }, 1e-5],
        ['cuda mma', { kernel: 'mma' }, 1e-5],
        ['cuda gemv', { kernel: 'gemv' }, 1e-5, true],
        ['cuda auto tf32', { precision: 'tf32' }, 3e-3],
        ...(isHopper
          ? [
              ['cuda wgmma', { kernel: 'wgmma' }, 1e-5],
              ['cuda wgmma tf32', { kernel: 'wgmma', precision: 'tf32' }, 3e-3],
              ['cuda wgmma-t', { kernel: 'wgmma-t' }, 1e-5],
              ['cuda wgmma-t tf32', { kernel: 'wgmma-t', precision: 'tf32' }, 3e-3],
              ['cuda wgmma-f16 tf32', { kernel: 'wgmma-f16', precision: 'tf32' }, 3e-3],
            ]
          : []),
      ] as [string, MatmulOptions, number, boolean?][])
    : []),
];

// Mostly U[-1,1]; now and then a special value. Large ones (5e36) are in A alone: forty of them times |b| ≤ 1
// sum far below FLT_MAX, so float32 sums in any order stay in range where float64's do.
const ordinary = fc.float({ min: -1, max: 1, noNaN: true });
const special = [Infinity, -Infinity, NaN, 1e-40, -3e-39, 0];
const elementOfA = fc.oneof({ weight: 30, arbitrary: ordinary }, { weight: 1, arbitrary: fc.constantFrom(...special, 5e36, -5e36) });
const elementOfB = fc.oneof({ weight: 30, arbitrary: ordinary }, { weight: 1, arbitrary: fc.constantFrom(...special) });
const dim = fc.integer({ min: 0, max: 40 });
const offset = fc.integer({ min: 0, max: 5 });

/** `length` drawn elements inside a NaN-filled buffer at `before` elements in; the view and the buffer. */
function placed(values: number[], before: number, after: number): [Float32Array, Float32Array] {
  const buffer = new Float32Array(before + values.length + after).fill(NaN);
  const view = buffer.subarray(before, before + values.length);
  view.set(values);
  return [view, buffer];
}


/** '' when got matches the reference Σ a(i,p)·b(p,j) (given through accessors), else what differs. */
function compare(got: (i: number, j: number) => number, a: (i: number, p: number) => number, b: (p: number, j: number) => number,
                 m: number, k: number, n: number, tolerance: number, extra?: (i: number, j: number, sum: number) => number): string {
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let sum = 0, scale = 0;
      for (let p = 0; p < k; p++) {
        const term = a(i, p) * b(p, j);
        sum += term;
        scale += Math.abs(term);
      }
      const want = extra ? extra(i, j, sum) : sum;
      const g = got(i, j);
      if (classOf(Math.fround(want)) !== classOf(g)) return `(${i}, ${j}): ${g} where float64 gives ${want}`;
      if (Number.isFinite(want) && Math.abs(g - want) > tolerance * (scale + Math.abs(want)) + 1e-37)
        return `(${i}, ${j}): ${g} against ${want}`;
    }
  return '';
}

describe.each(OPTIONS)('properties on %s', (_name, options, tolerance, fewRows) => {
  const rowsFor = (m: number, n: number) => (fewRows && m > 16 && n > 16 ? m % 17 : m);
  test('matmul of any shape, on views, with special values, matches float64 and writes only its out', async () => {
    await fc.assert(
      fc.asyncProperty(dim, dim, dim, offset, offset, fc.infiniteStream(elementOfA), fc.infiniteStream(elementOfB), async (drawnM, k, n, before, after, valuesA, valuesB) => {
        const m = rowsFor(drawnM, n);
        const take = (values: fc.Stream<number>, count: number) => Array.from({ length: count }, () => values.next().value as number);
        const [a] = placed(take(valuesA, m * k), before, after);
        const [b] = placed(take(valuesB, k * n), after, before);
        const [out, outBuffer] = placed(new Array(m * n).fill(NaN), before, after);
        await matmul(a, b, { m, k, n }, { ...options, out });
        expect(compare((i, j) => out[i * n + j], (i, p) => a[i * k + p], (p, j) => b[p * n + j], m, k, n, tolerance)).toBe('');
        expect([...outBuffer.subarray(0, before), ...outBuffer.subarray(before + m * n)].every(Number.isNaN)).toBe(true);
      }),
      { numRuns: 120 },
    );
  });

  test('gemm with transposes, α, β, batches and strides matches float64; the gaps between results stay', async () => {
    const scalar = fc.oneof(fc.constant(0), fc.constant(1), fc.float({ min: -4, max: 4, noNaN: true }));
    await fc.assert(
      fc.asyncProperty(
        fc.record({ m: dim, k: dim, n: dim, transA: fc.boolean(), transB: fc.boolean(), alpha: scalar, beta: scalar,
                    batch: fc.integer({ min: 0, max: 3 }), gapA: offset, gapB: offset, gapC: offset }),
        async ({ m: drawnM, k, n, transA, transB, alpha, beta, batch, gapA, gapB, gapC }) => {
          const m = rowsFor(drawnM, n);
          const random = (count: number) => Float32Array.from({ length: count }, () => Math.random() * 2 - 1);
          const [strideA, strideB, strideC] = [m * k + gapA, k * n + gapB, m * n + gapC];
          const span = (stride: number, each: number) => (batch === 0 ? 0 : (batch - 1) * stride + each);
          const a = random(span(strideA, m * k)), b = random(span(strideB, k * n)), c = random(span(strideC, m * n));
          const before = c.slice();
          await gemm({ a, b, c, m, k, n, transA, transB, alpha, beta, batch, strideA, strideB, strideC }, options as never);
          for (let t = 0; t < batch; t++) {
            const [A, B, C0, C] = [t * strideA, t * strideB, t * strideC, t * strideC];
            const wrong = compare(
              (i, j) => c[C + i * n + j],
              (i, p) => (transA ? a[A + p * m + i] : a[A + i * k + p]),
              (p, j) => (transB ? b[B + j * k + p] : b[B + p * n + j]),
              m, k, n, tolerance,
              (i, j, sum) => Math.fround(alpha) * sum + (beta === 0 ? 0 : Math.fround(beta) * before[C0 + i * n + j]),
            );
            expect(wrong).toBe('');
            const gap = c.subarray(C + m * n, Math.min(c.length, C + strideC));
            expect(gap.every((x, i) => Object.is(x, before[C + m * n + i]))).toBe(true);
          }
        },
      ),
      { numRuns: 80 },
    );
  });
});
