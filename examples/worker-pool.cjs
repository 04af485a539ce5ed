// A pool of worker threads, each multiplying what the main thread sends it (the addon works in every
// thread). The inputs are transferred, not copied; results come back the same way, matched by job id.
//   node examples/worker-pool.cjs
const { Worker, isMainThread, parentPort } = require('worker_threads');

if (isMainThread) {
  const waiting = new Map(); // job id → resolve
  const workers = Array.from({ length: 3 }, () =>
    new Worker(__filename).on('message', ({ id, c }) => {
      waiting.get(id)(c);
      waiting.delete(id);
    }),
  );
  let nextId = 0;
  const multiply = (a, b, shape) =>
    new Promise((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      workers[id % workers.length].postMessage({ id, a, b, shape }, [a.buffer, b.buffer]);
    });
  (async () => {
    const n = 128;
    const results = await Promise.all(
      Array.from({ length: 9 }, (_, i) => multiply(new Float32Array(n * n).fill(i), new Float32Array(n * n).fill(1 / n), { m: n, k: n, n })),
    );
    console.log('C[0] of each job:', results.map((c) => c[0]).join(' ')); // job i: i
    await Promise.all(workers.map((worker) => worker.terminate()));
  })();
} else {
  const { matmul } = require('cuda-matmul');
  parentPort.on('message', async ({ id, a, b, shape }) => {
    const c = await matmul(a, b, shape);
    parentPort.postMessage({ id, c }, [c.buffer]);
  });
}
