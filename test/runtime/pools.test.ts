// Device pool accounting (CUDA): after products and Matrices of mixed sizes, in-use returns to exactly 0 once
// nothing is in flight and no Matrix lives, and the caches are given back after the documented idle period.
// In a child process, so that no other test's Matrices (collected whenever the garbage collector gets to
// them) are counted.
import { describeChild, runScenario } from '../support/child';
import { describeGpu, gpuSuiteName } from '../support/helpers';

describeGpu(gpuSuiteName('device pools'), () => {
  test('mixed sizes: in-use back to 0, caches and staging given back after 2 idle seconds', () => {
    const result = runScenario(`
      const { Matrix, matmul, gemm, info } = require(ROOT);
      const fill = (n) => Float32Array.from({ length: n }, () => Math.random() - 0.5);
      (async () => {
        const shapes = [[100, 3000], [1024, 1024], [700, 1500], [2048, 513], [5, 5], [1500, 700], [3000, 100]];
        for (let round = 0; round < 3; round++) {
          // Matrices of several sizes, each block reused for a smaller request next round (the drift's cause).
          const ms = await Promise.all(shapes.map(([r, c]) => Matrix.from(fill(r * c), r, c)));
          const products = await Promise.all([ms[1].matmul(ms[1]), ms[0].matmul(ms[6]), ms[2].matmul(ms[5]), ms[6].matmul(ms[0])]);
          for (const m of [...ms, ...products]) m.dispose();
          // Host-array products through Mul's pooled buffers, and a gemm.
          const sizes = [64, 300, 1000, 2500, 17, 1999].map((s) => s + round);
          await Promise.all(sizes.map((s) => matmul(fill(s * s), fill(s * s), { m: s, k: s, n: s })));
          await gemm({ a: fill(600 * 400), b: fill(400 * 300), c: fill(600 * 300), m: 600, k: 400, n: 300, beta: 1, transB: false });
        }
        await new Promise((resolve) => setTimeout(resolve, 50)); // dispose() frees once pending operations end
        console.log('in use after', JSON.stringify(info().memory));
        await new Promise((resolve) => setTimeout(resolve, 4500)); // the 2-second idle trim runs every 2 s
        console.log('idle after', JSON.stringify(info().memory));
      })().catch((e) => console.log('ERROR', e.stack));`);
    const memory = (label: string) => JSON.parse(new RegExp(`${label} (\\{.*\\})`).exec(result.output)?.[1] ?? 'null');
    expect(result.status).toBe(0);
    const after = memory('in use after');
    expect(after?.deviceBytesInUse).toBe(0);
    expect(after?.deviceBytesCached).toBeGreaterThan(0);
    const idle = memory('idle after');
    // resultBytesCached and resultBytesPinned (host memory of results) depend on when the garbage collector ran:
    // results.test.ts.
    expect({ ...idle, resultBytesCached: undefined, resultBytesPinned: undefined }).toEqual({ deviceBytesInUse: 0, deviceBytesCached: 0, stagingBytes: 0 });
    if (!idle) throw new Error(describeChild(result));
  });
});
