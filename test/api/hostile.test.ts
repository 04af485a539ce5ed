// Hostile and mistaken inputs through the public API and through the native binding called directly: getters
// that transfer buffers mid-call, buffers transferred and collected while a product runs, resizable buffers,
// results too large to exist, shapes that wrap, scalars outside float range. None may crash, read or write
// memory the call does not own, or give a wrong answer without a word. Crash-prone cases run in a child process.
import { gemm, Matrix, matmul, matmulSync } from '../../lib';
import { native } from '../../lib/native';
import { describeChild, runScenario } from '../support/child';
import { describeGpu, gpuSuiteName, randomMatrix, relativeError, thrownBy } from '../support/helpers';

const transfer = (array: Float32Array) => structuredClone(array.buffer, { transfer: [array.buffer as ArrayBuffer] });

describe('a getter that transfers an array after it was checked', () => {
  const [m, k, n] = [64, 48, 32];

  test('on shape.k (public API): a TypeError naming the array, or the right product — never garbage', async () => {
    const a = new Float32Array(m * k).fill(1);
    const b = new Float32Array(k * n).fill(1);
    const shape = { m, n, get k() { transfer(a); return 48; } };
    await expect(matmul(a, b, shape)).rejects.toThrow(/^a: its ArrayBuffer is detached/);
  });

  test('on options.backend (public API), transferring out', async () => {
    const out = new Float32Array(m * n);
    const options = { out, get backend() { transfer(out); return 'cpu' as const; } };
    await expect(matmul(randomMatrix(m * k), randomMatrix(k * n), { m, k, n }, options)).rejects.toThrow(/^out: its ArrayBuffer is detached/);
  });

  test('on gemm args.alpha (public API), transferring c', async () => {
    const c = new Float32Array(m * n);
    const args = { a: randomMatrix(m * k), b: randomMatrix(k * n), c, m, k, n, get alpha() { transfer(c); return 1; } };
    await expect(gemm(args)).rejects.toThrow(/^c: its ArrayBuffer is detached/);
  });

  test('every user value is read once', async () => {
    let reads = 0;
    const shape = { get m() { reads++; return 2; }, k: 3, n: 4 };
    await matmul(new Float32Array(6), new Float32Array(12), shape, { backend: 'cpu' });
    expect(reads).toBe(1);
  });

  test.each(['matmul', 'matmulSync'] as const)('native %s called directly, a getter freeing a 64 MiB input: TypeError, no crash', (fn) => {
    const result = runScenario(`
      const { native } = require(ROOT + '/dist/native');
      const n = 4096;
      let a = new Float32Array(n * n).fill(1);
      const b = new Float32Array(n).fill(1);
      const shape = { m: n, n: 1, get k() { structuredClone(a.buffer, { transfer: [a.buffer] }); gc(); return n; } };
      const report = (c) => console.log(c.every((x) => x === n) ? 'right product' : 'WRONG ' + c[0]);
      try {
        const r = native.${fn}(a, b, shape, { backend: 'cpu' });
        Promise.resolve(r).then(report, (e) => console.log(e.name, e.message));
      } catch (e) { console.log(e.name, e.message); }`, ['--expose-gc']);
    expect(result.signal).toBeNull();
    expect(result.status).toBe(0);
    expect(result.output).toMatch(/TypeError a: its ArrayBuffer is detached|right product/);
  });
});

describe('buffers transferred and collected while the product runs', () => {
  test('out: the call rejects with a TypeError, nothing is written into freed memory', () => {
    const result = runScenario(`
      const { matmul } = require(ROOT);
      const n = 1536;
      const a = Float32Array.from({ length: n * n }, () => Math.random() - 0.5);
      let out = new Float32Array(n * n);
      const pending = matmul(a, a, { m: n, k: n, n }, { out, backend: 'cpu' });
      let moved = structuredClone(out.buffer, { transfer: [out.buffer] });
      moved = null; out = null; gc();
      // Fill the heap with fresh allocations that freed memory could be handed to, and check them afterwards.
      const fresh = Array.from({ length: 64 }, () => new Float32Array(n * n / 16).fill(7));
      pending.then(() => console.log('resolved'), (e) => console.log(e.name, e.message)).then(() => {
        console.log(fresh.every((x) => x.every((v) => v === 7)) ? 'heap intact' : 'HEAP CORRUPTED');
      });`, ['--expose-gc']);
    expect(result.signal).toBeNull();
    expect(result.status).toBe(0);
    expect(result.output).toMatch(/TypeError out: its ArrayBuffer was detached while the product ran/);
    expect(result.output).toContain('heap intact');
  });

  test('an input: the product reads the memory it held and is right', () => {
    const result = runScenario(`
      const { matmul } = require(ROOT);
      const n = 1536;
      let a = Float32Array.from({ length: n * n }, () => 1);
      const b = new Float32Array(n * n).fill(0.5);
      const pending = matmul(a, b, { m: n, k: n, n }, { backend: 'cpu' });
      let moved = structuredClone(a.buffer, { transfer: [a.buffer] });
      moved = null; a = null; gc();
      const fresh = Array.from({ length: 64 }, () => new Float32Array(n * n / 16).fill(7));
      pending.then((c) => console.log(c.every((x) => x === n / 2) ? 'right product' : 'WRONG ' + c[0]), (e) => console.log(e.name, e.message));`,
      ['--expose-gc']);
    expect(result.signal).toBeNull();
    expect(result.status).toBe(0);
    expect(result.output).toContain('right product');
  });
});

