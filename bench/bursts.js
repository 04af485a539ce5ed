#!/usr/bin/env node
// What the event loop sees while Matrix traffic starts and stops, as a server keeping its weights on the GPU makes
// it: bursts of N loops (64 unless given) of Matrix.from → matmul → toArray → dispose against one B, 1.5 s each,
// from cold, after 0.5 s quiet (the pools kept), after 3 s quiet (the 2-second idle trim has freed them), and right
// after another. For each burst: the time in timer gaps over 20 ms (a timer due every 2 ms) in its first 500 ms and
// after, products, the longest synchronous call part, the page-locked staging held; for each quiet spell, the
// longest timer gap (the trim runs then). Last, the synchronous part of a 64³ host-array matmul (the inline route)
// right after a trim, three times.
//   node bench/bursts.js [MxKxN = 64x4096x1024] [loops = 64]
'use strict';
const { Matrix, matmul, info } = require('..');
const { random } = require('./inputs');

const [m, k, n] = (process.argv[2] || '64x4096x1024').split('x').map(Number);
const LOOPS = Number(process.argv[3] || 64);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Timestamps of a timer due every 2 ms, from now until stop() is called.
function ticks() {
  const fired = [];
  const timer = setInterval(() => fired.push(performance.now()), 2);
  return { fired, stop: () => clearInterval(timer) };
}

async function quiet(ms) {
  const { fired, stop } = ticks();
  await sleep(ms);
  stop();
  let longest = 0;
  for (let i = 1; i < fired.length; i++) longest = Math.max(longest, fired[i] - fired[i - 1]);
  return `quiet ${ms} ms: longest gap ${longest.toFixed(1)} ms`;
}

async function burst(a, W, label) {
  let stop = false, products = 0, longest = 0, longestName = '';
  const timed = (name, call) => {
    const start = performance.now();
    const value = call();
    const ms = performance.now() - start;
    if (ms > longest) (longest = ms), (longestName = name);
    return value;
  };
  const loop = async () => {
    while (!stop) {
      const X = await timed('from', () => Matrix.from(a, m, k));
      const Y = await timed('matmul', () => X.matmul(W));
      await timed('toArray', () => Y.toArray());
      timed('dispose', () => (X.dispose(), Y.dispose()));
      products++;
    }
  };
  const start = performance.now();
  const { fired, stop: stopTicks } = ticks();
  const loops = Array.from({ length: LOOPS }, loop);
  await sleep(1500);
  stopTicks();
  stop = true;
  await Promise.all(loops);
  let early = 0, late = 0;
  for (let i = 1; i < fired.length; i++) {
    const gap = fired[i] - fired[i - 1];
    if (gap > 20) fired[i - 1] - start < 500 ? (early += gap) : (late += gap);
  }
  const staging = (info().memory.stagingBytes / 2 ** 20).toFixed(0);
  console.log(
    `${label.padEnd(26)} stalled ${early.toFixed(0).padStart(4)} ms in the first 500, ${late.toFixed(0).padStart(4)} after; ` +
      `${products} products; longest call ${longestName} ${longest.toFixed(1)} ms; staging ${staging} MiB`,
  );
}

async function main() {
  const a = random(m * k);
  const W = await Matrix.from(random(k * n), k, n);
  console.log(`${m}x${k}x${n}, ${LOOPS} loops`);
  await burst(a, W, 'cold');
  console.log('  ' + (await quiet(500)));
  await burst(a, W, 'after 0.5 s quiet');
  console.log('  ' + (await quiet(3000)));
  await burst(a, W, 'after 3 s quiet (trimmed)');
  await burst(a, W, 'right after');
  W.dispose();
  const [x, y] = [random(64 * 64), random(64 * 64)];
  await matmul(x, y, { m: 64, k: 64, n: 64 });
  const firsts = [];
  for (let i = 0; i < 3; i++) {
    console.log('  ' + (await quiet(3000)));
    const start = performance.now();
    const product = matmul(x, y, { m: 64, k: 64, n: 64 });
    firsts.push((performance.now() - start).toFixed(2));
    await product;
  }
  console.log(`64³ matmul right after a trim, synchronous part: ${firsts.join(', ')} ms`);
}

main();
