// Matrices that stay where they are computed: upload once, multiply on the GPU (or the CPU backend) any
// number of times without copying through host memory, download when needed. The data flow is the same as
// matmul's: this file → validate.ts → native.ts → native/matrix_binding.cpp → native/plan.cpp →
// native/device_resident.cu (or the CPU backend).
import { native, NativeMatrixHandle } from './native';
import { validateMatrixFrom, validateMatrixProduct, validateMatrixToArray } from './validate';
import type { Backend, KernelName, Precision } from './types';

export interface MatrixOptions {
  /** `'auto'` (CUDA when usable, else the CPU), `'cuda'` or `'cpu'`. */
  backend?: Backend;
  /** CUDA device index (default 0). */
  device?: number;
}

export interface MatrixProductOptions {
  kernel?: KernelName;
  precision?: Precision;
  /** A Matrix of the result's shape, on the same backend and device, written in place and returned. */
  out?: Matrix;
}

export class Matrix {
  readonly #handle: NativeMatrixHandle;

  private constructor(handle: NativeMatrixHandle) {
    this.#handle = handle;
  }

  /** Copies `data` (rows×cols, row-major) to the backend: the GPU when usable, unless `backend` says otherwise. */
  static async from(data: Float32Array, rows: number, cols: number, options?: MatrixOptions): Promise<Matrix> {
    validateMatrixFrom(data, rows, cols, options);
    return new Matrix(await native.matrixFrom(data, rows, cols, options ?? {}));
  }

  get rows(): number {
    return this.#live().rows;
  }
  get cols(): number {
    return this.#live().cols;
  }
  /** Where the elements live. */
  get backend(): 'cuda' | 'cpu' {
    return this.#live().backend;
  }
  get device(): number {
    return this.#live().device;
  }
  get disposed(): boolean {
    return this.#handle.disposed;
  }

  /** this · other, computed where both live; the result stays there. */
  async matmul(other: Matrix, options?: MatrixProductOptions): Promise<Matrix> {
    validateMatrixProduct(this, other, options);
    const { out, ...rest } = options ?? {};
    const handle = await native.matrixMultiply(this.#live(), other.#live('other'), {
      ...rest,
      ...(out ? { out: out.#live('out') } : {}),
    });
    return out ?? new Matrix(handle);
  }

  /** The elements, row-major, in a new Float32Array (or `out`, of rows·cols elements). */
  async toArray(out?: Float32Array): Promise<Float32Array> {
    const { rows, cols } = this.#live();
    validateMatrixToArray(out, rows * cols);
    return native.matrixToArray(this.#handle, out ?? new Float32Array(rows * cols));
  }

  /**
   * Frees the elements (device memory) now; using the Matrix afterwards is a TypeError. A product in flight
   * that uses it keeps the memory until it ends. A Matrix never disposed is freed when garbage collected.
   */
  dispose(): void {
    this.#handle.dispose();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /** @internal The native matrix, for gemm (lib/gemm.ts); a TypeError naming `name` once disposed. */
  handle(name = 'a'): NativeMatrixHandle {
    return this.#live(name);
  }

  #live(name = 'matrix'): NativeMatrixHandle {
    if (this.#handle.disposed) throw new TypeError(`${name}: this Matrix was disposed`);
    return this.#handle;
  }
}
