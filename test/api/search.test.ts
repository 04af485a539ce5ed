// Matrix#search: the k best rows of a corpus for each query, against a float64 brute-force reference. Indices may
// differ from the reference's only where scores tie within the precision's tolerance; the judge (judgeSearch) says
// how: each returned score is its row's own within tolerance, the list is in the documented order, and no row left
// out beats the last one returned by more than the tolerance of the two. On the CPU backend, and on the GPU in
// fp32 and tf32 (skipped visibly without one).
import fc from 'fast-check';
import { Backend, gemm, Matrix, Metric, Precision, SearchResult } from '../../lib';
import { hasGpu, randomMatrix } from '../support/helpers';
import { judgeAll, METRICS, TOLERANCE } from '../support/search-judge';

// tf32 rounds each value to 11 bits before the product: a relative error up to 2^-11 per term.
const RUNS: { backend: Backend; precision: Precision; tolerance: number }[] = [
  { backend: 'cpu', precision: 'fp32', tolerance: TOLERANCE },
  { backend: 'cuda', precision: 'fp32', tolerance: TOLERANCE },
  { backend: 'cuda', precision: 'tf32', tolerance: 2 ** -10 },
];

describe.each(RUNS)('search on the $backend backend in $precision', ({ backend, precision, tolerance }) => {
  if (backend === 'cuda' && !hasGpu) return void test.skip('SKIPPED: no usable GPU here', () => undefined);

  // [rows, d, queries, k]: k = 1 and k = rows, d = 1, one query, rows past a block of the CPU's (2048).
  const CASES: [number, number, number, number][] = [
    [1, 1, 1, 1],
    [7, 3, 2, 7],
    [100, 1, 5, 10],
    [500, 33, 1, 1],
    [300, 64, 17, 300],
    [5000, 24, 3, 50],
    [4097, 7, 40, 1024],
  ];
  describe.each(METRICS)('metric %s', (metric) => {
    test.each(CASES)('%i rows of %i values, %i queries, k = %i: the reference\'s best rows in order', async (rows, d, m, k) => {
      const corpus = randomMatrix(rows * d), queries = randomMatrix(m * d);
      const C = await Matrix.from(corpus, rows, d, { backend });
      const result = await C.search(queries, { k, metric, precision });
      expect(judgeAll(result, queries, m, k, corpus, rows, d, metric, tolerance)).toEqual([]);
      C.dispose();
    });
  });

  test('queries given as a Matrix give the same bits as the same queries as an array', async () => {
    const [rows, d, m, k] = [3000, 48, 6, 20];
    const corpus = randomMatrix(rows * d), queries = randomMatrix(m * d);
    const C = await Matrix.from(corpus, rows, d, { backend });
    const Q = await Matrix.from(queries, m, d, { backend });
    for (const metric of METRICS) {
      const [fromArray, fromMatrix] = [await C.search(queries, { k, metric, precision }), await C.search(Q, { k, metric, precision })];
      expect(fromMatrix.indices).toEqual(fromArray.indices);
      expect(Buffer.from(fromMatrix.scores.buffer).equals(Buffer.from(fromArray.scores.buffer))).toBe(true);
    }
    [C, Q].forEach((x) => x.dispose());
  });

  test('equal rows tie: they come in the order of their rows, whichever block they are in', async () => {
    const [rows, d] = [6000, 16];
    const row = randomMatrix(d);
    const corpus = new Float32Array(rows * d);
    for (let r = 0; r < rows; r++) corpus.set(row, r * d);
    const query = randomMatrix(d);
    const C = await Matrix.from(corpus, rows, d, { backend });
    for (const metric of METRICS) {
      const { indices, scores } = await C.search(query, { k: 100, metric, precision });
      expect(Array.from(indices)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      expect(new Set(scores).size).toBe(1);
    }
    C.dispose();
  });

  test('a NaN query scores NaN against every row: rows 0 … k − 1, in order', async () => {
    const [rows, d, k] = [50, 4, 5];
    const C = await Matrix.from(randomMatrix(rows * d), rows, d, { backend });
    const query = Float32Array.from([0.5, NaN, 0.25, 1]);
    for (const metric of METRICS) {
      const { indices, scores } = await C.search(query, { k, metric, precision });
      expect(Array.from(indices)).toEqual([0, 1, 2, 3, 4]);
      expect(Array.from(scores).every(Number.isNaN)).toBe(true);
    }
    C.dispose();
  });

  test('rows with NaN come after every row with a number; ±Infinity ranks as IEEE arithmetic scores it', async () => {
    const d = 2;
    // Row 1 holds NaN; row 3 scores +Infinity against the query (1, 1) by dot, row 4 −Infinity.
    const corpus = Float32Array.from([0.5, 0.5, NaN, 1, 0.25, 0, Infinity, 0, -Infinity, 0, 0.75, 0.75]);
    const C = await Matrix.from(corpus, 6, d, { backend });
    const { indices, scores } = await C.search(Float32Array.from([1, 1]), { k: 6, metric: 'dot', precision });
    expect(Array.from(indices)).toEqual([3, 5, 0, 2, 4, 1]);
    expect(Array.from(scores)).toEqual([Infinity, 1.5, 1, 0.25, -Infinity, NaN]);
    const l2 = await C.search(Float32Array.from([1, 1]), { k: 6, metric: 'l2', precision });
    // ‖q − c‖² is ∞ for both infinite rows (not the ∞ − ∞ of ‖q‖² + ‖c‖² − 2q·c), NaN for the NaN row.
    expect(Array.from(l2.indices)).toEqual([5, 0, 2, 3, 4, 1]);
    expect(Array.from(l2.scores)).toEqual([0.125, 0.5, 1.5625, Infinity, Infinity, NaN]);
    C.dispose();
  });

  test('cosine: a row or a query of zeros scores 0 against everything', async () => {
    const corpus = Float32Array.from([0, 0, 0, 1, 0, 0, -1, 0, 0]);
    const C = await Matrix.from(corpus, 3, 3, { backend });
    const rows = await C.search(Float32Array.from([-2, 0, 0]), { k: 3, metric: 'cosine', precision });
    expect(Array.from(rows.indices)).toEqual([2, 0, 1]);
    expect(Array.from(rows.scores)).toEqual([1, 0, -1]);
    const zeros = await C.search(new Float32Array(3), { k: 3, metric: 'cosine', precision });
    expect(Array.from(zeros.indices)).toEqual([0, 1, 2]);
    expect(Array.from(zeros.scores)).toEqual([0, 0, 0]);
    C.dispose();
  });

  test('l2: a row equal to the query comes first, at 0 within rounding, never below', async () => {
    const [rows, d] = [200, 96];
    const corpus = randomMatrix(rows * d);
    const C = await Matrix.from(corpus, rows, d, { backend });
    // ‖q‖² + ‖c‖² − 2q·c rounds to either side of 0 for equal vectors; below is no distance.
    for (const row of [0, 77, 150, 199]) {
      const { indices, scores } = await C.search(corpus.slice(row * d, (row + 1) * d), { k: 1, metric: 'l2', precision });
      expect(indices[0]).toBe(row);
      expect(scores[0]).toBeGreaterThanOrEqual(0);
      expect(scores[0]).toBeLessThan(tolerance * d);
    }
    C.dispose();
  });

  test('no queries: empty results', async () => {
    const C = await Matrix.from(randomMatrix(20), 5, 4, { backend });
    const { indices, scores } = await C.search(new Float32Array(0), { k: 3, precision });
    expect([indices.length, scores.length]).toEqual([0, 0]);
    C.dispose();
  });

  // On the GPU: the selection's blocks take 8192 rows each and keep the k best of those again until k are left;
  // its scores exist for at most 4096 queries and 32 Mi scores at a time (native/cuda/resident.cu).
  test.each([
    [100_000, 16, 2, 1024],
    [20_000, 4, 4100, 5],
  ])('%i rows of %i values, %i queries, k = %i: past a selection block, a chunk of scores and a group of queries', async (rows, d, m, k) => {
    const corpus = randomMatrix(rows * d), queries = randomMatrix(m * d);
    const C = await Matrix.from(corpus, rows, d, { backend });
    // The reference costs 20 ms a query here: every 41st query, and those about the groups' boundary.
    const judged = (i: number) => i % 41 === 0 || Math.abs(i - 4096) < 8 || i === m - 1;
    for (const metric of METRICS) {
      const result = await C.search(queries, { k, metric, precision });
      expect(judgeAll(result, queries, m, k, corpus, rows, d, metric, tolerance, judged)).toEqual([]);
    }
    C.dispose();
  });

  test('fast-check: drawn corpora, queries, k and metrics, with repeated rows and values, match the reference', async () => {
    const value = fc.oneof({ weight: 8, arbitrary: fc.float({ min: -1, max: 1, noNaN: true }) }, { weight: 1, arbitrary: fc.constantFrom(0, 0.5, -0.5) });
    const drawn = fc
      .record({ rows: fc.integer({ min: 1, max: 60 }), d: fc.integer({ min: 1, max: 20 }), m: fc.integer({ min: 1, max: 4 }), metric: fc.constantFrom(...METRICS) })
      .chain((s) =>
        fc.record({
          s: fc.constant(s),
          k: fc.integer({ min: 1, max: s.rows }),
          distinct: fc.array(value, { minLength: s.d * 3, maxLength: s.d * 3 }),
          pick: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: s.rows, maxLength: s.rows }),
          queries: fc.array(value, { minLength: s.m * s.d, maxLength: s.m * s.d }),
        }),
      );
    await fc.assert(
      fc.asyncProperty(drawn, async ({ s, k, distinct, pick, queries }) => {
        // Rows drawn from three, so that ties are common.
        const corpus = new Float32Array(s.rows * s.d);
        pick.forEach((which, r) => corpus.set(distinct.slice(which * s.d, (which + 1) * s.d), r * s.d));
        const q = Float32Array.from(queries);
        const C = await Matrix.from(corpus, s.rows, s.d, { backend });
        const result = await C.search(q, { k, metric: s.metric, precision });
        C.dispose();
        expect(judgeAll(result, q, s.m, k, corpus, s.rows, s.d, s.metric, tolerance)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });
});

// lib/search-batching.ts: searches of a corpus made while one runs are gathered into one search.
describe.each(['cpu', 'cuda'] as Backend[])('searches made while one runs, gathered (%s)', (backend) => {
  if (backend === 'cuda' && !hasGpu) return void test.skip('SKIPPED: no usable GPU here', () => undefined);
  const same = (x: SearchResult, y: SearchResult) =>
    Buffer.from(x.indices.buffer, x.indices.byteOffset, x.indices.byteLength).equals(Buffer.from(y.indices.buffer, y.indices.byteOffset, y.indices.byteLength)) &&
    Buffer.from(x.scores.buffer, x.scores.byteOffset, x.scores.byteLength).equals(Buffer.from(y.scores.buffer, y.scores.byteOffset, y.scores.byteLength));

  test('60 searches at once, of 1 to 3 queries and two values of k: each gets the bits it gets alone', async () => {
    const [rows, d] = [20_000, 40];
    const C = await Matrix.from(randomMatrix(rows * d), rows, d, { backend });
    const calls = Array.from({ length: 60 }, (_, i) => ({ queries: randomMatrix((1 + (i % 3)) * d), k: i % 2 ? 5 : 12, metric: METRICS[i % 3] }));
    const together = await Promise.all(calls.map(({ queries, k, metric }) => C.search(queries, { k, metric })));
    for (const [i, { queries, k, metric }] of calls.entries()) {
      const alone = await C.search(queries, { k, metric });
      expect([together[i].indices.length, together[i].scores.length]).toEqual([queries.length / d * k, queries.length / d * k]);
      expect(same(together[i], alone)).toBe(true);
    }
    C.dispose();
  });

  // 12 rows: fewer than the queries, and few enough that the GPU's product splits K to fill the device.
  test.each([
    [50_000, 96, 20],
    [12, 700, 5],
  ])('one query of 16 in one call gets the bits it gets alone, in fp32 and tf32 (%i rows of %i values, k = %i)', async (rows, d, k) => {
    const m = 16;
    const C = await Matrix.from(randomMatrix(rows * d), rows, d, { backend });
    const queries = randomMatrix(m * d);
    for (const precision of ['fp32', 'tf32'] as Precision[])
      for (const metric of METRICS) {
        const all = await C.search(queries, { k, metric, precision });
        for (const i of [0, 1, 2, 3, 4, 7, 8, 15]) {
          const alone = await C.search(queries.slice(i * d, (i + 1) * d), { k, metric, precision });
          expect(same({ indices: all.indices.subarray(i * k, (i + 1) * k), scores: all.scores.subarray(i * k, (i + 1) * k) }, alone)).toBe(true);
        }
      }
    C.dispose();
  });

  test('a search waiting to be gathered reads the corpus as it was when made, whatever is written into it after', async () => {
    const [rows, d] = [30_000, 64];
    const before = randomMatrix(rows * d);
    const C = await Matrix.from(before, rows, d, { backend });
    const original = await Matrix.from(before, rows, d, { backend });
    const query = randomMatrix(d);
    const running = C.search(randomMatrix(200 * d), { k: 3 }); // in flight while the next is made
    const waiting = C.search(query, { k: 7 });
    // gemm writes C (c = 0·a·b + 0·c: zeros) as soon as the searches made before it are queued.
    const zero = await Matrix.from(new Float32Array(rows), rows, 1, { backend });
    const written = gemm({ a: zero, b: await Matrix.from(new Float32Array(d), 1, d, { backend }), c: C, m: rows, k: 1, n: d, alpha: 0, beta: 0 });
    const after = C.search(query, { k: 7 });
    await Promise.all([running, written]);
    expect(same(await waiting, await original.search(query, { k: 7 }))).toBe(true);
    expect(Array.from((await after).scores)).toEqual(new Array(7).fill(0));
    [C, original, zero].forEach((x) => x.dispose());
  });

  test('disposing the corpus with searches waiting: they are queued first, and give their results', async () => {
    const [rows, d] = [20_000, 32];
    const data = randomMatrix(rows * d);
    const C = await Matrix.from(data, rows, d, { backend });
    const copy = await Matrix.from(data, rows, d, { backend });
    const queries = Array.from({ length: 8 }, () => randomMatrix(d));
    const pending = queries.map((q) => C.search(q, { k: 4, metric: 'l2' }));
    C.dispose();
    const results = await Promise.all(pending);
    for (const [i, q] of queries.entries()) expect(same(results[i], await copy.search(q, { k: 4, metric: 'l2' }))).toBe(true);
    copy.dispose();
  });

  test('a waiting search whose k the corpus cannot give rejects alone, with the RangeError', async () => {
    const C = await Matrix.from(randomMatrix(5000 * 8), 5000, 8, { backend });
    const running = C.search(randomMatrix(100 * 8), { k: 2 });
    const [bad, good] = [C.search(randomMatrix(8), { k: 1025 }), C.search(randomMatrix(8), { k: 3 })];
    await expect(bad).rejects.toThrow('k: expected 1 to 1024 (the most a search returns), got 1025');
    expect((await good).indices).toHaveLength(3);
    await running;
    C.dispose();
  });
});

describe('search: arguments', () => {
  let C: Matrix;
  beforeAll(async () => {
    C = await Matrix.from(randomMatrix(40), 10, 4, { backend: 'cpu' });
  });
  afterAll(() => C.dispose());
  const q = new Float32Array(4);

  test('k outside 1 … the corpus\'s rows, or past 1024, is a RangeError naming k', async () => {
    await expect(C.search(q, { k: 11 })).rejects.toThrow("k: expected 1 to 10 (the corpus's rows), got 11");
    const large = await Matrix.from(new Float32Array(2000 * 4), 2000, 4, { backend: 'cpu' });
    await expect(large.search(q, { k: 1025 })).rejects.toThrow('k: expected 1 to 1024 (the most a search returns), got 1025');
    expect((await large.search(q, { k: 1024 })).indices).toHaveLength(1024);
    large.dispose();
    await expect(C.search(q, { k: 0 })).rejects.toThrow('k: expected at least 1 row for each query, got 0');
    await expect(C.search(q, { k: 1.5 })).rejects.toThrow('k: expected a non-negative integer, got 1.5');
    await expect(C.search(q, {} as { k: number })).rejects.toThrow('k: expected a non-negative integer, got undefined');
  });

  test('options are required, and checked', async () => {
    await expect(C.search(q, undefined as unknown as { k: number })).rejects.toThrow('options: expected an object { k, metric?, precision?, signal? }');
    await expect(C.search(q, { k: 1, metric: 'euclid' as Metric })).rejects.toThrow("metric: expected 'dot', 'cosine', 'l2', got 'euclid'");
    await expect(C.search(q, { k: 1, kernel: 'wgmma' } as { k: number })).rejects.toThrow("options: unknown option 'kernel'");
    await expect(C.search(q, { k: 1, precision: 'fp16' as 'fp32' })).rejects.toThrow("precision: expected 'fp32', 'tf32', got 'fp16'");
  });

  test('queries of another length than the corpus\'s rows are a RangeError; not an array or Matrix, a TypeError', async () => {
    await expect(C.search(new Float32Array(6), { k: 1 })).rejects.toThrow("queries: length 6 is not a whole number of rows of the corpus's 4 values");
    const Q = await Matrix.from(new Float32Array(6), 2, 3, { backend: 'cpu' });
    await expect(C.search(Q, { k: 1 })).rejects.toThrow("queries: rows of 3 values cannot be scored against a corpus of 4-value rows");
    Q.dispose();
    await expect(C.search([1, 2, 3, 4] as unknown as Float32Array, { k: 1 })).rejects.toThrow('queries: expected a Float32Array, got an Array');
  });

  test('an empty corpus is a RangeError; a disposed one a TypeError', async () => {
    const empty = await Matrix.from(new Float32Array(0), 0, 4, { backend: 'cpu' });
    await expect(empty.search(q, { k: 1 })).rejects.toThrow('corpus: a 0×4 Matrix has no rows to search');
    empty.dispose();
    const gone = await Matrix.from(new Float32Array(4), 1, 4, { backend: 'cpu' });
    gone.dispose();
    await expect(gone.search(q, { k: 1 })).rejects.toThrow('corpus: this Matrix was disposed');
  });

  test('an aborted signal rejects with its reason; a search aborted while it runs stops', async () => {
    await expect(C.search(q, { k: 1, signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    // Rows enough for 16 blocks of 256 (native/cpu/search.cpp) a thread on 64 cores: it stops at its next block.
    const [rows, d, m] = [300_000, 128, 512];
    const big = await Matrix.from(randomMatrix(rows * d), rows, d, { backend: 'cpu' });
    const Q = await Matrix.from(randomMatrix(m * d), m, d, { backend: 'cpu' });
    // Processor time, as in abort.test.ts: the clock is stretched by other processes, this work is not.
    const processorMs = () => (process.cpuUsage().user + process.cpuUsage().system) / 1000;
    const beforeWhole = processorMs();
    await big.search(Q, { k: 10 });
    const whole = processorMs() - beforeWhole;
    const controller = new AbortController();
    const search = big.search(Q, { k: 10, signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const atAbort = processorMs();
    controller.abort();
    await expect(search).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(processorMs() - atAbort).toBeLessThan(whole / 4);
    [big, Q].forEach((x) => x.dispose());
  });
});
