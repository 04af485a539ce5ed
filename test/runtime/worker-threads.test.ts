// The addon loads and works inside Node worker threads too (each has its own environment: the Matrix
// class and the pools must not be shared wrongly), several at once, alongside the main thread.
import * as path from 'path';
import { Worker } from 'worker_threads';
import { matmul } from '../../lib';
import { randomMatrix, relativeError } from '../support/helpers';

const root = path.join(__dirname, '..', '..');

// Runs in the worker: a matmul, a Matrix product and a gemm on the backend given; posts the errors back.
const WORKER = `
const { parentPort, workerData } = require('worker_threads');
const { matmul, Matrix, gemm } = require(workerData.root);
const ref = (a, b, m, k, n) => { const c = new Float64Array(m * n); for (let i = 0; i < m; i++) for (let p = 0; p < k; p++) for (let j = 0; j < n; j++) c[i * n + j] += a[i * k + p] * b[p * n + j]; return c; };
const err = (c, r) => { let d = 0, s = 0; r.forEach((x, i) => { d += (c[i] - x) ** 2; s += x * x; }); return Math.sqrt(d / s); };
(async () => {
  const [m, k, n] = [37, 53, 29];
  const a = Float32Array.from({ length: m * k }, () => Math.random() - 0.5);
  const b = Float32Array.from({ length: k * n }, () => Math.random() - 0.5);
  const want = ref(a, b, m, k, n);
  const viaMatmul = err(await matmul(a, b, { m, k, n }, { backend: workerData.backend }), want);
  const A = await Matrix.from(a, m, k, { backend: workerData.backend });
  const B = await Matrix.from(b, k, n, { backend: workerData.backend });
  const viaMatrix = err(await (await A.matmul(B)).toArray(), want);
  const c = new Float32Array(m * n);
  await gemm({ a, b, c, m, k, n }, { backend: workerData.backend });
  parentPort.postMessage([viaMatmul, viaMatrix, err(c, want)]);
})().catch((e) => parentPort.postMessage(String(e)));
`;

function runWorker(backend: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { root, backend } });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

test('matmul, Matrix and gemm in 4 worker threads at once, and on the main thread meanwhile', async () => {
  const workers = Promise.all(Array.from({ length: 4 }, () => runWorker('auto')));
  const a = randomMatrix(64 * 64);
  const c = await matmul(a, a, { m: 64, k: 64, n: 64 });
  expect(relativeError(c, a, a, 64, 64, 64)).toBeLessThanOrEqual(1e-5);
  for (const errors of await workers) {
    expect(Array.isArray(errors)).toBe(true); // a string is the worker's error
    for (const e of errors as number[]) expect(e).toBeLessThanOrEqual(1e-5);
  }
});
