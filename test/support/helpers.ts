// Shared test helpers: fresh random inputs, a float64 reference, the error measure, and GPU detection.
import { info } from '../../lib';

export const cuda = info();
export const hasGpu = cuda.backend === 'cuda';
/** `describe` when a CUDA device is usable, else `describe.skip` — jest reports those tests as skipped. */
export const describeGpu = hasGpu ? describe : describe.skip;
export const gpuSuiteName = (name: string): string =>
  hasGpu ? `${name} (on ${cuda.devices[0].name})` : `${name} — SKIPPED, no usable GPU: ${cuda.reason}`;
/** wgmma runs on compute capability 9.0 alone; elsewhere asking for it is an error. */
export const isHopper = cuda.devices[0]?.computeCapability === '9.0';
/** `describe` on a compute capability 9.0 GPU, else `describe.skip` with the reason in the name. */
export function describeHopper(name: string, suite: () => void): void {
  (isHopper ? describe : describe.skip)(`${name}${isHopper ? '' : ' — SKIPPED, not compute capability 9.0'}`, suite);
}
/** The error bounds of the GPU suites: fp32 (FFMA or 3xTF32) and one TF32 product. */
export const FP32_TOLERANCE = 1e-5;
export const TF32_TOLERANCE = 1e-3;

/** U[-1, 1] entries, fresh every call. */
export function randomMatrix(length: number): Float32Array {
  const values = new Float32Array(length);
  for (let i = 0; i < length; i++) values[i] = Math.random() * 2 - 1;
  return values;
}

/** xᵀ (cols×rows) of a row-major rows×cols x. */
export function transposed(x: Float32Array, rows: number, cols: number): Float32Array {
  const t = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) t[j * rows + i] = x[i * cols + j];
  return t;
}

/** Device memory the library holds, in use and cached. */
export const deviceBytes = (): number => info().memory.deviceBytesInUse + info().memory.deviceBytesCached;

/** Bitwise equality; jest's toEqual walks a million-element array element by element, for tens of seconds. */
export function sameBytes(x: Float32Array, y: Float32Array): boolean {
  return Buffer.from(x.buffer, x.byteOffset, x.byteLength).equals(Buffer.from(y.buffer, y.byteOffset, y.byteLength));
}

/** What `call` throws (the native layer's errors come from Node's realm, not jest's: compare by name). */
export function thrownBy(call: () => unknown): Error {
  try {
    call();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to throw');
}

/** NaN everywhere, so any element a kernel forgets to write shows up. */
export function poisoned(length: number): Float32Array {
  return new Float32Array(length).fill(NaN);
}

/** C = A·B in float64 (i-p-j loop order so the inner loop walks rows). */
export function referenceProduct(a: Float32Array, b: Float32Array, m: number, k: number, n: number): Float64Array {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    const row = i * n;
    for (let p = 0; p < k; p++) {
      const aip = a[i * k + p];
      const bRow = p * n;
      for (let j = 0; j < n; j++) c[row + j] += aip * b[bRow + j];
    }
  }
  return c;
}

/** An element's IEEE class, as the special-value tests compare it with float64's (rounded to float32). */
export type Class = 'nan' | '+inf' | '-inf' | 'finite';
export const classOf = (x: number): Class => (Number.isNaN(x) ? 'nan' : x === Infinity ? '+inf' : x === -Infinity ? '-inf' : 'finite');

/** Elements whose class differs from the float64 reference (`want`, n columns) rounded to float32. */
export function classMismatches(got: Float32Array, want: Float64Array, n: number): string[] {
  const wrong: string[] = [];
  want.forEach((x, i) => {
    const [w, g] = [classOf(Math.fround(x)), classOf(got[i])];
    if (w !== g) wrong.push(`(${Math.floor(i / n)}, ${i % n}): ${g} where float64 gives ${w}`);
  });
  return wrong;
}

