// The smoke test run where the package is installed on another system (scripts/test-systems.sh): it loads the
// binary expected there, multiplies on the CPU as a float64 reference does, applies α and β as the GPU's epilogue
// does (α·t and β·c each rounded, then added: an FMA, which arm64's base instruction set has, rounds once), and its
// command line loads the same binary. `node smoke.js ARCH VARIANT`; prints one JSON line; exits 1 when anything
// differs. SMOKE_NODE runs its child Node (the command line) where the kernel cannot run this Node's binary itself
// (Node for arm64 under qemu-user, without binfmt_misc): "qemu-aarch64-static -L ROOT NODE".
'use strict';
const { execFileSync } = require('child_process');
const path = require('path');
const { gemm, matmul, info } = require('cuda-matmul');

function random(length, seed) {
  let state = seed;
  return Float32Array.from({ length }, () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 30) - 1);
}

function relativeError(c, a, b, m, k, n) {
  let diff = 0;
  let norm = 0;
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let p = 0; p < k; p++) sum += a[i * k + p] * b[p * n + j];
      diff += (c[i * n + j] - sum) ** 2;
      norm += sum * sum;
    }
  return Math.sqrt(diff / norm);
}

// How many elements of C = α·(x·yᵀ) + β·C (x: m, y: n, k = 1, so that each product is one rounding) are not
// round(round(α·t) + round(β·c)), on the CPU backend, of how many.
async function fusedElements() {
  const [m, n, alpha, beta] = [16, 33, 0.1, -0.7];
  const x = random(m, 3), y = random(n, 5), c0 = random(m * n, 13);
  const c = await gemm({ a: x, b: y, c: Float32Array.from(c0), m, k: 1, n, alpha, beta }, { backend: 'cpu' });
  let fused = 0;
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      const t = Math.fround(x[i] * y[j]);
      const want = Math.fround(Math.fround(Math.fround(alpha) * t) + Math.fround(Math.fround(beta) * c0[i * n + j]));
      if (!Object.is(c[i * n + j], want)) fused++;
    }
  return { fused, elements: m * n };
}

(async () => {
  const [m, k, n] = [67, 131, 45];
  const a = random(m * k, 7);
  const b = random(k * n, 11);
  const c = await matmul(a, b, { m, k, n }, { backend: 'cpu' });
  const error = relativeError(c, a, b, m, k, n);
  const { fused, elements } = await fusedElements();
  const cli = path.join(path.dirname(require.resolve('cuda-matmul/package.json')), 'dist', 'cli.js');
  const [node, ...nodeArguments] = (process.env.SMOKE_NODE || process.execPath).split(' ');
  const command = JSON.parse(execFileSync(node, [...nodeArguments, cli, 'info', '--json']).toString());
  const state = info();
  console.log(JSON.stringify({ arch: process.arch, error, fused, backend: state.backend, binary: state.binary, cliBinary: command.binary.path }));
  const [arch, variant] = process.argv.slice(2);
  const failures = [
    error < 1e-6 ? null : `error ${error}`,
    fused === 0 ? null : `α·t + β·c rounded once (fused) in ${fused} of ${elements} elements`,
    process.arch === arch ? null : `Node's arch is ${process.arch}, not ${arch}`,
    state.binary.variant === variant && state.binary.origin === 'shipped' ? null : `loaded ${state.binary.origin} ${state.binary.variant}`,
    command.binary.path === state.binary.path ? null : `the command line loaded ${command.binary.path}`,
  ].filter(Boolean);
  if (failures.length) {
    console.error(`smoke: ${failures.join('; ')}`);
    process.exitCode = 1;
  }
})();