describe('resizable buffers are refused (they could shrink under a running product)', () => {
  // ES2024's resizable ArrayBuffer (Node 20 has it; the TypeScript lib here is ES2022).
  const ResizableBuffer = ArrayBuffer as unknown as new (bytes: number, options: { maxByteLength: number }) => ArrayBuffer;
  const resizable = (length: number) => new Float32Array(new ResizableBuffer(length * 4, { maxByteLength: length * 8 }));
  const [m, k, n] = [4, 5, 6];
  test.each([
    ['a', () => matmul(resizable(m * k), randomMatrix(k * n), { m, k, n })],
    ['b', () => matmul(randomMatrix(m * k), resizable(k * n), { m, k, n })],
    ['out', () => matmul(randomMatrix(m * k), randomMatrix(k * n), { m, k, n }, { out: resizable(m * n) })],
    ['c', () => gemm({ a: randomMatrix(m * k), b: randomMatrix(k * n), c: resizable(m * n), m, k, n })],
    ['data', () => Matrix.from(resizable(m * k), m, k)],
  ])('%s: TypeError', async (name, call) => {
    await expect(call()).rejects.toThrow(new RegExp(`^${name}: its ArrayBuffer is resizable`));
  });
  test('the native binding alone refuses them too', () => {
    const error = thrownBy(() => native.matmulSync(resizable(m * k), randomMatrix(k * n), { m, k, n }, {}));
    expect(error.name).toBe('TypeError');
    expect(error.message).toMatch(/^a: its ArrayBuffer is resizable/);
  });
});

