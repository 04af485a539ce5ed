#!/usr/bin/env node
// npm run bench: (1) end to end from JavaScript — `await matmul` on plain Float32Arrays, CUDA (with its
// transfers) against the CPU backend, wall-clock medians; (2) on a GPU, the data path: host arrays vs
// allocHost arrays at 4096³, 64³ calls one at a time, 1000 concurrent calls, beside PyTorch on the same
// host where it is installed; (3) where nvcc and cuBLAS are present, the kernels alone on device-resident
// data, timed with CUDA events (bench/kernels.cu).
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { matmul, info, allocHost, freeHost } = require('..');
const { random } = require('./inputs');

const SIZES = (process.env.BENCH_SIZES || '256,512,1024,2048,4096').split(',').map(Number);
const RUNS = 7;

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

const SMALL = 64;
const SMALL_CALLS = 2000;
const CONCURRENT_CALLS = 1000;
const MIXED_SHAPES = [[1, 1, 1], [17, 33, 9], [64, 64, 64], [97, 131, 61], [256, 256, 256], [128, 16, 130], [512, 64, 512]];

async function microsecondsPerSmallCall() {
  const a = random(SMALL * SMALL);
  const b = random(SMALL * SMALL);
  const shape = { m: SMALL, k: SMALL, n: SMALL };
  const batch = async () => {
    for (let i = 0; i < SMALL_CALLS; i++) await matmul(a, b, shape);
  };
  return ((await medianMs(batch, 5)) * 1000) / SMALL_CALLS;
}

// The same mixed calls, one at a time and all at once: calls per second each way.
async function concurrentThroughput() {
  const calls = Array.from({ length: CONCURRENT_CALLS }, (_, i) => {
    const [m, k, n] = MIXED_SHAPES[i % MIXED_SHAPES.length];
    return { a: random(m * k), b: random(k * n), shape: { m, k, n } };
  });
  const oneAtATime = await medianMs(async () => {
    for (const c of calls) await matmul(c.a, c.b, c.shape);
  }, 3);
  const allAtOnce = await medianMs(() => Promise.all(calls.map((c) => matmul(c.a, c.b, c.shape))), 3);
  return { oneAtATime: (CONCURRENT_CALLS * 1000) / oneAtATime, allAtOnce: (CONCURRENT_CALLS * 1000) / allAtOnce };
}

async function hostArrayProducts(n) {
  const shape = { m: n, k: n, n };
  const a = random(n * n);
  const b = random(n * n);
  const plain = await medianMs(() => matmul(a, b, shape), RUNS);
  const [pa, pb, pout] = [allocHost(n * n), allocHost(n * n), allocHost(n * n)];
  pa.set(a);
  pb.set(b);
  const pinned = await medianMs(() => matmul(pa, pb, shape, { out: pout }), RUNS);
  [pa, pb, pout].forEach(freeHost);
  return { plain, pinned };
}

// PyTorch on the same host, same cases: numpy → cuda → numpy, pinned tensors, a 64³ loop.
function torchBaseline(n) {
  const script = `import numpy as np, time, torch
assert torch.cuda.is_available()
def median(run, runs):
    run(); torch.cuda.synchronize()
    t = []
    for _ in range(runs):
        s = time.perf_counter(); run(); torch.cuda.synchronize(); t.append(time.perf_counter() - s)
    return sorted(t)[len(t) // 2]
a = np.random.rand(${n}, ${n}).astype(np.float32); b = np.random.rand(${n}, ${n}).astype(np.float32)
plain = median(lambda: (torch.from_numpy(a).cuda() @ torch.from_numpy(b).cuda()).cpu().numpy(), ${RUNS})
pa, pb = torch.from_numpy(a).pin_memory(), torch.from_numpy(b).pin_memory()
pout = torch.empty((${n}, ${n}), pin_memory=True)
pinned = median(lambda: pout.copy_(pa.cuda(non_blocking=True) @ pb.cuda(non_blocking=True), non_blocking=True), ${RUNS})
sa = np.random.rand(${SMALL}, ${SMALL}).astype(np.float32); sb = sa.copy()
def loop():
    for _ in range(${SMALL_CALLS}): (torch.from_numpy(sa).cuda() @ torch.from_numpy(sb).cuda()).cpu().numpy()
small = median(loop, 5) / ${SMALL_CALLS}
print(plain * 1e3, pinned * 1e3, small * 1e6)`;
  try {
    const [plain, pinned, small] = execFileSync('python3', ['-c', script], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim()
      .split(/\s+/)
      .map(Number);
    return { plain, pinned, small };
  } catch {
    return null;
  }
}

async function dataPath() {
  const n = 4096;
  const ours = await hostArrayProducts(n);
  const small = await microsecondsPerSmallCall();
  const throughput = await concurrentThroughput();
  const torch = torchBaseline(n);
  const torchCell = (value, unit) => (torch ? `${value.toFixed(unit === 'µs' ? 1 : 2)} ${unit}` : 'n/a');
  console.log('\ndata path (await matmul from JavaScript; medians after a warm-up)');
  const rows = [
    ['case', 'cuda-matmul', 'PyTorch', 'target'],
    [`${n}³, plain Float32Arrays in, new array out`, `${ours.plain.toFixed(2)} ms`, torchCell(torch?.plain, 'ms'), '≤ 12 ms'],
    [`${n}³, allocHost arrays in and out`, `${ours.pinned.toFixed(2)} ms`, torchCell(torch?.pinned, 'ms'), '≤ 5 ms'],
    [`${SMALL}³ one at a time, per call`, `${small.toFixed(1)} µs`, torchCell(torch?.small, 'µs'), '≤ 40 µs'],
    [`${CONCURRENT_CALLS} mixed calls, one at a time`, `${throughput.oneAtATime.toFixed(0)} calls/s`, '', ''],
    [`${CONCURRENT_CALLS} mixed calls, all at once`, `${throughput.allAtOnce.toFixed(0)} calls/s`, '', '≥ one at a time'],
  ];
  for (const row of rows) console.log(`${row[0].padEnd(42)}${row.slice(1).map((c) => c.padStart(16)).join('')}`);
}

function kernelBenchmark() {
  const source = path.join(__dirname, 'kernels.cu');
  const binary = path.join(os.tmpdir(), 'cuda-matmul-kernels');
  const arch = info().devices[0].computeCapability.replace('.', '');
  try {
    // On compute capability 9.0, sm_90a: the wgmma kernel exists only there (as in the addon's build).
    const target = arch === '90' ? ['-gencode=arch=compute_90a,code=sm_90a', '-DCUDA_MATMUL_WGMMA'] : [`-arch=sm_${arch}`];
    execFileSync('nvcc', ['-O3', '-std=c++17', ...target, '-I', path.join(__dirname, '..', 'native'), source,
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
  if (status.backend === 'cuda') await dataPath();
  if (status.backend === 'cuda') kernelBenchmark();
  fs.rmSync(path.join(os.tmpdir(), 'cuda-matmul-kernels'), { force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
