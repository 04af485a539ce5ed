// Loads the native addon (docs/architecture.md, "Shipped binaries"): the file named by CUDA_MATMUL_ADDON, else a local
// build (build/Release, made only by `cuda-matmul build-from-source`), else the shipped variant for this platform
// whose CUDA runtime the installed driver runs, as the driver probe finds it. Every failure is gathered into one
// error that says what was tried and what to do.
import * as fs from 'fs';
import * as path from 'path';
import type { BinaryInfo, Info } from './types';

/** A matrix held by the addon (native/matrix_binding.cpp); lib/matrix.ts wraps it. */
export interface NativeMatrixHandle {
  readonly rows: number;
  readonly cols: number;
  readonly backend: 'cuda' | 'cpu';
  readonly device: number;
  readonly disposed: boolean;
  dispose(): void;
}

/** A call's abort (native/binding/abort_binding.h), requested from its signal's 'abort' listener (abort.ts). */
export interface NativeCallAbort {
  abort(): void;
}

/** The functions the addon exports (native/addon.cpp). Each asynchronous one takes a call's abort last. */
export interface NativeBinding {
  matmulSync(a: Float32Array, b: Float32Array, shape: object, options: object): Float32Array;
  matmul(a: Float32Array, b: Float32Array, shape: object, options: object, abort?: NativeCallAbort): Promise<Float32Array>;
  CallAbort: new () => NativeCallAbort;
  /** Holds one small product for the next runGathered() (native/binding/gathered.cpp). */
  gather(a: Float32Array, b: Float32Array, m: number, k: number, n: number, out: Float32Array): void;
  /** Runs the first `count` products gathered and not yet run as one batch; settles once all are written. */
  runGathered(count: number): Promise<void>;
  cudaInfo(): { usable: boolean; reason?: string; devices: Info['devices']; memory: Info['memory'] };
  cpuInfo(): Info['cpu'];
  allocHost(length: number): Float32Array;
  freeHost(array: Float32Array): void;
  /** An ArrayBuffer of 4·length bytes, contents unspecified, for a result written in full before it is read. */
  resultBuffer(length: number): ArrayBuffer;
  trimIdle(idleSeconds: number): Promise<void>;
  /** This environment is exiting: drops the products queued and not yet started. */
  shutdown(): void;
  /** The option table of native/core/options.h (lib/options.ts is the same). */
  options(): { backends: string[]; precisions: string[]; kernels: string[]; metrics: string[] };
  matrixFrom(data: Float32Array, rows: number, cols: number, options: object, abort?: NativeCallAbort): Promise<NativeMatrixHandle>;
  matrixMultiply(a: NativeMatrixHandle, b: NativeMatrixHandle, out: NativeMatrixHandle | undefined, kernel: string | undefined,
                 precision: string | undefined, abort?: NativeCallAbort): Promise<NativeMatrixHandle>;
  matrixToArray(matrix: NativeMatrixHandle, out: Float32Array, abort?: NativeCallAbort): Promise<Float32Array>;
  gemm(args: object, options: object, abort?: NativeCallAbort): Promise<Float32Array>;
  matrixGemm(a: NativeMatrixHandle, b: NativeMatrixHandle, c: NativeMatrixHandle, shape: object, options: object,
             abort?: NativeCallAbort): Promise<NativeMatrixHandle>;
  /** Writes scores and indices (a Float32Array over a Uint32Array's memory), queries.rows·k elements each. */
  matrixSearch(corpus: NativeMatrixHandle, queries: NativeMatrixHandle | Float32Array, k: number, metric: string | undefined,
               precision: string | undefined, scores: Float32Array, indices: Float32Array, abort?: NativeCallAbort): Promise<void>;
}

const packageRoot = path.join(__dirname, '..');

/** What a binary is, as the build wrote it beside the binary (scripts/build-addon.js, variants.json). */
interface BuiltBinary {
  file: string;
  variant: string;
  cudaRuntime: string | null;
  minimumDriverCuda: number;
  architectures: string[];
  untested?: string;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0] : String(error);
}

const cudaText = (version: number): string => `${Math.floor(version / 1000)}.${(version % 1000) / 10}`;
const platform = `${process.platform}-${process.arch}`;

function readManifest(dir: string): BuiltBinary[] {
  const file = path.join(dir, 'variants.json');
  if (!fs.existsSync(file)) return [];
  return Object.values(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, BuiltBinary>);
}

/** The driver's CUDA version through the probe (native/probe/driver_probe.c), or why there is none. */
function probeDriver(dir: string): { driverCuda: number; problem?: string } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const probe = require(path.join(dir, 'probe.node')) as { cudaDriverVersion(): { driverCuda?: number; problem?: string } };
  const found = probe.cudaDriverVersion();
  return found.driverCuda ? { driverCuda: found.driverCuda } : { driverCuda: 0, problem: found.problem };
}

/**
 * The shipped variant to load for a driver supporting CUDA `driverCuda` (0: no driver): the one with the newest
 * CUDA runtime that driver runs (CUDA's minor-version compatibility: a driver runs every runtime of its major
 * version), else the one without CUDA if shipped, else the oldest runtime's, which then runs on the CPU.
 */
