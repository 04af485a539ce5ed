// Argument validation at the TypeScript boundary. Every message starts with the name of the argument at
// fault. native/binding/arguments.cpp repeats these checks so the addon is safe on its own.
//
// Each user value is read once: the functions here read every property of shape, options and gemm's args a
// single time (a getter runs once), check the values, and return plain objects of their own that the native
// layer reads instead. Scalars are read before any array is checked, so a getter that transfers or resizes a
// buffer runs before the check that would see it. Arrays are examined through the built-in getters captured
// below, never through properties a caller could shadow.
import { types } from 'util';
import { BACKENDS, KERNELS, METRICS, PRECISIONS } from './options';
import { resultArray } from './results';
import type { MatmulOptions, Shape } from './types';

/** The largest Float32Array the library allocates (native/arguments.h, kMaxHostLength). */
const MAX_HOST_LENGTH = 2 ** 32 - 1;

// --- arrays, through the built-in getters ----------------------------------------------------------------

const TypedArrayPrototype = Object.getPrototypeOf(Float32Array.prototype) as object;
function builtinGetter(prototype: object, name: string): ((this: unknown) => unknown) | undefined {
  return Object.getOwnPropertyDescriptor(prototype, name)?.get;
}
const typedArrayGetters = {
  length: builtinGetter(TypedArrayPrototype, 'length')!,
  buffer: builtinGetter(TypedArrayPrototype, 'buffer')!,
  byteOffset: builtinGetter(TypedArrayPrototype, 'byteOffset')!,
  byteLength: builtinGetter(TypedArrayPrototype, 'byteLength')!,
};
const resizableGetter = builtinGetter(ArrayBuffer.prototype, 'resizable'); // absent before ES2024 runtimes
const arrayBufferByteLength = builtinGetter(ArrayBuffer.prototype, 'byteLength')!;
const arrayBufferSlice = ArrayBuffer.prototype.slice;

const lengthOf = (array: Float32Array) => typedArrayGetters.length.call(array) as number;
const bufferOf = (array: Float32Array) => typedArrayGetters.buffer.call(array) as ArrayBuffer | SharedArrayBuffer;

