// Teardown inside a user's process: a Worker terminated, or the process exiting, while products are in flight
// or queued must never abort the process, and must not wait for queued work. Each scenario runs in a child
// process and is judged by its exit status and output (test/support/child.ts).
import { describeChild, runScenario } from '../support/child';

const BACKENDS = ['cpu', ...(require('../../lib').info().backend === 'cuda' ? ['cuda'] : [])];

// In a worker: starts one call of the given kind, tells the parent it is in flight, and never awaits it.
const WORKER_CALLS: Record<string, string> = {
  matmul: `matmul(a, b, { m: n, k: n, n }, { backend })`,
  // On CUDA all but the first are gathered (lib/batching.ts): the environment ends holding their arrays.
  'small matmuls': `matmul(a.subarray(0, 4096), b.subarray(0, 4096), { m: 64, k: 64, n: 64 }, { backend })`,
  gemm: `gemm({ a, b, c: new Float32Array(n * n), m: n, k: n, n }, { backend })`,
  'Matrix.from': `Matrix.from(a, n, n, { backend })`,
  'Matrix#matmul': `Matrix.from(a, n, n, { backend }).then((A) => A.matmul(A))`,
  'Matrix#search': `Matrix.from(a, n, n, { backend }).then((A) => A.search(b.subarray(0, 16 * n), { k: 10, metric: 'cosine' }))`,
};

function workerSource(call: string, backend: string, count: number): string {
  return `
    const { parentPort } = require('worker_threads');
    const { matmul, gemm, Matrix } = require(${JSON.stringify(require('path').join(__dirname, '..', '..'))});
    const backend = ${JSON.stringify(backend)}, n = 384;
    const a = Float32Array.from({ length: n * n }, () => Math.random() - 0.5), b = a.slice();
    for (let i = 0; i < ${count}; i++) ${call}.catch(() => {});
    parentPort.postMessage('in flight');`;
}

// The idle trim is a thread-pool task (native/binding/addon.cpp, TrimIdle): it may be freeing page-locked and device
// memory while the process exits or the Worker that started it is terminated. trimsInFlight() runs products on
// `backend` (filling the pools), then starts 8 trims without awaiting them.
function trimsSource(backend: string): string {
  const root = require('path').join(__dirname, '..', '..');
  return `
    const { Matrix } = require(${JSON.stringify(root)});
    const { native } = require(${JSON.stringify(require('path').join(root, 'dist', 'native'))});
    const trimsInFlight = async () => {
      const A = await Matrix.from(Float32Array.from({ length: 256 * 256 }, () => Math.random() - 0.5), 256, 256, { backend: ${JSON.stringify(backend)} });
      await Promise.all(Array.from({ length: 16 }, () => A.matmul(A).then((C) => C.toArray().then(() => C.dispose()))));
      A.dispose();
      for (let i = 0; i < 8; i++) native.trimIdle(0).catch(() => {});
    };`;
}

// Each kind of work a terminated Worker may have in flight, as the Worker's source: it tells the parent once the work
// is in flight.
function workerSources(backend: string): [string, string][] {
  const calls = Object.entries(WORKER_CALLS).map(([kind, call]): [string, string] => [kind, workerSource(call, backend, 8)]);
  const trims = `${trimsSource(backend)}\n    trimsInFlight().then(() => require('worker_threads').parentPort.postMessage('in flight'));`;
  return [...calls, ['idle trims', trims]];
}

describe.each(BACKENDS)('teardown on backend %s', (backend) => {
  test.each(workerSources(backend))('Worker terminated with %s in flight: no abort, later calls work', (_kind, source) => {
    const result = runScenario(`
      const { Worker } = require('worker_threads');
      const { matmul } = require(ROOT);
      const worker = new Worker(${JSON.stringify(source)}, { eval: true });
      worker.once('message', async () => {
        await worker.terminate();
        const c = await matmul(new Float32Array([1, 2]), new Float32Array([3, 4]), { m: 1, k: 2, n: 1 }, { backend: ${JSON.stringify(backend)} });
        console.log('after terminate', c[0]);
      });`);
    expect(result.signal).toBeNull();
    expect(result.status).toBe(0);
    expect(result.output).toContain('after terminate 11');
    expect(result.output).not.toMatch(/terminate called|FATAL|Napi::Error/);
  });

  test('process.exit(7) while a Worker has products in flight exits with 7', () => {
    const result = runScenario(`
      const { Worker } = require('worker_threads');
      const worker = new Worker(${JSON.stringify(workerSource(WORKER_CALLS['Matrix#matmul'], backend, 8))}, { eval: true });
      worker.once('message', () => process.exit(7));`);
    expect(result.signal).toBeNull();
    expect(result.status).toBe(7);
    expect(result.output).not.toMatch(/terminate called|FATAL|Napi::Error/);
  });

  test('process.exit(5) with small products gathered and not yet run (on CUDA) exits with 5', () => {
    const result = runScenario(`
      const { matmul } = require(ROOT);
      const a = Float32Array.from({ length: 4096 }, () => Math.random() - 0.5);
      for (let i = 0; i < 50; i++) matmul(a, a, { m: 64, k: 64, n: 64 }, { backend: ${JSON.stringify(backend)} }).catch(() => {});
      process.exit(5);`);
    expect(result.signal).toBeNull();
    expect(result.status).toBe(5);
    expect(result.output).not.toMatch(/terminate called|FATAL|Napi::Error/);
  });

  test('process.exit(6) with idle trims in flight exits with 6', () => {
    const result = runScenario(`${trimsSource(backend)}
      trimsInFlight().then(() => process.exit(6));`);
    expect(result.signal).toBeNull();
    expect(result.status).toBe(6);
    expect(result.output).not.toMatch(/terminate called|FATAL|Napi::Error/);
  });

  test('process.exit() inside a Worker with products in flight: the worker exits with its code, the process lives', () => {
    const result = runScenario(`
      const { Worker } = require('worker_threads');
      const source = ${JSON.stringify(workerSource(WORKER_CALLS.matmul, backend, 8))} + ';process.exit(3);';
      const worker = new Worker(source, { eval: true });
      worker.on('exit', (code) => console.log('worker exit', code));`);
    expect(result.signal).toBeNull();
    expect(result.status).toBe(0);
    expect(result.output).toContain('worker exit 3');
  });
});

