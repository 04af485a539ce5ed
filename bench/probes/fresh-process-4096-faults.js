// A probe: as fresh-process-4096.js, with each run's page faults and the cache's state after it
// (ms/faults/pinned MiB/cached MiB), to tell fresh blocks from other outliers.
const { matmul, info } = require(require('path').resolve(process.env.PKG || '.'));
const now = () => Number(process.hrtime.bigint()) / 1e3;
const median = (v) => [...v].sort((p, q) => p - q)[v.length >> 1];
const random = (l) => Float32Array.from({ length: l }, () => Math.random() * 2 - 1);
const faults = () => process.resourceUsage().minorPageFault;
(async () => {
  const N = 4096, a = random(N * N), b = random(N * N);
  await matmul(random(64 * 64), random(64 * 64), { m: 64, k: 64, n: 64 }); // CUDA started
  const t = [], cells = [];
  for (let i = 0; i < 10; i++) {
    const f = faults(), s = now();
    await matmul(a, b, { m: N, k: N, n: N });
    t.push((now() - s) / 1e3);
    const m = info().memory;
    cells.push(`${t[i].toFixed(1)}/${faults() - f}/${m.resultBytesPinned >> 20}P/${m.resultBytesCached >> 20}C`);
  }
  const runs = t.slice(1), med = median(runs);
  console.log(`${process.env.LABEL} median ${med.toFixed(2)} slowest ${(Math.max(...runs) / med).toFixed(2)}× | ${cells.join(' ')}`);
})();
