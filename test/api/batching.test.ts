// Dynamic batching (lib/batching.ts → native/binding/gathered.cpp → a backend's startGathered): small products
// made while others run are gathered and run as one batch. The native entry is checked on whichever backend
// 'auto' picks here (the CPU in CI, CUDA on a GPU host); the gathering through matmul() needs a GPU.
import fc from 'fast-check';
import { matmul } from '../../lib';
import { native } from '../../lib/native';
import { describeGpu, gpuSuiteName, poisoned, randomMatrix, referenceProduct, relativeError, thrownBy } from '../support/helpers';

// Non-multiples of the 16×16 tile, 1, primes, 1×N, N×1, k = 1, k = 0, tall, and the largest gathered (128³).
const SHAPES: [number, number, number][] = [
  [1, 1, 1],
  [1, 700, 1],
  [2, 3, 5],
  [17, 33, 9],
  [1, 64, 300],
  [300, 64, 1],
  [97, 131, 61],
  [128, 1, 128],
  [5, 0, 7],
  [1000, 16, 8],
  [128, 128, 128],
];

interface Product {
  a: Float32Array;
  b: Float32Array;
  m: number;
  k: number;
  n: number;
  out: Float32Array;
}

const product = ([m, k, n]: [number, number, number]): Product => ({
  a: randomMatrix(m * k),
  b: randomMatrix(k * n),
  m,
  k,
  n,
  out: poisoned(m * n),
});

// Each result within fp32's bound of its float64 product, or tf32's where `tf32(i)`.
function expectEachCorrect(products: Product[], results = products.map((p) => p.out), tf32 = (_: number) => false): void {
  products.forEach(({ a, b, m, k, n }, i) => {
    expect(results[i].length).toBe(m * n);
    expect(relativeError(results[i], a, b, m, k, n)).toBeLessThanOrEqual(tf32(i) ? 1e-3 : 1e-5);
  });
}

// NaN, +Infinity, −Infinity or finite: what a float64 product rounded to float32 gives decides each element.
const classOf = (x: number): string => (Number.isNaN(x) ? 'NaN' : x === Infinity ? '+Inf' : x === -Infinity ? '-Inf' : 'finite');

describe('the native gather entry (on the backend that auto picks here)', () => {
  test('gathered products of mixed shapes come out as float64 products, each into its own out', async () => {
    const products = SHAPES.map(product);
    for (const { a, b, m, k, n, out } of products) native.gather(a, b, m, k, n, out);
    await expect(native.runGathered(products.length)).resolves.toBeUndefined();
    expectEachCorrect(products);
  });

  test('±Infinity and NaN in a gathered product give the classes float64 gives', async () => {
    const p = product([9, 20, 11]);
    p.a[2 * 20 + 3] = Infinity;
    p.a[5 * 20 + 7] = NaN;
    p.b[4 * 11 + 6] = -Infinity;
    native.gather(p.a, p.b, p.m, p.k, p.n, p.out);
    await native.runGathered(1);
    const want = referenceProduct(p.a, p.b, p.m, p.k, p.n);
    expect(Array.from(p.out, classOf)).toEqual(Array.from(want, (x) => classOf(Math.fround(x))));
  });

  test('a bad gather throws for that product alone; the products gathered beside it still run', async () => {
    const good = product([7, 5, 3]);
    native.gather(good.a, good.b, 7, 5, 3, good.out);
    const a = randomMatrix(6);
    const b = randomMatrix(6);
    expect(thrownBy(() => native.gather(new Float64Array(6) as never, b, 2, 3, 2, new Float32Array(4))).message).toMatch(
      /^a: expected a Float32Array, got a Float64Array/,
    );
    expect(thrownBy(() => native.gather(a, b, 2.5, 3, 2, new Float32Array(4))).message).toMatch(/^m: expected a non-negative integer/);
    expect(thrownBy(() => native.gather(a, b, 2, 3, 2, new Float32Array(5))).message).toMatch(/^out: length 5 does not match m·n = 4/);
    expect(thrownBy(() => native.gather(a, b, 2, 3, 2, a.subarray(0, 4))).message).toMatch(/^out: must not share memory with a or b/);
    const big = randomMatrix(300 * 300);
    expect(thrownBy(() => native.gather(big, big, 300, 300, 300, new Float32Array(300 * 300))).message).toMatch(
      /^shape: a gathered product holds at most 65536 elements of A, B and C together, with k at most 1024/,
    );
    expect(thrownBy(() => native.gather(randomMatrix(1025), randomMatrix(1025), 1, 1025, 1, new Float32Array(1))).message).toMatch(
      /with k at most 1024/,
    );
    await native.runGathered(1);
    expectEachCorrect([good]);
  });

  test('a batch is the first `count` products gathered, in order; asking for more than were gathered is a RangeError', async () => {
    const products = [product([3, 4, 5]), product([6, 7, 8]), product([9, 10, 11])];
    for (const { a, b, m, k, n, out } of products) native.gather(a, b, m, k, n, out);
    expect(thrownBy(() => native.runGathered(4)).message).toMatch(/^count: 4 products asked for, 3 gathered/);
    await native.runGathered(2);
    expectEachCorrect(products.slice(0, 2));
    expect(products[2].out.every(Number.isNaN)).toBe(true);
    await native.runGathered(1);
    expectEachCorrect(products);
    await expect(native.runGathered(0)).resolves.toBeUndefined();
  });
});

