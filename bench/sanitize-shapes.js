#!/usr/bin/env node
// Runs every CUDA kernel once on edge shapes, for compute-sanitizer:
//   compute-sanitizer --tool memcheck node bench/sanitize-shapes.js   (also --tool racecheck)
'use strict';
const { matmulSync } = require('..');

const SHAPES = [[1, 1, 1], [97, 131, 61], [4097, 33, 4095], [1, 700, 1], [33, 1, 17]];
const KERNELS = ['muld', 'blocktile'];
let failures = 0;
for (const kernel of KERNELS) {
  for (const [m, k, n] of SHAPES) {
    const a = Float32Array.from({ length: m * k }, () => Math.random() * 2 - 1);
    const b = Float32Array.from({ length: k * n }, () => Math.random() * 2 - 1);
    const c = matmulSync(a, b, { m, k, n }, { backend: 'cuda', kernel });
    const ref = matmulSync(a, b, { m, k, n }, { backend: 'cpu' });
    let diff = 0;
    let norm = 0;
    for (let i = 0; i < ref.length; i++) {
      diff += (c[i] - ref[i]) ** 2;
      norm += ref[i] ** 2;
    }
    const error = Math.sqrt(diff / norm);
    if (!(error < 1e-5)) failures++;
    console.log(`${kernel} ${m}×${k}×${n}: relative error vs CPU ${error.toExponential(2)}`);
  }
}
process.exit(failures ? 1 : 0);
