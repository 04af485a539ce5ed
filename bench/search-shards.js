#!/usr/bin/env node
// Corpus over the host's GPUs: a corpus of N × d rows (given as pieces of --piece rows: one Float32Array holds at
// most 2^32 values in Node 20) on one device, then sharded over 2, then 4 (as many as there are), m queries a call
// as a Float32Array rotated among three sets, each call awaited; queries per second from the median of --calls
// after warm-up, against the one device's in the same run.
// Prints a table last; --json=FILE writes it as JSON too.
//   node bench/search-shards.js [--rows=10000000] [--dim=768] [--queries=64] [--k=10] [--calls=20] [--piece=1000000]
'use strict';
const fs = require('fs');
const { Corpus, info } = require('..');
const { argument, medianOfCalls, now, quickUniform, random } = require('./inputs');

const ROWS = Number(argument('rows', 10_000_000));
const DIM = Number(argument('dim', 768));
const M = Number(argument('queries', 64));
const K = Number(argument('k', 10));
const CALLS = Number(argument('calls', 20));
const PIECE = Number(argument('piece', 1_000_000));
const WARM_UP = 5;

async function main() {
  const devices = info().devices;
  console.log(`devices: ${devices.map((d) => d.name).join(', ')}; corpus ${ROWS} × ${DIM} fp32 (${((ROWS * DIM * 4) / 1e9).toFixed(1)} GB), m = ${M}, k = ${K}`);
  const pieces = [];
  for (let row = 0; row < ROWS; row += PIECE) pieces.push(quickUniform(Math.min(PIECE, ROWS - row) * DIM));
  const sets = [0, 1, 2].map(() => random(M * DIM));
  const table = [];
  for (const count of [1, 2, 4, 8].filter((n) => n <= devices.length)) {
    const start = now();
    const corpus = await Corpus.from(pieces, ROWS, DIM, { devices: Array.from({ length: count }, (_, i) => i) });
    const uploadMs = now() - start;
    const ms = await medianOfCalls((i) => corpus.search(sets[i % 3], { k: K }), WARM_UP, CALLS);
    const parts = corpus.parts.length;
    corpus.dispose();
    table.push({ devices: count, parts, ms, queriesPerSecond: (M * 1000) / ms, uploadMs });
    console.log(`${count} device(s), ${parts} parts: ${ms.toFixed(3)} ms a search`);
  }
  console.log(`\nCorpus.search, awaited, median of ${CALLS}: queries per second against one device's`);
  console.log('devices'.padStart(8), 'parts'.padStart(6), 'ms'.padStart(9), 'queries/s'.padStart(10), 'speed-up'.padStart(9), 'upload s'.padStart(9));
  for (const row of table)
    console.log(String(row.devices).padStart(8), String(row.parts).padStart(6), row.ms.toFixed(3).padStart(9), row.queriesPerSecond.toFixed(0).padStart(10),
      (row.queriesPerSecond / table[0].queriesPerSecond).toFixed(2).padStart(9), (row.uploadMs / 1000).toFixed(1).padStart(9));
  const json = argument('json', null);
  if (json) fs.writeFileSync(json, JSON.stringify({ devices: devices.map((d) => d.name), rows: ROWS, dim: DIM, m: M, k: K, table }, null, 2));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
