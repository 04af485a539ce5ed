#!/usr/bin/env node
// What a user's server sees: an HTTP server (node:http) that multiplies one product per request, driven by
// autocannon (64 keep-alive connections), in a child process of its own so that the load generator does not
// share its event loop. The server measures its own event-loop delay (perf_hooks.monitorEventLoopDelay) while
// under load; autocannon gives requests/s and the request latency. Prints the table of docs/benchmarks.md:
//   node bench/server.js [--seconds 6] [--connections 64] [--cases 256:await:cuda,64x4096x1024:weights:cuda,...]
// A case is size:mode:backend[:copyThreads], size n (n×n×n) or MxKxN, mode one of await | sync (matmulSync) |
// weights (B kept on the backend as a Matrix, as a model's weights are; each request uploads its A, multiplies and
// downloads C) | search (size NxD: a corpus Matrix of N rows of D values; each request searches it for the 10 best
// rows for one query, `1000000x768:search:cuda`). Inputs are made once per server; each request gets a new result
// array, as a handler that returns it would.
'use strict';
const { fork } = require('child_process');
const { parseArgs } = require('util');

if (process.argv[2] === '--serve')
  serve().catch((error) => {
    console.error(error);
    process.exit(1);
  });
else main();

// `64x4096x1024` or `256` (256×256×256) as { m, k, n }.
function shapeOf(size) {
  const [m, k = m, n = m] = size.split('x').map(Number);
  return { m, k, n };
}

// One request's product, as the case's mode makes it.
async function multiplier(mode, backend, a, b, shape) {
  const { matmul, matmulSync, Matrix } = require('..');
  if (mode === 'sync') return async () => matmulSync(a, b, shape, { backend });
  if (mode === 'await') return () => matmul(a, b, shape, { backend });
  if (mode === 'search') {
    const corpus = await Matrix.from(require('./inputs').quickUniform(shape.m * shape.k), shape.m, shape.k, { backend });
    return async () => (await corpus.search(a, { k: 10 })).scores;
  }
  if (mode !== 'weights') throw new RangeError(`mode: '${mode}' is not one of await, sync, weights, search`);
  const weights = await Matrix.from(b, shape.k, shape.n, { backend });
  return async () => {
    const x = await Matrix.from(a, shape.m, shape.k, { backend });
    const y = await x.matmul(weights);
    const c = await y.toArray();
    x.dispose(), y.dispose();
    return c;
  };
}

// The server: each request multiplies the case's shape, answers with the result's first element.
async function serve() {
  const http = require('http');
  const { monitorEventLoopDelay } = require('perf_hooks');
  const [shape, mode, backend] = [shapeOf(process.argv[3]), process.argv[4], process.argv[5]];
  const random = (length) => Float32Array.from({ length }, () => Math.random() * 2 - 1);
  // A search's query is one row of the corpus's width; its corpus is made by multiplier().
  const a = random(mode === 'search' ? shape.k : shape.m * shape.k), b = mode === 'search' ? null : random(shape.k * shape.n);
  const multiply = await multiplier(mode, backend, a, b, shape);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const server = http.createServer(async (request, response) => {
    try {
      const c = await multiply();
      response.end(String(c[0]));
    } catch (error) {
      response.statusCode = 500;
      response.end(String(error));
    }
  });
  process.on('message', (message) => {
    if (message === 'measure') delay.reset(), delay.enable();
    if (message === 'report') {
      delay.disable();
      process.send({ p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 });
    }
  });
  multiply().then(() => server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port })));
}

function once(child, predicate) {
  return new Promise((resolve, reject) => {
    const onMessage = (message) => predicate(message) && (child.off('message', onMessage), resolve(message));
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

async function runCase({ size, mode, backend, copyThreads }, seconds, connections) {
  const autocannon = require('autocannon');
  const env = { ...process.env, ...(copyThreads ? { CUDA_MATMUL_COPY_THREADS: copyThreads } : {}) };
  const child = fork(__filename, ['--serve', size, mode, backend], { env });
  try {
    const { port } = await once(child, (m) => m.port);
    // A second of warm-up (pools, streams, caches), then the measured run.
    await autocannon({ url: `http://127.0.0.1:${port}/`, connections, duration: 1 });
    child.send('measure');
    const result = await autocannon({ url: `http://127.0.0.1:${port}/`, connections, duration: seconds });
    child.send('report');
    const loop = await once(child, (m) => m.p99 !== undefined);
    return { requests: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx, loop };
  } finally {
    child.kill();
  }
}

const MODE_NAMES = { await: 'await matmul', sync: 'matmulSync', weights: 'B a Matrix: from, matmul, toArray', search: 'search a corpus Matrix, k = 10' };

async function main() {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '6' }, connections: { type: 'string', default: '64' }, cases: { type: 'string' } },
  });
  const { info } = require('..');
  const gpu = info().backend === 'cuda';
  const defaults = gpu
    ? ['256:await:cuda', '256:sync:cuda', '256:await:cpu', '1024:await:cuda', '1024:await:cuda:2']
    : ['256:await:cpu', '256:sync:cpu'];
  const cases = (values.cases?.split(',') ?? defaults).map((text) => {
    const [size, mode, backend, copyThreads] = text.split(':');
    return { size, mode, backend, copyThreads };
  });
  console.log(`${info().devices[0]?.name ?? 'no GPU'}; ${values.connections} connections, ${values.seconds} s per case`);
  const rows = [];
  for (const c of cases) {
    const r = await runCase(c, Number(values.seconds), Number(values.connections));
    rows.push([
      c.size.includes('x') ? c.size.replaceAll('x', '×') : `${c.size}³`,
      `${MODE_NAMES[c.mode]} (${c.backend}${c.copyThreads ? `, COPY_THREADS=${c.copyThreads}` : ''})`,
      r.requests.toFixed(0),
      `${r.p99} ms`,
      `${r.loop.p99.toFixed(1)} ms (${r.loop.max.toFixed(1)})`,
      String(r.errors),
    ]);
  }
  const header = ['per request', 'mode', 'req/s', 'request p99', 'event-loop delay p99 (max)', 'errors'];
  console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}
