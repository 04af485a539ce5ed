// matmul runs off the JavaScript thread: timers keep firing while a 2048³ product is in flight.
import { matmul, matmulSync } from '../lib';
import { randomMatrix } from './helpers';

const N = 2048;
const INTERVAL_MS = 2;

async function ticksDuring(run: () => Promise<unknown> | unknown): Promise<{ ticks: number; elapsed: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, INTERVAL_MS);
  const start = performance.now();
  await run();
  const elapsed = performance.now() - start;
  clearInterval(timer);
  return { ticks, elapsed };
}

test(`timers keep firing during an async ${N}³ matmul`, async () => {
  const a = randomMatrix(N * N);
  const b = randomMatrix(N * N);
  const { ticks, elapsed } = await ticksDuring(() => matmul(a, b, { m: N, k: N, n: N }));
  // A free event loop fires about elapsed/INTERVAL times; demand a quarter of that, and at least one.
  expect(ticks).toBeGreaterThanOrEqual(Math.max(1, Math.floor(elapsed / INTERVAL_MS / 4)));
});

test('control: matmulSync blocks the event loop, so the measure above can fail', async () => {
  const n = 1024;
  const a = randomMatrix(n * n);
  const b = randomMatrix(n * n);
  const { ticks } = await ticksDuring(() => {
    matmulSync(a, b, { m: n, k: n, n });
  });
  expect(ticks).toBe(0);
});
