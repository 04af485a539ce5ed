#!/usr/bin/env node
// Where the end-to-end time goes (npm run bench's data path, taken apart): shapes whose time is one transfer
// (k = 1 or n = 1 make the kernel trivial), plain vs allocHost arrays, in GB/s; and call latency floors
// (the async machinery alone on a 1×1×1 CPU product; 64³ on CUDA, sync and async). Medians.
'use strict';
const { matmul, matmulSync, allocHost, freeHost } = require('..');

const N = 4096;
const RUNS = 9;

async function median(run, runs = RUNS) {
  await run();
  const t = [];
  for (let i = 0; i < runs; i++) {
    const s = process.hrtime.bigint();
    await run();
    t.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  return t.sort((x, y) => x - y)[Math.floor(runs / 2)];
}

function arrays(pinned, m, k, n) {
  const make = (length) => (pinned ? allocHost(length) : new Float32Array(length)).fill(0.5);
  return { a: make(m * k), b: make(k * n), out: make(m * n) };
}

async function transfers() {
  const cases = [
    ['A in (m×k = 4096², n = 1)', N, N, 1, 4 * N * N],
    ['B in (k×n = 4096², m = 1)', 1, N, N, 4 * N * N],
    ['C out (m×n = 4096², k = 1)', N, 1, N, 4 * N * N],
    ['4096³ (A, B in, C out)', N, N, N, 12 * N * N],
  ];
  console.log('case'.padEnd(30) + 'plain ms'.padStart(10) + 'GB/s'.padStart(8) + 'allocHost ms'.padStart(14) + 'GB/s'.padStart(8));
  for (const [name, m, k, n, bytes] of cases) {
    const cells = [];
    for (const pinned of [false, true]) {
      const { a, b, out } = arrays(pinned, m, k, n);
      const ms = await median(() => matmul(a, b, { m, k, n }, { out }));
      cells.push(ms.toFixed(2).padStart(pinned ? 14 : 10), (bytes / ms / 1e6).toFixed(1).padStart(8));
      if (pinned) [a, b, out].forEach(freeHost);
    }
    console.log(name.padEnd(30) + cells.join(''));
  }
}

async function latency() {
  const one = new Float32Array(1);
  const s = new Float32Array(64 * 64).fill(1);
  const shape = { m: 64, k: 64, n: 64 };
  const per = async (call, count = 2000) => ((await median(async () => { for (let i = 0; i < count; i++) await call(); }, 5)) * 1000) / count;
  console.log(`async floor, 1×1×1 on the CPU backend: ${(await per(() => matmul(one, one, { m: 1, k: 1, n: 1 }, { backend: 'cpu' }))).toFixed(1)} µs`);
  console.log(`64³ on CUDA, matmulSync: ${(await per(() => matmulSync(s, s, shape, { backend: 'cuda' }))).toFixed(1)} µs`);
  console.log(`64³ on CUDA, await matmul: ${(await per(() => matmul(s, s, shape, { backend: 'cuda' }))).toFixed(1)} µs`);
}

(async () => {
  await transfers();
  await latency();
})();
