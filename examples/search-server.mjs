// An HTTP server for exact vector search: it builds a corpus Matrix at start (20 000 random unit vectors of 384
// values, standing in for a store of embeddings), and answers POST /search with a JSON body { vector, k } by the
// k most similar rows, by cosine. It sends itself a few requests, prints the answers, and closes.
//   node examples/search-server.mjs
// The corpus lives on the GPU where there is one, else in host memory (docs/search.md).
import http from 'node:http';
import { info, Matrix } from 'cuda-matmul';

const ROWS = 20_000, DIM = 384;
// Seeded values, so that the answers below are the same each run.
let state = 12345;
const next = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 31 - 1);
const embeddings = Float32Array.from({ length: ROWS * DIM }, next);
const corpus = await Matrix.from(embeddings, ROWS, DIM, { backend: info().backend === 'cuda' ? 'cuda' : 'cpu' });

const server = http.createServer(async (request, response) => {
  try {
    if (request.url !== '/search' || request.method !== 'POST') return void response.writeHead(404).end();
    let body = '';
    for await (const chunk of request) body += chunk;
    const { vector, k } = JSON.parse(body);
    const { indices, scores } = await corpus.search(Float32Array.from(vector), { k, metric: 'cosine' });
    const rows = Array.from(indices, (row, i) => ({ row, score: Number(scores[i].toFixed(3)) }));
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(rows));
  } catch (error) {
    // Bad input (a vector of another length, k out of range) is a TypeError or RangeError naming it.
    response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error.message));
  }
});

server.listen(0, async () => {
  const url = `http://127.0.0.1:${server.address().port}/search`;
  const ask = async (payload) => {
    const reply = await fetch(url, { method: 'POST', body: JSON.stringify(payload) });
    return `${reply.status} ${await reply.text()}`;
  };
  // Row 42 itself: it comes first, with a cosine of 1.
  console.log(await ask({ vector: Array.from(embeddings.subarray(42 * DIM, 43 * DIM)), k: 1 }));
  // Row 42 with its first value negated: still the closest row.
  const nearby = Array.from(embeddings.subarray(42 * DIM, 43 * DIM));
  nearby[0] = -nearby[0];
  console.log(await ask({ vector: nearby, k: 1 }).then((answer) => answer.replace(/"score":[\d.]+/, '"score":…')));
  console.log(await ask({ vector: [1, 2, 3], k: 1 })); // not 384 values: 400
  server.close();
  corpus.dispose();
});
