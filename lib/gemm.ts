// Full GEMM: C = α·op(A)·op(B) + β·C, op(X) = Xᵀ when transX is set, on Float32Arrays or on Matrices (in
// place where they live), both with batches of strided products. Data flow: this file →
// validate.ts → native.ts → native/addon.cpp (arrays) or native/matrix_binding.cpp (Matrices) →
// native/plan.cpp (runGemm / runMatrixGemm) → native/gemm_ops.cu + the product kernels, or the CPU backend.
import { gemmOnMatrices, Matrix } from './matrix';
import { native } from './native';
import { readGemm } from './validate';
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
  /** Stored m×k (k×m when transA); for a batch, the products' A stacked: (batch − 1)·strideA + those rows. */
  a: Matrix;
  /** Stored k×n (n×k when transB); for a batch, stacked the same way. */
  b: Matrix;
  /** m×n (for a batch, (batch − 1)·strideC + m rows), on the same backend and device; written in place. */
  c: Matrix;
  /** Products in the batch (default 1); the i-th reads rows i·strideA… of a and i·strideB… of b, writes rows i·strideC… of c. */
  batch?: number;
  /** In rows. Defaults: one product's stored rows (m or k, k or n, m), so the products are stacked; 0 shares one operand. */
  strideA?: number;
  strideB?: number;
  strideC?: number;
}

/** gemm's options on Matrices: they run where they live, so there is no backend or device to choose. */
export interface MatrixGemmOptions {
  kernel?: KernelName;
  precision?: Precision;
}

/** gemm's options on Float32Arrays. */
export interface GemmOptions extends MatrixGemmOptions {
  backend?: Backend;
  /** CUDA device index (default 0). */
  device?: number;
}

/**
 * C = α·op(A)·op(B) + β·C, off the JavaScript thread. Resolves to c; bad arguments reject.
 * @example
 * // C (2×2) = 2·Aᵀ·B + C, with A stored transposed (3×2)
 * await gemm({ a, b, c, m: 2, k: 3, n: 2, transA: true, alpha: 2, beta: 1 });
 */
export async function gemm(args: GemmArrays, options?: GemmOptions): Promise<Float32Array>;
export async function gemm(args: GemmMatrices, options?: MatrixGemmOptions): Promise<Matrix>;
export async function gemm(args: GemmArrays | GemmMatrices, options?: GemmOptions): Promise<Float32Array | Matrix> {
  const read = readGemm(args, options, (value) => value instanceof Matrix);
  if (read.kind === 'arrays') return native.gemm(read.args, read.options);
  return gemmOnMatrices(read.args, read.options);
}