function chooseVariant(binaries: BuiltBinary[], driverCuda: number): { binary: BuiltBinary; runsCuda: boolean } {
  const byNewest = [...binaries].sort((x, y) => y.minimumDriverCuda - x.minimumDriverCuda);
  const runnable = byNewest.find((b) => b.cudaRuntime !== null && b.minimumDriverCuda <= driverCuda);
  if (runnable) return { binary: runnable, runsCuda: true };
  return { binary: byNewest.find((b) => b.cudaRuntime === null) ?? byNewest[byNewest.length - 1], runsCuda: false };
}

/** info().binary for a file loaded; `built` is what the build wrote of it, where it wrote anything. */
function describeLoaded(built: BuiltBinary | undefined, origin: BinaryInfo['origin'], file: string, driverCuda: string | null,
                        choice: string): BinaryInfo {
  return {
    variant: built?.variant ?? 'custom',
    origin,
    cudaRuntime: built?.cudaRuntime ?? null,
    architectures: built?.architectures ?? [],
    path: file,
    driverCuda,
    choice,
    ...(built?.untested ? { untested: built.untested } : {}),
  };
}

function loadShipped(failures: string[]): { binding: NativeBinding; binary: BinaryInfo } | undefined {
  const dir = path.join(packageRoot, 'prebuilds', platform);
  const binaries = readManifest(dir);
  if (binaries.length === 0) {
    failures.push(`no binary ships for ${platform} (prebuilds/${platform}/variants.json is missing)`);
    return undefined;
  }
  const forced = process.env.CUDA_MATMUL_VARIANT;
  let driver: { driverCuda: number; problem?: string };
  try {
    driver = probeDriver(dir);
  } catch (error) {
    failures.push(`the driver probe (prebuilds/${platform}/probe.node): ${describe(error)}`);
    return undefined;
  }
  const choice = forced
    ? { binary: binaries.find((b) => b.variant === forced), runsCuda: true }
    : chooseVariant(binaries, driver.driverCuda);
  if (!choice.binary) {
    failures.push(`CUDA_MATMUL_VARIANT=${forced}: ${platform} ships ${binaries.map((b) => b.variant).join(', ')}`);
    return undefined;
  }
  const file = path.join(dir, choice.binary.file);
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const binding = require(file) as NativeBinding;
    const driverText = driver.driverCuda ? `CUDA ${cudaText(driver.driverCuda)}` : 'none';
    const why = forced ? `CUDA_MATMUL_VARIANT=${forced} (driver: ${driverText})`
      : choice.runsCuda ? `the driver supports ${driverText}`
      : driver.driverCuda ? `the driver supports ${driverText}: no variant's CUDA runs on it, so this one runs on the CPU`
      : `no NVIDIA driver was found (${driver.problem}), so this one runs on the CPU`;
    const driverCuda = driver.driverCuda ? cudaText(driver.driverCuda) : null;
    return { binding, binary: describeLoaded(choice.binary, 'shipped', file, driverCuda, why) };
  } catch (error) {
    failures.push(`${path.relative(packageRoot, file)}: ${describe(error)}`);
    return undefined;
  }
}

// A binary loaded as it is, without the probe: a local build or CUDA_MATMUL_ADDON's file.
function loadFile(file: string, origin: BinaryInfo['origin'], failures: string[]): { binding: NativeBinding; binary: BinaryInfo } | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const binding = require(file) as NativeBinding;
    const built = readManifest(path.dirname(file)).find((b) => path.join(path.dirname(file), b.file) === file);
    const why = origin === 'local build' ? 'a local build (npx cuda-matmul build-from-source) is loaded before the shipped binaries'
      : 'CUDA_MATMUL_ADDON names it';
    return { binding, binary: describeLoaded(built, origin, file, null, why) };
  } catch (error) {
    failures.push(`${origin} ${file}: ${describe(error)}`);
    return undefined;
  }
}

function loadFailure(failures: string[]): Error {
  return new Error(
    [
      `cuda-matmul could not load its native addon (${platform}, Node ${process.version}).`,
      ...failures.map((f) => `  - ${f}`),
      'Binaries ship for linux-x64 and linux-arm64 with glibc 2.31 or newer (Debian 11, Ubuntu 20.04, RHEL 9 and',
      'later). Elsewhere, build from source: `npx cuda-matmul build-from-source` (a C++20 compiler, GCC 10 or newer;',
      'with nvcc on PATH or CUDA_PATH set, CUDA too).',
    ].join('\n'),
  );
}

function loadBinding(): { binding: NativeBinding; binary: BinaryInfo } {
  const failures: string[] = [];
  const explicit = process.env.CUDA_MATMUL_ADDON;
  // A file named on purpose is that file or an error, never another binary in its place.
  if (explicit) {
    const named = loadFile(path.resolve(explicit), 'CUDA_MATMUL_ADDON', failures);
    if (!named) throw loadFailure(failures);
    return named;
  }
  const localBuild = path.join(packageRoot, 'build', 'Release', 'cuda-matmul.node');
  const loaded = (fs.existsSync(localBuild) ? loadFile(localBuild, 'local build', failures) : undefined) ?? loadShipped(failures);
  if (!loaded) throw loadFailure(failures);
  // A local build that failed to load is named in the choice of the shipped binary that loaded instead.
  if (failures.length) loaded.binary.choice += `; not loaded: ${failures.join('; ')}`;
  return loaded;
}

const loaded = loadBinding();
export const native: NativeBinding = loaded.binding;
export const loadedBinary: BinaryInfo = loaded.binary;