/**
 * The finite elements agree with the float64 reference `want` within `tolerance` of Σ|a||b| (their own scale), plus
 * 1e-40 (a sum below float32's range is 0 in any float32 product); for gemm's α·A·B + β·C (`scaled`), of
 * |α|·Σ|a||b| + |β·c|.
 */
export function finiteAgree(got: Float32Array, want: Float64Array, a: Float32Array, b: Float32Array, m: number, k: number, n: number, tolerance: number, scaled?: { alpha: number; beta: number; c: Float32Array }): boolean {
  // Σ_p |a_ip||b_pj| as a product of the magnitudes, row by row (a loop over p down B's columns took 15 s at 513×45×5505)
  const scale = referenceProduct(a.map(Math.abs), b.map(Math.abs), m, k, n);
  // gemm's α·A·B + β·C (want computed so): its scale |α|·Σ|a||b| + |β·c|, C not read where β = 0 (it may hold NaN)
  const scaleAt = (i: number) => (scaled ? Math.abs(scaled.alpha) * scale[i] + (scaled.beta === 0 ? 0 : Math.abs(scaled.beta * scaled.c[i])) : scale[i]);
  return want.every((w, i) => !Number.isFinite(Math.fround(w)) || Math.abs(got[i] - w) <= tolerance * scaleAt(i) + 1e-40);
}

/** ‖got − want‖_F / scale, the scale ‖want‖_F unless given (0: the absolute error). NaN anywhere gives NaN. */
export function relativeTo(got: ArrayLike<number>, want: ArrayLike<number>, scale?: number): number {
  let diff = 0;
  let norm = 0;
  for (let i = 0; i < want.length; i++) {
    diff += (got[i] - want[i]) ** 2;
    norm += want[i] ** 2;
  }
  const denominator = scale ?? Math.sqrt(norm);
  return denominator === 0 ? Math.sqrt(diff) : Math.sqrt(diff) / denominator;
}

/**
 * ‖C − R‖_F / ‖R‖_F against the float64 reference R. NaN anywhere gives NaN (fails every bound). For a
 * single output element (1×K×1) a cancelling dot product can make ‖R‖ tiny, so there the denominator is
 * Σ|a_p·b_p|, the scale that float32 rounding error is proportional to.
 */
export function relativeError(c: Float32Array, a: Float32Array, b: Float32Array, m: number, k: number, n: number): number {
  const ref = referenceProduct(a, b, m, k, n);
  if (ref.length !== 1) return relativeTo(c, ref);
  let scale = 0;
  for (let p = 0; p < k; p++) scale += Math.abs(a[p] * b[p]);
  return relativeTo(c, ref, scale);
}

/** One gemm: C = α·op(A)·op(B) + β·C, A stored k×m when transA, B stored n×k when transB. */
export interface GemmCase {
  m: number;
  k: number;
  n: number;
  transA: boolean;
  transB: boolean;
  alpha: number;
  beta: number;
}

/** float64 α·op(A)·op(B) + β·C for one product (C as it was before the call). */
export function gemmReference(a: Float32Array, b: Float32Array, c: Float32Array, s: GemmCase): Float64Array {
  const out = new Float64Array(s.m * s.n);
  for (let i = 0; i < s.m; i++)
    for (let j = 0; j < s.n; j++) {
      let sum = 0;
      for (let p = 0; p < s.k; p++) sum += (s.transA ? a[p * s.m + i] : a[i * s.k + p]) * (s.transB ? b[j * s.k + p] : b[p * s.n + j]);
      out[i * s.n + j] = s.alpha * sum + (s.beta === 0 ? 0 : s.beta * c[i * s.n + j]);
    }
  return out;
}

export const gemmLabel = (s: GemmCase): string =>
  `${s.m}×${s.k}×${s.n}${s.transA ? ' Aᵀ' : ''}${s.transB ? ' Bᵀ' : ''} α=${s.alpha} β=${s.beta}`;
