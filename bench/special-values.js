#!/usr/bin/env node
// IEEE special values through the public API, on every backend, kernel and precision: the elements of a
// 67×45×71 product whose class (NaN, +Inf, −Inf, finite) differs from a float64 reference rounded to float32,
// with ±Inf, NaN, values near FLT_MAX and subnormals among the operands (test/special-values.test.ts has the
// same operands and asserts 0; bench/accuracy.cu counts cuBLAS's on them).
//   node bench/special-values.js [package directory, default this one]
'use strict';
const path = require('path');
const { matmul, info } = require(path.resolve(process.argv[2] || path.join(__dirname, '..')));

const FLT_MAX = 3.4028234663852886e38;
const [m, k, n] = [67, 45, 71];

function operands() {
  const a = Float32Array.from({ length: m * k }, () => Math.random() * 2 - 1);
  const b = Float32Array.from({ length: k * n }, () => Math.random() * 2 - 1);
  for (let i = 0; i < m * k; i += 7) a[i] *= 1e-39;
  a[3 * k + 5] = Infinity;
  a[7 * k + 2] = -Infinity;
  a[11 * k + 9] = NaN;
  a[13 * k + 1] = Infinity;
  b[1 * n + 13] = 0;
  a[24 * k + 4] = 1e-40;
  b[4 * n + 20] = -Infinity;
  a[17 * k + 0] = FLT_MAX;
  a[17 * k + 1] = -3.4025e38;
  for (let j = 0; j < n; j++) (b[j] *= 0.5), (b[n + j] *= 0.25);
  return [a, b];
}

const classOf = (x) => (Number.isNaN(x) ? 'NaN' : x === Infinity ? '+Inf' : x === -Infinity ? '-Inf' : 'finite');

function mismatches(c, a, b) {
  let wrong = 0;
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let p = 0; p < k; p++) sum += a[i * k + p] * b[p * n + j];
      if (classOf(Math.fround(sum)) !== classOf(c[i * n + j])) wrong++;
    }
  return wrong;
}

const RUNS = [
  { backend: 'cpu' },
  ...(info().backend === 'cuda'
    ? [
        ...['muld', 'blocktile', 'mma'].map((kernel) => ({ kernel })),
        { kernel: 'mma', precision: 'tf32' },
        ...(info().devices[0].computeCapability === '9.0' ? [{ kernel: 'wgmma', precision: 'tf32' }] : []),
      ]
    : []),
];

(async () => {
  let total = 0;
  for (const options of RUNS) {
    const [a, b] = operands();
    const wrong = mismatches(await matmul(a, b, { m, k, n }, options), a, b);
    total += wrong;
    console.log(`${JSON.stringify(options)}: ${wrong} elements of another class than float64's`);
  }
  console.log(`special values: ${total} in all`);
  process.exitCode = total ? 1 : 0;
})();
