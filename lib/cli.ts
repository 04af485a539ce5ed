#!/usr/bin/env node
// The `cuda-matmul` command: `info`, `demo [MxKxN]`, `bench [--sizes …] [--backend …] [--kernel …] [--svg FILE]
// [--json]`, `build-from-source`, `--version`. Bad arguments print one line and the usage, and exit with status 2 (never a stack
// trace).
import { spawnSync } from 'child_process';
import { readFileSync, writeFileSync } from 'fs';
import { cpus } from 'os';
import * as path from 'path';
import { parseArgs } from 'util';
import { lineChart, Series } from './chart';
import type * as Api from './index';
import { KERNELS } from './options';
import type { Backend, KernelName, MatmulOptions } from './types';

const USAGE = `usage: cuda-matmul <command> [options]
  info [--json]                         backend, devices, memory; why CUDA is not used, and what to do
  demo [MxKxN]                          one product on the best backend, checked against float64 (default 1024x1024x1024)
  bench [--sizes 256,1024,4096] [--backend cuda,cpu] [--kernel auto,mma,…] [--svg FILE] [--json]
                                        throughput of await matmul from plain arrays, per size and backend/kernel
  build-from-source                     compile the addon here (C++20 compiler; nvcc for CUDA): loaded before the shipped ones
  --version, -v                         the package's version`;

// The API is loaded when a command needs it: build-from-source runs where the shipped binaries may not load.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const api = (): typeof Api => require('./index') as typeof Api;

class UsageError extends Error {}

function fail(message: string): never {
  throw new UsageError(message);
}

function positiveInteger(text: string, what: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1) fail(`${what}: expected a positive integer, got '${text}'`);
  return value;
}

function list<T extends string>(text: string | undefined, allowed: readonly T[], what: string): T[] | undefined {
  if (text === undefined) return undefined;
  const items = text.split(',');
  for (const item of items) if (!allowed.includes(item as T)) fail(`${what}: expected one of ${allowed.join(', ')}, got '${item}'`);
  return items as T[];
}

const random = (length: number) => Float32Array.from({ length }, () => Math.random() * 2 - 1);

// --- info ------------------------------------------------------------------------------------------------

function showInfo(json: boolean): void {
  const state = api().info();
  if (json) return void console.log(JSON.stringify({ ...state, node: process.version }, null, 2));
  console.log(`cuda-matmul ${state.version} on Node ${process.version}`);
  console.log(`backend: ${state.backend}`);
  const binary = state.binary;
  console.log(`binary: ${binary.variant} (${binary.origin}; ${binary.cudaRuntime ? `CUDA runtime ${binary.cudaRuntime}, sm_${binary.architectures.join(', sm_')}` : 'no CUDA'}) ${binary.path}`);
  console.log(`chosen because: ${binary.choice}`);
  if (binary.untested) console.log(`note: ${binary.untested}`);
  for (const d of state.devices)
    console.log(`device ${d.index}: ${d.name}, compute capability ${d.computeCapability}, ${(d.totalMemory / 2 ** 30).toFixed(1)} GiB`);
  if (state.reason) {
    console.log(`CUDA is not used: ${state.reason}`);
    console.log('To use a GPU: an NVIDIA GPU and its driver, branch 525 or newer (580 or newer for the CUDA 13 build); nvidia-smi shows both.');
  }
  console.log(`cpu: ${state.cpu.cores} cores usable, at most ${state.cpu.threads} kept busy by the library`);
  const m = state.memory;
  console.log(`memory held: ${m.deviceBytesInUse} B in use, ${m.deviceBytesCached} B cached on devices, ${m.stagingBytes} B page-locked staging, ${m.resultBytesCached} B of results cached, ${m.resultBytesPinned} B of results page-locked`);
}

// --- build-from-source -----------------------------------------------------------------------------------

