// A corpus sharded over several GPUs (docs/search.md, "Corpus over several GPUs"): its rows cut into one contiguous shard per device, held
// there as a Matrix per piece of the rows the caller gave (a Float32Array holds at most 2^32 values in Node 20, a
// corpus of 10 million rows of 768 is 7.7 × 10^9); a search runs on every part at once, each part's k best come
// back, and those are merged here in the order of core/search.h's CandidateOrder (the better score first, NaN
// last, equal scores by the lower row), so the result is the one a single Matrix holding every row gives, whatever
// the number of devices.
import { Matrix } from './matrix';
import { native } from './native';
import type { Metric, SearchOptions, SearchResult } from './types';
import { gathers } from './search-batching';
import { newSearchResults, readCorpusFrom, readSearch, readSearchQueries } from './validate';

/** The most rows a search returns, as the native plan has it (core/search.h, kSearchMaxK). */
const MOST_K = 1024;

/** Rows [firstRow, firstRow + matrix.rows) of the corpus. */
interface Part {
  matrix: Matrix;
  firstRow: number;
}

/** Corpus.from's options. */
export interface CorpusOptions {
  /** The CUDA devices to shard the rows over: 'all' (the default) or a list of indices. */
  devices?: 'all' | readonly number[];
  /** Aborts the upload: the Promise rejects with `signal.reason`. */
  signal?: AbortSignal;
}

/** Where some of a Corpus's rows are: one Matrix on one device. */
export interface CorpusPart {
  /** The CUDA device index. */
  device: number;
  /** The corpus's row this part starts at. */
  firstRow: number;
  /** How many rows it holds. */
  rows: number;
}

/**
 * A corpus of rows sharded over several GPUs of the host, searched on all of them at once (docs/search.md, "Corpus over several GPUs").
 * @example
 * const corpus = await Corpus.from(pieces, 10_000_000, 768, { devices: 'all' });
 * const { indices, scores } = await corpus.search(query, { k: 10, metric: 'cosine' });
 * corpus.dispose();
 */
export class Corpus {
  readonly #parts: Part[];
  readonly #rows: number;
  readonly #cols: number;

  private constructor(parts: Part[], rows: number, cols: number) {
    this.#parts = parts;
    this.#rows = rows;
    this.#cols = cols;
  }

