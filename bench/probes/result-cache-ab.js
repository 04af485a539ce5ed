// A probe (run from the package root, PKG = another package root to compare): result cache A/B. PKG = package root (default this checkout). Prints one line per figure.
const path = require('path');
const { matmul } = require(path.resolve(process.env.PKG || '.'));
const label = process.env.LABEL || 'new';
const now = () => Number(process.hrtime.bigint()) / 1e3;
const median = (v) => [...v].sort((p, q) => p - q)[v.length >> 1];
const random = (len) => Float32Array.from({ length: len }, () => Math.random() * 2 - 1);
const faults = () => process.resourceUsage().minorPageFault;
(async () => {
  const N = 4096, a = random(N * N), b = random(N * N);
  const first = now(); await matmul(a, b, { m: N, k: N, n: N }); const firstMs = (now() - first) / 1e3;
  const t = [], pf = [];
  for (let i = 0; i < 9; i++) { const f0 = faults(), s = now(); await matmul(a, b, { m: N, k: N, n: N }); t.push((now() - s) / 1e3); pf.push(faults() - f0); }
  console.log(`${label} 4096³ new: first ${firstMs.toFixed(2)} ms; 9 runs median ${median(t).toFixed(2)} slowest ${Math.max(...t).toFixed(2)} [${t.map((x) => x.toFixed(1)).join(' ')}] faults ${median(pf)}`);
  const row = [];
  for (const n of [16, 64, 128]) {
    const x = random(n * n), y = random(n * n), tot = [];
    for (let i = 0; i < 3000; i++) { const s = now(); await matmul(x, y, { m: n, k: n, n }); if (i >= 1000) tot.push(now() - s); }
    row.push(`${n}³ ${median(tot).toFixed(1)}`);
  }
  console.log(`${label} one at a time µs: ${row.join(', ')}`);
  for (const n of [16, 64]) {
    const pairs = Array.from({ length: 64 }, () => [random(n * n), random(n * n)]);
    const rates = [];
    for (let round = 0; round < 5; round++) {
      const s = now();
      await Promise.all(Array.from({ length: 20000 }, (_, i) => matmul(pairs[i % 64][0], pairs[i % 64][1], { m: n, k: n, n })));
      rates.push(20000 / ((now() - s) / 1e6));
    }
    console.log(`${label} 20000 concurrent ${n}³: median ${Math.round(median(rates))}/s [${rates.map((r) => Math.round(r / 1000)).join(' ')}]k`);
  }
})();
