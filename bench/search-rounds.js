#!/usr/bin/env node
// The embedding search of bench/search.js at one query count, ours and PyTorch's in alternating rounds, so that
// both sides are timed in the same power state of the card. A large product holds the card at its power cap, where
// its clock moves by ±15% with what ran just before; bench/search.js times all of ours first and then PyTorch's in
// another process, and its m = 512 tf32 row moved from 0.83 to 1.19 between runs (docs/benchmarks.md, "Timing on a
// power-capped card"). Here one PyTorch process stays up beside ours, each round times every side back to back (each
// going first in turn), and the ratio is taken within each round.
// Each side of a round: --calls (30) awaited calls after 5 warm-up calls, the median; the card's SM clock and power
// draw are read after each side. Prints each round, then the medians of the times and of the per-round ratios,
// over all rounds and by which side went first.
// --kernels=auto,wgmma-f16 times ours on each kernel named, beside PyTorch in every round (default: 'auto').
//   node bench/search-rounds.js [--queries=512] [--precision=tf32] [--rounds=8] [--rows=1000000] [--dim=768] [--kernels=auto]
'use strict';
const { spawn } = require('child_process');
const readline = require('readline');
const { Matrix, gemm, info } = require('..');
const { argument, median, medianOfCalls, outputOf, quickUniform, random } = require('./inputs');

const ROWS = Number(argument('rows', 1_000_000));
const DIM = Number(argument('dim', 768));
const M = Number(argument('queries', 512));
const PRECISION = argument('precision', 'tf32');
const ROUNDS = Number(argument('rounds', 8));
const CALLS = Number(argument('calls', 30));
const KERNELS = argument('kernels', 'auto').split(',');
const WARM_UP = 5;

// A PyTorch process that keeps its corpus and answers "time" with the median of its calls, as bench/search.js
// times them (q @ C.T, a synchronize after each).
const TORCH_SERVER = `
import sys, time, statistics, torch
N, d, m, calls, warm = ${ROWS}, ${DIM}, ${M}, ${CALLS}, ${WARM_UP}
torch.backends.cuda.matmul.allow_tf32 = ${PRECISION === 'tf32' ? 'True' : 'False'}
C = torch.rand(N, d, device='cuda') * 2 - 1
qs = [torch.rand(m, d, device='cuda') * 2 - 1 for _ in range(3)]
print('ready', flush=True)
for line in sys.stdin:
    times = []
    for i in range(warm + calls):
        torch.cuda.synchronize()
        start = time.perf_counter()
        s = qs[i % 3] @ C.T
        torch.cuda.synchronize()
        if i >= warm: times.append((time.perf_counter() - start) * 1e3)
        del s
    print(statistics.median(times), flush=True)
`;

function startTorch() {
  const child = spawn('python3', ['-u', '-c', TORCH_SERVER], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the PyTorch process ended');
    return value;
  };
  return {
    ready: next,
    time: async () => {
      child.stdin.write('time\n');
      return Number(await next());
    },
    stop: () => child.stdin.end(),
  };
}

// The SM clock (MHz) and power draw (W) now, or '' where nvidia-smi cannot say.
function cardState() {
  const output = outputOf('nvidia-smi', ['--query-gpu=clocks.sm,power.draw', '--format=csv,noheader,nounits'], 'nvidia-smi');
  return output ? output.split('\n')[0].trim().replace(', ', ' MHz ') + ' W' : '';
}

async function main() {
  const device = info().devices[0];
  console.log(`device: ${device ? device.name : 'none'}; ${M} × ${DIM} queries against ${ROWS} × ${DIM}, ${PRECISION}; ours on ${KERNELS.join(', ')}`);
  const torch = startTorch();
  await torch.ready();  // before the corpus is made: without PyTorch there is nothing to time against
  const C = await Matrix.from(quickUniform(ROWS * DIM), ROWS, DIM);
  const sets = await Promise.all([0, 1, 2].map(() => Matrix.from(random(M * DIM), M, DIM)));
  const S = await Matrix.from(new Float32Array(M * ROWS), M, ROWS);
  const timeOurs = (kernel) =>
    medianOfCalls((i) => gemm({ a: sets[i % 3], b: C, c: S, m: M, k: DIM, n: ROWS, transB: true }, { precision: PRECISION, kernel }), WARM_UP, CALLS);
  const sides = [...KERNELS, 'PyTorch'];
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = sides.map((_, i) => sides[(i + r) % sides.length]);  // each side goes first in turn
    const times = {};
    const states = {};
    for (const side of order) {
      times[side] = side === 'PyTorch' ? await torch.time() : await timeOurs(side);
      states[side] = cardState();
    }
    rounds.push({ first: order[0], times, ratios: Object.fromEntries(KERNELS.map((k) => [k, times[k] / times.PyTorch])) });
    console.log(`round ${r} ${order[0]} first  ` + order.map((side) => `${side} ${times[side].toFixed(3)} ms (${states[side]})`).join('  '));
  }
  torch.stop();
  [C, S, ...sets].forEach((x) => x.dispose());
  const range = (values) => `${median(values).toFixed(3)} (${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)})`;
  const summary = (label, rows) => {
    const parts = KERNELS.map((k) => `ours on ${k} ${median(rows.map((x) => x.times[k])).toFixed(3)} ms, ratio ${range(rows.map((x) => x.ratios[k]))}`);
    console.log(`${label.padEnd(16)} rounds ${String(rows.length).padStart(2)}  PyTorch ${median(rows.map((x) => x.times.PyTorch)).toFixed(3)} ms  ${parts.join('  ')}`);
  };
  console.log(`\nmedians, m = ${M} ${PRECISION}, awaited, ${CALLS} calls a side a round; ratio = ours / PyTorch within the round:`);
  summary('all', rounds);
  for (const side of sides) summary(`${side} first`, rounds.filter((x) => x.first === side));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
