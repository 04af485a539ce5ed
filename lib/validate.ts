// Argument validation at the TypeScript boundary. Every message starts with the name of the argument at
// fault. native/arguments.cpp repeats these checks so the addon is safe on its own.
import { types } from 'util';
import type { GemmArrays, GemmMatrices, GemmOptions } from './gemm';
import { Matrix } from './matrix';
import type { MatrixOptions, MatrixProductOptions } from './matrix';
import type { MatmulOptions, Shape } from './types';

const BACKENDS = ['auto', 'cuda', 'cpu'];
const KERNELS = ['auto', 'muld', 'blocktile', 'mma', 'wgmma'];
const PRECISIONS = ['fp32', 'tf32'];
const OPTION_NAMES = ['backend', 'kernel', 'precision', 'out', 'device'];

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an Array';
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function isDetached(array: Float32Array): boolean {
  // Node 20 has no ArrayBuffer.prototype.detached; a detached buffer has byteLength 0 and refuses slice().
  if (array.buffer.byteLength !== 0) return false;
  try {
    array.buffer.slice(0, 0);
    return false;
  } catch {
    return true;
  }
}

function checkFloat32Array(value: unknown, name: string): asserts value is Float32Array {
  // util.types works across realms (vm contexts, jest), where instanceof would not.
  if (!types.isFloat32Array(value)) throw new TypeError(`${name}: expected a Float32Array, got ${describe(value)}`);
  if (isDetached(value)) throw new TypeError(`${name}: its ArrayBuffer is detached (transferred or freed)`);
}

