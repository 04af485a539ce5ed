#!/usr/bin/env node
// How many host threads the staging copies want: 4096³ from plain Float32Arrays (new array out) with
// CUDA_MATMUL_COPY_THREADS = 1, 2, 4, 8, 12, 16, each in a fresh process. Median of 7 after a warm-up.
'use strict';
const { execFileSync } = require('child_process');

const child = `const { matmul } = require(${JSON.stringify(require.resolve('..'))});
const n = 4096, a = new Float32Array(n * n).map(() => Math.random() - 0.5), b = a.slice();
(async () => {
  await matmul(a, b, { m: n, k: n, n });
  const t = [];
  for (let i = 0; i < 7; i++) { const s = process.hrtime.bigint(); await matmul(a, b, { m: n, k: n, n }); t.push(Number(process.hrtime.bigint() - s) / 1e6); }
  console.log(t.sort((x, y) => x - y)[3].toFixed(2));
})();`;

console.log('copy threads   4096³ ms (plain arrays, new array out)');
for (const threads of [1, 2, 4, 8, 12, 16]) {
  const env = { ...process.env, CUDA_MATMUL_COPY_THREADS: String(threads) };
  const ms = execFileSync(process.execPath, ['-e', child], { env }).toString().trim();
  console.log(`${String(threads).padStart(12)} ${ms.padStart(10)}`);
}
