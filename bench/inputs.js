// What the benchmark scripts share: fresh U[-1,1] inputs, the special-value operands, the relative Frobenius
// error ‖got − ref‖ / ‖ref‖, PyTorch's figures, --name=value arguments, medians and a millisecond clock. test/gpu/special-values.test.ts uses the
// special-value operands too.
'use strict';
const { execFileSync } = require('child_process');

function random(length) {
  const x = new Float32Array(length);
  for (let i = 0; i < length; i++) x[i] = Math.random() * 2 - 1;
  return x;
}

// U[-1,1] floats from a fast generator, the same ones for the same seed (a 3 GB corpus from Math.random takes most of
// a minute).
function quickUniform(length, seed = 0x9e3779b9) {
  const x = new Float32Array(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    x[i] = state / 2 ** 31 - 1;
  }
  return x;
}

function relativeError(got, ref) {
  let diff = 0;
  let norm = 0;
  for (let i = 0; i < ref.length; i++) {
    diff += (got[i] - ref[i]) ** 2;
    norm += ref[i] ** 2;
  }
  return Math.sqrt(diff / norm);
}

const FLT_MAX = 3.4028234663852886e38;

// An m×k A and k×n B (m ≥ 25, k ≥ 6, n ≥ 21) of U[-1,1] with IEEE special values among them, each in its own row
// of A or column of B so that every case meets ordinary ones too (bench/accuracy.cu builds the same on the device).
function specialOperands(m, k, n) {
  const a = random(m * k);
  const b = random(k * n);
  for (let i = 0; i < m * k; i += 7) a[i] *= 1e-39; // subnormals throughout
  a[3 * k + 5] = Infinity;
  a[7 * k + 2] = -Infinity;
  a[11 * k + 9] = NaN;
  a[13 * k + 1] = Infinity;
  b[1 * n + 13] = 0; // +∞ · 0 = NaN at (13, 13) alone
  a[24 * k + 4] = 1e-40;
  b[4 * n + 20] = -Infinity; // −∞ · subnormal = −∞ at (24, 20)
  // Finite operands that rounding to TF32 carries to ∞, in products whose exact sums stay far below FLT_MAX.
  a[17 * k + 0] = FLT_MAX;
  a[17 * k + 1] = -3.4025e38;
  for (let j = 0; j < n; j++) {
    b[0 * n + j] *= 0.5;
    b[1 * n + j] *= 0.25;
  }
  return [a, b];
}

// What a helper program prints, or null, said on stderr as `what` unavailable, where this host cannot run it.
function outputOf(file, args, what) {
  try {
    return execFileSync(file, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  } catch (error) {
    console.error(`${what} unavailable: ${String(error.stderr || error).split('\n').slice(-2).join(' ')}`);
    return null;
  }
}

// The numbers a PyTorch script prints (the same-run anchor), or null where this host has no PyTorch.
function pytorchNumbers(script) {
  const output = outputOf('python3', ['-c', script], 'PyTorch baseline');
  return output === null ? null : output.trim().split(/\s+/).map(Number);
}

// The value of a --name=value argument, or `fallback`.
function argument(name, fallback) {
  const given = process.argv.find((a) => a.startsWith(`--${name}=`));
  return given ? given.slice(name.length + 3) : fallback;
}

// The median of a list of times (the upper one of the middle two for an even count), and a clock in milliseconds.
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const now = () => Number(process.hrtime.bigint()) / 1e6;

// The median time (ms) of `calls` awaited calls of call(i) after `warmUp` untimed ones; i counts from 0 over both.
async function medianOfCalls(call, warmUp, calls) {
  const times = [];
  for (let i = 0; i < warmUp + calls; i++) {
    const start = now();
    await call(i);
    if (i >= warmUp) times.push(now() - start);
  }
  return median(times);
}

module.exports = { argument, median, medianOfCalls, now, quickUniform, random, relativeError, specialOperands, outputOf, pytorchNumbers };
