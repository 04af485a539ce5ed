'use strict';
// A probe, run from the package root: node --expose-gc <this> small|smallgc|none|one|loop128.
// The 4096³ runs after rounds of small products (each run: ms, page faults, GC pauses, the result cache), and
// 16³/64³/128³ one at a time (new array, into out, matmulSync) with the part of each call spent before it returns.
const { PerformanceObserver } = require('perf_hooks');
const { matmul, matmulSync, info } = require(require('path').resolve(process.env.PKG || '.'));
const { random } = require(require('path').resolve(process.env.PKG || '.', 'bench/inputs'));
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const now = () => Number(process.hrtime.bigint()) / 1e3;
const mode = process.argv[2];
const gcs = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) gcs.push({ start: e.startTime, ms: e.duration, kind: e.detail?.kind }); }).observe({ entryTypes: ['gc'] });
const perfNow = () => require('perf_hooks').performance.now();

async function rounds() {
  for (const [n, into] of [[16, false], [64, false], [128, false], [16, true], [64, true]]) {
    const pairs = Array.from({ length: 64 }, () => [random(n * n), random(n * n)]);
    const outs = into ? Array.from({ length: 20000 }, () => new Float32Array(n * n)) : [];
    for (let r = 0; r < 4; r++) {
      const t = now();
      await Promise.all(Array.from({ length: 20000 }, (_, i) => matmul(pairs[i % 64][0], pairs[i % 64][1], { m: n, k: n, n }, into ? { out: outs[i] } : {})));
      if (r === 3) console.log(`round ${n}³${into ? ' out' : ''}: ${(20000 / ((now() - t) / 1e6)).toFixed(0)}/s`);
    }
  }
}

async function large() {
  const n = 4096, a = random(n * n), b = random(n * n);
  const mem = () => { const m = info().memory; return `cached ${(m.resultBytesCached / 2 ** 20).toFixed(0)} pinned ${(m.resultBytesPinned / 2 ** 20).toFixed(0)}`; };
  console.log('before warm-up:', mem());
  let t = now();
  await matmul(a, b, { m: n, k: n, n });
  console.log(`warm-up ${((now() - t) / 1e3).toFixed(1)} ms`, mem());
  const times = [];
  for (let i = 0; i < 9; i++) {
    const f = process.resourceUsage().minorPageFault, g0 = perfNow();
    t = now();
    const p = matmul(a, b, { m: n, k: n, n });
    const sync = now() - t;
    await p;
    const ms = (now() - t) / 1e3; times.push(ms);
    await new Promise((r) => setImmediate(r)); // let the gc observer deliver
    const during = gcs.filter((e) => e.start >= g0 && e.start <= g0 + ms);
    console.log(`run ${i}: ${ms.toFixed(2)} ms (sync ${(sync / 1e3).toFixed(2)}) faults ${process.resourceUsage().minorPageFault - f} gc ${during.length}×${during.reduce((s, e) => s + e.ms, 0).toFixed(1)}ms kinds ${during.map((e) => e.kind).join(',')} ${mem()}`);
  }
  console.log(`LARGE ${mode}: median ${median(times).toFixed(2)} slowest ${Math.max(...times).toFixed(2)} (${(Math.max(...times) / median(times)).toFixed(2)}×)`);
}

async function small(n) {
  const a = random(n * n), b = random(n * n), out = new Float32Array(n * n);
  const res = {};
  for (const [label, fn] of [
    ['new', () => matmul(a, b, { m: n, k: n, n })],
    ['out', () => matmul(a, b, { m: n, k: n, n }, { out })],
    ['sync', () => matmulSync(a, b, { m: n, k: n, n })],
  ]) {
    const tot = [], syn = [];
    for (let i = 0; i < 2020; i++) {
      const t = now();
      const p = fn();
      const s = now() - t;
      await p;
      if (i >= 20) tot.push(now() - t), syn.push(s);
    }
    res[label] = `${median(tot).toFixed(1)} (sync part ${median(syn).toFixed(1)})`;
  }
  console.log(`SMALL ${n}³ µs:`, JSON.stringify(res));
}

async function main() {
  if (mode === 'small') await rounds(), await large();
  else if (mode === 'smallgc') { await rounds(); global.gc(); await new Promise((r) => setTimeout(r, 300)); await large(); }
  else if (mode === 'none') await large();
  else if (mode === 'one') { await matmul(random(16), random(16), { m: 4, k: 4, n: 4 }); for (const n of [16, 64, 128]) await small(n); }
  else if (mode === 'loop128') { const a = random(128 * 128), b = random(128 * 128); for (let i = 0; i < 3000; i++) await matmul(a, b, { m: 128, k: 128, n: 128 }); }
}
main().catch((e) => { console.error(e); process.exit(1); });