// Queued products that have not started are dropped at exit; a running one stops at its next k-slice (the exit
// handler tells the addon at once). The scenario times one product first (0.2 s for 3072³ on a fast 2-core
// machine, seconds under AddressSanitizer), then queues 40: run one after another they took 11 s to exit before.
// The bound is five products' time and a second at process exit.
const QUEUED = `
  const { matmul } = require(ROOT);
  const n = 3072;
  const a = Float32Array.from({ length: n * n }, () => Math.random() - 0.5);
  const queue = async () => {
    const started = performance.now();
    await matmul(a, a, { m: n, k: n, n }, { backend: 'cpu' });
    console.log('one product', (performance.now() - started) / 1000);
    for (let i = 0; i < 40; i++) matmul(a, a, { m: n, k: n, n }, { backend: 'cpu' }).catch(() => {});
  };`;

const numberAfter = (label: string, output: string) => Number(new RegExp(`${label} ([0-9.]+)`).exec(output)?.[1]);

test('process.exit() with 40 large CPU products queued exits within five products\' time', () => {
  const result = runScenario(`${QUEUED}
    queue().then(() => setTimeout(() => { console.log('exit at', performance.now() / 1000); process.exit(5); }, 100));`);
  expect(result.status).toBe(5);
  const bound = 5 * numberAfter('one product', result.output) + 1;
  expect(result.seconds - numberAfter('exit at', result.output)).toBeLessThan(bound);
});

// A terminated Worker: the product computing when terminate() is called finishes, since nothing tells the addon
// before its Promise cannot be settled. Another may take the freed core before that moment; it stops at its next
// k-slice (cpu/gemm.cpp). It used to compute to the end, so termination took two products' time (a timed bound of
// two failed under AddressSanitizer). Counted, not timed: the products write into shared memory poisoned with NaN,
// and the parent looks at what each wrote once the Worker is gone.
test('Worker terminated with large CPU products queued: one runs to the end, at most one more begins; the main thread still multiplies', () => {
  const worker = `
    const { workerData: { a, outs }, parentPort } = require('worker_threads');
    const { matmul } = require(${JSON.stringify(require('path').join(__dirname, '..', '..'))});
    const n = 3072;
    for (const out of outs) matmul(a, a, { m: n, k: n, n }, { backend: 'cpu', out }).catch(() => {});
    parentPort.postMessage('queued');`;
  const result = runScenario(`
    const { Worker } = require('worker_threads');
    const { matmul } = require(ROOT);
    const n = 3072, shared = () => new Float32Array(new SharedArrayBuffer(4 * n * n));
    const a = shared().map(() => Math.random() - 0.5);
    const outs = Array.from({ length: 8 }, () => shared().fill(NaN));
    const worker = new Worker(${JSON.stringify(worker)}, { eval: true, workerData: { a, outs } });
    worker.once('message', async () => {
      await worker.terminate();
      const expected = await matmul(a, a, { m: n, k: n, n }, { backend: 'cpu' });
      const complete = (c) => c.every((v, i) => Math.abs(v - expected[i]) <= 1e-5 * (1 + Math.abs(expected[i])));
      const untouched = (c) => c.every(Number.isNaN);
      console.log('complete', outs.filter(complete).length);
      console.log('begun', outs.filter((c) => !untouched(c)).length);
    });`);
  expect(result.status).toBe(0);
  expect(numberAfter('complete', result.output)).toBe(1);
  expect(numberAfter('begun', result.output)).toBeLessThanOrEqual(2);
});
