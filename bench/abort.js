#!/usr/bin/env node
// What the `signal` option costs and how fast an abort takes effect (docs/lifecycle.md, "Cancellation"):
//   node bench/abort.js
// 1. Awaited Matrix products into `out`, with and without a signal (never aborted): the cost of keeping the
//    Matrix aside until the write is decided (native/cuda/withdrawal.h). Medians of 200 (20 at 4096³).
// 2. Host-array products with and without a signal (a call with a signal is not gathered).
// 3. 40 products of 3072³ from host arrays in flight, aborted 20 ms in: how many were dropped, how long until all
//    settled, and the device memory in use before and after.
// 4. A running CPU product of 3072³ aborted 30 ms in: how long until its Promise rejects.
// 5. Writes into 2048² Matrices queued behind 3 ms of work and aborted at once: how long each call itself takes, and
//    whether the write was withdrawn. The first allocates the memory that keeps the Matrix aside, and that
//    allocation waits for the device: by the time it returns the work before it is done, and so may the write.
'use strict';
const { info, Matrix, matmul } = require('..');
const { median, random } = require('./inputs');

const us = (ms) => `${(ms * 1000).toFixed(0)} µs`;

async function timeEach(runs, call) {
  for (let i = 0; i < 5; i++) await call();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  return median(times);
}

(async () => {
  const cuda = info().backend === 'cuda';
  console.log(`device: ${cuda ? info().devices[0].name : 'none (CPU backend)'}`);
  for (const size of cuda ? [512, 4096] : [256]) {
    const [X, C] = [await Matrix.from(random(size * size), size, size), await Matrix.from(random(size * size), size, size)];
    const runs = size > 1024 ? 20 : 200;
    const plain = await timeEach(runs, () => X.matmul(X, { out: C }));
    const signal = new AbortController().signal;
    const withSignal = await timeEach(runs, () => X.matmul(X, { out: C, signal }));
    console.log(`Matrix ${size}³ into out, awaited: ${us(plain)} without a signal, ${us(withSignal)} with one`);
    [X, C].forEach((m) => m.dispose());
  }
  for (const size of [64, 512]) {
    const x = random(size * size);
    const shape = { m: size, k: size, n: size };
    const plain = await timeEach(200, () => matmul(x, x, shape));
    const signal = new AbortController().signal;
    const withSignal = await timeEach(200, () => matmul(x, x, shape, { signal }));
    console.log(`matmul ${size}³ from host arrays, awaited: ${us(plain)} without a signal, ${us(withSignal)} with one`);
  }
  if (cuda) {
    const size = 3072, x = random(size * size);
    const before = info().memory.deviceBytesInUse;
    const controller = new AbortController();
    const calls = Array.from({ length: 40 }, () =>
      matmul(x, x, { m: size, k: size, n: size }, { signal: controller.signal }).then(() => 'resolved', (e) => e.name));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const aborted = performance.now();
    controller.abort();
    const outcomes = await Promise.all(calls);
    const settled = performance.now() - aborted;
    console.log(`40 × 3072³ from host arrays, aborted 20 ms in: ${outcomes.filter((o) => o === 'AbortError').length} rejected ` +
      `(${outcomes.filter((o) => o === 'resolved').length} had ended), all settled ${settled.toFixed(1)} ms after the abort; ` +
      `device memory in use ${before} bytes before, ${info().memory.deviceBytesInUse} after`);
  }
  const size = 3072, x = random(size * size);
  const controller = new AbortController();
  const product = matmul(x, x, { m: size, k: size, n: size }, { backend: 'cpu', signal: controller.signal }).then(() => 'resolved', (e) => e.name);
  await new Promise((resolve) => setTimeout(resolve, 30));
  const aborted = performance.now();
  controller.abort();
  const outcome = await product;
  console.log(`CPU 3072³ aborted 30 ms in: ${outcome} ${(performance.now() - aborted).toFixed(1)} ms after the abort`);
  if (cuda) await writesAbortedAtOnce();
})();

async function writesAbortedAtOnce() {
  const big = 4096, size = 2048;
  const [Big, Into] = [await Matrix.from(random(big * big), big, big), await Matrix.from(random(big * big), big, big)];
  const [X, W] = [await Matrix.from(random(size * size), size, size), await Matrix.from(random(size * size), size, size)];
  await Big.matmul(Big, { out: Into });
  await X.matmul(W);
  for (let i = 0; i < 4; i++) {
    const C = await Matrix.from(random(size * size), size, size);
    const busy = [1, 2, 3].map(() => Big.matmul(Big, { out: Into }));
    const controller = new AbortController();
    const started = performance.now();
    const write = X.matmul(W, { out: C, signal: controller.signal });
    const inCall = performance.now() - started;
    controller.abort();
    const outcome = await write.then(() => 'made', (e) => e.name);
    console.log(`write ${i} into a 2048² Matrix behind 3 ms of work, aborted at once: the call took ${inCall.toFixed(3)} ms; ${outcome}`);
    await Promise.all(busy);
    C.dispose();
  }
}