describe('sizes are checked before anything is allocated', () => {
  const huge = { m: 65536, k: 0, n: 65537 }; // m·n = 4 295 032 832 > 2^32 − 1

  test('a result larger than a Float32Array: RangeError naming m·n (public API)', async () => {
    await expect(matmul(new Float32Array(0), new Float32Array(0), huge)).rejects.toThrow(/^shape: m·n = 4295032832 is more than a Float32Array can hold/);
    expect(() => matmulSync(new Float32Array(0), new Float32Array(0), huge)).toThrow(RangeError);
  });

  test('the same from the native binding called directly: RangeError, no V8 fatal error', () => {
    const result = runScenario(`
      const { native } = require(ROOT + '/dist/native');
      for (const fn of ['matmulSync', 'matmul'])
        try { native[fn](new Float32Array(0), new Float32Array(0), { m: 65536, k: 0, n: 65537 }, {}); console.log('NO ERROR'); }
        catch (e) { console.log(e.name, e.message); }`);
    expect(result.signal).toBeNull();
    expect(result.status).toBe(0);
    expect(result.output.match(/RangeError shape: m·n = 4295032832 is more than a Float32Array can hold/g)).toHaveLength(2);
  });

  test('resultBuffer (the result cache) called directly with bad lengths: TypeError or RangeError, no crash', () => {
    const result = runScenario(`
      const { native } = require(ROOT + '/dist/native');
      for (const length of [-1, 1.5, NaN, Infinity, 2 ** 32, 2 ** 53, '16', undefined, {}, 10n])
        try { native.resultBuffer(length); console.log('NO ERROR', String(length)); }
        catch (e) { console.log(e.name, e.message); }
      console.log(native.resultBuffer(0).byteLength, native.resultBuffer(5).byteLength);`);
    expect(result.signal).toBeNull();
    expect(result.status).toBe(0);
    expect(result.output).not.toContain('NO ERROR');
    expect(result.output.match(/^(TypeError|RangeError) length: /gm)).toHaveLength(10);
    expect(result.output).toContain('0 20');
  });

  test('matrixSearch called directly with what lib/matrix.ts would never pass: TypeError or RangeError, no crash', () => {
    const result = runScenario(`
      const { Matrix } = require(ROOT);
      const { native } = require(ROOT + '/dist/native');
      (async () => {
        const C = (await Matrix.from(new Float32Array(40), 10, 4, { backend: 'cpu' })).handle();
        const Q = (await Matrix.from(new Float32Array(8), 2, 4, { backend: 'cpu' })).handle();
        const [scores, indices] = [new Float32Array(6), new Float32Array(6)];
        const detached = new Float32Array(6);
        structuredClone(detached.buffer, { transfer: [detached.buffer] });
        const calls = [
          () => native.matrixSearch({}, Q, 3, undefined, undefined, scores, indices),
          () => native.matrixSearch(C, 'queries', 3, undefined, undefined, scores, indices),
          () => native.matrixSearch(C, Q, -1, undefined, undefined, scores, indices),
          () => native.matrixSearch(C, Q, 2 ** 40, undefined, undefined, scores, indices),
          () => native.matrixSearch(C, Q, 3, 'manhattan', undefined, scores, indices),
          () => native.matrixSearch(C, Q, 3, undefined, undefined, new Float32Array(5), indices),
          () => native.matrixSearch(C, Q, 3, undefined, undefined, scores, new Uint32Array(6)),
          () => native.matrixSearch(C, Q, 3, undefined, undefined, scores, detached),
          () => native.matrixSearch(C, C, 3, undefined, undefined, new Float32Array(30), new Float32Array(30)),
        ];
        for (const call of calls)
          try { await call(); console.log('NO ERROR'); }
          catch (e) { console.log(e.name, e.message); }
        await native.matrixSearch(C, Q, 3, 'l2', 'tf32', scores, indices);
        console.log('searched', new Uint32Array(indices.buffer).join(','));
      })();`);
    expect(result.signal).toBeNull();
    expect(result.status).toBe(0);
    const lines = result.output.trim().split('\n');
    // C, C: the corpus searching itself is a search like any other (queries of the corpus's width).
    expect(lines.filter((line) => line === 'NO ERROR')).toHaveLength(1);
    expect(lines.filter((line) => /^(TypeError|RangeError) /.test(line))).toHaveLength(8);
    expect(result.output).toContain('searched 0,1,2,0,1,2');
  });

  test('Matrices with k = 0 and a product whose rows·cols passes 2^53: RangeError, not a wrapped size', async () => {
    const X = await Matrix.from(new Float32Array(0), 2 ** 41, 0, { backend: 'cpu' });
    const W = await Matrix.from(new Float32Array(0), 0, 2 ** 23, { backend: 'cpu' });
    await expect(X.matmul(W)).rejects.toThrow(/^matrix: the product would be 2199023255552×8388608, more elements than .* can hold/);
    const C = await Matrix.from(new Float32Array(0), 0, 0, { backend: 'cpu' });
    await expect(gemm({ a: X, b: W, c: C, m: 2 ** 41, k: 0, n: 2 ** 23 })).rejects.toThrow(/^c: expected a 2199023255552×8388608 Matrix/);
  });

  test('shapes that do not chain are a RangeError before the result is allocated', async () => {
    const X = await Matrix.from(randomMatrix(200_000), 200_000, 1, { backend: 'cpu' });
    const W = await Matrix.from(randomMatrix(400_000), 2, 200_000, { backend: 'cpu' });
    // The result would be 200000×200000 (160 GB): allocating it first would fail as out of memory.
    await expect(X.matmul(W)).rejects.toThrow(/^matrix: a 200000×1 matrix cannot multiply a 2×200000 one/);
  });

  describeGpu(gpuSuiteName('more than the device holds'), () => {
    test('a Matrix product larger than the device: RangeError naming the product, before allocating; later ones work', async () => {
      const x = randomMatrix(200_000), v = randomMatrix(3);
      const [X, W, V] = await Promise.all([
        Matrix.from(x, 200_000, 1, { backend: 'cuda' }),
        Matrix.from(randomMatrix(200_000), 1, 200_000, { backend: 'cuda' }),
        Matrix.from(v, 1, 3, { backend: 'cuda' }),
      ]);
      await expect(X.matmul(W)).rejects.toThrow(/^matrix: the 200000×200000 product needs 160\.00 GB of device memory; device 0 /);
      expect(relativeError(await (await X.matmul(V)).toArray(), x, v, 200_000, 1, 3)).toBeLessThanOrEqual(1e-6);
    });
  });

  test.each([
    ['alpha', 1e39],
    ['alpha', -1e39],
    ['beta', 1e-46],
  ])('%s = %p is outside float32 range: RangeError (public API and native binding)', async (name, value) => {
    const args = { a: randomMatrix(6), b: randomMatrix(12), c: randomMatrix(8), m: 2, k: 3, n: 4, [name]: value };
    await expect(gemm(args)).rejects.toThrow(new RegExp(`^${name}: ${String(value).replace('+', '\\+')} is outside float32's range`));
    expect(thrownBy(() => native.gemm(args, {})).name).toBe('RangeError');
  });

  test('alpha and beta that float32 holds exactly or nearly are accepted', async () => {
    const [m, k, n] = [3, 4, 5];
    const a = randomMatrix(m * k), b = randomMatrix(k * n), c = new Float32Array(m * n).fill(NaN);
    await gemm({ a, b, c, m, k, n, alpha: 3e38 / 3e38, beta: 0 }, { backend: 'cpu' });
    expect(relativeError(c, a, b, m, k, n)).toBeLessThan(1e-6);
  });
});
