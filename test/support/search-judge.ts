// The judge of search results (search.test.ts, corpus.test.ts): a float64 brute-force reference, and what may
// differ from it. Indices may differ from the reference's only where scores tie within the precision's tolerance:
// each returned score is its row's own within tolerance, the list is in the documented order, and no row left out
// beats the last one returned by more than the tolerance of the two.
import type { Metric, SearchResult } from '../../lib';

export const METRICS: Metric[] = ['dot', 'cosine', 'l2'];
export const TOLERANCE = 1e-5;

/** Every row's float64 score against one query, and the scale its rounding error is relative to. */
function referenceScores(corpus: Float32Array, rows: number, d: number, query: Float32Array, metric: Metric) {
  const scores = new Float64Array(rows), scales = new Float64Array(rows);
  let queryNorm2 = 0;
  for (let j = 0; j < d; j++) queryNorm2 += query[j] * query[j];
  for (let r = 0; r < rows; r++) {
    let dot = 0, magnitude = 0, rowNorm2 = 0;
    for (let j = 0; j < d; j++) {
      const c = corpus[r * d + j];
      dot += query[j] * c;
      magnitude += Math.abs(query[j] * c);
      rowNorm2 += c * c;
    }
    if (metric === 'dot') {
      [scores[r], scales[r]] = [dot, magnitude];
    } else if (metric === 'cosine') {
      // Relative to the norms, float32's underflow (up to its smallest normal value a term) may be any cosine.
      const norms = Math.sqrt(queryNorm2 * rowNorm2);
      [scores[r], scales[r]] = norms === 0 ? [0, 0] : [dot / norms, magnitude / norms + 1 + (2 * d * 2 ** -126) / norms / TOLERANCE];
    } else {
      let distance = 0;
      for (let j = 0; j < d; j++) distance += (query[j] - corpus[r * d + j]) ** 2;
      [scores[r], scales[r]] = [distance, queryNorm2 + rowNorm2 + 2 * magnitude];
    }
  }
  return { scores, scales };
}

/** Whether score x ranks before y: the metric's better one first, NaN after every number. */
const before = (metric: Metric, x: number, y: number) =>
  Number.isNaN(y) ? !Number.isNaN(x) : metric === 'l2' ? x < y : x > y;

/** What is wrong with `result` for query `i` (an empty list when nothing is). */
function judgeSearch(result: SearchResult, i: number, k: number, corpus: Float32Array, rows: number, d: number,
                     query: Float32Array, metric: Metric, tolerance = TOLERANCE): string[] {
  const wrong: string[] = [];
  const { scores: want, scales } = referenceScores(corpus, rows, d, query, metric);
  const indices = Array.from(result.indices.subarray(i * k, (i + 1) * k));
  const scores = Array.from(result.scores.subarray(i * k, (i + 1) * k));
  if (new Set(indices).size !== k) wrong.push(`query ${i}: rows repeat: ${indices}`);
  indices.forEach((row, p) => {
    if (!(row < rows)) return void wrong.push(`query ${i}: row ${row} is not in the corpus`);
    const [got, expected] = [scores[p], want[row]];
    // Beside the relative bound, what float32 loses to underflow: up to its smallest normal value a term.
    const bound = tolerance * scales[row] + d * 2 ** -126;
    const close = Number.isNaN(expected) ? Number.isNaN(got) : Math.abs(got - expected) <= bound || got === expected;
    if (!close) wrong.push(`query ${i}, place ${p}: row ${row} scored ${got}, float64 says ${expected}`);
    if (p > 0) {
      const [previous, previousRow] = [scores[p - 1], indices[p - 1]];
      const tie = previous === got || (Number.isNaN(previous) && Number.isNaN(got));
      if (before(metric, got, previous) || (tie && previousRow > row))
        wrong.push(`query ${i}, place ${p}: row ${row} (${got}) comes after row ${previousRow} (${previous})`);
    }
  });
  const last = indices[k - 1];
  const returned = new Set(indices);
  for (let r = 0; r < rows && wrong.length < 5; r++) {
    if (returned.has(r) || Number.isNaN(want[r])) continue;
    const margin = tolerance * (scales[r] + scales[last]) + 2 * d * 2 ** -126;
    const beats = Number.isNaN(want[last]) || (metric === 'l2' ? want[r] < want[last] - margin : want[r] > want[last] + margin);
    if (beats) wrong.push(`query ${i}: row ${r} (float64 ${want[r]}) beats the last one returned, row ${last} (${want[last]})`);
  }
  return wrong;
}

export function judgeAll(result: SearchResult, queries: Float32Array, m: number, k: number, corpus: Float32Array, rows: number,
                         d: number, metric: Metric, tolerance = TOLERANCE, judged = (i: number) => i < m): string[] {
  expect(result.indices).toBeInstanceOf(Uint32Array);
  expect(result.scores).toBeInstanceOf(Float32Array);
  expect([result.indices.length, result.scores.length]).toEqual([m * k, m * k]);
  return Array.from({ length: m }, (_, i) => i)
    .filter(judged)
    .flatMap((i) => judgeSearch(result, i, k, corpus, rows, d, queries.subarray(i * d, (i + 1) * d), metric, tolerance));
}
