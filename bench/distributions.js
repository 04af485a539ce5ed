#!/usr/bin/env node
// Speed on real data, not only U[-1,1]: 4096³ Matrices, 40 products in flight, on five distributions of A and B
// (uniform, normal, normal with 0.01% of its values 1e-10 of their size, ReLU'd normal, uniform with one value of
// 1e-12 in A and one in B), beside PyTorch's cuBLAS (torch.matmul, 40 queued) on the same inputs, read from the
// same files, in the same run. TFLOP/s, medians of --rounds rounds after one to warm up. Prints a table.
//   node bench/distributions.js [--size=4096] [--precision=tf32,fp32] [--rounds=5]
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Matrix, info } = require('..');
const { argument, median, now, pytorchNumbers, random } = require('./inputs');

const SIZE = Number(argument('size', 4096));
const PRECISIONS = argument('precision', 'tf32,fp32').split(',');
const ROUNDS = Number(argument('rounds', 5));
const IN_FLIGHT = 40;

function normal(length) {
  const x = new Float32Array(length);
  for (let i = 0; i < length; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - Math.random())), angle = 2 * Math.PI * Math.random();
    x[i] = r * Math.cos(angle);
    if (i + 1 < length) x[i + 1] = r * Math.sin(angle);
  }
  return x;
}
// Each distribution makes one operand; A and B are drawn from it independently.
const DISTRIBUTIONS = [
  ['uniform', random],
  ['normal', normal],
  ['normal, 0.01% of values 1e-10 of their size', (length) => {
    const x = normal(length);
    for (let i = 0; i < length; i++) if (Math.random() < 1e-4) x[i] *= 1e-10;
    return x;
  }],
  ['ReLU\'d normal', (length) => normal(length).map((v) => Math.max(v, 0))],
  ['uniform, one value of 1e-12', (length) => {
    const x = random(length);
    x[Math.floor(Math.random() * length)] = 1e-12;
    return x;
  }],
];

async function ours(a, b, precision) {
  const [A, B, C] = await Promise.all([Matrix.from(a, SIZE, SIZE), Matrix.from(b, SIZE, SIZE), Matrix.from(new Float32Array(SIZE * SIZE), SIZE, SIZE)]);
  const rounds = [];
  for (let r = 0; r < ROUNDS + 1; r++) {
    const start = now();
    await Promise.all(Array.from({ length: IN_FLIGHT }, () => A.matmul(B, { out: C, precision })));
    if (r > 0) rounds.push((now() - start) / IN_FLIGHT);
  }
  [A, B, C].forEach((x) => x.dispose());
  return median(rounds);
}

function torch(files, precision) {
  return pytorchNumbers(`
import numpy as np, torch, time
torch.backends.cuda.matmul.allow_tf32 = ${precision === 'tf32' ? 'True' : 'False'}
out = []
for a_file, b_file in ${JSON.stringify(files)}:
    a = torch.from_numpy(np.fromfile(a_file, dtype=np.float32).reshape(${SIZE}, ${SIZE})).cuda()
    b = torch.from_numpy(np.fromfile(b_file, dtype=np.float32).reshape(${SIZE}, ${SIZE})).cuda()
    c = torch.empty(${SIZE}, ${SIZE}, device='cuda')
    rounds = []
    for r in range(${ROUNDS + 1}):
        torch.cuda.synchronize(); t = time.perf_counter()
        for i in range(${IN_FLIGHT}): torch.matmul(a, b, out=c)
        torch.cuda.synchronize()
        if r > 0: rounds.append((time.perf_counter() - t) * 1e3 / ${IN_FLIGHT})
    rounds.sort(); out.append(rounds[len(rounds) // 2])
print(' '.join(str(x) for x in out))
`);
}

async function main() {
  const device = info().devices[0];
  console.log(`device: ${device ? device.name : 'none'}; ${SIZE}³ Matrices, ${IN_FLIGHT} in flight, median of ${ROUNDS} rounds`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'distributions-'));
  const tflops = (ms) => (2 * SIZE ** 3) / (ms * 1e-3) / 1e12;
  const rows = [];
  try {
    const files = [];
    for (const [name, make] of DISTRIBUTIONS) {
      const [a, b] = [make(SIZE * SIZE), make(SIZE * SIZE)];
      const pair = [path.join(dir, `${files.length}-a.bin`), path.join(dir, `${files.length}-b.bin`)];
      fs.writeFileSync(pair[0], Buffer.from(a.buffer));
      fs.writeFileSync(pair[1], Buffer.from(b.buffer));
      files.push(pair);
      for (const precision of PRECISIONS) rows.push({ name, precision, ours: await ours(a, b, precision) });
    }
    for (const precision of PRECISIONS) {
      const theirs = torch(files, precision);
      rows.filter((row) => row.precision === precision).forEach((row, i) => (row.theirs = theirs ? theirs[i] : null));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n${'distribution'.padEnd(46)} ${'precision'.padEnd(9)} ${'ours TFLOP/s'.padStart(12)} ${'cuBLAS'.padStart(8)} ${'ratio'.padStart(6)}`);
  for (const { name, precision, ours: ms, theirs } of rows) {
    const cublas = theirs ? tflops(theirs) : null;
    console.log(`${name.padEnd(46)} ${precision.padEnd(9)} ${tflops(ms).toFixed(1).padStart(12)} ${(cublas ? cublas.toFixed(1) : 'n/a').padStart(8)} ${(cublas ? (tflops(ms) / cublas).toFixed(2) : 'n/a').padStart(6)}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
