#!/usr/bin/env node
// Matrix products 40 in flight against the kernel alone (docs/benchmarks.md): for each shape of the kernels' table,
// in both precisions, products issued 40 at a time through `Matrix#matmul` (a first round, then 5 timed: 240 back
// to back), against what a Matrix product runs, launched as many times back to back by a build of bench/kernels.cu
// (`--resident`: 'auto''s kernel, on the Bᵀ a Matrix keeps). The GPU's clock under its power cap drifts by ±5%
// between minutes, more than the difference measured, so the two are taken in 3 pairs in alternating order, each
// side after a rest, and the median of the pairs' ratios is reported (docs/benchmarks.md). Needs
// CUDA_MATMUL_KERNELS_BIN for the kernel alone; prints a table.
'use strict';
const { Matrix } = require('..');
const { median, now, outputOf, random } = require('./inputs');

const tflops = ({ m, k, n }, ms) => (2 * m * k * n) / (ms * 1e-3) / 1e12;
const IN_FLIGHT = 40;
const ROUNDS = 5; // timed, after one untimed: 240 products back to back
const PRECISIONS = ['fp32', 'tf32'];

// Sets of (X, W, Y), at least two and enough to hold 96 MB, rotated so that no product finds its operands in L2
// (50 MB on an H100).
async function operandSets({ m, k, n }) {
  const count = Math.max(2, Math.ceil((96 << 20) / (4 * (m * k + k * n + m * n))));
  const sets = [];
  for (let i = 0; i < count; i++) {
    const [X, W, Y] = await Promise.all([Matrix.from(random(m * k), m, k), Matrix.from(random(k * n), k, n), Matrix.from(new Float32Array(m * n), m, n)]);
    sets.push({ X, W, Y });
  }
  return sets;
}

const disposeSets = (sets) => sets.forEach((s) => [s.X, s.W, s.Y].forEach((matrix) => matrix.dispose()));

// Per product, ms: `inFlight` products over the sets of (X, W, Y) issued at once, then awaited; the median of
// `rounds` rounds after one untimed.
async function inFlightMs(sets, precision, inFlight = IN_FLIGHT, rounds = ROUNDS) {
  const run = () => Promise.all(Array.from({ length: inFlight }, (_, i) => sets[i % sets.length]).map(({ X, W, Y }) => X.matmul(W, { out: Y, precision })));
  await run();
  const times = [];
  for (let r = 0; r < rounds; r++) {
    const start = now();
    await run();
    times.push((now() - start) / inFlight);
  }
  return median(times);
}

// TFLOP/s of what a Matrix product runs in `precision`, alone, (ROUNDS + 1)·IN_FLIGHT launches back to back; null
// without a kernels build.
function aloneTflops({ m, k, n }, precision) {
  const binary = process.env.CUDA_MATMUL_KERNELS_BIN;
  const launches = (ROUNDS + 1) * IN_FLIGHT;
  const output = binary && outputOf(binary, [`${m}x${k}x${n}`, `--resident=${precision}`, `--back-to-back=${launches}`], 'kernel alone');
  const line = output?.split('\n').find((l) => l.includes('resident') && l.includes(`${launches} back to back`));
  return line ? Number(line.trim().split(/\s+/).at(-3)) : null;
}

// Each side of a pair starts from an idle GPU: one run at the power cap lowers the clock of what follows it
// (inflight-v1: 8192³ tf32 in flight right after 8192³ fp32 in flight came out at 0.79× the kernel alone).
const REST_MS = 2000;
const rest = () => new Promise((resolve) => setTimeout(resolve, REST_MS));

// One shape in one precision: 3 pairs (in flight, alone), in alternating order, each side after a rest. The
// in-flight TFLOP/s, the kernel alone, and the median of the pairs' ratios (null without a kernels build).
async function inFlightAgainstAlone(shape, precision) {
  const sets = await operandSets(shape);
  await inFlightMs(sets, precision); // Bᵀ made and kept for this precision, outside the pairs
  const pairs = [];
  for (let i = 0; i < 3; i++) {
    const sides = { queued: async () => tflops(shape, await inFlightMs(sets, precision)), alone: async () => aloneTflops(shape, precision) };
    const pair = {};
    for (const side of i % 2 === 0 ? ['queued', 'alone'] : ['alone', 'queued']) {
      await rest();
      pair[side] = await sides[side]();
    }
    pairs.push(pair);
  }
  disposeSets(sets);
  const measured = pairs.every((p) => p.alone);
  return {
    queued: median(pairs.map((p) => p.queued)),
    alone: measured ? median(pairs.map((p) => p.alone)) : null,
    ratio: measured ? median(pairs.map((p) => p.queued / p.alone)) : null,
  };
}

// The kernels' table's shapes (docs/benchmarks.md), with the precisions it names for each.
const SHAPES = [
  { m: 2048, k: 2048, n: 2048, precisions: ['fp32'] },
  { m: 4096, k: 4096, n: 4096, precisions: PRECISIONS },
  { m: 8192, k: 8192, n: 8192, precisions: PRECISIONS },
  { m: 64, k: 768, n: 100000, precisions: PRECISIONS },
  { m: 100000, k: 768, n: 64, precisions: PRECISIONS },
];

// The shapes asked for (MxKxN), in both precisions where SHAPES does not name them; none asked: SHAPES.
function shapesAsked(args) {
  const asked = args.filter((arg) => /^\d+x\d+x\d+$/.test(arg)).map((arg) => {
    const [m, k, n] = arg.split('x').map(Number);
    return SHAPES.find((s) => s.m === m && s.k === k && s.n === n) ?? { m, k, n, precisions: PRECISIONS };
  });
  return asked.length > 0 ? asked : SHAPES;
}

// `node bench/inflight.js [MxKxN ...]`
async function main() {
  const rows = [];
  for (const { precisions, ...shape } of shapesAsked(process.argv.slice(2))) {
    for (const precision of precisions) rows.push({ shape: `${shape.m}×${shape.k}×${shape.n}`, precision, ...(await inFlightAgainstAlone(shape, precision)) });
  }
  console.log(`\nsummary: Matrix products ${IN_FLIGHT} in flight against the kernel alone (${(ROUNDS + 1) * IN_FLIGHT} back to back), 3 alternating pairs after ${REST_MS / 1000} s rests, medians`);
  console.log(['shape', 'precision', 'in flight TFLOP/s', 'alone TFLOP/s', 'pairs\' ratio', 'target ≥ 0.97'].map((x) => x.padEnd(20)).join(''));
  for (const r of rows) {
    const verdict = r.ratio === null ? 'n/a' : r.ratio >= 0.97 ? '✓' : '✗';
    console.log([r.shape, r.precision, r.queued.toFixed(1), r.alone?.toFixed(1) ?? 'n/a', r.ratio?.toFixed(3) ?? 'n/a', verdict].map((x) => String(x).padEnd(20)).join(''));
  }
  if (process.argv.includes('--json')) console.log(JSON.stringify(rows));
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}

module.exports = { inFlightAgainstAlone, inFlightMs, operandSets, disposeSets };
