// cuda-matmul's API: C = A·B for row-major Float32Arrays on an NVIDIA GPU, or on the CPU when none is usable;
// Matrix (matrix.ts) for data that stays on the GPU between products.
// Data flow (docs/architecture.md): this file → validate.ts (arguments) → batching.ts (small products made while
// others run are gathered into one batch) → native.ts (binding) → native/binding/
// → native/core/plan.cpp (backend) → native/cuda/ (transfer route → kernel) or native/cpu/ → the result array.
import { abortable } from './abort';
import { multiplySmall } from './batching';
import { startIdleTrimming } from './idle';
import { loadedBinary, native } from './native';
import { readMatmul, validateHostArray, validateHostLength } from './validate';
import type { Info, MatmulOptions, Shape } from './types';

export { gemm } from './gemm';
export type { GemmArrays, GemmMatrices, GemmOptions, MatrixGemmOptions } from './gemm';
export { Corpus } from './corpus';
export type { CorpusOptions, CorpusPart } from './corpus';
export { Matrix } from './matrix';
export type { MatrixDownloadOptions, MatrixOptions, MatrixProductOptions } from './matrix';
export type { Backend, BinaryInfo, CpuInfo, DeviceInfo, ErrorCode, Info, KernelName, MatmulOptions, MemoryInfo, Metric, Precision, SearchOptions, SearchResult, Shape } from './types';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { version } = require('../package.json') as { version: string };

/**
 * C = A·B off the JavaScript thread. `a` is m×k, `b` is k×n, the result m×n, all row-major.
 * Never throws: bad arguments and GPU failures reject the Promise (TypeError, RangeError or Error).
 * @example
 * const c = await matmul(a, b, { m: 512, k: 256, n: 128 });               // a new 512×128 array
 * await matmul(a, b, { m: 512, k: 256, n: 128 }, { out: c, precision: 'tf32' }); // into c, on tensor cores
 * await matmul(a, b, { m: 512, k: 256, n: 128 }, { signal: AbortSignal.timeout(50) }); // rejects after 50 ms
 */
export function matmul(a: Float32Array, b: Float32Array, shape: Shape, options?: MatmulOptions): Promise<Float32Array> {
  // Not an async function: the native Promise is returned as it is, with no second one wrapped around it
  // (a few microseconds for a 64³ product, docs/matrices.md, "A Matrix call's host time").
  try {
    const call = readMatmul(a, b, shape, options);
    startIdleTrimming();
    // A call with a signal runs alone (never gathered into a batch), so that its abort touches nothing else.
    if (call.signal) return abortable(call.signal, (abort) => native.matmul(call.a, call.b, call.shape, call.options, abort));
    return multiplySmall(call) ?? native.matmul(call.a, call.b, call.shape, call.options);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * C = A·B on the calling thread (it blocks the event loop for the whole product). Throws on failure. Takes
 * matmul's options but `signal` (a TypeError): nothing can abort a call that holds the thread.
 * @example
 * const c = matmulSync(new Float32Array([1, 2, 3, 4]), new Float32Array([5, 6, 7, 8]), { m: 2, k: 2, n: 2 });
 * // c = [19, 22, 43, 50]
 */
export function matmulSync(a: Float32Array, b: Float32Array, shape: Shape, options?: Omit<MatmulOptions, 'signal'>): Float32Array {
  const call = readMatmul(a, b, shape, options);
  if (call.signal) throw new TypeError('signal: matmulSync holds the thread until it returns, so nothing can abort it; use matmul');
  startIdleTrimming();
  return native.matmulSync(call.a, call.b, call.shape, call.options);
}

/**
 * Which backend `'auto'` uses, why CUDA is not used if it is not, the CUDA devices found, and the memory held.
 * @example
 * const { backend, reason, devices } = info();
 * if (backend === 'cpu') console.warn(`no GPU: ${reason}`);
 */
export function info(): Info {
  const cuda = native.cudaInfo();
  return {
    backend: cuda.usable ? 'cuda' : 'cpu',
    ...(cuda.reason ? { reason: cuda.reason } : {}),
    devices: cuda.devices.map((device) => ({ ...device })),
    memory: { ...cuda.memory },
    cpu: native.cpuInfo(),
    version,
    binary: { ...loadedBinary, architectures: [...loadedBinary.architectures] },
  };
}

/**
 * A Float32Array of `length` elements in page-locked host memory (where CUDA is usable; plain memory
 * otherwise). `matmul` copies such arrays to and from the GPU by DMA, with no staging copy. Released when
 * garbage collected, or at once by `freeHost`.
 * @example
 * const out = allocHost(4096 * 4096);
 * await matmul(a, b, { m: 4096, k: 4096, n: 4096 }, { out });
 * freeHost(out);
 */
export function allocHost(length: number): Float32Array {
  validateHostLength(length);
  startIdleTrimming();
  return native.allocHost(length);
}

/**
 * Releases an array from `allocHost` now (every view of it becomes empty). A product in flight that uses it
 * keeps the memory until it ends.
 * @example
 * const pinned = allocHost(1024);
 * freeHost(pinned); // pinned.length is now 0
 */
export function freeHost(array: Float32Array): void {
  validateHostArray(array);
  native.freeHost(array);
}

// When this thread's process (or this worker) exits, products queued and not yet started are dropped rather
// than run first (a running one finishes, or on the CPU stops at its next slice of k).
process.once('exit', () => native.shutdown());
