#!/usr/bin/env node
// IEEE special values through the public API, on every backend, kernel and precision: the elements of a
// 67×45×71 product whose class (NaN, +Inf, −Inf, finite) differs from a float64 reference rounded to float32,
// with ±Inf, NaN, values near FLT_MAX and subnormals among the operands (bench/inputs.js, specialOperands;
// test/gpu/special-values.test.ts asserts 0 on them; bench/accuracy.cu counts cuBLAS's).
//   node bench/special-values.js [package directory, default this one]
'use strict';
const path = require('path');
const { matmul, info } = require(path.resolve(process.argv[2] || path.join(__dirname, '..')));
const { specialOperands } = require('./inputs');

const [m, k, n] = [67, 45, 71];

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
    const [a, b] = specialOperands(m, k, n);
    const wrong = mismatches(await matmul(a, b, { m, k, n }, options), a, b);
    total += wrong;
    console.log(`${JSON.stringify(options)}: ${wrong} elements of another class than float64's`);
  }
  console.log(`special values: ${total} in all`);
  process.exitCode = total ? 1 : 0;
})();
