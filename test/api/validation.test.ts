// Bad input gets a TypeError or RangeError naming the argument: from matmulSync (thrown), from matmul
// (rejected, never thrown synchronously), and from the native binding called directly (safe on its own).
import { allocHost, freeHost, info, matmul, matmulSync, Matrix } from '../../lib';
import { native } from '../../lib/native';
import { thrownBy } from '../support/helpers';

const f32 = (n: number) => new Float32Array(n).fill(1);
const shape = { m: 2, k: 3, n: 4 };
const A = f32(6);
const B = f32(12);

function detached(): Float32Array {
  const array = f32(6);
  structuredClone(array.buffer, { transfer: [array.buffer] });
  return array;
}

type BadCall = [string, unknown[], typeof TypeError | typeof RangeError, RegExp];
const BAD_CALLS: BadCall[] = [
  ['a is an Array', [[1, 2, 3, 4, 5, 6], B, shape], TypeError, /^a: expected a Float32Array, got an Array/],
  ['a is a Float64Array', [new Float64Array(6), B, shape], TypeError, /^a: .*Float64Array/],
  ['a is an Int32Array', [new Int32Array(6), B, shape], TypeError, /^a: .*Int32Array/],
  ['a is a DataView', [new DataView(new ArrayBuffer(24)), B, shape], TypeError, /^a: .*DataView/],
  ['a is null', [null, B, shape], TypeError, /^a: .*null/],
  ['a is a string', ['abc', B, shape], TypeError, /^a: .*string/],
  ['b is undefined', [A, undefined, shape], TypeError, /^b: .*undefined/],
  ['a is detached', [detached(), B, shape], TypeError, /^a: .*detached/],
  ['shape missing', [A, B], TypeError, /^shape: /],
  ['shape is an array', [A, B, [2, 3, 4]], TypeError, /^shape: /],
  ['m missing', [A, B, { k: 3, n: 4 }], TypeError, /^m: /],
  ['k is a string', [A, B, { m: 2, k: '3', n: 4 }], TypeError, /^k: .*string/],
  ['n fractional', [A, B, { m: 2, k: 3, n: 4.5 }], RangeError, /^n: .*4\.5/],
  ['m negative', [A, B, { m: -2, k: 3, n: 4 }], RangeError, /^m: /],
  ['k NaN', [A, B, { m: 2, k: NaN, n: 4 }], RangeError, /^k: .*NaN/],
  ['n infinite', [A, B, { m: 2, k: 3, n: Infinity }], RangeError, /^n: .*Infinity/],
  ['m above 2^53', [A, B, { m: 2 ** 53, k: 3, n: 4 }], RangeError, /^m: /],
  ['m·k overflows', [A, B, { m: 2 ** 40, k: 2 ** 20, n: 0 }], RangeError, /^shape: m·k .*overflow/],
  ['m·n overflows', [f32(0), f32(0), { m: 2 ** 30, k: 0, n: 2 ** 30 }], RangeError, /^shape: m·n .*overflow/],
  ['a too short', [f32(5), B, shape], RangeError, /^a: length 5 does not match m·k = 6/],
  ['b too long', [A, f32(13), shape], RangeError, /^b: length 13 does not match k·n = 12/],
  ['options is a string', [A, B, shape, 'cpu'], TypeError, /^options: /],
  ['unknown option', [A, B, shape, { backnd: 'cpu' }], TypeError, /^options: unknown option 'backnd'/],
  ['backend unknown', [A, B, shape, { backend: 'gpu' }], RangeError, /^backend: .*'gpu'/],
  ['backend a number', [A, B, shape, { backend: 1 }], TypeError, /^backend: /],
  ['kernel unknown', [A, B, shape, { kernel: 'fast' }], RangeError, /^kernel: .*'fast'/],
  ['precision unknown', [A, B, shape, { precision: 'fp64' }], RangeError, /^precision: .*'fp64'/],
  ['device negative', [A, B, shape, { device: -1 }], RangeError, /^device: /],
  ['device fractional', [A, B, shape, { device: 0.5 }], RangeError, /^device: /],
  ['device a string', [A, B, shape, { device: '0' }], TypeError, /^device: /],
  ['out wrong type', [A, B, shape, { out: new Float64Array(8) }], TypeError, /^out: .*Float64Array/],
  ['out wrong length', [A, B, shape, { out: f32(7) }], RangeError, /^out: length 7 does not match m·n = 8/],
  ['out detached', [A, B, shape, { out: detached() }], TypeError, /^out: .*detached/],
];


