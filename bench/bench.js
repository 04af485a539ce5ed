#!/usr/bin/env node
// npm run bench: (1) end to end from JavaScript — `await matmul` on plain Float32Arrays, CUDA (Muld, with
// its transfers) against the CPU backend, wall-clock medians; (2) where a GPU and nvcc with cuBLAS are
// present, the kernels alone on device-resident data, timed with CUDA events (bench/kernels.cu).
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { matmul, info } = require('..');

const SIZES = (process.env.BENCH_SIZES || '256,512,1024,2048,4096').split(',').map(Number);
const RUNS = 7;

function random(length) {
  const x = new Float32Array(length);
  for (let i = 0; i < length; i++) x[i] = Math.random() * 2 - 1;
  return x;
}

async function medianMs(run, runs) {
  await run(); // warm-up: CUDA context, first allocations
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times.sort((x, y) => x - y)[Math.floor(times.length / 2)];
}

async function endToEnd(backends) {
  console.log(`\nend to end (await matmul, host arrays in and out), median of ${RUNS} after a warm-up`);
  console.log(['size', ...backends.map((b) => `${b} ms`), ...backends.map((b) => `${b} GFLOP/s`)].map((s) => s.padStart(14)).join(''));
  for (const n of SIZES) {
    const a = random(n * n);
    const b = random(n * n);
    const out = new Float32Array(n * n);
    const cells = [];
    for (const backend of backends) {
      const runs = backend === 'cpu' && n >= 4096 ? 3 : RUNS;
      cells.push(await medianMs(() => matmul(a, b, { m: n, k: n, n }, { backend, out }), runs));
    }
    const gflops = cells.map((ms) => ((2 * n ** 3) / (ms * 1e6)).toFixed(1));
    console.log([`${n}³`, ...cells.map((ms) => ms.toFixed(2)), ...gflops].map((s) => String(s).padStart(14)).join(''));
  }
}

// numpy's OpenBLAS sgemm on the same machine, in the same run: as the environment has it, and with the
// OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE overrides removed (which lets OpenBLAS pick its AVX-512 kernels).
function numpyBaseline(n) {
  const script = `import numpy as np, time
a = np.random.rand(${n}, ${n}).astype(np.float32); b = np.random.rand(${n}, ${n}).astype(np.float32)
for _ in range(3): a @ b
t = []
for _ in range(${RUNS}):
    s = time.perf_counter(); a @ b; t.append(time.perf_counter() - s)
print(sorted(t)[len(t) // 2] * 1e3)`;
  const withoutOverrides = { ...process.env };
  delete withoutOverrides.OPENBLAS_CORETYPE;
  delete withoutOverrides.OPENBLAS_L2_SIZE;
  for (const [label, env] of [['environment as set', process.env], ['OPENBLAS_* overrides unset', withoutOverrides]]) {
    try {
      const ms = Number(execFileSync('python3', ['-c', script], { env, stdio: ['ignore', 'pipe', 'ignore'] }).toString());
      console.log(`numpy ${n}³ (${label}): ${ms.toFixed(2)} ms, ${((2 * n ** 3) / (ms * 1e6)).toFixed(1)} GFLOP/s`);
    } catch {
      console.log(`numpy ${n}³ (${label}): not available`);
      return;
    }
  }
}

function kernelBenchmark() {
  const source = path.join(__dirname, 'kernels.cu');
  const binary = path.join(os.tmpdir(), 'cuda-matmul-kernels');
  const arch = info().devices[0].computeCapability.replace('.', '');
  try {
    execFileSync('nvcc', ['-O3', '-std=c++17', `-arch=sm_${arch}`, '-I', path.join(__dirname, '..', 'native'), source,
      '-lcublas', '-o', binary], { stdio: 'inherit' });
  } catch (error) {
    console.log(`\nkernel benchmark skipped: could not build bench/kernels.cu with nvcc and cuBLAS (${error.message.split('\n')[0]})`);
    return;
  }
  console.log('\nkernels alone (device-resident data, CUDA events):');
  execFileSync(binary, process.argv.slice(2), { stdio: 'inherit' });
}

async function main() {
  const status = info();
  console.log(`cuda-matmul ${status.version}: ${status.backend === 'cuda' ? status.devices.map((d) => d.name).join(', ') : `CPU only (${status.reason})`}; ${os.cpus().length} CPU cores`);
  await endToEnd(status.backend === 'cuda' ? ['cuda', 'cpu'] : ['cpu']);
  numpyBaseline(1024);
  if (status.backend === 'cuda') kernelBenchmark();
  fs.rmSync(path.join(os.tmpdir(), 'cuda-matmul-kernels'), { force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