  /**
   * Uploads `rows` rows of `cols` values (row-major), a contiguous share of the rows to each device. `data` is one
   * Float32Array, or several holding whole rows, in order.
   * @example
   * const corpus = await Corpus.from(embeddings, 1_000_000, 768, { devices: 'all' });
   * const { indices, scores } = await corpus.search(query, { k: 10 });
   */
  static async from(data: Float32Array | readonly Float32Array[], rows: number, cols: number, options?: CorpusOptions): Promise<Corpus> {
    const { pieces, devices, signal } = readCorpusFrom(data, rows, cols, options, native.cudaInfo().devices.length);
    const count = Math.max(1, Math.min(devices.length, rows));
    const uploads: Promise<Matrix>[] = [], firstRows: number[] = [];
    for (let i = 0; i < count; i++) {
      const [from, to] = [Math.floor((rows * i) / count), Math.floor((rows * (i + 1)) / count)];
      let pieceRow = 0;
      for (const piece of pieces) {
        const [lo, hi] = [Math.max(from, pieceRow), Math.min(to, pieceRow + piece.length / cols)];
        if (lo < hi || (rows === 0 && firstRows.length === 0)) {
          uploads.push(Matrix.from(piece.subarray((lo - pieceRow) * cols, (hi - pieceRow) * cols), hi - lo, cols, { backend: 'cuda', device: devices[i], signal }));
          firstRows.push(lo);
        }
        pieceRow += piece.length / cols;
      }
    }
    const settled = await Promise.allSettled(uploads);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      for (const s of settled) if (s.status === 'fulfilled') s.value.dispose();
      throw failed.reason;
    }
    const parts = settled.map((s, i) => ({ matrix: (s as PromiseFulfilledResult<Matrix>).value, firstRow: firstRows[i] }));
    return new Corpus(parts, rows, cols);
  }

  /** Rows in the whole corpus. */
  get rows(): number {
    return this.#rows;
  }
  /** Values a row. */
  get cols(): number {
    return this.#cols;
  }
  /** Where the rows are: each part's device, first row and rows, in the order of the rows (a device's shard is one
   * part per piece of `data` it holds rows of). */
  get parts(): CorpusPart[] {
    return this.#parts.map(({ matrix, firstRow }) => ({ device: matrix.device, firstRow, rows: matrix.rows }));
  }

  /**
   * For each query, the `k` rows of the whole corpus that score best against it, as Matrix#search gives them;
   * `queries` is a Float32Array of rows of `cols` values, copied to every device.
   * @example
   * const { indices, scores } = await corpus.search(queries, { k: 10, metric: 'l2' }); // m·k each
   */
  async search(queries: Float32Array, options: SearchOptions): Promise<SearchResult> {
    const { k, metric } = readSearch(options);
    const most = Math.min(this.#rows, MOST_K);
    if (this.#rows > 0 && k > most)
      throw new RangeError(`k: expected 1 to ${most} ${most === MOST_K ? '(the most a search returns)' : "(the corpus's rows)"}, got ${k}`);
    const rows = readSearchQueries(queries, this.#cols);
    // Queries a search gathers go as the array (lib/search-batching.ts); more are copied to each device once.
    const onDevice = new Map<number, Promise<Matrix>>();
    const queriesOn = (device: number): Promise<Float32Array | Matrix> => {
      if (gathers('cuda', rows)) return Promise.resolve(queries);
      if (!onDevice.has(device)) onDevice.set(device, Matrix.from(queries, rows, this.#cols, { backend: 'cuda', device, signal: options.signal }));
      return onDevice.get(device)!;
    };
    try {
      const results = await Promise.all(this.#parts.map(async ({ matrix }) => matrix.search(await queriesOn(matrix.device), { ...options, k: Math.min(k, matrix.rows) })));
      return mergeParts(results, this.#parts, k, (metric ?? 'dot') as Metric);
    } finally {
      for (const uploaded of onDevice.values()) uploaded.then((m) => m.dispose(), () => undefined);
    }
  }

  /**
   * Frees every part (at once, or once the searches in flight end).
   * @example
   * corpus.dispose();
   */
  dispose(): void {
    for (const { matrix } of this.#parts) matrix.dispose();
  }
}

/** Whether candidate x (score, row) comes before y: CandidateOrder (native/core/search.h). */
function comesFirst(smallerFirst: boolean, xScore: number, xRow: number, yScore: number, yRow: number): boolean {
  const [xNaN, yNaN] = [Number.isNaN(xScore), Number.isNaN(yScore)];
  if (xNaN !== yNaN) return yNaN;
  if (!xNaN && xScore !== yScore) return smallerFirst ? xScore < yScore : xScore > yScore;
  return xRow < yRow;
}

/** Each query's k best of the parts' lists (each best first, rows counted from its part's first row). */
function mergeParts(results: SearchResult[], parts: Part[], k: number, metric: Metric): SearchResult {
  if (results.length === 1) return results[0];
  const smallerFirst = metric === 'l2';
  const ks = parts.map(({ matrix }) => Math.min(k, matrix.rows));
  const queries = results[0].indices.length / ks[0];
  const merged = newSearchResults(queries * k);
  const next = new Array<number>(results.length);
  for (let q = 0; q < queries; q++) {
    next.fill(0);
    for (let place = 0; place < k; place++) {
      let best = -1, bestScore = NaN, bestRow = 0;
      for (let s = 0; s < results.length; s++) {
        if (next[s] === ks[s]) continue;
        const i = q * ks[s] + next[s];
        const [score, row] = [results[s].scores[i], parts[s].firstRow + results[s].indices[i]];
        if (best < 0 || comesFirst(smallerFirst, score, row, bestScore, bestRow)) [best, bestScore, bestRow] = [s, score, row];
      }
      next[best]++;
      merged.scores[q * k + place] = bestScore;
      merged.indices[q * k + place] = bestRow;
    }
  }
  return merged;
}
