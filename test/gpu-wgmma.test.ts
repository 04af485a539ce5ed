// The GPU suite, Hopper's wgmma kernel in both precisions (its own file so that jest runs it beside the others).
// Without a usable GPU of compute capability 9.0 it is reported as skipped.
import { correctnessSuite } from './correctness.shared';
import { matmul } from '../lib';
import { describeChild, runScenario } from './child';
import { describeGpu, describeHopper, FP32_TOLERANCE, gpuSuiteName, isHopper, K_FILL_SHAPES, LARGE_SHAPES, MMA_TILE_SHAPES, PANEL_SHAPES, SMALL_SHAPES, TF32_TOLERANCE, WGMMA_AUTO_SHAPE, WGMMA_ROW64_SHAPES } from './helpers';

describeGpu(gpuSuiteName('CUDA backend, kernel wgmma'), () => {
  describeHopper('kernel wgmma, precision tf32', () => {
    correctnessSuite({ backend: 'cuda', kernel: 'wgmma', precision: 'tf32' }, [...SMALL_SHAPES, ...LARGE_SHAPES, ...MMA_TILE_SHAPES, ...PANEL_SHAPES, WGMMA_AUTO_SHAPE, ...K_FILL_SHAPES], TF32_TOLERANCE);
  });
  // fp32 is 3xTF32 on it.
  describeHopper('kernel wgmma, precision fp32 (3xTF32)', () => {
    correctnessSuite({ backend: 'cuda', kernel: 'wgmma' }, [...SMALL_SHAPES, ...LARGE_SHAPES, ...MMA_TILE_SHAPES, ...PANEL_SHAPES, WGMMA_AUTO_SHAPE, ...WGMMA_ROW64_SHAPES, ...K_FILL_SHAPES], FP32_TOLERANCE);
  });
  // It reads A as held (row-major, or Aᵀ), and multiplies Bᵀ in TF32 parts (twice B's size in fp32) made from B as
  // held: a B held as Bᵀ is rounded as stored. So an operand held transposed is never copied first. Measured in a
  // fresh process, where no pool holds such a copy; the products are those 'auto' gives wgmma in fp32.
  describeHopper('kernel wgmma, operands held transposed', () => {
    test.each([
      ['A', 8192, 1024, 512, true, false],
      ['B', 1024, 512, 8192, false, true],
    ])('%s held transposed, %i×%i×%i: device memory grows by B\'s TF32 parts alone, and the product is right', (_name, m, k, n, transA, transB) => {
      const result = runScenario(`
        const { gemm, info, Matrix } = require(ROOT);
        const held = () => info().memory.deviceBytesInUse + info().memory.deviceBytesCached;
        (async () => {
          const [m, k, n, transA, transB] = [${m}, ${k}, ${n}, ${transA}, ${transB}];
          const random = (length) => Float32Array.from({ length }, () => Math.random() * 2 - 1);
          const a = random(m * k), b = random(k * n);  // as held: Aᵀ (k×m) where transA, Bᵀ (n×k) where transB
          const [A, B, C] = await Promise.all([
            Matrix.from(a, transA ? k : m, transA ? m : k), Matrix.from(b, transB ? n : k, transB ? k : n), Matrix.from(new Float32Array(m * n), m, n),
          ]);
          const before = held();
          await gemm({ a: A, b: B, c: C, m, k, n, transA, transB });
          const grown = held() - before;
          const c = await C.toArray();
          const elementA = (i, p) => (transA ? a[p * m + i] : a[i * k + p]), elementB = (p, j) => (transB ? b[j * k + p] : b[p * n + j]);
          let diff = 0, norm = 0;
          for (const i of [0, 1, 511, m - 1]) for (let j = 0; j < n; j++) {
            let want = 0;
            for (let p = 0; p < k; p++) want += elementA(i, p) * elementB(p, j);
            diff += (c[i * n + j] - want) ** 2; norm += want ** 2;
          }
          console.log(JSON.stringify({ grown, error: Math.sqrt(diff / norm) }));
        })().catch((error) => { console.error(error); process.exit(1); });
      `);
      if (result.status !== 0) throw new Error(describeChild(result));
      const { grown, error } = JSON.parse(result.output.trim().split('\n').pop() as string);
      // B's parts (2·k·n floats) and small buffers; a transposed copy of an operand adds m·k or k·n floats.
      expect(grown).toBeLessThan(4 * (2.25 * k * n) + 8e6);
      expect(error).toBeLessThanOrEqual(FP32_TOLERANCE);
    });
  });
  (isHopper ? test.skip : test)(`kernel 'wgmma' below compute capability 9.0 is ERR_KERNEL_UNSUPPORTED${isHopper ? ' — SKIPPED, this GPU is 9.0' : ''}`, async () => {
    const attempt = matmul(new Float32Array(4), new Float32Array(4), { m: 2, k: 2, n: 2 }, { kernel: 'wgmma', precision: 'tf32' });
    await expect(attempt).rejects.toMatchObject({ code: 'ERR_KERNEL_UNSUPPORTED' });
  });
});
