// Matrix: device-resident data (the CPU backend behaves the same). Products against a float64 reference,
// chaining, `out`, disposal, and the errors.
import { info, Matrix } from '../../lib';
import { describeGpu, gpuSuiteName, randomMatrix, relativeError, sameBytes, thrownBy } from '../support/helpers';

const BACKENDS = ['cpu', ...(info().backend === 'cuda' ? ['cuda' as const] : [])] as const;

describe.each(BACKENDS)('Matrix on backend %s', (backend) => {
  test('from → toArray gives back the same elements, any shape', async () => {
    for (const [rows, cols] of [[1, 1], [97, 131], [3, 1021], [0, 5], [5, 0]]) {
      const data = randomMatrix(rows * cols);
      const m = await Matrix.from(data, rows, cols, { backend });
      expect([m.rows, m.cols, m.backend]).toEqual([rows, cols, backend]);
      expect(sameBytes(await m.toArray(), data)).toBe(true);
      m.dispose();
    }
  });

  test.each([
    [97, 131, 61],
    [1, 300, 211],
    [211, 300, 1],
    [64, 64, 64],
    [1000, 17, 999],
    [6, 0, 4],
  ])('X(%i×%i) · W(…×%i) matches float64, and stays on the backend', async (m, k, n) => {
    const x = randomMatrix(m * k);
    const w = randomMatrix(k * n);
    const X = await Matrix.from(x, m, k, { backend });
    const W = await Matrix.from(w, k, n, { backend });
    const Y = await X.matmul(W);
    expect([Y.rows, Y.cols, Y.backend]).toEqual([m, n, backend]);
    expect(relativeError(await Y.toArray(), x, w, m, k, n)).toBeLessThanOrEqual(1e-5);
    [X, W, Y].forEach((matrix) => matrix.dispose());
  });

  test('chained products and `out` reuse', async () => {
    const [m, k, n] = [40, 50, 60];
    const x = randomMatrix(m * k);
    const w = randomMatrix(k * n);
    const X = await Matrix.from(x, m, k, { backend });
    const W = await Matrix.from(w, k, n, { backend });
    const out = await Matrix.from(new Float32Array(m * n).fill(NaN), m, n, { backend });
    expect(await X.matmul(W, { out })).toBe(out);
    expect(relativeError(await out.toArray(), x, w, m, k, n)).toBeLessThanOrEqual(1e-5);
    const I = await Matrix.from(Float32Array.from({ length: n * n }, (_, i) => (i % (n + 1) === 0 ? 1 : 0)), n, n, { backend });
    const twice = await (await X.matmul(W)).matmul(I); // (X·W)·I = X·W
    expect(relativeError(await twice.toArray(), x, w, m, k, n)).toBeLessThanOrEqual(1e-5);
  });

  test('shape errors are RangeErrors naming the argument', async () => {
    const A = await Matrix.from(randomMatrix(6), 2, 3, { backend });
    const B = await Matrix.from(randomMatrix(8), 4, 2, { backend });
    await expect(A.matmul(B)).rejects.toThrow(/^matrix: a 2×3 matrix cannot multiply a 4×2 one/);
    const C = await Matrix.from(randomMatrix(6), 3, 2, { backend });
    const wrongOut = await Matrix.from(randomMatrix(6), 3, 2, { backend });
    await expect(A.matmul(C, { out: wrongOut })).rejects.toThrow(/^out: expected a 2×2 Matrix, got 3×2/);
    const square = await Matrix.from(randomMatrix(4), 2, 2, { backend });
    await expect(square.matmul(square, { out: square })).rejects.toThrow(/^out: must not be one of the operands/);
    await expect(A.toArray(new Float32Array(5))).rejects.toThrow(/^out: length 5 does not match rows·cols = 6/);
  });

  test('a disposed Matrix is a clear TypeError everywhere; dispose twice and `using` are fine', async () => {
    const A = await Matrix.from(randomMatrix(4), 2, 2, { backend });
    const B = await Matrix.from(randomMatrix(4), 2, 2, { backend });
    A.dispose();
    A.dispose();
    expect(A.disposed).toBe(true);
    expect(() => A.rows).toThrow(/^matrix: this Matrix was disposed/);
    await expect(A.matmul(B)).rejects.toThrow(/^matrix: this Matrix was disposed/);
    await expect(B.matmul(A)).rejects.toThrow(/^other: this Matrix was disposed/);
    await expect(A.toArray()).rejects.toThrow(TypeError);
    B[Symbol.dispose]();
    expect(B.disposed).toBe(true);
  });

  test('dispose while a product is in flight: the product still completes correctly', async () => {
    const [m, k, n] = [300, 200, 100];
    const x = randomMatrix(m * k);
    const w = randomMatrix(k * n);
    const X = await Matrix.from(x, m, k, { backend });
    const W = await Matrix.from(w, k, n, { backend });
    const pending = X.matmul(W);
    X.dispose();
    W.dispose();
    expect(relativeError(await (await pending).toArray(), x, w, m, k, n)).toBeLessThanOrEqual(1e-5);
  });
});

