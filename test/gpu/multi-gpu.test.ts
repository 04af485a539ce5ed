// Several GPUs: `device` picks one, info().devices lists all, work on different devices runs side by side
// and never mixes. Skipped visibly on machines with fewer than two usable GPUs.
import { gemm, info, matmul, Matrix } from '../../lib';
import { describeChild, runScenario } from '../support/child';
import { randomMatrix, relativeError } from '../support/helpers';

const devices = info().devices;
const describeMultiGpu = devices.length >= 2 ? describe : describe.skip;
const suiteName =
  devices.length >= 2
    ? `several GPUs (${devices.map((d) => d.name).join(', ')})`
    : `several GPUs — SKIPPED, ${devices.length} usable GPU(s) here`;

describeMultiGpu(suiteName, () => {
  // Each device's ordered stream (native/cuda/resident.cu) is made by the first Matrix operation queued on it, on the
  // JavaScript thread, whose current device is whatever the call before left: here device 0's. The operands are
  // uploaded beforehand (off that thread), so nothing on it makes device 1 current first. A fresh process each, so that
  // no stream is made yet; device 1's operation must still run, right, on device 1.
  test.each(['gemm', 'search'])('the first Matrix %s on device 1, queued right after one on device 0, is right', (operation) => {
    const child = runScenario(`
      const { gemm, Matrix } = require(ROOT);
      const n = 96, random = () => Float32Array.from({ length: n * n }, () => Math.random() * 2 - 1);
      const operation = ${JSON.stringify(operation)};
      const run = (a, b, c) => (operation === 'gemm' ? gemm({ a, b, c, m: n, k: n, n }).then(() => c.toArray()) : a.search(b, { k: 3 }).then((r) => r.scores));
      (async () => {
        const [a, b] = [random(), random()];
        const on = (device) => Promise.all([a, b, new Float32Array(n * n)].map((x) => Matrix.from(x, n, n, { device })));
        const [[A0, B0, C0], [A1, B1, C1]] = await Promise.all([on(0), on(1)]);
        const [x, y] = await Promise.all([run(A0, B0, C0), run(A1, B1, C1)]);
        const same = x.every((v, i) => v === y[i]);
        console.log(same ? 'same on both devices' : 'DIFFERENT');
        process.exit(same ? 0 : 2);
      })().catch((error) => { console.error(error); process.exit(3); });
    `);
    expect(`${child.status} ${child.output.trim().split('\n').pop()}`).toBe('0 same on both devices');
    if (child.status !== 0) throw new Error(describeChild(child));
  });

  test('every device listed multiplies correctly when chosen', async () => {
    const [m, k, n] = [255, 257, 129];
    for (const { index } of devices) {
      const a = randomMatrix(m * k);
      const b = randomMatrix(k * n);
      const c = await matmul(a, b, { m, k, n }, { backend: 'cuda', device: index });
      expect(relativeError(c, a, b, m, k, n)).toBeLessThanOrEqual(1e-5);
    }
  });

  test('small products, launched from the JavaScript thread, are right on every device', async () => {
    const [m, k, n] = [64, 64, 64];
    for (const { index } of devices)
      for (let i = 0; i < 20; i++) {
        const a = randomMatrix(m * k);
        const b = randomMatrix(k * n);
        const c = await matmul(a, b, { m, k, n }, { backend: 'cuda', device: index });
        expect(relativeError(c, a, b, m, k, n)).toBeLessThanOrEqual(1e-5);
      }
  });

  test('calls spread over all devices at once are all correct', async () => {
    const calls = Array.from({ length: 200 }, (_, i) => {
      const [m, k, n] = [[64, 64, 64], [97, 131, 61], [1000, 33, 900]][i % 3];
      return { m, k, n, a: randomMatrix(m * k), b: randomMatrix(k * n), device: i % devices.length };
    });
    const results = await Promise.all(calls.map(({ a, b, m, k, n, device }) => matmul(a, b, { m, k, n }, { device })));
    calls.forEach(({ a, b, m, k, n }, i) => expect(relativeError(results[i], a, b, m, k, n)).toBeLessThanOrEqual(1e-5));
  });

  test('Matrices live on the device asked for; mixing devices is a RangeError', async () => {
    const [m, k, n] = [40, 50, 60];
    const x = randomMatrix(m * k);
    const w = randomMatrix(k * n);
    const X1 = await Matrix.from(x, m, k, { device: 1 });
    const W1 = await Matrix.from(w, k, n, { device: 1 });
    expect(X1.device).toBe(1);
    const Y = await X1.matmul(W1);
    expect(Y.device).toBe(1);
    expect(relativeError(await Y.toArray(), x, w, m, k, n)).toBeLessThanOrEqual(1e-5);
    const W0 = await Matrix.from(w, k, n, { device: 0 });
    await expect(X1.matmul(W0)).rejects.toThrow(/^matrix: both operands and out must live on the same backend and device/);
    const C = await Matrix.from(new Float32Array(m * n), m, n, { device: 1 });
    await gemm({ a: X1, b: W1, c: C, m, k, n });
    expect(relativeError(await C.toArray(), x, w, m, k, n)).toBeLessThanOrEqual(1e-5);
    // a batch of two on device 1: both products share W1 (strideB 0), results stacked in C2
    const X2 = await Matrix.from(new Float32Array([...x, ...x]), 2 * m, k, { device: 1 });
    const C2 = await Matrix.from(new Float32Array(2 * m * n), 2 * m, n, { device: 1 });
    await gemm({ a: X2, b: W1, c: C2, m, k, n, batch: 2, strideB: 0 });
    const both = await C2.toArray();
    for (const half of [both.subarray(0, m * n), both.subarray(m * n)])
      expect(relativeError(half, x, w, m, k, n)).toBeLessThanOrEqual(1e-5);
  });
});
