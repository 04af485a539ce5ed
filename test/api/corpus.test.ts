// Corpus: a corpus sharded over the host's GPUs, searched on every shard at once and merged (lib/corpus.ts).
// Judged against the float64 reference (search-judge.ts) and against one Matrix holding every row. The suites
// that need one GPU, or two, skip visibly without them.
import { Corpus, info, Matrix } from '../../lib';
import { hasGpu, randomMatrix } from '../support/helpers';
import { judgeAll, METRICS } from '../support/search-judge';

const devices = info().devices;
const describeGpu = hasGpu ? describe : describe.skip;
const describeMultiGpu = devices.length >= 2 ? describe : describe.skip;

(hasGpu ? describe.skip : describe)('Corpus without a GPU', () => {
  test('Corpus.from rejects, saying there is no usable CUDA device', async () => {
    await expect(Corpus.from(new Float32Array(8), 2, 4)).rejects.toThrow('Corpus: no usable CUDA device here');
  });
});

describeGpu(hasGpu ? 'Corpus on one GPU' : 'Corpus on one GPU — SKIPPED, no usable GPU here', () => {
  test('devices are checked: a TypeError or RangeError naming them', async () => {
    const data = new Float32Array(8);
    await expect(Corpus.from(data, 2, 4, { devices: 'some' as 'all' })).rejects.toThrow("devices: expected 'all' or a non-empty array of device indices, got a string");
    await expect(Corpus.from(data, 2, 4, { devices: [] })).rejects.toThrow("devices: expected 'all' or a non-empty array of device indices");
    await expect(Corpus.from(data, 2, 4, { devices: [devices.length] })).rejects.toThrow(`devices: ${devices.length} does not exist`);
    await expect(Corpus.from(data, 2, 4, { devices: [0, 0] })).rejects.toThrow('devices: 0, 0 names a device twice');
    await expect(Corpus.from(data, 3, 4)).rejects.toThrow('data: length 8 does not match rows·cols = 12');
    await expect(Corpus.from([data, new Float32Array(3)], 3, 4)).rejects.toThrow('data[1]: length 3 is not a whole number of rows of 4 values');
    await expect(Corpus.from([], 0, 4)).rejects.toThrow('data: expected a Float32Array or a non-empty array of them');
    await expect(Corpus.from(data, 2, 0)).rejects.toThrow('cols: a corpus needs rows of at least 1 value, got 0');
  });

  test('one shard gives what a Matrix gives, bit for bit; k past the rows is the RangeError', async () => {
    const [rows, d, m, k] = [30_000, 24, 5, 16];
    const data = randomMatrix(rows * d), queries = randomMatrix(m * d);
    const corpus = await Corpus.from(data, rows, d, { devices: [0] });
    const matrix = await Matrix.from(data, rows, d);
    expect(corpus.parts).toEqual([{ device: 0, firstRow: 0, rows }]);
    for (const metric of METRICS) {
      const [got, want] = [await corpus.search(queries, { k, metric }), await matrix.search(queries, { k, metric })];
      expect(got.indices).toEqual(want.indices);
      expect(got.scores).toEqual(want.scores);
    }
    // The same rows given in three pieces: three parts on the device, merged into the same bits.
    const cuts = [0, 9000, 21000, rows];
    const pieces = await Corpus.from(cuts.slice(1).map((to, i) => data.subarray(cuts[i] * d, to * d)), rows, d, { devices: [0] });
    expect(pieces.parts).toEqual(cuts.slice(1).map((to, i) => ({ device: 0, firstRow: cuts[i], rows: to - cuts[i] })));
    for (const metric of METRICS) {
      const [got, want] = [await pieces.search(queries, { k, metric }), await matrix.search(queries, { k, metric })];
      expect(got.indices).toEqual(want.indices);
      expect(got.scores).toEqual(want.scores);
    }
    pieces.dispose();
    const small = await Corpus.from(randomMatrix(5 * d), 5, d);
    await expect(small.search(randomMatrix(d), { k: 6 })).rejects.toThrow("k: expected 1 to 5 (the corpus's rows), got 6");
    [corpus, matrix, small].forEach((x) => x.dispose());
  });
});

describeMultiGpu(devices.length >= 2 ? `Corpus over ${devices.length} GPUs` : `Corpus over several GPUs — SKIPPED, ${devices.length} usable GPU(s) here`, () => {
  test('rows cut into a contiguous shard per device; the merged k best match the reference, ties by the lower row', async () => {
    const [rows, d, m] = [50_001, 32, 7];
    const data = randomMatrix(rows * d), queries = randomMatrix(m * d);
    // Rows equal to row 0 in every shard: their scores tie, and they must come in the order of their rows.
    for (let r = 1; r < rows; r += Math.floor(rows / 9)) data.copyWithin(r * d, 0, d);
    const corpus = await Corpus.from(data, rows, d, { devices: 'all' });
    expect(corpus.parts.map((s) => s.device)).toEqual(devices.map((x) => x.index));
    expect(corpus.parts.reduce((sum, s) => sum + s.rows, 0)).toBe(rows);
    for (const k of [1, 10, 1024])
      for (const metric of METRICS) expect(judgeAll(await corpus.search(queries, { k, metric }), queries, m, k, data, rows, d, metric)).toEqual([]);
    const tied = await corpus.search(data.slice(0, d), { k: 10, metric: 'l2' });
    const copies = Array.from({ length: rows }, (_, r) => r).filter((r) => r === 0 || (r - 1) % Math.floor(rows / 9) === 0);
    expect(Array.from(tied.indices)).toEqual(copies.slice(0, 10));
    corpus.dispose();
  });
});
