#!/usr/bin/env node
// Which Matrix call holds the JavaScript thread, as a server keeping its weights on the GPU makes them: N loops
// (64 unless given) of Matrix.from → matmul → toArray → dispose against one B, for 3 s after 1 s of warm-up; prints
// products/s, the event-loop delay, GC time, and each call's synchronous part (call to return, not to settle).
//   node bench/matrix-calls.js [MxKxN = 64x4096x1024] [loops = 64]
'use strict';
const { Matrix } = require('..');
const { monitorEventLoopDelay, PerformanceObserver } = require('perf_hooks');
const { now, random } = require('./inputs');

const [m, k, n] = (process.argv[2] || '64x4096x1024').split('x').map(Number);
const LOOPS = Number(process.argv[3] || 64);
const quantile = (xs, q) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;

const calls = { from: [], matmul: [], toArray: [], disposeX: [], disposeY: [] };
// The synchronous part of `call` (until it returns), noted under `name`; its value.
function timed(name, call) {
  const start = now();
  const value = call();
  calls[name].push(now() - start);
  return value;
}

const gc = { count: 0, ms: 0, max: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gc.count++, (gc.ms += entry.duration), (gc.max = Math.max(gc.max, entry.duration));
}).observe({ entryTypes: ['gc'] });

async function main() {
  const a = random(m * k);
  const W = await Matrix.from(random(k * n), k, n);
  let stop = false;
  let products = 0;
  const loop = async () => {
    while (!stop) {
      const X = await timed('from', () => Matrix.from(a, m, k));
      const Y = await timed('matmul', () => X.matmul(W));
      await timed('toArray', () => Y.toArray());
      timed('disposeX', () => X.dispose());
      timed('disposeY', () => Y.dispose());
      products++;
    }
  };
  const loops = Array.from({ length: LOOPS }, loop);
  await new Promise((resolve) => setTimeout(resolve, 1000)); // warm-up: pools, streams, caches
  for (const name in calls) calls[name].length = 0;
  Object.assign(gc, { count: 0, ms: 0, max: 0 });
  products = 0;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const start = now();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  delay.disable();
  const seconds = (now() - start) / 1000;
  stop = true;
  await Promise.all(loops);
  W.dispose();
  console.log(
    `${m}x${k}x${n}, ${LOOPS} loops: ${(products / seconds).toFixed(0)} products/s; ` +
      `loop delay p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms max ${(delay.max / 1e6).toFixed(1)}; ` +
      `GC ${gc.count} times, ${gc.ms.toFixed(0)} ms total, max ${gc.max.toFixed(1)}`,
  );
  for (const [name, ms] of Object.entries(calls))
    console.log(
      `  ${name.padEnd(9)} sync part: median ${quantile(ms, 0.5).toFixed(3)} ms p99 ${quantile(ms, 0.99).toFixed(3)} ` +
        `max ${quantile(ms, 1).toFixed(3)} (${ms.length})`,
    );
}

main();