describeGpu(gpuSuiteName('dynamic batching of small products through matmul'), () => {
  afterEach(() => jest.restoreAllMocks());

  test('small products made while others run are gathered into batches, and each result is its own', async () => {
    const batches = jest.spyOn(native, 'runGathered');
    const products = Array.from({ length: 600 }, (_, i) => product(SHAPES[i % SHAPES.length]));
    const results = await Promise.all(
      products.map(({ a, b, m, k, n, out }, i) => matmul(a, b, { m, k, n }, i % 2 ? { out } : { precision: 'tf32' })),
    );
    expectEachCorrect(products, results, (i) => i % 2 === 0);
    products.forEach(({ out }, i) => i % 2 && expect(results[i]).toBe(out));
    expect(batches).toHaveBeenCalled();
  });

  test('a lone call is not gathered: it runs at once, alone', async () => {
    const batches = jest.spyOn(native, 'runGathered');
    const p = product([64, 64, 64]);
    expectEachCorrect([p], [await matmul(p.a, p.b, { m: 64, k: 64, n: 64 })]);
    expect(batches).not.toHaveBeenCalled();
  });

  test('a bad call among gathered ones rejects alone; an out transferred while its batch runs rejects alone', async () => {
    const products = Array.from({ length: 40 }, () => product([33, 17, 29]));
    const calls = products.map(({ a, b, m, k, n, out }) => matmul(a, b, { m, k, n }, { out }));
    const bad = matmul(products[0].a, products[0].b, { m: 33, k: 17, n: 28 });
    const moved = products[20].out;
    structuredClone(moved.buffer, { transfer: [moved.buffer as ArrayBuffer] });
    await expect(bad).rejects.toThrow(/^b: length 493 does not match k·n = 476/);
    const settled = await Promise.allSettled(calls);
    expect(settled[20]).toMatchObject({ status: 'rejected', reason: { name: 'TypeError' } });
    expect((settled[20] as PromiseRejectedResult).reason.message).toMatch(/^out: its ArrayBuffer was detached while the product ran/);
    const rest = products.filter((_, i) => i !== 20);
    expect(settled.filter((_, i) => i !== 20).every((s) => s.status === 'fulfilled')).toBe(true);
    expectEachCorrect(rest);
  });

  test('property: any mix of small shapes issued at once comes out right, call by call', async () => {
    const shape = fc.tuple(fc.integer({ min: 1, max: 70 }), fc.integer({ min: 0, max: 70 }), fc.integer({ min: 1, max: 70 }));
    await fc.assert(
      fc.asyncProperty(fc.array(shape, { minLength: 1, maxLength: 60 }), async (shapes) => {
        const products = shapes.map(product);
        const results = await Promise.all(products.map(({ a, b, m, k, n }) => matmul(a, b, { m, k, n })));
        products.forEach(({ a, b, m, k, n }, i) => {
          if (!(relativeError(results[i], a, b, m, k, n) <= 1e-5)) throw new Error(`${m}×${k}×${n}: wrong`);
        });
      }),
      { numRuns: 25 },
    );
  });
});