function isDetached(array: Float32Array): boolean {
  const buffer = bufferOf(array);
  if (types.isSharedArrayBuffer(buffer) || arrayBufferByteLength.call(buffer) !== 0) return false;
  // Node 20 has no ArrayBuffer.prototype.detached; an empty buffer is detached if it refuses slice().
  try {
    arrayBufferSlice.call(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

// "an Int32Array", "a Uint8Array" (said "you-int").
const withArticle = (noun: string): string => `${/^([aeio]|u(?!int))/i.test(noun) ? 'an' : 'a'} ${noun}`;

/** "a Float64Array", "an Int32Array", "null", "an object": for messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an Array';
  if (Buffer.isBuffer(value)) return 'a Buffer';
  if (ArrayBuffer.isView(value)) return withArticle(Object.prototype.toString.call(value).slice(8, -1));
  if (types.isAnyArrayBuffer(value)) return withArticle(Object.prototype.toString.call(value).slice(8, -1));
  if (typeof value === 'object') return 'an object';
  return withArticle(typeof value);
}

// How to make a Float32Array of what was passed, where that is clear: Float32Array.from would give NaNs for nested
// arrays and a float per byte for a Buffer.
function conversionAdvice(value: unknown, name: string): string {
  if (Array.isArray(value))
    return Array.isArray(value[0]) ? ` of arrays (flatten it: Float32Array.from(${name}.flat()))` : ` (convert it with Float32Array.from(${name}))`;
  if (Buffer.isBuffer(value))
    return ` (to read its bytes as floats: new Float32Array(${name}.buffer, ${name}.byteOffset, ${name}.length / 4) where ` +
      `${name}.byteOffset is a multiple of 4, else new Float32Array(Uint8Array.from(${name}).buffer); ` +
      `Float32Array.from(${name}) would make a float of each byte)`;
  if (types.isAnyArrayBuffer(value)) return ` (view it: new Float32Array(${name}))`;
  if (ArrayBuffer.isView(value) && !types.isDataView(value)) return ` (convert it with Float32Array.from(${name}))`;
  return '';
}

function checkFloat32Array(value: unknown, name: string): asserts value is Float32Array {
  // util.types works across realms (vm contexts, jest), where instanceof would not.
  if (!types.isFloat32Array(value))
    throw new TypeError(`${name}: expected a Float32Array, got ${describe(value)}${conversionAdvice(value, name)}`);
  if (isDetached(value)) throw new TypeError(`${name}: its ArrayBuffer is detached (transferred or freed)`);
  const buffer = bufferOf(value);
  if (!types.isSharedArrayBuffer(buffer) && resizableGetter?.call(buffer) === true)
    throw new TypeError(`${name}: its ArrayBuffer is resizable, and could shrink under a running product; pass a copy (array.slice())`);
}

function checkLength(array: Float32Array, name: string, expected: number, formula: string): void {
  const length = lengthOf(array);
  if (length !== expected) throw new RangeError(`${name}: length ${length} does not match ${formula} = ${expected}`);
}

function checkAtLeast(array: Float32Array, name: string, needed: number): void {
  const length = lengthOf(array);
  if (length < needed) throw new RangeError(`${name}: length ${length} is too short: batch, strides and shape need ${needed}`);
}

function sharesMemory(x: Float32Array, y: Float32Array): boolean {
  const [xBytes, yBytes] = [typedArrayGetters.byteLength.call(x) as number, typedArrayGetters.byteLength.call(y) as number];
  if (bufferOf(x) !== bufferOf(y) || xBytes === 0 || yBytes === 0) return false;
  const [xStart, yStart] = [typedArrayGetters.byteOffset.call(x) as number, typedArrayGetters.byteOffset.call(y) as number];
  return xStart < yStart + yBytes && yStart < xStart + xBytes;
}

/** A new Float32Array of `length` elements for a result (results.ts), or a RangeError naming what it would hold. */
function newResult(length: number, what: string): Float32Array {
  if (length > MAX_HOST_LENGTH)
    throw new RangeError(`${what} = ${length} is more than a Float32Array can hold (${MAX_HOST_LENGTH})`);
  return resultArray(length);
}

// --- scalars -----------------------------------------------------------------------------------------------

function checkCount(value: unknown, name: string): number {
  if (typeof value !== 'number') throw new TypeError(`${name}: expected a non-negative integer, got ${describe(value)}`);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name}: expected a non-negative integer, got ${value}`);
  return value;
}

function checkedProduct(x: number, y: number, what: string): number {
  const product = x * y;
  if (!Number.isSafeInteger(product)) throw new RangeError(`shape: ${what} is too large (it overflows)`);
  return product;
}

function checkChoice(value: unknown, name: string, allowed: readonly string[]): void {
  if (value === undefined) return;
  if (typeof value !== 'string') throw new TypeError(`${name}: expected a string, got ${describe(value)}`);
  if (!allowed.includes(value))
    throw new RangeError(`${name}: expected ${allowed.map((v) => `'${v}'`).join(', ')}, got '${value}'`);
}

/** The kernel and precision options (options.ts): every kernel takes both precisions. */
function checkKernelAndPrecision(kernel: unknown, precision: unknown): void {
  checkChoice(kernel, 'kernel', KERNELS);
  checkChoice(precision, 'precision', PRECISIONS);
}

function checkDevice(value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number') throw new TypeError(`device: expected a non-negative integer, got ${describe(value)}`);
  if (!Number.isInteger(value) || value < 0 || value > 2 ** 31 - 1)
    throw new RangeError(`device: expected a non-negative integer, got ${value}`);
}

/** The `signal` option: an AbortSignal (abort.ts), by its shape, so that one from another realm (jest) passes. */
function checkSignal(value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  const signal = value as Partial<AbortSignal> | null;
  if (typeof signal !== 'object' || signal === null || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function')
    throw new TypeError(`signal: expected an AbortSignal, got ${describe(value)}`);
  return value as AbortSignal;
}

function checkOptionalBoolean(value: unknown, name: string): void {
  if (value !== undefined && typeof value !== 'boolean') throw new TypeError(`${name}: expected a boolean, got ${describe(value)}`);
}

/** α and β are float32 in the kernels: finite, not overflowing to ±Infinity, not a non-zero value rounding to 0. */
function checkOptionalScalar(value: unknown, name: string): void {
  if (value === undefined) return;
  if (typeof value !== 'number') throw new TypeError(`${name}: expected a finite number, got ${describe(value)}`);
  if (!Number.isFinite(value)) throw new RangeError(`${name}: expected a finite number, got ${value}`);
  const asFloat = Math.fround(value);
  if (!Number.isFinite(asFloat) || (value !== 0 && asFloat === 0))
    throw new RangeError(`${name}: ${value} is outside float32's range (magnitudes from 1.4e-45 to 3.4e38, or 0)`);
}

/**
 * Reads an options-like object's known properties once each into a plain object (undefined ones left out);
 * any other own property is a TypeError.
 */
function readObject(value: unknown, names: readonly string[], what = 'options'): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TypeError(`${what}: expected an object, got ${describe(value)}`);
  for (const name of Object.keys(value))
    if (!names.includes(name)) throw new TypeError(what === 'options' ? `options: unknown option '${name}'` : `${what}: unknown key '${name}'`);
  const read: Record<string, unknown> = {};
  for (const name of names) {
    const v = (value as Record<string, unknown>)[name];
    if (v !== undefined) read[name] = v;
  }
  return read;
}

// --- the calls -----------------------------------------------------------------------------------------------

/** matmul's arguments as the native layer takes them: plain data, `out` always present. */
export interface MatmulCall {
  a: Float32Array;
  b: Float32Array;
  shape: Shape;
  options: Omit<MatmulOptions, 'signal'> & { out: Float32Array };
  signal?: AbortSignal;
}

/** Checks matmul's arguments, reading each once; throws a TypeError or RangeError naming the argument at fault. */
export function readMatmul(a: unknown, b: unknown, shape: unknown, options: unknown): MatmulCall {
  if (typeof shape !== 'object' || shape === null || Array.isArray(shape))
    throw new TypeError(`shape: expected an object { m, k, n }, got ${describe(shape)}`);
  const dims = shape as Record<string, unknown>;
  for (const key of Object.keys(dims))
    if (!['m', 'k', 'n'].includes(key))
      throw new TypeError(`shape: unknown key '${key}' (${GEMM_NAMES.includes(key) ? 'it is an argument of gemm({ a, b, c, m, k, n, transA, … })' : 'a shape is { m, k, n }'})`);
  const m = checkCount(dims.m, 'm');
  const k = checkCount(dims.k, 'k');
  const n = checkCount(dims.n, 'n');
  const [mk, kn, mn] = [checkedProduct(m, k, 'm·k'), checkedProduct(k, n, 'k·n'), checkedProduct(m, n, 'm·n')];
  const { signal, ...opts } = readObject(options, ['backend', 'kernel', 'precision', 'out', 'device', 'signal']);
  checkChoice(opts.backend, 'backend', BACKENDS);
  checkKernelAndPrecision(opts.kernel, opts.precision);
  checkDevice(opts.device);
  const abortSignal = checkSignal(signal);

  checkFloat32Array(a, 'a');
  checkFloat32Array(b, 'b');
  checkLength(a, 'a', mk, 'm·k');
  checkLength(b, 'b', kn, 'k·n');
  let out: Float32Array;
  if (opts.out === undefined) {
    out = newResult(mn, 'shape: m·n');
  } else {
    checkFloat32Array(opts.out, 'out');
    out = opts.out;
    checkLength(out, 'out', mn, 'm·n');
    if (sharesMemory(out, a) || sharesMemory(out, b))
      throw new RangeError('out: must not share memory with a or b (inputs are never modified)');
  }
  return { a, b, shape: { m, k, n }, options: { ...(opts as MatmulOptions), out }, ...(abortSignal ? { signal: abortSignal } : {}) };
}

/** Checks allocHost's length. */
export function validateHostLength(length: unknown): asserts length is number {
  const count = checkCount(length, 'length');
  if (count > MAX_HOST_LENGTH)
    throw new RangeError(`length: ${count} is more than a Float32Array can hold (${MAX_HOST_LENGTH})`);
}

/** Checks freeHost's argument is a live Float32Array (the native layer checks it came from allocHost). */
export function validateHostArray(array: unknown): asserts array is Float32Array {
  if (!types.isFloat32Array(array)) throw new TypeError(`array: expected a Float32Array, got ${describe(array)}`);
  if (isDetached(array)) throw new TypeError('array: its ArrayBuffer is detached (transferred or freed)');
}

/** Matrix.from's options, read once: those the native layer takes, and the signal. */
export interface MatrixFromRead {
  options: { backend?: string; device?: number };
  signal?: AbortSignal;
}

/** Checks Matrix.from's arguments; returns its options as read. */
export function readMatrixFrom(data: unknown, rows: unknown, cols: unknown, options: unknown): MatrixFromRead {
  const r = checkCount(rows, 'rows');
  const c = checkCount(cols, 'cols');
  const length = checkedProduct(r, c, 'rows·cols');
  const { signal, ...opts } = readObject(options, ['backend', 'device', 'signal']);
  checkChoice(opts.backend, 'backend', BACKENDS);
  checkDevice(opts.device);
  const abortSignal = checkSignal(signal);
  checkFloat32Array(data, 'data');
  checkLength(data, 'data', length, 'rows·cols');
  return { options: opts, signal: abortSignal };
}

/** Matrix#matmul's options, read once (out still to be checked as a Matrix by the caller). */
export interface MatrixProductRead {
  kernel?: string;
  precision?: string;
  out?: unknown;
  signal?: AbortSignal;
}

export function readMatrixProduct(options: unknown): MatrixProductRead {
  const opts = readObject(options, ['kernel', 'precision', 'out', 'signal']);
  checkKernelAndPrecision(opts.kernel, opts.precision);
  return { ...opts, signal: checkSignal(opts.signal) };
}

/**
 * Matrix#toArray's argument: a Float32Array `out` (the older form) or `{ out, signal }`; `out` checked, or a new
 * array of `length` elements.
 */
export function readMatrixDownload(options: unknown, length: number): { out: Float32Array; signal?: AbortSignal } {
  const isOptions = typeof options === 'object' && options !== null && !ArrayBuffer.isView(options) && !Array.isArray(options) &&
    !types.isAnyArrayBuffer(options);
  const opts = isOptions ? readObject(options, ['out', 'signal']) : { out: options };
  const signal = checkSignal(opts.signal);
  if (opts.out === undefined) return { out: newResult(length, 'matrix: rows·cols'), signal };
  checkFloat32Array(opts.out, 'out');
  checkLength(opts.out, 'out', length, 'rows·cols');
  return { out: opts.out, signal };
}

/** Matrix#search's options, read once. */
export interface SearchRead {
  k: number;
  metric?: string;
  precision?: string;
  signal?: AbortSignal;
}

export function readSearch(options: unknown): SearchRead {
  if (options === undefined) throw new TypeError('options: expected an object { k, metric?, precision?, signal? }, got undefined');
  const opts = readObject(options, ['k', 'metric', 'precision', 'signal']);
  const k = checkCount(opts.k, 'k');
  if (k === 0) throw new RangeError('k: expected at least 1 row for each query, got 0');
  checkChoice(opts.metric, 'metric', METRICS);
  checkChoice(opts.precision, 'precision', PRECISIONS);
  return { k, metric: opts.metric as string | undefined, precision: opts.precision as string | undefined, signal: checkSignal(opts.signal) };
}

/** Queries given as an array: rows of the corpus's `dims` values; returns how many. */
export function readSearchQueries(queries: unknown, dims: number): number {
  checkFloat32Array(queries, 'queries');
  const length = lengthOf(queries);
  if (dims === 0 || length % dims !== 0)
    throw new RangeError(`queries: length ${length} is not a whole number of rows of the corpus's ${dims} values`);
  return length / dims;
}

/** A search's two results, `length` elements each (queries·k). */
export function newSearchResults(length: number): { scores: Float32Array; indices: Uint32Array } {
  if (length > MAX_HOST_LENGTH)
    throw new RangeError(`k: queries·k = ${length} results are more than a Float32Array can hold (${MAX_HOST_LENGTH})`);
  return { scores: new Float32Array(length), indices: new Uint32Array(length) };
}

const GEMM_NAMES = ['a', 'b', 'c', 'm', 'k', 'n', 'transA', 'transB', 'alpha', 'beta', 'batch', 'strideA', 'strideB', 'strideC'];

/** gemm's arguments as read once: the fields of GemmArrays / GemmMatrices, as plain data. */
export type GemmRead = Record<string, unknown> & { m: number; k: number; n: number };

function stridedSpan(batch: number, stride: number, each: number, what: string): number {
  return batch === 0 ? 0 : checkedProduct(batch - 1, stride, what) + each;
}

/**
 * Checks gemm's arguments, reading each once. `isMatrix` tells Matrices from arrays (matrix.ts owns the class).
 * Returns the kind and the arguments and options as read.
 */
export function readGemm(
  args: unknown,
  options: unknown,
  isMatrix: (value: unknown) => boolean,
): { kind: 'arrays' | 'matrices'; args: GemmRead; options: Record<string, unknown>; signal?: AbortSignal } {
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    throw new TypeError(`args: expected an object { a, b, c, m, k, n, … }, got ${describe(args)}`);
  const raw = readObject(args, GEMM_NAMES, 'args');
  const matrices = isMatrix(raw.a);
  const m = checkCount(raw.m, 'm');
  const k = checkCount(raw.k, 'k');
  const n = checkCount(raw.n, 'n');
  checkOptionalBoolean(raw.transA, 'transA');
  checkOptionalBoolean(raw.transB, 'transB');
  checkOptionalScalar(raw.alpha, 'alpha');
  checkOptionalScalar(raw.beta, 'beta');
  const { signal, ...opts } = readObject(options, matrices ? ['kernel', 'precision', 'signal'] : ['backend', 'kernel', 'precision', 'device', 'signal']);
  checkChoice(opts.backend, 'backend', BACKENDS);
  checkKernelAndPrecision(opts.kernel, opts.precision);
  checkDevice(opts.device);
  const abortSignal = checkSignal(signal);
  const batch = raw.batch === undefined ? 1 : checkCount(raw.batch, 'batch');
  const stride = (name: string, fallback: number) => (raw[name] === undefined ? fallback : checkCount(raw[name], name));
  const read = { ...raw, m, k, n } as GemmRead;
  if (matrices) {
    for (const name of ['b', 'c'])
      if (!isMatrix(raw[name])) throw new TypeError(`${name}: expected a Matrix like a, got ${describe(raw[name])}`);
    // Strides count rows: the batch's operands are stacked row blocks of the Matrices.
    const [rowsA, rowsB] = [raw.transA ? k : m, raw.transB ? n : k];
    const strideC = stride('strideC', m);
    if (batch > 1 && strideC < m) throw new RangeError(`strideC: ${strideC} rows would make the batch's results overlap (m = ${m})`);
    stridedSpan(batch, stride('strideA', rowsA), rowsA, 'batch·strideA');
    stridedSpan(batch, stride('strideB', rowsB), rowsB, 'batch·strideB');
    stridedSpan(batch, strideC, m, 'batch·strideC');
    return { kind: 'matrices', args: read, options: opts, signal: abortSignal };
  }
  const [mk, kn, mn] = [checkedProduct(m, k, 'm·k'), checkedProduct(k, n, 'k·n'), checkedProduct(m, n, 'm·n')];
  const [strideA, strideB, strideC] = [stride('strideA', mk), stride('strideB', kn), stride('strideC', mn)];
  if (batch > 1 && strideC < mn)
    throw new RangeError(`strideC: ${strideC} would make the batch's results overlap (m·n = ${mn})`);
  const [spanA, spanB, spanC] = [
    stridedSpan(batch, strideA, mk, 'batch·strideA'),
    stridedSpan(batch, strideB, kn, 'batch·strideB'),
    stridedSpan(batch, strideC, mn, 'batch·strideC'),
  ];
  const { a, b, c } = raw;
  checkFloat32Array(a, 'a');
  checkFloat32Array(b, 'b');
  checkFloat32Array(c, 'c');
  checkAtLeast(a, 'a', spanA);
  checkAtLeast(b, 'b', spanB);
  checkAtLeast(c, 'c', spanC);
  if (sharesMemory(c, a) || sharesMemory(c, b))
    throw new RangeError('c: must not share memory with a or b (they are read while it is written)');
  return { kind: 'arrays', args: read, options: opts, signal: abortSignal };
}

/** Corpus.from's arguments, read once: the rows' pieces (one array, or several of whole rows), and the devices to
 * shard over ('all': every CUDA device found). */
export function readCorpusFrom(data: unknown, rows: unknown, cols: unknown, options: unknown, deviceCount: number): { pieces: Float32Array[]; devices: number[]; signal?: AbortSignal } {
  const { devices, signal } = readObject(options, ['devices', 'signal']);
  const pieces = Array.isArray(data) ? data : [data];
  if (pieces.length === 0) throw new RangeError('data: expected a Float32Array or a non-empty array of them');
  const r = checkCount(rows, 'rows'), c = checkCount(cols, 'cols');
  if (c === 0) throw new RangeError('cols: a corpus needs rows of at least 1 value, got 0');
  const length = checkedProduct(r, c, 'rows·cols');
  let total = 0;
  pieces.forEach((piece: unknown, i) => {
    const name = Array.isArray(data) ? `data[${i}]` : 'data';
    checkFloat32Array(piece, name);
    if (Array.isArray(data) && lengthOf(piece) % c !== 0)
      throw new RangeError(`${name}: length ${lengthOf(piece)} is not a whole number of rows of ${c} values`);
    total += lengthOf(piece);
  });
  if (total !== length) throw new RangeError(`data: length ${total} does not match rows·cols = ${length}`);
  const abortSignal = checkSignal(signal);
  if (deviceCount === 0) throw new Error('Corpus: no usable CUDA device here (info().reason says why)');
  if (devices === undefined || devices === 'all') return { pieces, devices: Array.from({ length: deviceCount }, (_, i) => i), signal: abortSignal };
  if (!Array.isArray(devices) || devices.length === 0)
    throw new TypeError(`devices: expected 'all' or a non-empty array of device indices, got ${describe(devices)}`);
  for (const device of devices) {
    checkDevice(device);
    if ((device as number) >= deviceCount) throw new RangeError(`devices: ${device} does not exist; ${deviceCount} CUDA device(s) found`);
  }
  if (new Set(devices).size !== devices.length) throw new RangeError(`devices: ${devices.join(', ')} names a device twice`);
  return { pieces, devices: devices as number[], signal: abortSignal };
}
