// The JavaScript thread keeps its core (core/core_budget.h): however many CPU products are in flight, the library
// keeps at most all cores but one busy with them. Counted from /proc: this process's threads in state R (running, or
// waiting for a core), sampled from the JavaScript thread (itself one of them) while 16 CPU products run at once; the
// median of the samples, as V8's own helpers (garbage collection, 4 threads) are caught at work in bursts, and a
// thread that has just finished its product now and then. Before, each product started a thread per core, so 4 pool
// threads kept 4 × cores threads busy (9 on a 2-core machine).
import * as fs from 'fs';
import * as os from 'os';
import { matmul } from '../../lib';
import { randomMatrix, relativeError } from '../support/helpers';

function runnableThreads(): number {
  let count = 0;
  for (const task of fs.readdirSync('/proc/self/task')) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      if (stat[stat.lastIndexOf(')') + 2] === 'R') count++;
    } catch {
      // the thread ended meanwhile
    }
  }
  return count;
}

const linux = process.platform === 'linux';
(linux ? test : test.skip)(`16 CPU products in flight keep at most cores − 1 threads busy, beside the JavaScript thread${linux ? '' : ' — SKIPPED, needs /proc'}`, async () => {
  const cores = os.availableParallelism();
  const n = 1024;
  const a = randomMatrix(n * n), b = randomMatrix(n * n);
  const products = Array.from({ length: 16 }, () => matmul(a, b, { m: n, k: n, n }, { backend: 'cpu' }));
  const samples: number[] = [];
  let running = true;
  void Promise.all(products).finally(() => (running = false));
  while (running) {
    samples.push(runnableThreads());
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(products);
  expect(samples.length).toBeGreaterThanOrEqual(10);
  const median = samples.sort((x, y) => x - y)[Math.floor(samples.length / 2)];
  // The library's share, the JavaScript thread, and one more caught finishing its product.
  expect(median).toBeLessThanOrEqual(Math.max(1, cores - 1) + 1 + 1);
});

// A product small enough to cost less than a thread-pool round trip runs on the JavaScript thread at once
// (core/request.h, runsOnCaller), on that thread's own core: it neither queues behind large products for a pool
// thread nor waits for a core of the budget they hold. Before, it settled only after one of them.
test('a small CPU product settles at once, not behind large ones holding the thread pool and every core of the budget', async () => {
  const n = 768;
  const a = randomMatrix(n * n), b = randomMatrix(n * n);
  const settled: string[] = [];
  const large = Array.from({ length: 8 }, () =>
    matmul(a, b, { m: n, k: n, n }, { backend: 'cpu' }).then(() => settled.push('large')),
  );
  const smallA = randomMatrix(16 * 24), smallB = randomMatrix(24 * 16);
  const small = await matmul(smallA, smallB, { m: 16, k: 24, n: 16 }, { backend: 'cpu' });
  settled.push('small');
  await Promise.all(large);
  expect(settled.indexOf('small')).toBe(0);
  expect(relativeError(small, smallA, smallB, 16, 24, 16)).toBeLessThanOrEqual(1e-6);
});