test('Matrix.from and matmul refuse bad arguments', async () => {
  await expect(Matrix.from(new Float64Array(4) as unknown as Float32Array, 2, 2)).rejects.toThrow(/^data: expected a Float32Array/);
  await expect(Matrix.from(new Float32Array(4), 2, 3)).rejects.toThrow(/^data: length 4 does not match rows·cols = 6/);
  await expect(Matrix.from(new Float32Array(4), -2, -2)).rejects.toThrow(RangeError);
  await expect(Matrix.from(new Float32Array(4), 2, 2, { backend: 'gpu' as 'cuda' })).rejects.toThrow(/^backend: /);
  await expect(Matrix.from(new Float32Array(4), 2, 2, { colour: 1 } as object)).rejects.toThrow(/^options: unknown option 'colour'/);
  const A = await Matrix.from(new Float32Array(4), 2, 2, { backend: 'cpu' });
  await expect(A.matmul(new Float32Array(4) as unknown as Matrix)).rejects.toThrow(/^other: expected a Matrix/);
  await expect(A.matmul(A, { kernel: 'muld' })).rejects.toThrow(/^kernel: 'muld' is a CUDA kernel/);
});

describeGpu(gpuSuiteName('Matrix on CUDA'), () => {
  test('device memory is reported while a Matrix lives and given back by dispose', async () => {
    // Other tests' matrices may be garbage collected meanwhile, so only bounds can be checked.
    const bytes = 4 * 1024 * 1024;
    const M = await Matrix.from(randomMatrix(1024 * 1024), 1024, 1024, { backend: 'cuda' });
    const during = info().memory.deviceBytesInUse;
    expect(during).toBeGreaterThanOrEqual(bytes);
    M.dispose();
    expect(info().memory.deviceBytesInUse).toBeLessThanOrEqual(during - bytes);
  });

  test('precision tf32 and every kernel by name', async () => {
    const [m, k, n] = [255, 257, 129];
    const x = randomMatrix(m * k);
    const w = randomMatrix(k * n);
    const X = await Matrix.from(x, m, k);
    const W = await Matrix.from(w, k, n);
    for (const kernel of ['muld', 'blocktile', 'mma'] as const)
      expect(relativeError(await (await X.matmul(W, { kernel })).toArray(), x, w, m, k, n)).toBeLessThanOrEqual(1e-5);
    expect(relativeError(await (await X.matmul(W, { precision: 'tf32' })).toArray(), x, w, m, k, n)).toBeLessThanOrEqual(1e-3);
  });

  test('empty tf32 products planned like large ones give empty or zero results (n = 0 from 256 rows was SIGFPE)', async () => {
    for (const [m, k, n] of [[512, 5000, 0], [0, 5000, 512], [512, 0, 300]]) {
      const X = await Matrix.from(randomMatrix(m * k), m, k);
      const W = await Matrix.from(randomMatrix(k * n), k, n);
      const Y = await X.matmul(W, { precision: 'tf32' });
      expect([Y.rows, Y.cols]).toEqual([m, n]);
      const y = await Y.toArray();
      expect(Array.from(y).every((x) => x === 0)).toBe(true);
      expect(y.length).toBe(m * n);
    }
  });

  test('operands on different backends are a RangeError', async () => {
    const onGpu = await Matrix.from(randomMatrix(4), 2, 2, { backend: 'cuda' });
    const onCpu = await Matrix.from(randomMatrix(4), 2, 2, { backend: 'cpu' });
    await expect(onGpu.matmul(onCpu)).rejects.toThrow(/^matrix: both operands and out must live on the same backend/);
  });
});

test('the native binding alone refuses bad matrix arguments', async () => {
  const { native } = await import('../../lib/native');
  expect(thrownBy(() => native.matrixFrom(new Float32Array(4), 3, 3, {})).name).toBe('RangeError');
  expect(thrownBy(() => native.matrixFrom(null as unknown as Float32Array, 1, 1, {})).name).toBe('TypeError');
  const fake = {} as Parameters<typeof native.matrixMultiply>[0];
  expect(thrownBy(() => native.matrixMultiply(fake, fake, undefined, undefined, undefined)).name).toBe('TypeError');
  expect(thrownBy(() => native.matrixToArray(fake, new Float32Array(1))).name).toBe('TypeError');
  // An object that only looks like a NativeMatrix (its prototype) is not one; bad choices and out are refused too.
  const X = await Matrix.from(randomMatrix(4), 2, 2, { backend: 'cpu' });
  const lookalike = Object.create(Object.getPrototypeOf(X.handle())) as typeof fake;
  expect(thrownBy(() => native.matrixMultiply(lookalike, X.handle(), undefined, undefined, undefined)).message).toMatch(/^a: expected a Matrix/);
  expect(thrownBy(() => native.matrixMultiply(X.handle(), X.handle(), lookalike, undefined, undefined)).message).toMatch(/^out: expected a Matrix/);
  expect(thrownBy(() => native.matrixMultiply(X.handle(), X.handle(), undefined, 42 as unknown as string, undefined)).name).toBe('TypeError');
  expect(thrownBy(() => native.matrixMultiply(X.handle(), X.handle(), undefined, undefined, 'fp16')).name).toBe('RangeError');
  X.dispose();
});
