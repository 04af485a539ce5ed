#!/usr/bin/env node
// The host-array figures of docs/benchmarks.md beside PyTorch on the same host: small products one at a time (16³,
// 64³, 128³), 20 000 concurrent small products (products/s; the last round's results checked against float64
// products), and the 4096³ headline from plain arrays into a new array (9 runs: median and slowest; in a fresh
// process, as a server doing large products sees it, and after the small products, with their results' memory in the
// cache and the heap they grew) and from allocHost arrays. Medians; PyTorch copies its inputs to the GPU and the
// result back, as a user with host arrays would.
//   node bench/small-products.js
'use strict';
const { execFileSync } = require('child_process');
const { allocHost, matmul } = require('..');
const { median, pytorchNumbers, random, relativeError } = require('./inputs');

const now = () => Number(process.hrtime.bigint()) / 1e3; // µs

function reference(a, b, n) {
  const c = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let p = 0; p < n; p++) for (let j = 0; j < n; j++) c[i * n + j] += a[i * n + p] * b[p * n + j];
  return c;
}

async function oneAtATime(n, calls) {
  const a = random(n * n), b = random(n * n), times = [];
  for (let i = 0; i < calls + 20; i++) {
    const start = now();
    await matmul(a, b, { m: n, k: n, n });
    if (i >= 20) times.push(now() - start);
  }
  return median(times);
}

// `count` calls issued at once over 64 input pairs; products/s, and the worst relative error over the results.
// With `into`, each call writes an array of its own made beforehand (`out`), instead of a new one.
async function concurrent(n, count, into = false) {
  const pairs = Array.from({ length: 64 }, () => [random(n * n), random(n * n)]);
  const refs = pairs.map(([a, b]) => reference(a, b, n));
  const outs = into ? Array.from({ length: count }, () => new Float32Array(n * n)) : [];
  const rates = [];
  let worst = 0;
  for (let round = 0; round < 4; round++) {
    const start = now();
    const results = await Promise.all(
      Array.from({ length: count }, (_, i) => matmul(pairs[i % 64][0], pairs[i % 64][1], { m: n, k: n, n }, into ? { out: outs[i] } : {})),
    );
    rates.push(count / ((now() - start) / 1e6));
    if (round === 3) results.forEach((c, i) => (worst = Math.max(worst, relativeError(c, refs[i % 64]))));
  }
  return { rate: median(rates), worst };
}

async function large(n, runs, pinned) {
  const a = pinned ? allocHost(n * n) : random(n * n), b = pinned ? allocHost(n * n) : random(n * n);
  if (pinned) a.set(random(n * n)), b.set(random(n * n));
  const out = pinned ? allocHost(n * n) : undefined;
  await matmul(a, b, { m: n, k: n, n }, out ? { out } : {});
  const times = [], runsSeen = [];
  for (let i = 0; i < runs; i++) {
    const faults = process.resourceUsage().minorPageFault, start = now();
    await matmul(a, b, { m: n, k: n, n }, out ? { out } : {});
    times.push((now() - start) / 1e3);
    runsSeen.push(`${times[i].toFixed(1)}/${process.resourceUsage().minorPageFault - faults}`);
  }
  // Each run's ms / page faults, so that a slow run can be told from one on fresh memory (docs/transfers.md, "New result arrays").
  return { median: median(times), slowest: Math.max(...times), runs: runsSeen.join(' ') };
}

function torch() {
  const script = `
import torch, time, statistics
def one(n, calls):
    a = torch.rand(n, n) * 2 - 1; b = torch.rand(n, n) * 2 - 1; t = []
    for i in range(calls + 20):
        s = time.perf_counter(); torch.mm(a.cuda(), b.cuda()).cpu()
        if i >= 20: t.append(time.perf_counter() - s)
    return statistics.median(t) * 1e6
print(one(16, 2000), one(64, 2000), one(128, 2000))
`;
  return pytorchNumbers(script);
}

async function main() {
  // First, before this process starts CUDA: run after the rest, beside this process's context and memory, it gave
  // medians of 7.9–14.2 ms where processes of their own gave 7.1–9.8 (docs/transfers.md, "New result arrays").
  const fresh = JSON.parse(execFileSync(process.execPath, [__filename, '--large'], { encoding: 'utf8' }));
  const rows = [];
  const sizes = [16, 64, 128];
  const single = [];
  for (const n of sizes) single.push(await oneAtATime(n, 2000));
  const t = torch();
  sizes.forEach((n, i) => rows.push([`${n}³ one at a time`, `${single[i].toFixed(1)} µs`, t ? `${t[i].toFixed(1)} µs` : 'n/a', n === 128 ? '≤ 60 µs' : '']));
  for (const [n, target] of [[16, '≥ 500 000'], [64, '≥ 200 000'], [128, '']]) {
    const { rate, worst } = await concurrent(n, 20000);
    rows.push([`20 000 concurrent ${n}³ (products/s; worst error)`, `${rate.toFixed(0)} (${worst.toExponential(1)})`, '', target]);
  }
  for (const n of [16, 64]) {
    const { rate, worst } = await concurrent(n, 20000, true);
    rows.push([`20 000 concurrent ${n}³, each into its own out`, `${rate.toFixed(0)} (${worst.toExponential(1)})`, '', '']);
  }
  rows.push(['4096³ plain arrays, new array out, 9 runs', `median ${fresh.median.toFixed(2)} ms, slowest ${fresh.slowest.toFixed(2)}`, '', 'median ≤ 10 ms, slowest ≤ 1.5×']);
  const plain = await large(4096, 9, false);
  rows.push(['  the same after the small products', `median ${plain.median.toFixed(2)} ms, slowest ${plain.slowest.toFixed(2)}`, '', '']);
  const pinned = await large(4096, 9, true);
  rows.push(['4096³ allocHost arrays, 9 runs', `median ${pinned.median.toFixed(2)} ms, slowest ${pinned.slowest.toFixed(2)}`, '', '≤ 4.4 ms']);
  console.log('\nsummary (medians; PyTorch in the same run)');
  for (const r of rows) console.log(r.map((x, i) => String(x).padEnd(i === 0 ? 48 : 30)).join(''));
  console.log('\n4096³ runs, ms / page faults each');
  for (const [label, { runs }] of [['fresh process', fresh], ['after the small products', plain], ['allocHost', pinned]])
    console.log(`${label.padEnd(26)}${runs}`);
}

// `--large`: only the plain-array 4096³ row, printed as JSON (the parent runs it in this fresh process).
const run = process.argv.includes('--large') ? async () => console.log(JSON.stringify(await large(4096, 9, false))) : main;
run().catch((error) => {
  console.error(error);
  process.exit(1);
});