function aliasedOut(): unknown[] {
  const buffer = new Float32Array(64);
  const a = buffer.subarray(0, 6);
  const out = buffer.subarray(4, 12); // overlaps a's last two elements
  return [a, B, shape, { out }];
}

describe.each(BAD_CALLS)('%s', (_name, args, ErrorType, message) => {
  const call = args as Parameters<typeof matmulSync>;

  test('matmulSync throws', () => {
    expect(() => matmulSync(...call)).toThrow(ErrorType);
    expect(() => matmulSync(...call)).toThrow(message);
  });

  test('matmul rejects and does not throw synchronously', async () => {
    let promise: Promise<unknown> | undefined;
    expect(() => {
      promise = matmul(...call);
    }).not.toThrow();
    await expect(promise).rejects.toThrow(ErrorType);
    await expect(matmul(...call)).rejects.toThrow(message);
  });

  test('the native binding alone throws the same', () => {
    const [a, b, s, options] = args as [Float32Array, Float32Array, object, object];
    for (const call of [() => native.matmulSync(a, b, s, options), () => native.matmul(a, b, s, options)]) {
      const error = thrownBy(call);
      // the addon's errors come from Node's main realm, not jest's sandbox: compare by name, not class
      expect(error.name).toBe(ErrorType.name);
      expect(error.message).toMatch(message);
    }
  });
});

describe('out sharing memory with an input', () => {
  test('is refused by matmulSync, matmul and the native binding', async () => {
    const args = aliasedOut() as Parameters<typeof matmulSync>;
    expect(() => matmulSync(...args)).toThrow(/^out: must not share memory with a or b/);
    await expect(matmul(...args)).rejects.toThrow(RangeError);
    const [a, b, s, o] = aliasedOut() as [Float32Array, Float32Array, object, object];
    expect(thrownBy(() => native.matmulSync(a, b, s, o)).name).toBe('RangeError');
  });
});

describe('explicit choices that cannot be honoured', () => {
  test("kernel 'muld' on backend 'cpu' is a RangeError", async () => {
    await expect(matmul(A, B, shape, { backend: 'cpu', kernel: 'muld' })).rejects.toThrow(/^kernel: 'muld' is a CUDA kernel/);
  });

  test('a device index that does not exist is a RangeError (or CUDA is unavailable)', async () => {
    const attempt = matmul(A, B, shape, { backend: 'cuda', device: 4096 });
    await expect(attempt).rejects.toThrow(/device: 4096 does not exist|CUDA is unavailable/);
  });

  test('after errors, the next call still works', async () => {
    await expect(matmul(f32(5), B, shape)).rejects.toThrow(RangeError);
    const c = await matmul(A, B, shape, { backend: 'cpu' });
    expect(Array.from(c)).toEqual(new Array(8).fill(3));
  });
});

describe('allocHost and freeHost arguments', () => {
  const BAD_HOST_CALLS: [string, () => unknown, typeof TypeError | typeof RangeError, RegExp][] = [
    ['allocHost length a string', () => allocHost('8' as unknown as number), TypeError, /^length: .*string/],
    ['allocHost length negative', () => allocHost(-1), RangeError, /^length: /],
    ['allocHost length fractional', () => allocHost(1.5), RangeError, /^length: .*1\.5/],
    ['allocHost length too large', () => allocHost(2 ** 32), RangeError, /^length: .*more than a Float32Array/],
    ['freeHost of a Float64Array', () => freeHost(new Float64Array(2) as unknown as Float32Array), TypeError, /^array: .*Float64Array/],
    ['freeHost of an ordinary array', () => freeHost(f32(4)), TypeError, /^array: expected a Float32Array from allocHost/],
    ['freeHost of a view of one', () => freeHost(allocHost(8).subarray(2)), TypeError, /^array: expected a Float32Array from allocHost/],
  ];
  test.each(BAD_HOST_CALLS)('%s', (_name, call, type, message) => {
    const error = thrownBy(call);
    expect(error.name).toBe(type.name); // by name: the native layer's errors come from Node's realm, not jest's
    expect(error.message).toMatch(message);
  });

  test('the native binding alone refuses the same', () => {
    expect(thrownBy(() => native.allocHost(-1)).name).toBe('RangeError');
    expect(thrownBy(() => native.allocHost('8' as unknown as number)).name).toBe('TypeError');
    expect(thrownBy(() => native.freeHost(f32(4))).message).toMatch(/^array: expected a Float32Array from allocHost/);
    expect(thrownBy(() => native.freeHost(null as unknown as Float32Array)).name).toBe('TypeError');
  });

  test('freeing twice is a TypeError (the array is detached), not a double free', () => {
    const array = allocHost(16);
    freeHost(array);
    expect(thrownBy(() => freeHost(array)).message).toMatch(/^array: .*detached/);
  });
});

