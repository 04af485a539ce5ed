// Shared test helpers: fresh random inputs, a float64 reference, the error measure, and GPU detection.
import { info } from '../lib';

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
  // gemm's α·A·B + β·C (want computed so): its scale |α|·Σ|a||b| + |β·c|
  const scaleAt = (i: number) => (scaled ? Math.abs(scaled.alpha) * scale[i] + Math.abs(scaled.beta * scaled.c[i]) : scale[i]);
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

export interface Case {
  m: number;
  k: number;
  n: number;
}

/** Shapes that are not tile multiples: ones, primes, vectors, tall, skinny, k=1. */
export const SMALL_SHAPES: Case[] = [
  { m: 1, k: 1, n: 1 },
  { m: 1, k: 1000, n: 1 },
  { m: 37, k: 1, n: 53 },
  { m: 1, k: 300, n: 211 },
  { m: 211, k: 300, n: 1 },
  { m: 97, k: 131, n: 61 },
  { m: 255, k: 257, n: 129 },
  { m: 1023, k: 17, n: 5 },
  { m: 3, k: 1021, n: 770 },
  { m: 16, k: 16, n: 16 },
  { m: 64, k: 64, n: 64 },
  // Inline-route products (A, B and C within 256 KiB) more than 64 columns wide, which read the bus in 64×128
  // tiles (native/cuda/kernels/choose.h, chooseBusVariant): cut at both edges, and whole.
  { m: 97, k: 61, n: 131 },
  { m: 128, k: 128, n: 128 },
];

export const LARGE_SHAPES: Case[] = [
  { m: 1000, k: 1000, n: 1000 },
  { m: 4095, k: 257, n: 1023 },
  { m: 17, k: 4099, n: 33 },
];

/**
 * Shapes for which the plan picks each of the mma kernel's block tiles on a GPU of up to 132 SMs
 * (native/kernels/choose.h): 128×128 (a grid of ≥ 1.5 blocks per SM), 128×64 (n ≤ 64), 64×128 (m ≤ 64);
 * small grids get 64×64, as most SMALL_SHAPES do (inline-route products over 64 wide read the bus in 64×128 tiles).
 */
export const MMA_TILE_SHAPES: Case[] = [
  { m: 2100, k: 67, n: 1999 },
  { m: 25345, k: 9, n: 37 },
  { m: 33, k: 9, n: 25601 },
];

/**
 * Products for which wgmma's fp32 mode takes its 64-row tiles (one consumer warpgroup) on an H100/H200
 * (kernels/choose.h, chooseVariant): 64×32 for a grid that 128-row tiles leave under one wave, 64×64 for few rows
 * and a wide B. Every edge cut.
 */
export const WGMMA_ROW64_SHAPES: Case[] = [
  { m: 509, k: 301, n: 511 },
  { m: 47, k: 33, n: 20011 },
];

/** A product for which 'auto' in tf32 picks wgmma on an H100/H200 (kernels/choose.h, wgmmaPaysFor). */
export const WGMMA_AUTO_SHAPE: Case = { m: 1100, k: 257, n: 1030 };

/**
 * Products whose grid on wgmma-t (the first and third) and wgmma (the second; 'auto' takes it in both precisions) is
 * under half an H100's SMs, with K deep enough that the plan splits it to fill them (kernels/choose.h,
 * chooseFillSlices). The third's K is past the kernels' slice depth (8192) too: 7 slices on wgmma-t, not the 2 long
 * K needs.
 */
export const K_FILL_SHAPES: Case[] = [
  { m: 40, k: 2500, n: 3001 },
  { m: 300, k: 3000, n: 300 },
  { m: 3, k: 8193, n: 2049 },
];

/**
 * Products with few rows and a wide B, for which 'auto' picks wgmma-t on an H100/H200 (kernels/choose.h): the first
 * has more of its 64×192 tiles than an H100 has SMs, so blocks of the persistent grid take several; the second
 * takes its 64×128 tiles (a grid under one wave). Every edge cut.
 */
export const WGMMA_T_SHAPES: Case[] = [
  { m: 61, k: 300, n: 30011 },
  { m: 16, k: 300, n: 4099 },
];

/**
 * Products with enough 256×128 tiles, or slices of K over them, for more than half an H100's 132 SMs, for which
 * 'auto' in tf32 (and wgmma-t asked for) takes wgmma-t's 256×128 tile (kernels/choose.h, largeTilesPay): the first
 * is one tile per SM; the second has 10 tile rows (a group of 8 and one of 2, the order the tiles are walked in) and
 * 150 tiles, so some blocks take two; the third has 36 tiles and K (2049) split in two slices to fill the SMs; the
 * fourth has under 512 rows (4 tiles) and K past the slice depth (8192), split in 17 slices. Every edge cut.
 */
