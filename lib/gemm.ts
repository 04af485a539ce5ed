// Full GEMM: C = α·op(A)·op(B) + β·C, op(X) = Xᵀ when transX is set, on Float32Arrays or on Matrices (in
// place where they live), both with batches of strided products. matmul is gemm with batch 1 all the way down.
// Data flow: this file → validate.ts → native.ts → native/binding/ (calls.cpp for arrays, matrix_binding.cpp
// for Matrices) → native/core/plan.cpp → the backend (native/cuda/transfer/ routes or the ordered stream, or
// native/cpu/).
import { startIdleTrimming } from './idle';
import { Matrix } from './matrix';
import { abortable } from './abort';
import { native } from './native';
import { flushSearches } from './search-batching';
import { readGemm } from './validate';
import type { GemmRead } from './validate';
import type { Backend, KernelName, Precision } from './types';

interface GemmShape {
  /** Rows of op(A) and of C. */
  m: number;
  /** Columns of op(A), rows of op(B). */
  k: number;
  /** Columns of op(B) and of C. */
  n: number;
  /** A is stored k×m (row-major) and used transposed. Default false. */
  transA?: boolean;
  /** B is stored n×k and used transposed. Default false. */
  transB?: boolean;
  /** Default 1. */
  alpha?: number;
  /** Default 0: C is then only written (NaN in it does not matter), as in BLAS. */
  beta?: number;
}

/** gemm's arguments on Float32Arrays, row-major. */
export interface GemmArrays extends GemmShape {
  /** A, stored m×k (k×m when transA); for a batch, the products' A one after another, strideA apart. */
  a: Float32Array;
  /** B, stored k×n (n×k when transB); for a batch, strideB apart. */
  b: Float32Array;
  /** Read when beta ≠ 0, written always; must not share memory with a or b. */
  c: Float32Array;
  /** Products in the batch (default 1); the i-th reads a[i·strideA…], b[i·strideB…] and writes c[i·strideC…]. */
  batch?: number;
  /** Elements from one product's A to the next's. Default m·k: the batch's matrices one after another. */
  strideA?: number;
  /** Elements from one product's B to the next's (default k·n; 0 shares one B). */
  strideB?: number;
  /** Elements from one product's C to the next's (default m·n; at least m·n). */
  strideC?: number;
}

/** gemm's arguments on Matrices, which stay where they live; batches are stacked by rows. */
export interface GemmMatrices extends GemmShape {
  /** Stored m×k (k×m when transA); for a batch, the products' A stacked: (batch − 1)·strideA + those rows. */
  a: Matrix;
  /** Stored k×n (n×k when transB); for a batch, stacked the same way. */
  b: Matrix;
  /** m×n (for a batch, (batch − 1)·strideC + m rows), on the same backend and device; written in place. */
  c: Matrix;
  /** Products in the batch (default 1); the i-th reads rows i·strideA… of a and i·strideB… of b, writes rows i·strideC… of c. */
  batch?: number;
  /** Rows from one product's A to the next's. Default: A's stored rows (m, or k when transA); 0 shares one A. */
  strideA?: number;
  /** Rows from one product's B to the next's. Default: B's stored rows (k, or n when transB); 0 shares one B. */
  strideB?: number;
  /** Rows from one product's C to the next's (default m; at least m). */
  strideC?: number;
}

/** gemm's options on Matrices: they run where they live, so there is no backend or device to choose. */
export interface MatrixGemmOptions {
  /** Which CUDA kernel runs (default `'auto'`). */
  kernel?: KernelName;
  /** Arithmetic precision (default `'fp32'`). */
  precision?: Precision;
  /**
   * Aborts the call: its Promise rejects with `signal.reason` (docs/lifecycle.md, "Cancellation"). On Matrices the write into
   * c is then withdrawn whole: c keeps what the operations before it made, and later operations see that.
   */
  signal?: AbortSignal;
}

/** gemm's options on Float32Arrays. */
export interface GemmOptions extends MatrixGemmOptions {
  /** Where the product runs (default `'auto'`: CUDA when usable, else the CPU). */
  backend?: Backend;
  /** CUDA device index (default 0). */
  device?: number;
}

/**
 * C = α·op(A)·op(B) + β·C, off the JavaScript thread. Resolves to c; bad arguments reject.
 * @example
 * // C (2×2) = 2·Aᵀ·B + C, with A stored transposed (3×2)
 * await gemm({ a, b, c, m: 2, k: 3, n: 2, transA: true, alpha: 2, beta: 1 });
 * // given up when the client goes away (docs/lifecycle.md, "Cancellation")
 * await gemm({ a, b, c, m: 2, k: 3, n: 2 }, { signal: request.signal });
 */
export async function gemm(args: GemmArrays, options?: GemmOptions): Promise<Float32Array>;
export async function gemm(args: GemmMatrices, options?: MatrixGemmOptions): Promise<Matrix>;
export async function gemm(args: GemmArrays | GemmMatrices, options?: GemmOptions): Promise<Float32Array | Matrix> {
  const read = readGemm(args, options, (value) => value instanceof Matrix);
  startIdleTrimming();
  if (read.kind === 'arrays') return abortable(read.signal, (abort) => native.gemm(read.args, read.options, abort));
  const { a, b, c, ...shape } = read.args as GemmRead & { a: Matrix; b: Matrix; c: Matrix };
  const [ha, hb, hc] = [a.handle('a'), b.handle('b'), c.handle('c')];
  flushSearches(hc); // searches of c made before this write read it as it was (search-batching.ts)
  await abortable(read.signal, (abort) => native.matrixGemm(ha, hb, hc, shape, read.options, abort));
  return c;
}
