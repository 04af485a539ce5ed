// Matrices that stay where they are computed: upload once, multiply on the GPU (or the CPU backend) any
// number of times without copying through host memory, download when needed. The data flow is the same as
// matmul's: this file → validate.ts → native.ts → native/binding/matrix_binding.cpp → native/core/plan.cpp →
// the backend (native/cuda/resident.cu, native/cpu/cpu_backend.cpp).
//
// Program order: every operation on a Matrix observes every operation issued on it before, awaited or not.
// The native layer keeps that order when the call is made: on CUDA, each operation is queued on its device's
// ordered stream and returns at once (a chain never waits on the host between steps); on the CPU, each Matrix
// remembers its last write and the reads since. Disposing a Matrix frees its memory at once, or when the last
// operation issued on it ends (those operations hold it natively).
import { startIdleTrimming } from './idle';
import { native, NativeMatrixHandle } from './native';
import { flushSearches, gathers, searchGathered } from './search-batching';
import { abortable } from './abort';
import { describe, newSearchResults, readMatrixDownload, readMatrixFrom, readMatrixProduct, readSearch, readSearchQueries } from './validate';

// `using` calls [Symbol.dispose]; TypeScript's lib has it from esnext, @types/node for every target. Declared here as
// they declare it, so that these types compile under an older `target` without either (README, "TypeScript").
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}
import type { Backend, KernelName, Precision, SearchOptions, SearchResult } from './types';

/** Options of `Matrix.from`. */
export interface MatrixOptions {
  /** `'auto'` (CUDA when usable, else the CPU), `'cuda'` or `'cpu'`. */
  backend?: Backend;
  /** CUDA device index (default 0). */
  device?: number;
  /** Aborts the upload: the Promise rejects with `signal.reason`, and no Matrix is made (docs/lifecycle.md, "Cancellation"). */
  signal?: AbortSignal;
}

/** Options of `Matrix#matmul`. */
export interface MatrixProductOptions {
  /** Which CUDA kernel runs (default `'auto'`). */
  kernel?: KernelName;
  /** Arithmetic precision (default `'fp32'`). */
  precision?: Precision;
  /** A Matrix of the result's shape, on the same backend and device, written in place and returned. */
  out?: Matrix;
  /**
   * Aborts the product: the Promise rejects with `signal.reason`; a write into `out` is withdrawn whole (`out` keeps
   * what the operations before it made), a new result is never made (docs/lifecycle.md, "Cancellation").
   */
  signal?: AbortSignal;
}

/** Options of `Matrix#toArray`. */
export interface MatrixDownloadOptions {
  /** A Float32Array of rows·cols elements, written and returned. */
  out?: Float32Array;
  /** Aborts the download: the Promise rejects with `signal.reason` (`out` may have been written). */
  signal?: AbortSignal;
}

// The key only this module holds, so that a Matrix is made here alone.
const madeHere = Symbol('Matrix');

/**
 * A matrix that stays where it is computed: on a CUDA device (or in the CPU backend's memory), multiplied
 * there any number of times without copies through host memory. Operations on a Matrix run in the order they
 * are issued, awaited or not.
 * @example
 * const W = await Matrix.from(weights, 768, 64);       // upload once
 * const X = await Matrix.from(inputs, 32, 768);
 * const Y = await X.matmul(W);                          // on the GPU
 * const y = await Y.toArray();                          // 32×64, row-major
 * [W, X, Y].forEach((m) => m.dispose());               // or `using`; forgotten ones are garbage collected
 */
export class Matrix {
  readonly #handle: NativeMatrixHandle;
  #disposed = false;

  private constructor(made: typeof madeHere, handle: NativeMatrixHandle) {
    // A constructor TypeScript keeps private is still callable from JavaScript.
    if (made !== madeHere) throw new TypeError('Matrix: make one with await Matrix.from(data, rows, cols), not new Matrix()');
    this.#handle = handle;
  }

  /**
   * Copies `data` (rows×cols, row-major) to the backend: the GPU when usable, unless `backend` says otherwise.
   * @example
   * const W = await Matrix.from(new Float32Array(768 * 64), 768, 64, { device: 0 });
   */
  static async from(data: Float32Array, rows: number, cols: number, options?: MatrixOptions): Promise<Matrix> {
    const read = readMatrixFrom(data, rows, cols, options);
    startIdleTrimming();
    return new Matrix(madeHere, await abortable(read.signal, (abort) => native.matrixFrom(data, rows, cols, read.options, abort)));
  }

  /** Rows (a TypeError once disposed). */
  get rows(): number {
    return this.#live().rows;
  }
  /** Columns (a TypeError once disposed). */
  get cols(): number {
    return this.#live().cols;
  }
  /** Where the elements live. */
  get backend(): 'cuda' | 'cpu' {
    return this.#live().backend;
  }
  /** The CUDA device index (0 on the CPU backend). */
  get device(): number {
    return this.#live().device;
  }
  /** Whether dispose() was called. */
  get disposed(): boolean {
    return this.#disposed;
  }

