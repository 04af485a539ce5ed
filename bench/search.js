#!/usr/bin/env node
// Embedding search as a server runs it, through the public API, beside PyTorch on the same GPU in the same run:
// scores = Q·Cᵀ for a corpus C of N × d rows kept on the device as a Matrix and m queries, each call awaited
// (`gemm({ a: Q, b: C, c: S, m, k: d, n: N, transB: true })`), m = 1 … 512, fp32 and tf32; PyTorch's `q @ C.T`
// with a synchronize after each. The m = 1 row is also set against the DRAM floor: the bytes read (the corpus,
// the query, the scores written) at the GPU's memory bandwidth (--bandwidth=TB/s, 3.35 for an H100 SXM).
// Then host arrays: gemm with each transpose against matmul on the same shape (the operands pre-transposed).
// Medians of --calls (30) after 5 warm-up calls each, in a process that has first made 1 000 small calls of the
// same kind: V8 optimises the call path over its first thousand or so calls (docs/benchmarks.md), and without them the first rows measured it (m = 1 awaited 0.13 ms over the kernel, m = 8 0.06).
// Prints a table last; --json=FILE writes it as JSON too.
//   node bench/search.js [--rows=1000000] [--dim=768] [--queries=1,8,64,512] [--bandwidth=3.35]
'use strict';
const fs = require('fs');
const { Matrix, gemm, matmul, info } = require('..');
const { argument, medianOfCalls, pytorchNumbers, quickUniform, random } = require('./inputs');

const ROWS = Number(argument('rows', 1_000_000));
const DIM = Number(argument('dim', 768));
const QUERIES = argument('queries', '1,8,64,512').split(',').map(Number);
const BANDWIDTH = Number(argument('bandwidth', 3.35)) * 1e12;
const CALLS = Number(argument('calls', 30));
const WARM_UP = 5;


const timed = (call) => medianOfCalls(call, WARM_UP, CALLS);

// The same call on a small corpus, 1 000 times: the call path optimised before anything is timed.
async function warmUp() {
  const [C, Q, S] = await Promise.all([Matrix.from(random(4096 * DIM), 4096, DIM), Matrix.from(random(DIM), 1, DIM), Matrix.from(new Float32Array(4096), 1, 4096)]);
  for (let i = 0; i < 1000; i++) await gemm({ a: Q, b: C, c: S, m: 1, k: DIM, n: 4096, transB: true }, { precision: i % 2 ? 'tf32' : 'fp32' });
  [C, Q, S].forEach((x) => x.dispose());
}

async function searchRows(C) {
  const rows = [];
  for (const m of QUERIES) {
    const sets = await Promise.all([0, 1, 2].map(() => Matrix.from(random(m * DIM), m, DIM)));
    const S = await Matrix.from(new Float32Array(m * ROWS), m, ROWS);
    for (const precision of ['fp32', 'tf32']) {
      const ms = await timed((i) => gemm({ a: sets[i % 3], b: C, c: S, m, k: DIM, n: ROWS, transB: true }, { precision }));
      rows.push({ m, precision, ms });
    }
    sets.forEach((x) => x.dispose());
    S.dispose();
  }
  return rows;
}

function torchSearch() {
  const script = `
import torch, time, statistics
N, d = ${ROWS}, ${DIM}
C = torch.rand(N, d, device='cuda') * 2 - 1
out = []
for m in [${QUERIES.join(',')}]:
    qs = [torch.rand(m, d, device='cuda') * 2 - 1 for _ in range(3)]
    for tf32 in [False, True]:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        times = []
        for i in range(${WARM_UP + CALLS}):
            torch.cuda.synchronize()
            start = time.perf_counter()
            s = qs[i % 3] @ C.T
            torch.cuda.synchronize()
            if i >= ${WARM_UP}: times.append((time.perf_counter() - start) * 1e3)
            del s
        out.append(statistics.median(times))
print(' '.join(str(x) for x in out))
`;
  return pytorchNumbers(script);
}

// gemm from host arrays with each transpose, against matmul on the same shape with the operands as it wants them.
async function hostTransposes(m, k, n) {
  const a = random(m * k), b = random(k * n), c = new Float32Array(m * n), out = new Float32Array(m * n);
  const rows = [{ what: `matmul ${m}×${k}×${n}`, ms: await timed(() => matmul(a, b, { m, k, n }, { out })) }];
  for (const [transA, transB] of [[false, true], [true, false], [true, true]]) {
    const ms = await timed(() => gemm({ a, b, c, m, k, n, transA, transB }));
    rows.push({ what: `gemm ${transA ? 'Aᵀ' : 'A'}·${transB ? 'Bᵀ' : 'B'}`, ms });
  }
  return rows;
}

async function main() {
  const device = info().devices[0];
  console.log(`device: ${device ? device.name : 'none'}; corpus ${ROWS} × ${DIM} fp32 (${((ROWS * DIM * 4) / 1e9).toFixed(2)} GB)`);
  const C = await Matrix.from(quickUniform(ROWS * DIM), ROWS, DIM);
  await warmUp();
  const ours = await searchRows(C);
  C.dispose();
  const torch = torchSearch();
  const host = [...(await hostTransposes(8, 4096, 4096)), ...(await hostTransposes(1024, 1024, 1024))];
  const floorMs = (m) => ((ROWS * DIM + m * DIM + m * ROWS) * 4) / BANDWIDTH * 1e3;
  console.log(`\nsearch: scores = Q·Cᵀ, awaited, median of ${CALLS} (ms); PyTorch q @ C.T with a synchronize`);
  console.log('m'.padStart(5), 'precision'.padStart(10), 'ours'.padStart(9), 'PyTorch'.padStart(9), 'ratio'.padStart(7), 'floor'.padStart(7));
  const table = ours.map((row, i) => {
    const theirs = torch ? torch[i] : null;
    const result = { ...row, pytorchMs: theirs, floorMs: floorMs(row.m) };
    console.log(String(row.m).padStart(5), row.precision.padStart(10), row.ms.toFixed(3).padStart(9),
      (theirs ? theirs.toFixed(3) : 'n/a').padStart(9), (theirs ? (row.ms / theirs).toFixed(2) : '').padStart(7),
      (row.ms / result.floorMs).toFixed(2).padStart(7));
    return result;
  });
  console.log('\nhost arrays (ms, awaited, median):');
  for (const row of host) console.log(`  ${row.what.padEnd(24)} ${row.ms.toFixed(3)}`);
  const json = argument('json', null);
  if (json) fs.writeFileSync(json, JSON.stringify({ device: device && device.name, rows: ROWS, dim: DIM, search: table, host }, null, 2));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
