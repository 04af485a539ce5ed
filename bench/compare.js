#!/usr/bin/env node
// The public API's data path, timed for several builds of the package side by side in one run (each in its own
// process, alternating twice), e.g. before and after a change:
//   node bench/compare.js . /path/to/other/package
// Cases: 64³ awaited one at a time, 1000 concurrent calls of mixed small shapes, 1024³ and 4096³ from plain
// arrays into new arrays, and 1024³ products of device-resident Matrices awaited one at a time. Medians.
'use strict';
const { execFileSync } = require('child_process');
const path = require('path');

const CASES = `
const { matmul, Matrix } = require(process.argv[1]);
const random = (n) => Float32Array.from({ length: n }, () => Math.random() * 2 - 1);
const median = (xs) => xs.sort((p, q) => p - q)[xs.length >> 1];
async function timeEach(runs, call) {
  const times = [];
  for (let i = 0; i < runs; i++) { const t = performance.now(); await call(); times.push(performance.now() - t); }
  return median(times);
}
(async () => {
  const out = {};
  const s64 = [random(64 * 64), random(64 * 64)];
  await timeEach(200, () => matmul(s64[0], s64[1], { m: 64, k: 64, n: 64 }));
  out['64³ one at a time (µs)'] = 1000 * (await timeEach(2000, () => matmul(s64[0], s64[1], { m: 64, k: 64, n: 64 })));
  const shapes = [[1, 1, 1], [17, 33, 9], [64, 64, 64], [97, 131, 61], [5, 300, 2], [128, 16, 130]];
  const calls = Array.from({ length: 1000 }, (_, i) => { const [m, k, n] = shapes[i % 6]; return [random(m * k), random(k * n), { m, k, n }]; });
  await Promise.all(calls.map((c) => matmul(...c)));
  const rates = [];
  for (let r = 0; r < 5; r++) { const t = performance.now(); await Promise.all(calls.map((c) => matmul(...c))); rates.push(1000 / ((performance.now() - t) / 1000)); }
  out['1000 concurrent mixed (calls/s)'] = median(rates);
  const s1k = [random(1 << 20), random(1 << 20)];
  await matmul(s1k[0], s1k[1], { m: 1024, k: 1024, n: 1024 });
  out['1024³ plain arrays (ms)'] = await timeEach(30, () => matmul(s1k[0], s1k[1], { m: 1024, k: 1024, n: 1024 }));
  const s4k = [random(1 << 24), random(1 << 24)];
  await matmul(s4k[0], s4k[1], { m: 4096, k: 4096, n: 4096 });
  out['4096³ plain arrays, new out (ms)'] = await timeEach(9, () => matmul(s4k[0], s4k[1], { m: 4096, k: 4096, n: 4096 }));
  const [X, W] = await Promise.all([Matrix.from(s1k[0], 1024, 1024), Matrix.from(s1k[1], 1024, 1024)]);
  const Y = await X.matmul(W);
  out['Matrix 1024³ awaited (µs)'] = 1000 * (await timeEach(100, () => X.matmul(W, { out: Y })));
  console.log(JSON.stringify(out));
})();`;

const packages = process.argv.slice(2).map((p) => path.resolve(p));
if (packages.length === 0) packages.push(path.join(__dirname, '..'));
const results = packages.map(() => []);
for (let round = 0; round < 2; round++)
  packages.forEach((pkg, i) => results[i].push(JSON.parse(execFileSync(process.execPath, ['-e', CASES, pkg]).toString())));
const names = Object.keys(results[0][0]);
const both = (runs, name) => runs.map((r) => r[name]); // each round's median
console.log(['case', ...packages.map((p) => path.relative(process.cwd(), p) || '.')].join(' | '));
for (const name of names) console.log([name, ...results.map((runs) => both(runs, name).map((x) => x.toFixed(x < 100 ? 2 : 0)).join(' / '))].join(' | '));
