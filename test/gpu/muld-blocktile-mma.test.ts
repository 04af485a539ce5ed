// The GPU suite: the FFMA and mma kernels on every shape in both precisions and with A and B in every layout, α and
// β, row panels, allocHost arrays and the polled small products (wgmma, wgmma-t and 'auto' have their own files, so
// jest runs them side by side). Without a usable GPU it is reported as skipped.
import { productGrowth } from '../support/child';
import { correctnessSuite, gemmLayoutsSuite } from '../support/correctness';
import { pbkdf2 } from 'crypto';
import { promisify } from 'util';
import { allocHost, freeHost, info, matmul, Matrix } from '../../lib';
import { native } from '../../lib/native';
import { describeGpu, FP32_TOLERANCE, gpuSuiteName, randomMatrix, relativeError, TF32_TOLERANCE } from '../support/helpers';
import { LARGE_UNALIGNED_SHAPES, MMA_BLOCK_TILE_SHAPES, ROW_PANEL_SHAPES, EDGE_SHAPES } from '../support/shapes';

const KERNELS = ['muld', 'blocktile', 'mma'] as const;

describeGpu(gpuSuiteName('CUDA backend'), () => {
  describe.each(KERNELS)('kernel %s', (kernel) => {
    correctnessSuite({ backend: 'cuda', kernel }, [...EDGE_SHAPES, ...LARGE_UNALIGNED_SHAPES], FP32_TOLERANCE);
  });
  describe('kernel mma, every block tile the plan can pick', () => {
    correctnessSuite({ backend: 'cuda', kernel: 'mma' }, MMA_BLOCK_TILE_SHAPES, FP32_TOLERANCE);
  });
  describe('kernel mma, precision tf32', () => {
    correctnessSuite({ backend: 'cuda', kernel: 'mma', precision: 'tf32' }, [...EDGE_SHAPES, ...LARGE_UNALIGNED_SHAPES, ...MMA_BLOCK_TILE_SHAPES], TF32_TOLERANCE);
  });
  // muld and blocktile have no TF32 mode: they accept the option and compute in fp32.
  describe.each(['muld', 'blocktile'] as const)('kernel %s, precision tf32', (kernel) => {
    correctnessSuite({ backend: 'cuda', kernel, precision: 'tf32' }, EDGE_SHAPES, FP32_TOLERANCE);
  });
  // Every kernel reads A and B as they are stored and applies α and β as it stores C: mma's tiles (and its 16-byte
  // copies, which with A row-major and Bᵀ need k a multiple of 4), K split into slices, k = 1.
  const LAYOUT_SHAPES = [[97, 131, 61], [255, 257, 129], [37, 1, 53], [1000, 1000, 1000], [17, 4099, 33], [2100, 67, 1999], [33, 9, 25601], [25345, 9, 37]];
  describe.each(KERNELS)('kernel %s, operands in every layout, α and β', (kernel) => {
    gemmLayoutsSuite({ kernel }, LAYOUT_SHAPES, FP32_TOLERANCE);
    // Measured in a fresh process, where no pool holds such a copy: the operand held transposed is 33.6 MB.
    test.each([
      ['A', 8192, 1024, 512, true, false],
      ['B', 512, 1024, 8192, false, true],
    ])('%s held transposed, %i×%i×%i on Matrices: device memory grows by small buffers alone', (_name, m, k, n, transA, transB) => {
      const { grown, error } = productGrowth(m, k, n, transA, transB, { kernel });
      expect(grown).toBeLessThan(4e6);
      expect(error).toBeLessThanOrEqual(FP32_TOLERANCE);
    });
  });
  describe('kernel mma, precision tf32, operands in every layout, α and β', () => {
    gemmLayoutsSuite({ kernel: 'mma', precision: 'tf32' }, LAYOUT_SHAPES, TF32_TOLERANCE);
  });
  describe('row panels: transfers overlapped with the kernels (several panels)', () => {
    correctnessSuite({ backend: 'cuda' }, ROW_PANEL_SHAPES, FP32_TOLERANCE);
  });
  test.each(ROW_PANEL_SHAPES.map((s) => [`${s.m}×${s.k}×${s.n}`, s] as const))(
    'allocHost arrays (direct DMA), %s, several panels',
    async (_name, { m, k, n }) => {
      const a = allocHost(m * k);
      a.set(randomMatrix(m * k));
      const b = allocHost(k * n);
      b.set(randomMatrix(k * n));
      const out = allocHost(m * n).fill(NaN);
      await matmul(a, b, { m, k, n }, { out });
      expect(relativeError(out, a, b, m, k, n)).toBeLessThanOrEqual(FP32_TOLERANCE);
      [a, b, out].forEach(freeHost);
    },
  );
  test('allocHost arrays are copied by DMA, with no staging buffer', async () => {
    const { m, k, n } = ROW_PANEL_SHAPES[0];
    const [a, b, out] = [allocHost(m * k).fill(0.5), allocHost(k * n).fill(0.25), allocHost(m * n)];
    await native.trimIdle(0); // frees every cached staging buffer
    expect(info().memory.stagingBytes).toBe(0);
    await matmul(a, b, { m, k, n }, { out });
    expect(info().memory.stagingBytes).toBe(0);
    expect(out[0]).toBeCloseTo(0.125 * k, 4);
    [a, b, out].forEach(freeHost);
  });
  describe('small products, launched from the JavaScript thread and finished by polling', () => {
    const m = 64, k = 64, n = 64;
    test('finish while every thread-pool thread is busy (they do not go through the pool)', async () => {
      await matmul(randomMatrix(m * k), randomMatrix(k * n), { m, k, n }); // brings the device up (that call uses the pool)
      let poolFree = false;
      const busy = Array.from({ length: 4 }, () => promisify(pbkdf2)('x', 'y', 400_000, 64, 'sha512'));
      void Promise.all(busy).then(() => (poolFree = true));
      const a = randomMatrix(m * k), b = randomMatrix(k * n);
      const c = await matmul(a, b, { m, k, n });
      expect(poolFree).toBe(false);
      expect(relativeError(c, a, b, m, k, n)).toBeLessThanOrEqual(FP32_TOLERANCE);
      await Promise.all(busy);
    });
    test('an out detached (transferred) while the product runs rejects with a TypeError; later calls work', async () => {
      const a = randomMatrix(m * k), b = randomMatrix(k * n);
      await matmul(a, b, { m, k, n }); // brings the device up
      const out = new Float32Array(m * n);
      const pending = matmul(a, b, { m, k, n }, { out });
      structuredClone(out.buffer, { transfer: [out.buffer] });
      await expect(pending).rejects.toThrow(/^out: its ArrayBuffer was detached while the product ran/);
      expect(relativeError(await matmul(a, b, { m, k, n }), a, b, m, k, n)).toBeLessThanOrEqual(FP32_TOLERANCE);
    });
    test('stay right behind a long kernel on the GPU (past the spin budget they finish on the pool)', async () => {
      const big = 4096; // fp32: eight products of ~1 ms each on an H100, past the 5 ms spin budget
      const [X, W] = await Promise.all([Matrix.from(randomMatrix(big * big), big, big), Matrix.from(randomMatrix(big * big), big, big)]);
      const long = Promise.all(Array.from({ length: 8 }, () => X.matmul(W)));
      const inputs = Array.from({ length: 8 }, () => [randomMatrix(m * k), randomMatrix(k * n)] as const);
      const results = await Promise.all(inputs.map(([a, b]) => matmul(a, b, { m, k, n })));
      results.forEach((c, i) => expect(relativeError(c, inputs[i][0], inputs[i][1], m, k, n)).toBeLessThanOrEqual(FP32_TOLERANCE));
      (await long).forEach((product) => product.dispose());
      X.dispose();
      W.dispose();
    });
  });
});
