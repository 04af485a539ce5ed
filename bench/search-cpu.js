#!/usr/bin/env node
// Exact search on the CPU backend (Matrix#search) against faiss's flat indexes (IndexFlatIP for 'dot',
// IndexFlatL2 for 'l2') on the same machine, the same corpus and queries, in the same run. Each call awaited;
// medians of --calls (7) after one warm-up call. faiss runs in a Python process of its own (--python, with the
// faiss-cpu wheel), on the corpus and queries written to temporary files, on as many threads as it takes (all
// cores); cuda-matmul on its CPU budget (every core but the JavaScript thread's). Also says how many of the
// indices agree (with U[-1,1] data ties are rare, so all should). Prints a table last.
//   node bench/search-cpu.js [--rows=100000] [--dim=768] [--queries=1,16,64,512] [--k=10] [--python=python3]
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Matrix } = require('..');
const { argument, median, now, outputOf, quickUniform } = require('./inputs');

const ROWS = Number(argument('rows', 100_000));
const DIM = Number(argument('dim', 768));
const QUERIES = argument('queries', '1,16,64,512').split(',').map(Number);
const K = Number(argument('k', 10));
const CALLS = Number(argument('calls', 7));
const PYTHON = argument('python', 'python3');
const METRICS = { dot: 'IndexFlatIP', l2: 'IndexFlatL2' };

// faiss's medians (ms) and indices for each metric and query count, or null where this host has no faiss.
function faissResults(corpusFile, queryFiles) {
  const script = `
import faiss, numpy as np, sys, time, json
rows, dim, k, calls = ${ROWS}, ${DIM}, ${K}, ${CALLS}
corpus = np.fromfile(sys.argv[1], dtype=np.float32).reshape(rows, dim)
out = {"threads": faiss.omp_get_max_threads()}
for metric, kind in ${JSON.stringify(Object.entries(METRICS))}:
    index = getattr(faiss, kind)(dim)
    index.add(corpus)
    for f in sys.argv[2:]:
        q = np.fromfile(f, dtype=np.float32).reshape(-1, dim)
        index.search(q, k)
        times = []
        for _ in range(calls):
            start = time.perf_counter(); _, ids = index.search(q, k); times.append((time.perf_counter() - start) * 1000)
        out[f"{metric} {len(q)}"] = {"ms": sorted(times)[len(times) // 2], "indices": ids.ravel().tolist()}
print(json.dumps(out))`;
  const output = outputOf(PYTHON, ['-c', script, corpusFile, ...queryFiles], 'faiss');
  return output === null ? null : JSON.parse(output);
}

async function main() {
  const corpus = quickUniform(ROWS * DIM, 1);
  const queries = QUERIES.map((m, i) => quickUniform(m * DIM, 100 + i));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'search-cpu-'));
  const corpusFile = path.join(work, 'corpus.f32');
  fs.writeFileSync(corpusFile, corpus);
  const queryFiles = queries.map((q, i) => {
    const file = path.join(work, `queries-${i}.f32`);
    fs.writeFileSync(file, q);
    return file;
  });
  const faiss = faissResults(corpusFile, queryFiles);
  fs.rmSync(work, { recursive: true });

  const C = await Matrix.from(corpus, ROWS, DIM, { backend: 'cpu' });
  const rows = [];
  for (const metric of ['dot', 'cosine', 'l2']) {
    for (const [i, m] of QUERIES.entries()) {
      const Q = await Matrix.from(queries[i], m, DIM, { backend: 'cpu' });
      let result = await C.search(Q, { k: K, metric });
      const times = [];
      for (let call = 0; call < CALLS; call++) {
        const start = now();
        result = await C.search(Q, { k: K, metric });
        times.push(now() - start);
      }
      Q.dispose();
      const theirs = faiss?.[`${metric} ${m}`];
      const agree = theirs ? result.indices.filter((row, j) => row === theirs.indices[j]).length : null;
      rows.push({ metric, m, ms: median(times), faiss: theirs?.ms ?? null, agree, of: m * K });
    }
  }
  C.dispose();

  const budget = process.env.CUDA_MATMUL_CPU_THREADS ? `CUDA_MATMUL_CPU_THREADS=${process.env.CUDA_MATMUL_CPU_THREADS}` : 'every core but one';
  console.log(`\n${ROWS}×${DIM} corpus, k = ${K}, ${os.cpus().length} cores (cuda-matmul's CPU budget: ${budget}; faiss: ${faiss?.threads ?? '—'} threads), medians of ${CALLS} calls`);
  console.log('metric   queries   cuda-matmul ms   faiss ms   faiss / ours   same indices');
  for (const r of rows)
    console.log(`${r.metric.padEnd(8)} ${String(r.m).padStart(7)} ${r.ms.toFixed(1).padStart(16)} ${(r.faiss?.toFixed(1) ?? '—').padStart(10)} ${(r.faiss ? (r.faiss / r.ms).toFixed(2) : '—').padStart(14)} ${r.agree === null ? '—' : `${r.agree} of ${r.of}`}`.padStart(14));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
