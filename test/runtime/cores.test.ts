// The JavaScript thread keeps its core (core/core_budget.h): however many CPU products are in flight, the library
// keeps at most all cores but one busy with them, counting only the cores this process may run on
// (core/process_limits.h). Counted from /proc in a child process: its threads in state R (running, or waiting for a
// core), sampled from its JavaScript thread (itself one of them) while 16 CPU products run at once; the median of
// the samples, as V8's own helpers (garbage collection, 4 threads) are caught at work in bursts, and a thread that
// has just finished its product now and then. Before the budget, each product started a thread per core, so 4 pool
// threads kept 4 × cores threads busy (9 on a 2-core machine). Before the budget counted the usable cores, a process
// confined to 2 CPUs of a machine showing 16 online (a container's cpuset) kept a median of 5 to 9 busy.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { matmul } from '../../lib';
import { describeChild, runScenario, type ChildResult } from '../support/child';
import { cgroupFiles, confinement, manyOnline, runConfined, type StandIn } from '../support/confined';
import { randomMatrix, relativeError } from '../support/helpers';

// What the child prints: the median of its runnable threads, its product's error, and what info().cpu says.
const productsInFlight = `
  const fs = require('fs');
  const { info, matmul } = require(ROOT);
  function runnableThreads() {
    let count = 0;
    for (const task of fs.readdirSync('/proc/self/task')) {
      try {
        const stat = fs.readFileSync('/proc/self/task/' + task + '/stat', 'utf8');
        if (stat[stat.lastIndexOf(')') + 2] === 'R') count++;
      } catch {} // the thread ended meanwhile
    }
    return count;
  }
  (async () => {
    const n = 1024;
    const a = Float32Array.from({ length: n * n }, () => Math.random() * 2 - 1);
    const b = Float32Array.from({ length: n * n }, () => Math.random() * 2 - 1);
    const products = Array.from({ length: 16 }, () => matmul(a, b, { m: n, k: n, n }, { backend: 'cpu' }));
    const samples = [];
    let running = true;
    void Promise.all(products).finally(() => (running = false));
    while (running) {
      samples.push(runnableThreads());
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const c = (await Promise.all(products))[15];
    let diff = 0, norm = 0;
    for (let j = 0; j < n; j++) {
      let want = 0;
      for (let p = 0; p < n; p++) want += a[7 * n + p] * b[p * n + j];
      diff += (c[7 * n + j] - want) ** 2; norm += want ** 2;
    }
    samples.sort((x, y) => x - y);
    const median = samples[Math.floor(samples.length / 2)];
    console.log(JSON.stringify({ samples: samples.length, median, error: Math.sqrt(diff / norm), cpu: info().cpu }));
  })().catch((error) => { console.error(error); process.exit(1); });`;

interface Measured {
  samples: number;
  median: number;
  error: number;
  cpu: { cores: number; threads: number };
}

function measured(result: ChildResult): Measured {
  if (result.status !== 0) throw new Error(describeChild(result));
  return JSON.parse(result.output.trim().split('\n').pop() as string);
}

// The library's share, the JavaScript thread, and one more caught finishing its product.
function expectWithinBudget(result: Measured, cores: number): void {
  expect(result.samples).toBeGreaterThanOrEqual(10);
  expect(result.error).toBeLessThan(1e-5);
  expect(result.median).toBeLessThanOrEqual(Math.max(1, cores - 1) + 1 + 1);
}

const linux = process.platform === 'linux';
(linux ? test : test.skip)(`16 CPU products in flight keep at most cores − 1 threads busy, beside the JavaScript thread${linux ? '' : ' — SKIPPED, needs /proc'}`, () => {
  const result = measured(runScenario(productsInFlight));
  expectWithinBudget(result, os.availableParallelism());
});

// One CPU's quota, in the file cgroup v2 or v1 keeps it in (v1's period is read, to make the quota equal to it).
const quotaFile = confinement ? undefined : cgroupFiles('cpu', 'cpu.max', 'cpu.cfs_quota_us').find((found) => found.own);
const oneCpuQuota: StandIn[] = !quotaFile ? [] : quotaFile.version === 2 ? [[quotaFile.file, '100000 100000\n']]
  : [[quotaFile.file, fs.readFileSync(path.join(path.dirname(quotaFile.file), 'cpu.cfs_period_us'), 'utf8')]];

(confinement ? describe.skip : describe)(`a process confined to fewer CPUs than the machine shows${confinement ? ` — SKIPPED, ${confinement}` : ''}`, () => {
  test('its affinity (a cpuset) bounds the budget: 16 CPU products keep at most its cores − 1 threads busy', () => {
    // Node counts the affinity mask (and, from Node 22, the quota too), which a fake online list does not change.
    const result = measured(runConfined(productsInFlight, [manyOnline]));
    expectWithinBudget(result, os.availableParallelism());
    expect(result.cpu.cores).toBeLessThanOrEqual(os.availableParallelism());
    expect(result.cpu.threads).toBe(Math.max(1, result.cpu.cores - 1));
  });

  (quotaFile ? test : test.skip)(`its cgroup's CPU quota bounds the budget: one CPU's quota gives one core, one thread${quotaFile ? '' : ' — SKIPPED, no cgroup CPU quota file for this process'}`, () => {
    const result = measured(runConfined(productsInFlight, [manyOnline, ...oneCpuQuota]));
    expect(result.cpu).toEqual({ cores: 1, threads: 1 });
    expectWithinBudget(result, 1);
  });

  test('CUDA_MATMUL_CPU_THREADS sets the threads, whatever the cores', () => {
    const result = runConfined(`console.log(JSON.stringify(require(ROOT).info().cpu))`, [manyOnline], { CUDA_MATMUL_CPU_THREADS: '3' });
    if (result.status !== 0) throw new Error(describeChild(result));
    const cpu = JSON.parse(result.output);
    expect(cpu.cores).toBeLessThanOrEqual(os.availableParallelism());
    expect(cpu.threads).toBe(3);
  });
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
