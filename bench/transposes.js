#!/usr/bin/env node
// Operands held transposed on Matrices: gemm with A held as Aᵀ, B as Bᵀ, both, and neither, each awaited (median of
// --calls after warm-up), with the device memory each call grew the library's holding by, beside PyTorch's
// `a.T @ b` (and the rest) on contiguous tensors stored the same way, in the same run (with α and β, `torch.addmm`
// into C). Prints a table.
//   node bench/transposes.js [--shapes=4096x4096x4096,8192x1024x512] [--precision=fp32] [--kernel=auto] [--calls=20]
//                            [--alpha=1] [--beta=0]
'use strict';
const { Matrix, gemm, info } = require('..');
const { argument, medianOfCalls, pytorchNumbers, random } = require('./inputs');

const SHAPES = argument('shapes', '4096x4096x4096,8192x1024x512').split(',').map((s) => s.split('x').map(Number));
const PRECISION = argument('precision', 'fp32');
const KERNEL = argument('kernel', 'auto');
const CALLS = Number(argument('calls', 20));
const ALPHA = Number(argument('alpha', 1));
const BETA = Number(argument('beta', 0));
const WARM_UP = 5;
const LAYOUTS = [[false, false], [true, false], [false, true], [true, true]];
const held = () => info().memory.deviceBytesInUse + info().memory.deviceBytesCached;

async function ours([m, k, n], [transA, transB]) {
  const [A, B, C] = await Promise.all([
    Matrix.from(random(m * k), transA ? k : m, transA ? m : k),
    Matrix.from(random(k * n), transB ? n : k, transB ? k : n),
    Matrix.from(random(m * n), m, n),
  ]);
  const call = () => gemm({ a: A, b: B, c: C, m, k, n, transA, transB, alpha: ALPHA, beta: BETA }, { precision: PRECISION, kernel: KERNEL });
  const before = held();
  await call();
  const grown = held() - before;
  const ms = await medianOfCalls(call, WARM_UP, CALLS);
  [A, B, C].forEach((x) => x.dispose());
  return { ms, grownMB: grown / 1e6 };
}

function torch([m, k, n]) {
  return pytorchNumbers(`
import torch, time
torch.backends.cuda.matmul.allow_tf32 = ${PRECISION === 'tf32' ? 'True' : 'False'}
out = []
for transA, transB in ${JSON.stringify(LAYOUTS).replace(/false/g, 'False').replace(/true/g, 'True')}:
    a = torch.rand(${k}, ${m}, device='cuda') if transA else torch.rand(${m}, ${k}, device='cuda')
    b = torch.rand(${n}, ${k}, device='cuda') if transB else torch.rand(${k}, ${n}, device='cuda')
    c = torch.rand(${m}, ${n}, device='cuda')
    def call():
        if ${BETA} == 0 and ${ALPHA} == 1: torch.matmul(a.T if transA else a, b.T if transB else b, out=c)
        else: torch.addmm(c, a.T if transA else a, b.T if transB else b, beta=${BETA}, alpha=${ALPHA}, out=c)
    times = []
    for i in range(${WARM_UP + CALLS}):
        torch.cuda.synchronize(); t = time.perf_counter(); call(); torch.cuda.synchronize()
        if i >= ${WARM_UP}: times.append((time.perf_counter() - t) * 1e3)
    times.sort(); out.append(times[len(times) // 2])
print(' '.join(str(x) for x in out))
`);
}

async function main() {
  const device = info().devices[0];
  console.log(`device: ${device ? device.name : 'none'}; precision ${PRECISION}; kernel ${KERNEL}; α ${ALPHA}, β ${BETA}; Matrices, awaited, median of ${CALLS}`);
  const rows = [];
  for (const shape of SHAPES) {
    const theirs = torch(shape);
    for (const [i, layout] of LAYOUTS.entries()) rows.push({ shape, layout, ...(await ours(shape, layout)), torch: theirs ? theirs[i] : null });
  }
  console.log(`\n${'shape'.padEnd(17)}`, 'layout'.padEnd(8), 'ours ms'.padStart(9), 'grew MB'.padStart(9), 'PyTorch ms'.padStart(11));
  for (const { shape, layout: [transA, transB], ms, grownMB, torch: t } of rows) {
    const layout = `${transA ? 'Aᵀ' : 'A'}·${transB ? 'Bᵀ' : 'B'}`;
    console.log(shape.join('×').padEnd(17), layout.padEnd(8), ms.toFixed(3).padStart(9), grownMB.toFixed(1).padStart(9), (t ? t.toFixed(3) : 'n/a').padStart(11));
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
