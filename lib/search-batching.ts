// Searches gathered while one runs (docs/search.md): a search made, with its queries as an array, while
// another search of that corpus is in flight waits with the others made meanwhile that ask for the same k, metric
// and precision, and they run as one search of all their queries once a search in flight ends, or at once when
// the group is full. A search reads the corpus once whatever the number of queries (docs/search.md, "Search on the CPU": 16 queries cost what one does; "Search on the GPU": 16 cost 1.2 times one), so a server answering one query
// per request answers the requests that arrive together at about the cost of one. A query's scores are the same
// arithmetic whatever queries are beside it (on the GPU up to 16 of them: the few-rows product with every sum in
// order of k), so each caller gets the bits it would alone. A search made when none is in flight is queued at once,
// alone.
//
// Program order: a search waiting here is queued (flushSearches) before any write into its corpus is, and before the
// corpus is disposed, so it reads the corpus as it was when the search was made.
import { native, NativeMatrixHandle } from './native';
import type { SearchResult } from './types';
import { newSearchResults } from './validate';

// Queries in one search at most: on the CPU the scores of a block of 256 corpus rows for 4 096 queries are 4 MiB;
// on the GPU 16, the most whose scores come from the few-rows product (native/cuda/resident.cu).
const MAX_QUERIES = { cpu: 4096, cuda: 16 } as const;

/** Whether a search of `rows` queries from an array may be gathered with others. */
export const gathers = (backend: 'cpu' | 'cuda', rows: number): boolean => rows <= MAX_QUERIES[backend];

interface Waiting {
  queries: Float32Array; // a copy, taken when the search was made
  rows: number;
  resolve(result: SearchResult): void;
  reject(error: unknown): void;
}

interface Group {
  k: number;
  metric?: string;
  precision?: string;
  calls: Waiting[];
  rows: number;
}

interface CorpusSearches {
  running: number;
  groups: Map<string, Group>;
}

const byCorpus = new WeakMap<NativeMatrixHandle, CorpusSearches>();

/** Each search of `group`'s queries as one native search, the results split among its calls. */
function queue(corpus: NativeMatrixHandle, searches: CorpusSearches, group: Group): void {
  const { k, metric, precision, calls, rows } = group;
  const queries = calls.length === 1 ? calls[0].queries : concatenated(calls, rows * corpus.cols);
  let search: Promise<void>;
  let scores: Float32Array, indices: Uint32Array;
  try {
    ({ scores, indices } = newSearchResults(rows * k));
    search = native.matrixSearch(corpus, queries, k, metric, precision, scores, new Float32Array(indices.buffer));
  } catch (error) {
    for (const call of calls) call.reject(error);
    return;
  }
  searches.running++;
  search.then(
    () => {
      let row = 0;
      for (const call of calls) {
        const [from, to] = [row * k, (row + call.rows) * k];
        call.resolve({ indices: calls.length === 1 ? indices : indices.slice(from, to), scores: calls.length === 1 ? scores : scores.slice(from, to) });
        row += call.rows;
      }
      ended(corpus, searches);
    },
    (error: unknown) => {
      for (const call of calls) call.reject(error);
      ended(corpus, searches);
    },
  );
}

function concatenated(calls: Waiting[], length: number): Float32Array {
  const all = new Float32Array(length);
  let at = 0;
  for (const { queries } of calls) {
    all.set(queries, at);
    at += queries.length;
  }
  return all;
}

function ended(corpus: NativeMatrixHandle, searches: CorpusSearches): void {
  searches.running--;
  flushSearches(corpus);
}

/** Queues every search of `corpus` that waits here, now: before a write into the corpus, or its disposal. */
export function flushSearches(corpus: NativeMatrixHandle): void {
  const searches = byCorpus.get(corpus);
  if (!searches || searches.groups.size === 0) return;
  const groups = [...searches.groups.values()];
  searches.groups.clear();
  for (const group of groups) queue(corpus, searches, group);
}

/**
 * A search of `rows` queries from an array (checked; gathers() says it may be gathered), queued at once when none
 * is in flight, else gathered with the searches made meanwhile.
 */
export function searchGathered(corpus: NativeMatrixHandle, queries: Float32Array, rows: number, k: number, metric?: string, precision?: string): Promise<SearchResult> {
  let searches = byCorpus.get(corpus);
  if (!searches) byCorpus.set(corpus, (searches = { running: 0, groups: new Map() }));
  const key = `${k} ${metric ?? 'dot'} ${precision ?? 'fp32'}`;
  return new Promise<SearchResult>((resolve, reject) => {
    const call: Waiting = { queries: searches.running === 0 ? queries : queries.slice(), rows, resolve, reject };
    if (searches.running === 0) return queue(corpus, searches, { k, metric, precision, calls: [call], rows });
    let group = searches.groups.get(key);
    if (group && group.rows + rows > MAX_QUERIES[corpus.backend]) {
      searches.groups.delete(key);
      queue(corpus, searches, group); // full: it runs beside the one in flight
      group = undefined;
    }
    if (!group) searches.groups.set(key, (group = { k, metric, precision, calls: [], rows: 0 }));
    group.calls.push(call);
    group.rows += rows;
  });
}
