#!/usr/bin/env node
// Matrix#search on the GPU as a server calls it, beside PyTorch on the same GPU in the same run: a corpus of
// N × d rows kept on the device, m queries a call given as a Float32Array (rotated among three sets), the k best
// rows of each back in JavaScript arrays, each call awaited; PyTorch's `torch.topk(q @ C.T, k)` with the values and
// indices brought to the host (`.cpu()`) on a corpus of the same size. Medians of --calls after warm-up, in a process
// that has first made 1 000 small searches (V8 optimises the call path over its first thousand calls:
// docs/benchmarks.md).
// Prints a table last; --json=FILE writes it as JSON too.
//   node bench/search-gpu.js [--rows=1000000] [--dim=768] [--k=10] [--queries=1,8,64,512] [--calls=30]
'use strict';
const fs = require('fs');
const { Matrix, info } = require('..');
const { argument, medianOfCalls, pytorchNumbers, quickUniform, random } = require('./inputs');

const ROWS = Number(argument('rows', 1_000_000));
const DIM = Number(argument('dim', 768));
const K = Number(argument('k', 10));
const QUERIES = argument('queries', '1,8,64,512').split(',').map(Number);
const CALLS = Number(argument('calls', 30));
const WARM_UP = 5;

// [m, metric, precision, queries as]: every m by dot in fp32 and tf32; cosine and l2 beside dot at the first and
// third m; the first m's queries also given as a Matrix already on the device.
const CASES = [
  ...QUERIES.flatMap((m) => [[m, 'dot', 'fp32', 'array'], [m, 'dot', 'tf32', 'array']]),
  ...[QUERIES[0], QUERIES[2]].filter((m) => m !== undefined).flatMap((m) => [[m, 'cosine', 'fp32', 'array'], [m, 'l2', 'fp32', 'array']]),
  [QUERIES[0], 'dot', 'fp32', 'matrix'],
];

const timed = (call) => medianOfCalls(call, WARM_UP, CALLS);

async function warmUp() {
  const C = await Matrix.from(random(8192 * DIM), 8192, DIM);
  const q = random(DIM);
  for (let i = 0; i < 1000; i++) await C.search(q, { k: K, precision: i % 2 ? 'tf32' : 'fp32' });
  C.dispose();
}

async function ours(C) {
  const rows = [];
  for (const [m, metric, precision, given] of CASES) {
    const arrays = [0, 1, 2].map(() => random(m * DIM));
    const sets = given === 'matrix' ? await Promise.all(arrays.map((q) => Matrix.from(q, m, DIM))) : arrays;
    const ms = await timed((i) => C.search(sets[i % 3], { k: K, metric, precision }));
    if (given === 'matrix') sets.forEach((x) => x.dispose());
    rows.push({ m, metric, precision, given, ms });
  }
  return rows;
}

// PyTorch's medians for the dot cases, in CASES' order: queries from host memory, or already on the device.
function torchSearch() {
  const py = (x) => (x ? 'True' : 'False');
  const cases = CASES.filter(([, metric]) => metric === 'dot').map(([m, , precision, given]) => `(${m}, ${py(precision === 'tf32')}, ${py(given === 'matrix')})`);
  const script = `
import torch, time, statistics
N, d, k = ${ROWS}, ${DIM}, ${K}
C = torch.rand(N, d, device='cuda') * 2 - 1
out = []
for m, tf32, on_device in [${cases.join(', ')}]:
    torch.backends.cuda.matmul.allow_tf32 = tf32
    qs = [(torch.rand(m, d) * 2 - 1).to('cuda' if on_device else 'cpu') for _ in range(3)]
    times = []
    for i in range(${WARM_UP + CALLS}):
        torch.cuda.synchronize()
        start = time.perf_counter()
        values, indices = torch.topk(qs[i % 3].cuda() @ C.T, k)
        values, indices = values.cpu(), indices.cpu()
        if i >= ${WARM_UP}: times.append((time.perf_counter() - start) * 1e3)
    out.append(statistics.median(times))
print(' '.join(str(x) for x in out))
`;
  return pytorchNumbers(script);
}

async function main() {
  const device = info().devices[0];
  console.log(`device: ${device ? device.name : 'none'}; corpus ${ROWS} × ${DIM} fp32 (${((ROWS * DIM * 4) / 1e9).toFixed(2)} GB), k = ${K}`);
  const C = await Matrix.from(quickUniform(ROWS * DIM), ROWS, DIM);
  await warmUp();
  const rows = await ours(C);
  C.dispose();
  const torch = torchSearch();
  let next = 0;
  console.log(`\nMatrix#search, awaited, median of ${CALLS} (ms); PyTorch torch.topk(q @ C.T, k) with .cpu()`);
  console.log('m'.padStart(5), 'metric'.padStart(7), 'precision'.padStart(10), 'queries'.padStart(8), 'ours'.padStart(9), 'PyTorch'.padStart(9), 'ratio'.padStart(7));
  const table = rows.map((row) => {
    const theirs = torch && row.metric === 'dot' ? torch[next++] : null;
    console.log(String(row.m).padStart(5), row.metric.padStart(7), row.precision.padStart(10), row.given.padStart(8),
      row.ms.toFixed(3).padStart(9), (theirs ? theirs.toFixed(3) : '').padStart(9), (theirs ? (row.ms / theirs).toFixed(2) : '').padStart(7));
    return { ...row, pytorchMs: theirs };
  });
  const json = argument('json', null);
  if (json) fs.writeFileSync(json, JSON.stringify({ device: device && device.name, rows: ROWS, dim: DIM, k: K, table }, null, 2));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
