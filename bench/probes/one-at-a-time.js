'use strict';
// A probe, run from the package root: node <this> new|out|sync [N]. 3000 products of N³ (default
// 128) one at a time; median time of each and of the part before the call returns. Its runs are in
// bench/results/2026-11-24/ (the inline route's phases with an addon built with timers in that route, not kept; its
// warm-up and staged-prefetch comparisons as is).
const { matmul, matmulSync } = require(require('path').resolve(process.env.PKG || '.'));
const { random } = require(require('path').resolve(process.env.PKG || '.', 'bench/inputs'));
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const now = () => Number(process.hrtime.bigint()) / 1e3;
(async () => {
  const n = Number(process.argv[3] || 128), a = random(n * n), b = random(n * n), out = new Float32Array(n * n);
  await matmul(a, b, { m: n, k: n, n });
  const mode = process.argv[2];
  const t = [], s = [];
  for (let i = 0; i < 3000; i++) {
    const t0 = now();
    const p = mode === 'out' ? matmul(a, b, { m: n, k: n, n }, { out }) : mode === 'sync' ? matmulSync(a, b, { m: n, k: n, n }) : matmul(a, b, { m: n, k: n, n });
    const t1 = now();
    await p;
    if (i >= 100) t.push(now() - t0), s.push(t1 - t0);
  }
  console.error(`JS ${n}³ ${mode}: total ${median(t).toFixed(1)} us, before return ${median(s).toFixed(1)} us`);
})();