export const LARGE_TILE_SHAPES: Case[] = [
  { m: 513, k: 300, n: 5505 },
  { m: 2305, k: 77, n: 1793 },
  { m: 513, k: 2049, n: 1409 },
  { m: 257, k: 17500, n: 129 },
];

/**
 * Products under 256 rows, for which 'auto' takes wgmma-t (tf32; fp32 where B has 1024 columns or more) or wgmma
 * (fp32, 64-row tiles) on an H100/H200, K split in slices from 256 deep to fill the SMs (kernels/choose.h,
 * wgmmaTransposedPaysFor, fillSlices): 100×3000×500 in 11 slices of 288 (tf32) and 4 of 768 (fp32); 1×2049×77 in 8,
 * the last 33 deep; 200×1100×1500 unsplit in tf32 (K under 2048) and in 2 in fp32; 37×2500×64, 64 columns on
 * wgmma-t's narrowest tile (64×128), 9 slices. Every edge cut.
 */
export const FEW_ROW_SHAPES: Case[] = [
  { m: 100, k: 3000, n: 500 },
  { m: 1, k: 2049, n: 77 },
  { m: 200, k: 1100, n: 1500 },
  { m: 37, k: 2500, n: 64 },
];

/**
 * Step 6 (gemv: at most 16 rows or 16 columns; native/cuda/kernels/6_few_rows.cu): each of its variants (4, 8, 16
 * rows or columns) cut at every edge of its 256-wide blocks and 32-deep stages, k = 1, both tiny, and a long K in
 * slices summed in float64 (1×20000×3: 20 slices of 1024; 513×2049×16: 3).
 */
export const GEMV_SHAPES: Case[] = [
  { m: 1, k: 1, n: 1 },
  { m: 1, k: 1000, n: 1 },
  { m: 1, k: 768, n: 1000 },
  { m: 5, k: 33, n: 1027 },
  { m: 16, k: 300, n: 513 },
  { m: 9, k: 1, n: 700 },
  { m: 1000, k: 257, n: 1 },
  { m: 4100, k: 64, n: 7 },
  { m: 17, k: 40, n: 16 },
  { m: 16, k: 40, n: 17 },
  { m: 3, k: 5000, n: 5 },
  { m: 1, k: 20000, n: 3 },
  { m: 513, k: 2049, n: 16 },
];

/**
 * Products under 64 columns with a long K, on mma (even on an H100/H200) with K split to fill the SMs
 * (kernels/choose.h, fillSlices): 3001×5003×1 in 2 slices of 47 blocks, 1×65537×7 in 129 slices of one block.
 */
export const NARROW_SHAPES: Case[] = [
  { m: 3001, k: 5003, n: 1 },
  { m: 1, k: 65537, n: 7 },
];

/**
 * Taller products with a long K and few columns, for which 'auto' in tf32 takes wgmma-t's 64×128 tiles on an
 * H100/H200 (one wave of them; kernels/choose.h, wgmmaTransposedPaysFor), K split in 2 to fill the SMs. Every edge cut.
 */
export const TALL_TF32_SHAPES: Case[] = [
  { m: 1500, k: 4100, n: 200 },
  { m: 3001, k: 4097, n: 65 },
];

/** Products the plan splits into several row panels on an H100-sized GPU (kernels/choose.h, choosePanelRows). */
export const PANEL_SHAPES: Case[] = [
  { m: 5000, k: 33, n: 2000 },
  { m: 9001, k: 7, n: 1003 },
];

/** Every shape the wgmma-t suites (gpu-wgmma-t.test.ts, gpu-wgmma-t-tf32.test.ts) run, in either precision. */
export const WGMMA_T_TEST_SHAPES: Case[] = [...SMALL_SHAPES, ...LARGE_SHAPES, ...PANEL_SHAPES, ...WGMMA_T_SHAPES, ...K_FILL_SHAPES, ...LARGE_TILE_SHAPES];

/**
 * Empty products. The last two are planned like large ones (tf32 from 256 rows weighs 256×128 tiles split over K,
 * kernels/choose.h): planning the first of them divided by its zero tiles once (SIGFPE, the process gone).
 */
export const EMPTY_SHAPES: Case[] = [
  { m: 0, k: 5, n: 7 },
  { m: 5, k: 7, n: 0 },
  { m: 0, k: 0, n: 0 },
  { m: 6, k: 0, n: 4 },
  { m: 512, k: 5000, n: 0 },
  { m: 0, k: 5000, n: 512 },
];

export const shapeName = ({ m, k, n }: Case): string => `${m}×${k}×${n}`;
