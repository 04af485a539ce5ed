// A probe (run on the dev machine with the CPU-only addon, and on the H100 host): what one round of 20 000 new
// n×n results costs the JavaScript thread with no product at all — each made as the library makes it (`cache`: an
// ArrayBuffer over a block of the result cache), as plain `new Float32Array` (`js`), or taken from arrays made
// beforehand (`out`); then each written once, as the copy out of a batch writes it. Per round: the time to make them (per result),
// the whole round, page faults, MB in the result cache, and the garbage collector's pauses by kind
// (4: mark-compact, 8: incremental marking, 1: scavenge).
//   CUDA_MATMUL_ADDON=build-cpu-only/Release/cuda_matmul.node node bench/probes/result-round-cost.js 64 cache|js|out
'use strict';
const { PerformanceObserver } = require('perf_hooks');
const { native } = require('../../dist/native');

let gcMs = 0, gcCount = 0, byKind = {};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcMs += entry.duration, gcCount++;
    byKind[entry.detail.kind] = (byKind[entry.detail.kind] ?? 0) + entry.duration;
  }
}).observe({ entryTypes: ['gc'] });
const now = () => Number(process.hrtime.bigint()) / 1e3; // µs

const n = Number(process.argv[2] ?? 64), mode = process.argv[3] ?? 'cache', count = 20000, length = n * n;
const outs = mode === 'out' ? Array.from({ length: count }, () => new Float32Array(length)) : [];
const make = {
  cache: () => new Float32Array(native.resultBuffer(length), 0, length),
  js: () => new Float32Array(length),
  out: (i) => outs[i],
}[mode];
const written = new Float32Array(length).fill(2);

(async () => {
  for (let round = 0; round < 8; round++) {
    gcMs = 0, gcCount = 0, byKind = {};
    const faults = process.resourceUsage().minorPageFault, start = now(), results = [];
    for (let i = 0; i < count; i++) results.push(make(i));
    const made = now() - start;
    for (const result of results) result.set(written);
    const total = now() - start;
    await new Promise((resolve) => setImmediate(resolve));
    if (round < 3) continue;
    const kinds = Object.entries(byKind).map(([kind, ms]) => `${kind}: ${ms.toFixed(1)}`).join(', ');
    console.log(`${n}³ ${mode}: make ${(made / count).toFixed(2)} µs each, round ${(total / 1e3).toFixed(1)} ms, ` +
      `${process.resourceUsage().minorPageFault - faults} faults, ${(native.cudaInfo().memory.resultBytesCached / 2 ** 20).toFixed(0)} MiB cached, ` +
      `gc ${gcCount} pauses ${gcMs.toFixed(1)} ms (${kinds})`);
  }
})();