  /**
   * this · other, computed where both live; the result stays there.
   * @example
   * const Y = await X.matmul(W);           // a new Matrix
   * await X.matmul(W, { out: Y });         // into Y, in place
   */
  matmul(other: Matrix, options?: MatrixProductOptions): Promise<Matrix> {
    // Not an async function, and no option objects rebuilt: this path's own cost is part of every awaited product
    // (docs/matrices.md, "A Matrix call's host time"). Errors still reject the returned Promise.
    try {
      const { out, kernel, precision, signal } = readMatrixProduct(options);
      if (!(other instanceof Matrix)) throw new TypeError(`other: expected a Matrix, got ${describe(other)}`);
      if (out !== undefined && !(out instanceof Matrix)) throw new TypeError(`out: expected a Matrix, got ${describe(out)}`);
      const a = this.#live(), b = other.#live('other');
      const destination = out === undefined ? undefined : out.#live('out');
      if (destination) flushSearches(destination); // searches of `out` made before this write read it as it was
      const product = signal
        ? abortable(signal, (abort) => native.matrixMultiply(a, b, destination, kernel, precision, abort))
        : native.matrixMultiply(a, b, destination, kernel, precision);
      return out === undefined ? product.then((handle) => new Matrix(madeHere, handle)) : product.then(() => out);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The elements, row-major, in a new Float32Array (or `out`, of rows·cols elements, given as it is or as
   * `{ out, signal }`).
   * @example
   * const y = await Y.toArray();
   * await Y.toArray({ out: y, signal: AbortSignal.timeout(100) });
   */
  async toArray(options?: Float32Array | MatrixDownloadOptions): Promise<Float32Array> {
    const handle = this.#live();
    const { out, signal } = readMatrixDownload(options, handle.rows * handle.cols);
    return abortable(signal, (abort) => native.matrixToArray(handle, out, abort));
  }

  /**
   * Exact search, this Matrix being the corpus: for each query (a row of `queries`, as long as this Matrix's rows),
   * the `k` rows that score best against it, best first, with their scores. Equal scores come in the order of their
   * rows; NaN scores (a NaN in the query or the row) come after every number. Computed where this Matrix lives;
   * queries given as an array are copied there for the call.
   * @example
   * const corpus = await Matrix.from(embeddings, 100_000, 768);
   * const { indices, scores } = await corpus.search(query, { k: 10, metric: 'cosine' });
   */
  async search(queries: Float32Array | Matrix, options: SearchOptions): Promise<SearchResult> {
    const { k, metric, precision, signal } = readSearch(options);
    const corpus = this.#live('corpus');
    const search = (handle: NativeMatrixHandle | Float32Array, rows: number) => {
      const { scores, indices } = newSearchResults(rows * k);
      return abortable(signal, (abort) => native.matrixSearch(corpus, handle, k, metric, precision, scores, new Float32Array(indices.buffer), abort))
        .then(() => ({ indices, scores }));
    };
    if (queries instanceof Matrix) {
      const handle = queries.#live('queries');
      return search(handle, handle.rows);
    }
    const rows = readSearchQueries(queries, corpus.cols);
    // The binding copies queries from an array where the corpus lives when the search is queued
    // (native/binding/matrix_binding.cpp, searchQueries): when the call is made, or once gathered with others.
    if (!signal && gathers(corpus.backend, rows)) return searchGathered(corpus, queries, rows, k, metric, precision);
    if (corpus.backend === 'cpu') return search(queries, rows);
    const uploaded = await Matrix.from(queries, rows, corpus.cols, { backend: corpus.backend, device: corpus.device, signal });
    try {
      return await search(uploaded.#live('queries'), rows);
    } finally {
      uploaded.dispose();
    }
  }

  /**
   * Frees the elements (device memory) at once, or once every operation issued on this Matrix has ended;
   * using the Matrix afterwards is a TypeError. A Matrix never disposed is freed when garbage collected.
   * @example
   * const pending = Z.matmul(W);
   * Z.dispose(); // pending still completes; Z's memory is freed after it
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    flushSearches(this.#handle); // searches gathered and not yet queued are queued first
    this.#handle.dispose(); // operations in flight hold the elements until they end
  }

  /** dispose(), for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  /** @internal The native matrix, for tests of the binding; a TypeError naming `name` once disposed. */
  handle(name = 'a'): NativeMatrixHandle {
    return this.#live(name);
  }

  #live(name = 'matrix'): NativeMatrixHandle {
    if (this.#disposed) throw new TypeError(`${name}: this Matrix was disposed`);
    return this.#handle;
  }
}
