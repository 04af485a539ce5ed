// Loads the native addon: a prebuilt binary (prebuilds/), a local build (build/Release), or the file named
// by CUDA_MATMUL_ADDON. Every failure is gathered into one error that says what was tried and what to do.
import * as path from 'path';
import type { Info } from './types';

/** A matrix held by the addon (native/matrix_binding.cpp); lib/matrix.ts wraps it. */
export interface NativeMatrixHandle {
  readonly rows: number;
  readonly cols: number;
  readonly backend: 'cuda' | 'cpu';
  readonly device: number;
  readonly disposed: boolean;
  dispose(): void;
}

/** The functions the addon exports (native/addon.cpp). */
export interface NativeBinding {
  matmulSync(a: Float32Array, b: Float32Array, shape: object, options: object): Float32Array;
  matmul(a: Float32Array, b: Float32Array, shape: object, options: object): Promise<Float32Array>;
  /** Holds one small product for the next runGathered() (native/binding/gathered.cpp). */
  gather(a: Float32Array, b: Float32Array, m: number, k: number, n: number, out: Float32Array): void;
  /** Runs the first `count` products gathered and not yet run as one batch; settles once all are written. */
  runGathered(count: number): Promise<void>;
  cudaInfo(): { usable: boolean; reason?: string; devices: Info['devices']; memory: Info['memory'] };
  allocHost(length: number): Float32Array;
  freeHost(array: Float32Array): void;
  /** An ArrayBuffer of 4·length bytes, contents unspecified, for a result written in full before it is read. */
  resultBuffer(length: number): ArrayBuffer;
  trimIdle(idleSeconds: number): Promise<void>;
  /** This environment is exiting: drops the products queued and not yet started. */
  shutdown(): void;
  /** The option table of native/core/options.h (lib/options.ts is the same). */
  options(): { backends: string[]; precisions: string[]; kernels: Record<string, { precisions: string[] }> };
  matrixFrom(data: Float32Array, rows: number, cols: number, options: object): Promise<NativeMatrixHandle>;
  matrixMultiply(a: NativeMatrixHandle, b: NativeMatrixHandle, out: NativeMatrixHandle | undefined, kernel: string | undefined,
                 precision: string | undefined): Promise<NativeMatrixHandle>;
  matrixToArray(matrix: NativeMatrixHandle, out: Float32Array): Promise<Float32Array>;
  gemm(args: object, options: object): Promise<Float32Array>;
  matrixGemm(a: NativeMatrixHandle, b: NativeMatrixHandle, c: NativeMatrixHandle, shape: object, options: object): Promise<NativeMatrixHandle>;
}

const packageRoot = path.join(__dirname, '..');

function describe(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0] : String(error);
}

function loadBinding(): NativeBinding {
  const failures: string[] = [];
  const explicit = process.env.CUDA_MATMUL_ADDON;
  if (explicit) {
    try {
      return require(path.resolve(explicit)) as NativeBinding;
    } catch (error) {
      failures.push(`CUDA_MATMUL_ADDON=${explicit}: ${describe(error)}`);
    }
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('node-gyp-build')(packageRoot) as NativeBinding;
  } catch (error) {
    failures.push(describe(error));
  }
  throw new Error(
    [
      `cuda-matmul could not load its native addon (${process.platform}-${process.arch}, Node ${process.version}).`,
      ...failures.map((f) => `  - ${f}`),
      'Prebuilt binaries ship for linux-x64 with glibc 2.34 and libstdc++ of GCC 12 or newer (GLIBCXX_3.4.30:',
      'Debian 12, Ubuntu 22.04, RHEL 9 and later). Elsewhere, build from source in the package folder',
      '(node_modules/cuda-matmul) with `npx node-gyp rebuild`: it needs a C++20 compiler, and nvcc for CUDA.',
    ].join('\n'),
  );
}

export const native: NativeBinding = loadBinding();
