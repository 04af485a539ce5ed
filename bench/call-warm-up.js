#!/usr/bin/env node
// A batch of 20 000 16³ products on Matrices, awaited call after call: the call's synchronous part and when it
// settles, each call's time listed, in a fresh process and again after host-array batches. Shows the first calls
// of a process slower than the later ones (V8 optimising the call path), why bench/batches.js warms the path up.
//   node bench/call-warm-up.js
'use strict';
const { Matrix, gemm } = require('..');
const { median, now, random } = require('./inputs');
const BATCH = 20000, n = 16;
async function matrices(label) {
  const [A, B, C] = await Promise.all([Matrix.from(random(BATCH*n*n), BATCH*n, n), Matrix.from(random(BATCH*n*n), BATCH*n, n), Matrix.from(new Float32Array(BATCH*n*n), BATCH*n, n)]);
  const args = { a: A, b: B, c: C, m: n, k: n, n, batch: BATCH };
  for (const calls of [9, 50]) {
    const sync = [], total = [];
    for (let i = 0; i < calls; i++) { const s = now(); const p = gemm(args); const r = now(); await p; const e = now(); if (i >= 2) { sync.push(r - s); total.push(e - s); } }
    console.log(`${label}, ${calls} calls: sync ${median(sync).toFixed(4)} ms, settled ${median(total).toFixed(4)} ms; all: ${total.map((x) => x.toFixed(3)).join(' ')}`);
  }
  [A, B, C].forEach((m) => m.dispose());
}
(async () => {
  await matrices('fresh process');
  const a = random(BATCH * n * n), b = random(BATCH * n * n), c = new Float32Array(BATCH * n * n);
  for (let i = 0; i < 9; i++) await gemm({ a, b, c, m: n, k: n, n, batch: BATCH });
  await matrices('after host-array batches');
})();
