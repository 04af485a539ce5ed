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
  // Its operand is Bᵀ in TF32 parts (twice B's size in fp32), made from B as it is held: a B held as Bᵀ is rounded
  // as stored, with no transposed copy of it first. Measured in a fresh process, where no pool holds such a copy.
  describeHopper('kernel wgmma, B held transposed', () => {
    test('fp32 from 1024 rows: device memory grows by the TF32 parts alone, and the product is right', () => {
      const result = runScenario(`
        const { gemm, info, Matrix } = require(ROOT);
        const held = () => info().memory.deviceBytesInUse + info().memory.deviceBytesCached;
        (async () => {
          const [m, k, n] = [1024, 512, 8192];
          const random = (length) => Float32Array.from({ length }, () => Math.random() * 2 - 1);
          const a = random(m * k), bT = random(n * k);
          const [A, B, C] = await Promise.all([Matrix.from(a, m, k), Matrix.from(bT, n, k), Matrix.from(new Float32Array(m * n), m, n)]);
          const before = held();
          await gemm({ a: A, b: B, c: C, m, k, n, transB: true });
          const grown = held() - before;
          const c = await C.toArray();
          let diff = 0, norm = 0;
          for (const i of [0, 1, 511, 1023]) for (let j = 0; j < n; j++) {
            let want = 0;
            for (let p = 0; p < k; p++) want += a[i * k + p] * bT[j * k + p];
            diff += (c[i * n + j] - want) ** 2; norm += want ** 2;
          }
          console.log(JSON.stringify({ grown, bBytes: 4 * n * k, error: Math.sqrt(diff / norm) }));
        })().catch((error) => { console.error(error); process.exit(1); });
      `);
      if (result.status !== 0) throw new Error(describeChild(result));
      const { grown, bBytes, error } = JSON.parse(result.output.trim().split('\n').pop() as string);
      expect(grown).toBeLessThan(2.25 * bBytes); // the parts (2·B) and small buffers; a transposed copy adds 1·B
      expect(error).toBeLessThanOrEqual(FP32_TOLERANCE);
    });
  });
  (isHopper ? test.skip : test)(`kernel 'wgmma' below compute capability 9.0 is ERR_KERNEL_UNSUPPORTED${isHopper ? ' — SKIPPED, this GPU is 9.0' : ''}`, async () => {
    const attempt = matmul(new Float32Array(4), new Float32Array(4), { m: 2, k: 2, n: 2 }, { kernel: 'wgmma', precision: 'tf32' });
    await expect(attempt).rejects.toMatchObject({ code: 'ERR_KERNEL_UNSUPPORTED' });
  });
});
