// Program order for Matrices: every operation on a Matrix observes every operation issued on it before,
// awaited or not (reads after writes, writes after reads, toArray after a product into it, dispose while
// operations are pending). Inputs are NaN-poisoned where a read that came too early would show.
import { gemm, info, Matrix } from '../../lib';
import { isHopper, randomMatrix, referenceProduct, relativeTo } from '../support/helpers';

const BACKENDS = ['cpu', ...(info().backend === 'cuda' ? ['cuda' as const] : [])] as const;
// Large enough that a product takes milliseconds, so an operation that does not wait overlaps it.
const N = 384;

describe.each(BACKENDS)('Matrix program order on backend %s', (backend) => {
  const from = (data: Float32Array, rows = N, cols = N) => Matrix.from(data, rows, cols, { backend });

  test('20 unawaited chains A·B → Z, then Z·B: each reads what the product before wrote', async () => {
    const a = randomMatrix(N * N), b = randomMatrix(N * N);
    const want = referenceProduct(Float32Array.from(referenceProduct(a, b, N, N, N)), b, N, N, N);
    const [A, B] = await Promise.all([from(a), from(b)]);
    const chains = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const Z = await from(new Float32Array(N * N).fill(NaN));
        const q = A.matmul(B, { out: Z });
        const r = Z.matmul(B);
        const y = r.then((R) => R.toArray());
        await q;
        return y;
      }),
    );
    for (const got of chains) expect(relativeTo(got, want)).toBeLessThanOrEqual(1e-5);
  });

  test('toArray issued right after an unawaited product into the Matrix returns the product', async () => {
    const a = randomMatrix(N * N), b = randomMatrix(N * N);
    const [A, B, Z] = await Promise.all([from(a), from(b), from(new Float32Array(N * N).fill(NaN))]);
    void A.matmul(B, { out: Z });
    expect(relativeTo(await Z.toArray(), referenceProduct(a, b, N, N, N))).toBeLessThanOrEqual(1e-5);
  });

  test('a write issued after a read waits for the read (write after read)', async () => {
    const a = randomMatrix(N * N), b = randomMatrix(N * N), z = randomMatrix(N * N);
    const [A, B, Z] = await Promise.all([from(a), from(b), from(z)]);
    const before = Z.matmul(B); // reads the old Z
    const overwrite = A.matmul(B, { out: Z });
    expect(relativeTo(await (await before).toArray(), referenceProduct(z, b, N, N, N))).toBeLessThanOrEqual(1e-5);
    await overwrite;
    expect(relativeTo(await Z.toArray(), referenceProduct(a, b, N, N, N))).toBeLessThanOrEqual(1e-5);
  });

  // Kernels that read Bᵀ (wgmma, which 'auto' picks for these products on an H100/H200) keep it with the Matrix
  // until the Matrix is written: a write must replace it, and a product in the other precision must make its own.
  test('a Matrix read as B, overwritten, then read as B again: the second product sees the new values', async () => {
    const x = randomMatrix(N * N), w = randomMatrix(N * N), a = randomMatrix(N * N), b = randomMatrix(N * N);
    const [X, W, A, B] = await Promise.all([from(x), from(w), from(a), from(b)]);
    const first = X.matmul(W);
    void A.matmul(B, { out: W }); // W = A·B, after the product above read it
    const second = X.matmul(W);
    expect(relativeTo(await (await first).toArray(), referenceProduct(x, w, N, N, N))).toBeLessThanOrEqual(1e-5);
    const newW = Float32Array.from(referenceProduct(a, b, N, N, N));
    expect(relativeTo(await (await second).toArray(), referenceProduct(x, newW, N, N, N))).toBeLessThanOrEqual(1e-5);
  });

  test('one Matrix read as B in tf32, then fp32, then tf32: each product has its precision', async () => {
    const kernel = backend === 'cuda' && isHopper ? ('wgmma' as const) : undefined;
    const x = randomMatrix(N * N), w = randomMatrix(N * N);
    const [X, W] = await Promise.all([from(x), from(w)]);
    const want = referenceProduct(x, w, N, N, N);
    const tf32 = X.matmul(W, { kernel, precision: 'tf32' });
    const fp32 = X.matmul(W, { kernel });
    const tf32Again = X.matmul(W, { kernel, precision: 'tf32' });
    expect(relativeTo(await (await fp32).toArray(), want)).toBeLessThanOrEqual(1e-5);
    for (const product of [tf32, tf32Again]) expect(relativeTo(await (await product).toArray(), want)).toBeLessThanOrEqual(1e-3);
  });

  test('gemm on Matrices is ordered with products: C += A·B twice, unawaited', async () => {
    const a = randomMatrix(N * N), b = randomMatrix(N * N);
    const [A, B, C] = await Promise.all([from(a), from(b), from(new Float32Array(N * N))]);
    void gemm({ a: A, b: B, c: C, m: N, k: N, n: N, beta: 1 });
    void gemm({ a: A, b: B, c: C, m: N, k: N, n: N, beta: 1 });
    const twice = referenceProduct(a, b, N, N, N).map((x) => 2 * x);
    expect(relativeTo(await C.toArray(), twice)).toBeLessThanOrEqual(1e-5);
  });

  test('dispose() while operations on the Matrix are pending: they complete, then its memory is freed', async () => {
    const a = randomMatrix(N * N), b = randomMatrix(N * N);
    const [A, B, Z] = await Promise.all([from(a), from(b), from(new Float32Array(N * N).fill(NaN))]);
    const q = A.matmul(B, { out: Z });
    const r = Z.matmul(B);
    const read = Z.toArray();
    Z.dispose();
    expect(Z.disposed).toBe(true);
    await expect(Z.toArray()).rejects.toThrow(/^matrix: this Matrix was disposed/);
    await q;
    const ab = referenceProduct(a, b, N, N, N);
    expect(relativeTo(await read, ab)).toBeLessThanOrEqual(1e-5);
    expect(relativeTo(await (await r).toArray(), referenceProduct(Float32Array.from(ab), b, N, N, N))).toBeLessThanOrEqual(1e-5);
  });

  test('a failed operation does not stall the ones after it', async () => {
    const [A, Z] = await Promise.all([from(randomMatrix(N * 3), N, 3), from(randomMatrix(N * N))]);
    const bad = A.matmul(Z, { out: Z }); // shapes do not chain
    const good = Z.toArray();
    await expect(bad).rejects.toThrow(/^matrix: a 384×3 matrix cannot multiply a 384×384 one/);
    expect((await good).length).toBe(N * N);
  });
});
