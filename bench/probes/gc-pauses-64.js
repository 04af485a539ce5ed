// A probe (run from the package root, PKG = another package root to compare): 20 000 concurrent 64³, new results vs own out; GC pauses counted through perf_hooks
const { PerformanceObserver } = require('perf_hooks');
const { matmul } = require(require('path').resolve(process.env.PKG || '.'));
const now = () => Number(process.hrtime.bigint()) / 1e3;
const random = (l) => Float32Array.from({ length: l }, () => Math.random() * 2 - 1);
let gcMs = 0, gcCount = 0;
new PerformanceObserver((list) => { for (const e of list.getEntries()) { gcMs += e.duration; gcCount++; } }).observe({ entryTypes: ['gc'] });
(async () => {
  const n = +(process.env.N || 64), count = 20000;
  const pairs = Array.from({ length: 64 }, () => [random(n * n), random(n * n)]);
  const outs = Array.from({ length: count }, () => new Float32Array(n * n));
  for (const into of [false, true, false, true]) {
    for (let round = 0; round < 3; round++) {
      await new Promise((r) => setTimeout(r, 20));
      const g0 = gcMs, c0 = gcCount, s = now();
      await Promise.all(Array.from({ length: count }, (_, i) => matmul(pairs[i % 64][0], pairs[i % 64][1], { m: n, k: n, n }, into ? { out: outs[i] } : {})));
      const el = now() - s;
      await new Promise((r) => setTimeout(r, 5));
      console.log(`${n}³ ${into ? 'own out' : 'new    '} ${Math.round(count / (el / 1e6))}/s  gc ${gcCount - c0} pauses ${(gcMs - g0).toFixed(1)} ms of ${(el / 1e3).toFixed(1)} ms`);
    }
  }
})();