describe('messages a user can act on', () => {
  test('a missing shape says undefined; an array of another type says how to convert it', async () => {
    await expect(matmul(A, B, undefined as never)).rejects.toThrow(/^shape: expected an object \{ m, k, n \}, got undefined$/);
    await expect(matmul(new Float64Array(6) as never, B, shape)).rejects.toThrow(/^a: expected a Float32Array, got a Float64Array \(convert it with Float32Array\.from\(a\)\)/);
    expect(thrownBy(() => native.matmulSync([1, 2, 3, 4, 5, 6] as never, B, shape, {})).message).toMatch(/^a: expected a Float32Array, got an Array \(convert it with Float32Array\.from\(a\)\)/);
  });

  // Advice that is right for what was passed: Float32Array.from of nested arrays gives NaNs, and of a Buffer one
  // float per byte.
  test.each([
    ['nested arrays', [[1, 2, 3], [4, 5, 6]], /^a: expected a Float32Array, got an Array of arrays \(flatten it: Float32Array\.from\(a\.flat\(\)\)\)$/],
    ['a flat array', [1, 2, 3, 4, 5, 6], /^a: expected a Float32Array, got an Array \(convert it with Float32Array\.from\(a\)\)$/],
    ['a Buffer', Buffer.alloc(24), /^a: expected a Float32Array, got a Buffer \(to read its bytes as floats: new Float32Array\(a\.buffer, a\.byteOffset, a\.length \/ 4\) where a\.byteOffset is a multiple of 4, else new Float32Array\(Uint8Array\.from\(a\)\.buffer\); Float32Array\.from\(a\) would make a float of each byte\)$/],
    ['an ArrayBuffer', new ArrayBuffer(24), /^a: expected a Float32Array, got an ArrayBuffer \(view it: new Float32Array\(a\)\)$/],
    ['an Int32Array', new Int32Array(6), /^a: expected a Float32Array, got an Int32Array \(convert it with Float32Array\.from\(a\)\)$/],
    ['a Uint8Array', new Uint8Array(6), /^a: expected a Float32Array, got a Uint8Array \(convert it with Float32Array\.from\(a\)\)$/],
  ])('a is %s: the advice fits it', async (_, a, message) => {
    await expect(matmul(a as never, B, shape)).rejects.toThrow(message);
  });

  // Called directly (its own validation, for callers that bypass lib/): no advice that would make the wrong array.
  test.each([
    ['nested arrays', [[1, 2, 3], [4, 5, 6]]],
    ['a Buffer', Buffer.alloc(24)],
  ])('the binding called directly with %s gives no Float32Array.from advice', (_, a) => {
    const message = thrownBy(() => native.matmulSync(a as never, B, shape, {})).message;
    expect(message).toMatch(/^a: expected a Float32Array, got /);
    expect(message).not.toContain('Float32Array.from');
  });

  test("a gemm argument in matmul's shape is a TypeError naming it, not ignored", async () => {
    await expect(matmul(A, B, { ...shape, transA: true } as never)).rejects.toThrow(
      /^shape: unknown key 'transA' \(it is an argument of gemm\(\{ a, b, c, m, k, n, transA, … \}\)\)$/);
    expect(thrownBy(() => matmulSync(A, B, { ...shape, rows: 2 } as never)).message).toBe("shape: unknown key 'rows' (a shape is { m, k, n })");
  });

  test('new Matrix() from JavaScript is a TypeError pointing at Matrix.from', () => {
    const Constructor = Matrix as unknown as new () => Matrix;
    expect(thrownBy(() => new Constructor())).toEqual(
      new TypeError('Matrix: make one with await Matrix.from(data, rows, cols), not new Matrix()'));
  });

  test('a device that does not exist is a RangeError on every backend, with or without a GPU', async () => {
    const missing = Math.max(3, info().devices.length); // a host may have 4
    for (const backend of ['auto', 'cpu', 'cuda'] as const)
      await expect(matmul(A, B, shape, { backend, device: missing })).rejects.toThrow(new RegExp(`^device: ${missing} does not exist; \\d+ CUDA device\\(s\\) found`));
  });
});
