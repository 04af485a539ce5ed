// A probe: small products on the CPU backend, through the public API: one at a time (matmulSync and awaited
// matmul, median of 3 000) and 20 000 at once (products/s, median of 4 rounds), at 16³ and 64³ (or the sizes
// given). Run against two addons in alternating processes (CUDA_MATMUL_ADDON) to compare them.
//   node bench/probes/cpu-small.js [n...]
'use strict';
const { matmul, matmulSync } = require('../..');
const { random } = require('../inputs');

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const now = () => Number(process.hrtime.bigint()) / 1e3; // µs
const options = { backend: 'cpu' };

async function oneAtATime(n, awaited, calls = 3000) {
  const a = random(n * n), b = random(n * n), shape = { m: n, k: n, n }, times = [];
  for (let i = 0; i < calls + 100; i++) {
    const start = now();
    if (awaited) await matmul(a, b, shape, options);
    else matmulSync(a, b, shape, options);
    if (i >= 100) times.push(now() - start);
  }
  return median(times);
}

async function concurrent(n, count = 20000) {
  const a = random(n * n), b = random(n * n), shape = { m: n, k: n, n }, rates = [];
  for (let round = 0; round < 5; round++) {
    const start = now();
    await Promise.all(Array.from({ length: count }, () => matmul(a, b, shape, options)));
    if (round > 0) rates.push(count / ((now() - start) / 1e6));
  }
  return median(rates);
}

(async () => {
  const row = [];
  for (const n of process.argv.length > 2 ? process.argv.slice(2).map(Number) : [16, 64]) {
    row.push(`${n}³ sync ${(await oneAtATime(n, false)).toFixed(1)} µs`);
    row.push(`await ${(await oneAtATime(n, true)).toFixed(1)} µs`);
    row.push(`20 000 at once ${Math.round(await concurrent(n))}/s`);
  }
  console.log(row.join(', '));
})();
