#!/usr/bin/env node
// The embedding search of bench/search.js at one query count, ours and PyTorch's in alternating rounds, so that
// both sides are timed in the same power state of the card. A large product holds the card at its power cap, where
// its clock moves by ±15% with what ran just before; bench/search.js times all of ours first and then PyTorch's in
// another process, and its m = 512 tf32 row moved from 0.83 to 1.19 between runs (docs/benchmarks.md, "Timing on a
// power-capped card"). Here one PyTorch process stays up beside ours, each round times both sides back to back (who
// goes first alternating), and the ratio is taken within each round.
// Each side of a round: --calls (30) awaited calls after 5 warm-up calls, the median; the card's SM clock and power
// draw are read after each side. Prints each round, then the medians of the times and of the per-round ratios,
// over all rounds and by who went first.
//   node bench/search-rounds.js [--queries=512] [--precision=tf32] [--rounds=8] [--rows=1000000] [--dim=768]
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
  console.log(`device: ${device ? device.name : 'none'}; ${M} × ${DIM} queries against ${ROWS} × ${DIM}, ${PRECISION}`);
  const torch = startTorch();
  await torch.ready();  // before the corpus is made: without PyTorch there is nothing to time against
  const C = await Matrix.from(quickUniform(ROWS * DIM), ROWS, DIM);
  const sets = await Promise.all([0, 1, 2].map(() => Matrix.from(random(M * DIM), M, DIM)));
  const S = await Matrix.from(new Float32Array(M * ROWS), M, ROWS);
  const timeOurs = () =>
    medianOfCalls((i) => gemm({ a: sets[i % 3], b: C, c: S, m: M, k: DIM, n: ROWS, transB: true }, { precision: PRECISION }), WARM_UP, CALLS);
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const oursFirst = r % 2 === 0;
    const side = async (name) => {
      const ms = name === 'ours' ? await timeOurs() : await torch.time();
      return { ms, state: cardState() };
    };
    const [first, second] = oursFirst ? ['ours', 'PyTorch'] : ['PyTorch', 'ours'];
    const a = await side(first);
    const b = await side(second);
    const [ours, theirs] = oursFirst ? [a, b] : [b, a];
    rounds.push({ oursFirst, ours: ours.ms, theirs: theirs.ms, ratio: ours.ms / theirs.ms });
    console.log(`round ${r} ${first.padEnd(7)} first  ours ${ours.ms.toFixed(3)} ms (${ours.state})  PyTorch ${theirs.ms.toFixed(3)} ms (${theirs.state})  ratio ${(ours.ms / theirs.ms).toFixed(3)}`);
  }
  torch.stop();
  [C, S, ...sets].forEach((x) => x.dispose());
  const summary = (label, rows) =>
    console.log(`${label.padEnd(16)} rounds ${String(rows.length).padStart(2)}  ours ${median(rows.map((x) => x.ours)).toFixed(3)} ms  PyTorch ${median(rows.map((x) => x.theirs)).toFixed(3)} ms  ratio ${median(rows.map((x) => x.ratio)).toFixed(3)} (${Math.min(...rows.map((x) => x.ratio)).toFixed(3)}–${Math.max(...rows.map((x) => x.ratio)).toFixed(3)})`);
  console.log(`\nmedians, m = ${M} ${PRECISION}, awaited, ${CALLS} calls a side a round:`);
  summary('all', rounds);
  summary('ours first', rounds.filter((x) => x.oursFirst));
  summary('PyTorch first', rounds.filter((x) => !x.oursFirst));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
