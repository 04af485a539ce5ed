// The GPU suite, Hopper's wgmma kernel in both precisions (its own file so that jest runs it beside the others).
// Without a usable GPU of compute capability 9.0 it is reported as skipped.
import { correctnessSuite, gemmLayoutsSuite } from '../support/correctness';
import { matmul } from '../../lib';
import { productGrowth } from '../support/child';
import { describeGpu, describeHopper, FP32_TOLERANCE, gpuSuiteName, isHopper, TF32_TOLERANCE } from '../support/helpers';
import { K_SPLIT_TO_FILL_SHAPES, LARGE_UNALIGNED_SHAPES, MMA_BLOCK_TILE_SHAPES, ROW_PANEL_SHAPES, EDGE_SHAPES, AUTO_TAKES_WGMMA_SHAPE, WGMMA_64_ROW_TILE_SHAPES } from '../support/shapes';

describeGpu(gpuSuiteName('CUDA backend, kernel wgmma'), () => {
  describeHopper('kernel wgmma, precision tf32', () => {
    correctnessSuite({ backend: 'cuda', kernel: 'wgmma', precision: 'tf32' }, [...EDGE_SHAPES, ...LARGE_UNALIGNED_SHAPES, ...MMA_BLOCK_TILE_SHAPES, ...ROW_PANEL_SHAPES, AUTO_TAKES_WGMMA_SHAPE, ...K_SPLIT_TO_FILL_SHAPES], TF32_TOLERANCE);
  });
  // fp32 is 3xTF32 on it.
  describeHopper('kernel wgmma, precision fp32 (3xTF32)', () => {
    correctnessSuite({ backend: 'cuda', kernel: 'wgmma' }, [...EDGE_SHAPES, ...LARGE_UNALIGNED_SHAPES, ...MMA_BLOCK_TILE_SHAPES, ...ROW_PANEL_SHAPES, AUTO_TAKES_WGMMA_SHAPE, ...WGMMA_64_ROW_TILE_SHAPES, ...K_SPLIT_TO_FILL_SHAPES], FP32_TOLERANCE);
  });
  // It reads A as held (row-major, or Aᵀ), and multiplies Bᵀ in TF32 parts (twice B's size in fp32) made from B as
  // held: a B held as Bᵀ is rounded as stored. So an operand held transposed is never copied first. Measured in a
  // fresh process, where no pool holds such a copy; the products are those 'auto' gives wgmma in fp32.
  describeHopper('kernel wgmma, operands in every layout, α and β', () => {
    // Its tiles cut at their edges; K split to fill the SMs (37×2500×64) and in two slices (513×2049×1409): α and β in
    // the store, and in the sum of the slices.
    const SHAPES = [[97, 300, 2053], [37, 2500, 64], [513, 2049, 1409]];
    describe.each([['fp32', FP32_TOLERANCE], ['tf32', TF32_TOLERANCE]] as const)('precision %s', (precision, tolerance) => {
      gemmLayoutsSuite({ kernel: 'wgmma', precision }, SHAPES, tolerance);
    });
    test.each([
      ['A', 8192, 1024, 512, true, false],
      ['B', 1024, 512, 8192, false, true],
    ])('%s held transposed, %i×%i×%i: device memory grows by B\'s TF32 parts alone, and the product is right', (_name, m, k, n, transA, transB) => {
      const { grown, error } = productGrowth(m, k, n, transA, transB);
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
