// The smoke test run where the package is installed on another system (scripts/test-systems.sh): it loads the
// binary expected there, multiplies on the CPU as a float64 reference does, and its command line loads the same
// binary. `node smoke.js ARCH VARIANT`; prints one JSON line; exits 1 when anything differs. SMOKE_NODE runs its child Node (the command line) where the kernel cannot run this Node's binary
// itself (Node for arm64 under qemu-user, without binfmt_misc): "qemu-aarch64-static -L ROOT NODE".
'use strict';
const { execFileSync } = require('child_process');
const path = require('path');
const { matmul, info } = require('cuda-matmul');

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

(async () => {
  const [m, k, n] = [67, 131, 45];
  const a = random(m * k, 7);
  const b = random(k * n, 11);
  const c = await matmul(a, b, { m, k, n }, { backend: 'cpu' });
  const error = relativeError(c, a, b, m, k, n);
  const cli = path.join(path.dirname(require.resolve('cuda-matmul/package.json')), 'dist', 'cli.js');
  const [node, ...nodeArguments] = (process.env.SMOKE_NODE || process.execPath).split(' ');
  const command = JSON.parse(execFileSync(node, [...nodeArguments, cli, 'info', '--json']).toString());
  const state = info();
  console.log(JSON.stringify({ arch: process.arch, error, backend: state.backend, binary: state.binary, cliBinary: command.binary.path }));
  const [arch, variant] = process.argv.slice(2);
  const failures = [
    error < 1e-6 ? null : `error ${error}`,
    process.arch === arch ? null : `Node's arch is ${process.arch}, not ${arch}`,
    state.binary.variant === variant && state.binary.origin === 'shipped' ? null : `loaded ${state.binary.origin} ${state.binary.variant}`,
    command.binary.path === state.binary.path ? null : `the command line loaded ${command.binary.path}`,
  ].filter(Boolean);
  if (failures.length) {
    console.error(`smoke: ${failures.join('; ')}`);
    process.exitCode = 1;
  }
})();
