#!/usr/bin/env node
// npm run demo: one product on the best backend, checked against the CPU backend.
'use strict';
const { matmul, info } = require('..');
const { random, relativeError } = require('./inputs');

const [m, k, n] = (process.argv[2] || '2048x1024x512').split('x').map(Number);

async function main() {
  const status = info();
  const a = random(m * k);
  const b = random(k * n);
  await matmul(a, b, { m, k, n }); // warm-up: CUDA context creation is not part of the product
  const start = process.hrtime.bigint();
  const c = await matmul(a, b, { m, k, n });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const check = await matmul(a, b, { m, k, n }, { backend: 'cpu' });

  console.log(`backend:  ${status.backend}${status.reason ? ` (${status.reason})` : ''}`);
  console.log(`device:   ${status.backend === 'cuda' ? `${status.devices[0].name} (compute ${status.devices[0].computeCapability})` : 'CPU'}`);
  console.log(`shape:    ${m}×${k} · ${k}×${n} → ${m}×${n}`);
  console.log(`time:     ${ms.toFixed(2)} ms (${((2 * m * k * n) / (ms * 1e6)).toFixed(1)} GFLOP/s, transfers included)`);
  console.log(`error:    ${relativeError(c, check).toExponential(2)} (relative Frobenius, against the CPU backend)`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