function buildFromSource(): void {
  const packageRoot = path.join(__dirname, '..');
  const built = spawnSync(process.execPath, [path.join(packageRoot, 'scripts', 'build-addon.js'), '--variant', 'local', '--out',
    path.join(packageRoot, 'build', 'Release')], { cwd: packageRoot, stdio: 'inherit' });
  if (built.status !== 0) throw new Error(`the build failed (status ${built.status ?? built.signal}); nothing was replaced`);
  console.log(`built ${path.join(packageRoot, 'build', 'Release', 'cuda-matmul.node')}: it is loaded before the shipped binaries ` +
    '(`cuda-matmul info` says so); delete build/ to go back to them.');
}

// --- demo ------------------------------------------------------------------------------------------------

/** ‖C − R‖/‖R‖ over up to 32 rows spread through C, R in float64: the full reference of a large product is slow in JavaScript. */
function sampledError(c: Float32Array, a: Float32Array, b: Float32Array, m: number, k: number, n: number): number {
  let diff = 0;
  let norm = 0;
  const rows = Math.min(m, 32);
  for (let r = 0; r < rows; r++) {
    const i = Math.floor((r * m) / rows);
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let p = 0; p < k; p++) sum += a[i * k + p] * b[p * n + j];
      diff += (c[i * n + j] - sum) ** 2;
      norm += sum * sum;
    }
  }
  return norm === 0 ? Math.sqrt(diff) : Math.sqrt(diff / norm);
}

async function demo(shapeText = '1024x1024x1024'): Promise<void> {
  const parts = shapeText.split('x');
  if (parts.length !== 3) fail(`shape: expected MxKxN such as 512x256x128, got '${shapeText}'`);
  const [m, k, n] = parts.map((p, i) => positiveInteger(p, ['m', 'k', 'n'][i]));
  const [a, b] = [random(m * k), random(k * n)];
  const state = api().info();
  const started = performance.now();
  const c = await api().matmul(a, b, { m, k, n });
  const ms = performance.now() - started;
  const where = state.backend === 'cuda' ? `cuda on ${state.devices[0].name}` : 'cpu';
  const note = state.backend === 'cuda' ? 'a first call: it includes bringing the device up and the copies to and from it' : 'a first call';
  console.log(`${m}×${k}×${n} on ${where}: ${ms.toFixed(2)} ms (${note})`);
  console.log(`relative error against a float64 reference (${Math.min(m, 32)} rows): ${sampledError(c, a, b, m, k, n).toExponential(2)}`);
  if (state.reason) console.log(`CUDA is not used: ${state.reason}. Run 'cuda-matmul info' for what to do.`);
}

// --- bench -----------------------------------------------------------------------------------------------

interface Measurement {
  config: string;
  size: number;
  ms: number;
  tflops: number;
}

/** Median time of `await matmul` (plain arrays in, a new array out) after a warm-up: at least 3 runs and 0.3 s, at most 20. */
async function timeProduct(size: number, options: MatmulOptions): Promise<number> {
  const [a, b] = [random(size * size), random(size * size)];
  const shape = { m: size, k: size, n: size };
  await api().matmul(a, b, shape, options);
  const times: number[] = [];
  const began = performance.now();
  while (times.length < 20 && (times.length < 3 || performance.now() - began < 300)) {
    const t = performance.now();
    await api().matmul(a, b, shape, options);
    times.push(performance.now() - t);
  }
  return times.sort((x, y) => x - y)[times.length >> 1];
}

/** Where and when: the GPU (where CUDA is used), the CPU, Node, today's date. */
function measuredOn(): string {
  const state = api().info();
  const gpu = state.backend === 'cuda' ? `${state.devices[0].name}; ` : '';
  return `${gpu}${cpus()[0]?.model.trim() ?? 'unknown CPU'}; Node ${process.version}; ${new Date().toISOString().slice(0, 10)}`;
}