// The gathering rules alone, against a stand-in for the addon (no GPU needed): when a call goes alone, when it
// is gathered, and that no call is ever left waiting.
describe('the gathering rules (lib/batching.ts, with the addon stood in for)', () => {
  type Call = Parameters<typeof import('../../lib/batching').multiplySmall>[0];
  const small = (out = new Float32Array(4)): Call => ({
    a: new Float32Array(4),
    b: new Float32Array(4),
    shape: { m: 2, k: 2, n: 2 },
    options: { out },
  });

  function load(matmul: (out: Float32Array) => Promise<Float32Array>) {
    const stand = {
      cudaInfo: () => ({ usable: true }),
      matmul: jest.fn((_a: unknown, _b: unknown, _s: unknown, options: { out: Float32Array }) => matmul(options.out)),
      gather: jest.fn(),
      runGathered: jest.fn(async () => undefined),
    };
    let multiplySmall!: typeof import('../../lib/batching').multiplySmall;
    jest.isolateModules(() => {
      jest.doMock('../../lib/native', () => ({ native: stand }));
      ({ multiplySmall } = require('../../lib/batching'));
    });
    return { stand, multiplySmall };
  }

  test('a call made while another runs is gathered, and runs once that one ends', async () => {
    let finish!: () => void;
    const { stand, multiplySmall } = load((out) => new Promise((resolve) => (finish = () => resolve(out))));
    const first = multiplySmall(small());
    const second = multiplySmall(small());
    expect(stand.matmul).toHaveBeenCalledTimes(1);
    expect(stand.gather).toHaveBeenCalledTimes(1);
    expect(stand.runGathered).not.toHaveBeenCalled();
    finish();
    await Promise.all([first, second]);
    expect(stand.runGathered).toHaveBeenCalledWith(1);
  });

  test('every batch that fills starts at once, however many are running (a long synchronous loop of calls)', () => {
    const { stand, multiplySmall } = load(() => new Promise(() => {})); // the lone first call never ends
    stand.runGathered.mockImplementation(() => new Promise(() => {})); // nor does any batch
    const big = (): Call => ({
      a: new Float32Array(128 * 128),
      b: new Float32Array(128 * 128),
      shape: { m: 128, k: 128, n: 128 },
      options: { out: new Float32Array(128 * 128) },
    });
    multiplySmall(big());
    // 49 152 floats each: 40 fill a batch of 1 920 Ki floats, so 6 batches fill and a 7th is open.
    for (let i = 0; i < 6 * 40 + 1; i++) multiplySmall(big());
    expect(stand.runGathered).toHaveBeenCalledTimes(6);
    for (const [count] of stand.runGathered.mock.calls as unknown as [number][]) expect(count).toBe(40);
  });

  test('a lone call that throws when started leaves nothing running: the next call runs alone too', async () => {
    const { stand, multiplySmall } = load(() => {
      throw new TypeError('out: its ArrayBuffer is resizable');
    });
    expect(() => multiplySmall(small())).toThrow(/resizable/);
    stand.matmul.mockImplementation((_a, _b, _s, options) => Promise.resolve(options.out));
    const out = new Float32Array(4);
    const next = multiplySmall(small(out));
    expect(stand.gather).not.toHaveBeenCalled(); // gathered, it would wait for an end that never comes
    await expect(next).resolves.toBe(out);
  });
});
