// A probe: 4096³ from plain arrays into new arrays, in a fresh process: one warm-up call,
// then 9 runs (as bench/small-products.js). PKG = another package root to compare.
const { matmul } = require(require('path').resolve(process.env.PKG || '.'));
const now = () => Number(process.hrtime.bigint()) / 1e3;
const median = (v) => [...v].sort((p, q) => p - q)[v.length >> 1];
const random = (l) => Float32Array.from({ length: l }, () => Math.random() * 2 - 1);
(async () => {
  const N = 4096, a = random(N * N), b = random(N * N);
  await matmul(random(64 * 64), random(64 * 64), { m: 64, k: 64, n: 64 }); // CUDA started
  if (process.env.SMALL) // as bench/small-products.js: rounds of 20 000 concurrent small products first
    for (const n of [16, 64, 128]) {
      const pairs = Array.from({ length: 64 }, () => [random(n * n), random(n * n)]);
      for (let r = 0; r < 4; r++) await Promise.all(Array.from({ length: 20000 }, (_, i) => matmul(pairs[i % 64][0], pairs[i % 64][1], { m: n, k: n, n })));
    }
  const t = [];
  for (let i = 0; i < 10; i++) { const s = now(); await matmul(a, b, { m: N, k: N, n: N }); t.push((now() - s) / 1e3); }
  const runs = t.slice(1), med = median(runs);
  console.log(`${process.env.LABEL}${process.env.SMALL ? ' after small' : ''} 4096³ new array: warm-up ${t[0].toFixed(1)}; 9 runs median ${med.toFixed(2)} slowest ${Math.max(...runs).toFixed(2)} (${(Math.max(...runs) / med).toFixed(2)}×) [${runs.map((x) => x.toFixed(1)).join(' ')}]`);
})();