function progress(text: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${text}`);
  else process.stderr.write(`${text}\n`);
}

async function bench(values: Record<string, string | boolean | undefined>): Promise<void> {
  const sizes = ((values.sizes as string | undefined) ?? '256,1024,2048').split(',').map((s) => positiveInteger(s, 'sizes'));
  const cuda = api().info().backend === 'cuda';
  const backends = list(values.backend as string | undefined, ['cuda', 'cpu'] as const, 'backend') ?? (cuda ? ['cuda', 'cpu'] : ['cpu']);
  if (backends.includes('cuda') && !cuda)
    throw new Error(`backend cuda: CUDA is not usable here (${api().info().reason}); run 'cuda-matmul info' for what to do`);
  const kernels = list(values.kernel as string | undefined, KERNELS, 'kernel') ?? ['auto'];
  if (values.kernel !== undefined && !backends.includes('cuda')) fail("kernel: needs backend 'cuda'");
  const configs: [string, MatmulOptions][] = backends.flatMap((backend): [string, MatmulOptions][] =>
    backend === 'cpu'
      ? [['cpu', { backend: 'cpu' as Backend }]]
      : kernels.map((kernel): [string, MatmulOptions] => [`cuda ${kernel}`, { backend: 'cuda', kernel: kernel as KernelName }]),
  );
  if (!cuda && !values.json) console.error(`note: CUDA is not used (${api().info().reason}); timing the CPU backend.`);
  const results: Measurement[] = [];
  const total = configs.length * sizes.length;
  for (const [config, options] of configs)
    for (const size of sizes) {
      progress(`[${results.length + 1}/${total}] ${config}, ${size}³ …`);
      const ms = await timeProduct(size, options);
      results.push({ config, size, ms, tflops: (2 * size ** 3) / (ms * 1e-3) / 1e12 });
    }
  progress(`[${total}/${total}] done`);
  if (process.stderr.isTTY) process.stderr.write('\n');
  if (values.svg) {
    const series: Series[] = configs.map(([config]) => ({
      name: config,
      points: results.filter((r) => r.config === config).map((r) => [r.size, r.tflops] as [number, number]),
    }));
    writeFileSync(values.svg as string, lineChart('cuda-matmul: await matmul from plain arrays', measuredOn(), series));
  }
  if (values.json) return void console.log(JSON.stringify(results, null, 2));
  console.log(`${'backend / kernel'.padEnd(22)}${'size'.padStart(8)}${'ms'.padStart(12)}${'TFLOP/s'.padStart(10)}`);
  for (const r of results)
    console.log(`${r.config.padEnd(22)}${`${r.size}³`.padStart(8)}${r.ms.toFixed(3).padStart(12)}${r.tflops.toFixed(3).padStart(10)}`);
  if (values.svg) console.log(`chart: ${values.svg}`);
}

// The version in package.json, read without loading the addon (as build-from-source runs where it may not load).
function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}

// --- main ------------------------------------------------------------------------------------------------

async function main(argv: string[]): Promise<void> {
  const parsed = (() => {
    try {
      return parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
          json: { type: 'boolean' },
          help: { type: 'boolean', short: 'h' },
          sizes: { type: 'string' },
          backend: { type: 'string' },
          kernel: { type: 'string' },
          svg: { type: 'string' },
          version: { type: 'boolean', short: 'v' },
        },
      });
    } catch (error) {
      return fail((error as Error).message.split('\n')[0]);
    }
  })();
  const [command, ...rest] = parsed.positionals;
  if (parsed.values.version && command === undefined) return void console.log(`cuda-matmul ${packageVersion()}`);
  if (parsed.values.help || command === undefined || command === 'help') return void console.log(USAGE);
  const only = (allowed: string[]) => {
    for (const name of Object.keys(parsed.values)) if (!allowed.includes(name)) fail(`${command}: no option --${name}`);
  };
  switch (command) {
    case 'info':
      only(['json']);
      if (rest.length) fail(`info: unexpected argument '${rest[0]}'`);
      return showInfo(parsed.values.json === true);
    case 'demo':
      only([]);
      if (rest.length > 1) fail(`demo: unexpected argument '${rest[1]}'`);
      return demo(rest[0]);
    case 'bench':
      if (rest.length) fail(`bench: unexpected argument '${rest[0]}'`);
      return bench(parsed.values);
    case 'build-from-source':
      only([]);
      if (rest.length) fail(`build-from-source: unexpected argument '${rest[0]}'`);
      return buildFromSource();
  }
  fail(`unknown command '${command}'`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`cuda-matmul: ${error.message}\n${USAGE}`);
    process.exitCode = 2;
  } else {
    console.error(`cuda-matmul: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
});
