// A probe: where a round of 20 000 concurrent small products goes on the JavaScript thread: the synchronous
// loop that makes the calls (issue, per call), the wait for the last result after it, and the garbage collector's
// pauses (perf_hooks 'gc' entries) within the round, new results against each call's own `out`.
//   node bench/probes/small-round-split.js [n...]
'use strict';
const { PerformanceObserver } = require('perf_hooks');
const { matmul } = require('../..');
const { random } = require('../inputs');

let gcMs = 0, gcCount = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) (gcMs += entry.duration), gcCount++;
}).observe({ entryTypes: ['gc'] });
const now = () => Number(process.hrtime.bigint()) / 1e3; // µs

async function rounds(n, into, count = 20000) {
  const pairs = Array.from({ length: 64 }, () => [random(n * n), random(n * n)]);
  const outs = into ? Array.from({ length: count }, () => new Float32Array(n * n)) : [];
  for (let round = 0; round < 6; round++) {
    gcMs = 0, gcCount = 0;
    const start = now(), calls = [];
    for (let i = 0; i < count; i++)
      calls.push(matmul(pairs[i % 64][0], pairs[i % 64][1], { m: n, k: n, n }, into ? { out: outs[i] } : {}));
    const issued = now();
    await Promise.all(calls);
    const end = now();
    if (round < 2) continue;
    console.log(`${n}³ ${into ? 'out' : 'new'}: ${Math.round(count / ((end - start) / 1e6))}/s, issue ` +
      `${((issued - start) / count).toFixed(2)} µs/call, wait ${((end - issued) / 1e3).toFixed(1)} ms, gc ${gcCount} ${gcMs.toFixed(1)} ms`);
  }
}

(async () => {
  for (const n of (process.argv.slice(2).length ? process.argv.slice(2) : ['16', '64']).map(Number))
    for (const into of [false, true]) await rounds(n, into);
})();
