#!/usr/bin/env node
// Strided batches of small products, one gemm call each, beside PyTorch's torch.bmm in the same run: from host
// arrays (PyTorch: numpy arrays to the device, bmm, and back) and on Matrices (PyTorch: bmm on device tensors).
// Products per second, medians of --calls (7) after 2 warm-up calls, in a process that has first made --warm-up
// (300) calls of a batch of 100 products of each kind: V8 optimises the call path over its first calls, which took
// 80–300 µs each where the later ones took 62 µs (16³ on Matrices, docs/batching.md, "Strided batches").
//   node bench/batches.js [--batch=20000] [--sizes=16,64] [--warm-up=300]
'use strict';
const { Matrix, gemm, info } = require('..');
const { argument, median, now, pytorchNumbers, random } = require('./inputs');

const BATCH = Number(argument('batch', 20000));
const SIZES = argument('sizes', '16,64').split(',').map(Number);
const CALLS = Number(argument('calls', 7));
const WARM_UP = Number(argument('warm-up', 300));


async function timed(call) {
  const times = [];
  for (let i = 0; i < 2 + CALLS; i++) {
    const start = now();
    await call();
    if (i >= 2) times.push(now() - start);
  }
  return median(times);
}

async function ours(n) {
  const a = random(BATCH * n * n), b = random(BATCH * n * n), c = new Float32Array(BATCH * n * n);
  const args = { m: n, k: n, n, batch: BATCH };
  const arrays = await timed(() => gemm({ a, b, c, ...args }));
  const [A, B, C] = await Promise.all([Matrix.from(a, BATCH * n, n), Matrix.from(b, BATCH * n, n), Matrix.from(c, BATCH * n, n)]);
  const matrices = await timed(() => gemm({ a: A, b: B, c: C, ...args }));
  [A, B, C].forEach((x) => x.dispose());
  return { arrays, matrices };
}

function torch() {
  const script = `
import torch, numpy as np, time, statistics
out = []
for n in [${SIZES.join(',')}]:
    a = np.random.rand(${BATCH}, n, n).astype(np.float32); b = np.random.rand(${BATCH}, n, n).astype(np.float32)
    def host():
        c = torch.bmm(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()).cpu().numpy()
    A, B = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    def device():
        torch.bmm(A, B); torch.cuda.synchronize()
    for f in [host, device]:
        times = []
        for i in range(${2 + CALLS}):
            torch.cuda.synchronize(); start = time.perf_counter(); f(); torch.cuda.synchronize()
            if i >= 2: times.append((time.perf_counter() - start) * 1e3)
        out.append(statistics.median(times))
print(' '.join(str(x) for x in out))
`;
  return pytorchNumbers(script);
}

// The call path warmed up: WARM_UP calls of a 100-product batch of 16³ products, from host arrays and on Matrices.
async function warmUp() {
  const [n, batch] = [16, 100];
  const a = random(batch * n * n), b = random(batch * n * n), c = new Float32Array(batch * n * n);
  const args = { m: n, k: n, n, batch };
  const [A, B, C] = await Promise.all([Matrix.from(a, batch * n, n), Matrix.from(b, batch * n, n), Matrix.from(c, batch * n, n)]);
  for (let i = 0; i < WARM_UP; i++) {
    await gemm({ a, b, c, ...args });
    await gemm({ a: A, b: B, c: C, ...args });
  }
  [A, B, C].forEach((x) => x.dispose());
}

async function main() {
  const device = info().devices[0];
  console.log(`device: ${device ? device.name : 'none'}; ${BATCH} products per call`);
  await warmUp();
  const rows = [];
  for (const n of SIZES) rows.push({ n, ...(await ours(n)) });
  const theirs = torch();
  const rate = (ms) => (ms ? `${Math.round(BATCH / (ms * 1e-3)).toLocaleString('en')}/s` : 'n/a');
  console.log('\nproducts per second (one gemm call of the whole batch; PyTorch torch.bmm)');
  console.log('size'.padEnd(6), 'host arrays'.padStart(14), 'PyTorch'.padStart(14), 'Matrices'.padStart(14), 'PyTorch'.padStart(14));
  rows.forEach((row, i) => {
    const [host, device] = theirs ? [theirs[2 * i], theirs[2 * i + 1]] : [null, null];
    console.log(`${row.n}³`.padEnd(6), rate(row.arrays).padStart(14), rate(host).padStart(14), rate(row.matrices).padStart(14), rate(device).padStart(14));
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
