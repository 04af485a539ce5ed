// A probe (run from the package root, PKG = another package root to compare): 4096³ new results after rounds of 20 000 small products (as bench/small-products.js): are blocks recycled?
const { PerformanceObserver } = require('perf_hooks');
const { matmul, info } = require(require('path').resolve(process.env.PKG || '.'));
const now = () => Number(process.hrtime.bigint()) / 1e3;
const random = (l) => Float32Array.from({ length: l }, () => Math.random() * 2 - 1);
let gcs = 0; new PerformanceObserver((l) => { gcs += l.getEntries().length; }).observe({ entryTypes: ['gc'] });
(async () => {
  if (!process.env.NOSMALL) for (const n of [16, 64, 128]) {
    const pairs = Array.from({ length: 64 }, () => [random(n * n), random(n * n)]);
    for (let r = 0; r < 4; r++) await Promise.all(Array.from({ length: 20000 }, (_, i) => matmul(pairs[i % 64][0], pairs[i % 64][1], { m: n, k: n, n })));
  }
  const N = 4096, a = random(N * N), b = random(N * N);
  for (const phase of ['after small', 'after gc()']) {
    if (phase === 'after gc()') { global.gc(); await new Promise((r) => setTimeout(r, 50)); }
    const row = [];
    for (let i = 0; i < 10; i++) {
      const f0 = process.resourceUsage().minorPageFault, g0 = gcs, s = now();
      await matmul(a, b, { m: N, k: N, n: N });
      row.push(`${((now() - s) / 1e3).toFixed(1)}/${process.resourceUsage().minorPageFault - f0}pf/${gcs - g0}gc/${info().memory.resultBytesCached >> 20}M`);
    }
    console.log(`${process.env.LABEL || ''} ${phase}: ${row.join(' ')}`);
  }
})();
