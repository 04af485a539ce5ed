// Full GEMM: C = α·op(A)·op(B) + β·C, op(X) = Xᵀ when transX is set, on Float32Arrays (with batches of
// strided products) or on Matrices (one product, in place where they live). Data flow: this file →
// validate.ts → native.ts → native/addon.cpp (arrays) or native/matrix_binding.cpp (Matrices) →
// native/plan.cpp (runGemm / runMatrixGemm) → native/gemm_ops.cu + the product kernels, or the CPU backend.
import { Matrix } from './matrix';
import { native } from './native';
import { validateGemm } from './validate';
import type { Backend, KernelName, Precision } from './types';

interface GemmShape {
  /** op(A) is m×k, op(B) k×n, C m×n. */
  m: number;
  k: number;
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

export interface GemmArrays extends GemmShape {
  a: Float32Array;
  b: Float32Array;
  /** Read when beta ≠ 0, written always; must not share memory with a or b. */
  c: Float32Array;
  /** Products in the batch (default 1); the i-th reads a[i·strideA…], b[i·strideB…] and writes c[i·strideC…]. */
  batch?: number;
  /** Defaults m·k, k·n and m·n: the matrices of the batch one after another. */
  strideA?: number;
  strideB?: number;
  strideC?: number;
}

export interface GemmMatrices extends GemmShape {
  a: Matrix;
  b: Matrix;
  /** m×n, on the same backend and device; written in place. */
  c: Matrix;
}

export interface GemmOptions {
  /** Arrays only: Matrices run where they live. */
  backend?: Backend;
  kernel?: KernelName;
  precision?: Precision;
  /** Arrays only. */
  device?: number;
}

/** C = α·op(A)·op(B) + β·C, off the JavaScript thread. Resolves to c; bad arguments reject. */
export async function gemm(args: GemmArrays, options?: GemmOptions): Promise<Float32Array>;
export async function gemm(args: GemmMatrices, options?: GemmOptions): Promise<Matrix>;
export async function gemm(args: GemmArrays | GemmMatrices, options?: GemmOptions): Promise<Float32Array | Matrix> {
  const kind = validateGemm(args, options);
  if (kind === 'arrays') return native.gemm(args, options ?? {});
  const { a, b, c, ...shape } = args as GemmMatrices;
  await native.matrixGemm(a.handle(), b.handle('b'), c.handle('c'), shape, options ?? {});
  return c;
}
