#!/usr/bin/env node
// Small outputs with a long K on Matrices (256×4096×256, 128×16384×128), beside PyTorch in the same run: each
// product awaited (after 1 000 calls that let V8 optimise the call path), and 40 issued at once (the time per
// product of a round, median of 7 rounds), against PyTorch's `x @ w` with a synchronize after each, and 40 queued
// with one synchronize. Operand sets rotate so that no product finds them in L2. Prints a table.
//   node bench/long-k.js [--shapes=256x4096x256,128x16384x128] [--precision=fp32]
'use strict';
const { Matrix } = require('..');
const { argument, median, now, pytorchNumbers, random } = require('./inputs');

const SHAPES = argument('shapes', '256x4096x256,128x16384x128').split(',').map((s) => s.split('x').map(Number));
const PRECISION = argument('precision', 'fp32');
const IN_FLIGHT = 40, ROUNDS = 7, AWAITED = 300, SETS = 8;

async function ours([m, k, n]) {
  const sets = [];
  for (let i = 0; i < SETS; i++) sets.push(await Promise.all([Matrix.from(random(m * k), m, k), Matrix.from(random(k * n), k, n), Matrix.from(new Float32Array(m * n), m, n)]));
  const product = (i) => sets[i % SETS][0].matmul(sets[i % SETS][1], { out: sets[i % SETS][2], precision: PRECISION });
  for (let i = 0; i < 1000; i++) await product(i);
  const awaited = [];
  for (let i = 0; i < AWAITED; i++) {
    const start = now();
    await product(i);
    awaited.push(now() - start);
  }
  const rounds = [];
  for (let r = 0; r < ROUNDS + 1; r++) {
    const start = now();
    await Promise.all(Array.from({ length: IN_FLIGHT }, (_, i) => product(i)));
    if (r > 0) rounds.push((now() - start) / IN_FLIGHT);
  }
  sets.flat().forEach((x) => x.dispose());
  return { awaited: median(awaited), inFlight: median(rounds) };
}

function torch([m, k, n]) {
  const dtype = PRECISION === 'tf32' ? 'True' : 'False';
  return pytorchNumbers(`
import torch, time
torch.backends.cuda.matmul.allow_tf32 = ${dtype}
sets = [(torch.rand(${m}, ${k}, device='cuda') * 2 - 1, torch.rand(${k}, ${n}, device='cuda') * 2 - 1) for _ in range(${SETS})]
outs = [torch.empty(${m}, ${n}, device='cuda') for _ in range(${SETS})]
def product(i):
    x, w = sets[i % ${SETS}]
    torch.matmul(x, w, out=outs[i % ${SETS}])
for i in range(1000): product(i)
torch.cuda.synchronize()
awaited = []
for i in range(${AWAITED}):
    t = time.perf_counter(); product(i); torch.cuda.synchronize(); awaited.append((time.perf_counter() - t) * 1e3)
rounds = []
for r in range(${ROUNDS}):
    t = time.perf_counter()
    for i in range(${IN_FLIGHT}): product(i)
    torch.cuda.synchronize(); rounds.append((time.perf_counter() - t) * 1e3 / ${IN_FLIGHT})
awaited.sort(); rounds.sort()
print(awaited[len(awaited) // 2], rounds[len(rounds) // 2])
`);
}

(async () => {
  console.log(`small outputs, long K, on Matrices, ${PRECISION}: ms per product (awaited one at a time; ${IN_FLIGHT} in flight)`);
  console.log('shape                 ours awaited  ours in flight  PyTorch awaited  PyTorch queued');
  for (const shape of SHAPES) {
    const mine = await ours(shape);
    const theirs = torch(shape) ?? [NaN, NaN];
    console.log(`${shape.join('×').padEnd(20)}  ${mine.awaited.toFixed(4).padStart(12)}  ${mine.inFlight.toFixed(4).padStart(14)}  ${theirs[0].toFixed(4).padStart(15)}  ${theirs[1].toFixed(4).padStart(14)}`);
  }
})();