function checkCount(value: unknown, name: string): number {
  if (typeof value !== 'number') throw new TypeError(`${name}: expected a non-negative integer, got ${describe(value)}`);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name}: expected a non-negative integer, got ${value}`);
  return value;
}

function checkDimension(shape: Record<string, unknown>, name: 'm' | 'k' | 'n'): number {
  return checkCount(shape[name], name);
}

function checkedProduct(x: number, y: number, what: string): number {
  const product = x * y;
  if (!Number.isSafeInteger(product)) throw new RangeError(`shape: ${what} is too large (it overflows)`);
  return product;
}

function checkLength(array: Float32Array, name: string, expected: number, formula: string): void {
  if (array.length !== expected)
    throw new RangeError(`${name}: length ${array.length} does not match ${formula} = ${expected}`);
}

function sharesMemory(x: Float32Array, y: Float32Array): boolean {
  if (x.buffer !== y.buffer || x.byteLength === 0 || y.byteLength === 0) return false;
  return x.byteOffset < y.byteOffset + y.byteLength && y.byteOffset < x.byteOffset + x.byteLength;
}

function checkChoice(options: Record<string, unknown>, name: string, allowed: string[]): void {
  const value = options[name];
  if (value === undefined) return;
  if (typeof value !== 'string') throw new TypeError(`${name}: expected a string, got ${describe(value)}`);
  if (!allowed.includes(value))
    throw new RangeError(`${name}: expected ${allowed.map((v) => `'${v}'`).join(', ')}, got '${value}'`);
}

/** The kernel and precision options; 'wgmma' has no fp32 mode, so it must be asked for with precision 'tf32'. */
function checkKernelAndPrecision(options: Record<string, unknown>): void {
  checkChoice(options, 'kernel', KERNELS);
  checkChoice(options, 'precision', PRECISIONS);
  if (options.kernel === 'wgmma' && options.precision !== 'tf32')
    throw new RangeError("kernel: 'wgmma' computes in tf32 only; pass precision: 'tf32' (kernel 'mma' gives fp32 accuracy)");
}

function checkOptionsObject(options: unknown, names: string[]): Record<string, unknown> {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new TypeError(`options: expected an object, got ${describe(options)}`);
  const opts = options as Record<string, unknown>;
  for (const name of Object.keys(opts)) if (!names.includes(name)) throw new TypeError(`options: unknown option '${name}'`);
  return opts;
}

function checkDevice(value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number') throw new TypeError(`device: expected a non-negative integer, got ${describe(value)}`);
  if (!Number.isInteger(value) || value < 0 || value > 2 ** 31 - 1)
    throw new RangeError(`device: expected a non-negative integer, got ${value}`);
}

/** Checks matmul's arguments; throws a TypeError or RangeError naming the argument at fault. */
export function validateMatmul(a: unknown, b: unknown, shape: unknown, options: unknown): asserts shape is Shape {
  checkFloat32Array(a, 'a');
  checkFloat32Array(b, 'b');
  if (typeof shape !== 'object' || shape === null || Array.isArray(shape))
    throw new TypeError(`shape: expected an object { m, k, n }, got ${describe(shape)}`);
  const dims = shape as Record<string, unknown>;
  const m = checkDimension(dims, 'm');
  const k = checkDimension(dims, 'k');
  const n = checkDimension(dims, 'n');
  checkLength(a, 'a', checkedProduct(m, k, 'm·k'), 'm·k');
  checkLength(b, 'b', checkedProduct(k, n, 'k·n'), 'k·n');
  const outLength = checkedProduct(m, n, 'm·n');

  const opts = checkOptionsObject(options, OPTION_NAMES);
  checkChoice(opts, 'backend', BACKENDS);
  checkKernelAndPrecision(opts);
  checkDevice(opts.device);
  const out = (opts as MatmulOptions).out;
  if (out !== undefined) {
    checkFloat32Array(out, 'out');
    checkLength(out, 'out', outLength, 'm·n');
    if (sharesMemory(out, a) || sharesMemory(out, b))
      throw new RangeError('out: must not share memory with a or b (inputs are never modified)');
  }
}

/** The largest Float32Array V8 makes (native/arguments.h, kMaxHostLength). */
const MAX_HOST_LENGTH = 2 ** 32 - 1;

/** Checks allocHost's length. */
export function validateHostLength(length: unknown): asserts length is number {
  const count = checkCount(length, 'length');
  if (count > MAX_HOST_LENGTH)
    throw new RangeError(`length: ${count} is more than a Float32Array can hold (${MAX_HOST_LENGTH})`);
}

/** Checks freeHost's argument is a live Float32Array (the native layer checks it came from allocHost). */
export function validateHostArray(array: unknown): asserts array is Float32Array {
  checkFloat32Array(array, 'array');
}

/** Checks Matrix.from's arguments. */
export function validateMatrixFrom(data: unknown, rows: unknown, cols: unknown, options: MatrixOptions | undefined): void {
  checkFloat32Array(data, 'data');
  const r = checkCount(rows, 'rows');
  const c = checkCount(cols, 'cols');
  checkLength(data, 'data', checkedProduct(r, c, 'rows·cols'), 'rows·cols');
  const opts = checkOptionsObject(options, ['backend', 'device']);
  checkChoice(opts, 'backend', BACKENDS);
  checkDevice(opts.device);
}

/** Checks Matrix#matmul's arguments (shapes, backends and devices are checked natively, with the data). */
export function validateMatrixProduct(self: Matrix, other: unknown, options: MatrixProductOptions | undefined): void {
  if (!(other instanceof (self.constructor as typeof Matrix))) throw new TypeError(`other: expected a Matrix, got ${describe(other)}`);
  const opts = checkOptionsObject(options, ['kernel', 'precision', 'out']);
  checkKernelAndPrecision(opts);
  if (opts.out !== undefined && !(opts.out instanceof (self.constructor as typeof Matrix)))
    throw new TypeError(`out: expected a Matrix, got ${describe(opts.out)}`);
}

/** Checks Matrix#toArray's optional destination. */
export function validateMatrixToArray(out: unknown, length: number): void {
  if (out === undefined) return;
  checkFloat32Array(out, 'out');
  checkLength(out, 'out', length, 'rows·cols');
}

const GEMM_SHAPE_NAMES = ['a', 'b', 'c', 'm', 'k', 'n', 'transA', 'transB', 'alpha', 'beta'];
const GEMM_BATCH_NAMES = ['batch', 'strideA', 'strideB', 'strideC'];

function checkOptionalBoolean(args: Record<string, unknown>, name: string): void {
  if (args[name] !== undefined && typeof args[name] !== 'boolean')
    throw new TypeError(`${name}: expected a boolean, got ${describe(args[name])}`);
}

function checkOptionalScalar(args: Record<string, unknown>, name: string): void {
  const value = args[name];
  if (value === undefined) return;
  if (typeof value !== 'number') throw new TypeError(`${name}: expected a finite number, got ${describe(value)}`);
  if (!Number.isFinite(value)) throw new RangeError(`${name}: expected a finite number, got ${value}`);
}

function stridedSpan(batch: number, stride: number, each: number, what: string): number {
  return batch === 0 ? 0 : checkedProduct(batch - 1, stride, what) + each;
}

function checkAtLeast(array: Float32Array, name: string, needed: number): void {
  if (array.length < needed)
    throw new RangeError(`${name}: length ${array.length} is too short: batch, strides and shape need ${needed}`);
}

/** Checks gemm's arguments; says whether they are Float32Arrays or Matrices. */
export function validateGemm(args: unknown, options: GemmOptions | undefined): 'arrays' | 'matrices' {
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    throw new TypeError(`args: expected an object { a, b, c, m, k, n, … }, got ${describe(args)}`);
  const raw = args as Record<string, unknown>;
  const matrices = raw.a instanceof Matrix;
  checkOptionsObject(raw, [...GEMM_SHAPE_NAMES, ...GEMM_BATCH_NAMES]);
  const m = checkCount(raw.m, 'm');
  const k = checkCount(raw.k, 'k');
  const n = checkCount(raw.n, 'n');
  checkOptionalBoolean(raw, 'transA');
  checkOptionalBoolean(raw, 'transB');
  checkOptionalScalar(raw, 'alpha');
  checkOptionalScalar(raw, 'beta');
  const opts = checkOptionsObject(options, matrices ? ['kernel', 'precision'] : ['backend', 'kernel', 'precision', 'device']);
  checkChoice(opts, 'backend', BACKENDS);
  checkKernelAndPrecision(opts);
  checkDevice(opts.device);
  const batch = raw.batch === undefined ? 1 : checkCount(raw.batch, 'batch');
  const stride = (name: string, fallback: number) => (raw[name] === undefined ? fallback : checkCount(raw[name], name));
  if (matrices) {
    for (const name of ['b', 'c'])
      if (!(raw[name] instanceof Matrix)) throw new TypeError(`${name}: expected a Matrix like a, got ${describe(raw[name])}`);
    // Strides count rows: the batch's operands are stacked row blocks of the Matrices.
    const [rowsA, rowsB] = [raw.transA ? k : m, raw.transB ? n : k];
    const strideC = stride('strideC', m);
    if (batch > 1 && strideC < m) throw new RangeError(`strideC: ${strideC} rows would make the batch's results overlap (m = ${m})`);
    stridedSpan(batch, stride('strideA', rowsA), rowsA, 'batch·strideA');
    stridedSpan(batch, stride('strideB', rowsB), rowsB, 'batch·strideB');
    stridedSpan(batch, strideC, m, 'batch·strideC');
    return 'matrices';
  }
  const { a, b, c } = args as GemmArrays;
  checkFloat32Array(a, 'a');
  checkFloat32Array(b, 'b');
  checkFloat32Array(c, 'c');
  const [mk, kn, mn] = [checkedProduct(m, k, 'm·k'), checkedProduct(k, n, 'k·n'), checkedProduct(m, n, 'm·n')];
  const [strideA, strideB, strideC] = [stride('strideA', mk), stride('strideB', kn), stride('strideC', mn)];
  if (batch > 1 && strideC < mn)
    throw new RangeError(`strideC: ${strideC} would make the batch's results overlap (m·n = ${mn})`);
  checkAtLeast(a, 'a', stridedSpan(batch, strideA, mk, 'batch·strideA'));
  checkAtLeast(b, 'b', stridedSpan(batch, strideB, kn, 'batch·strideB'));
  checkAtLeast(c, 'c', stridedSpan(batch, strideC, mn, 'batch·strideC'));
  if (sharesMemory(c, a) || sharesMemory(c, b))
    throw new RangeError('c: must not share memory with a or b (they are read while it is written)');
  return 'arrays';
}
