// New result arrays come from a cache of freed results' memory (native/core/result_memory.h), not zero-filled:
// every way of making one must write every element, and the memory must survive transfers, Workers and exit.
// On every backend (the cache is host memory); each scenario runs in a fresh process with --expose-gc.
import * as os from 'os';
import { types } from 'util';
import { info, Matrix, matmul, matmulSync } from '../../lib';
import { describeChild, runScenario, type ChildResult } from '../support/child';
import { cgroupFiles, confinement, runConfined } from '../support/confined';
import { describeGpu, gpuSuiteName, relativeError } from '../support/helpers';

const MiB = 2 ** 20;

// A child's helpers: results garbage-collected until the cache holds some, and an array's distinct values.
const PRELUDE = `
  const { info, Matrix, matmul, matmulSync } = require(ROOT);
  const cached = () => info().memory.resultBytesCached;
  // V8 may hand freed backing stores back on its own threads a little after gc() returns.
  async function collect() {
    for (let i = 0; i < 200 && cached() === 0; i++) { gc(); await new Promise((r) => setTimeout(r, 5)); }
    return cached();
  }
  const random = (n) => Float32Array.from({ length: n }, () => Math.random() * 2 - 1);
`;

test('a new result is a Float32Array of exactly m·n elements on an ArrayBuffer of its own', async () => {
  for (const [m, k, n] of [[1, 1, 1], [7, 3, 5], [64, 64, 64], [1024, 2, 1024]]) {
    const c = await matmul(new Float32Array(m * k).fill(1), new Float32Array(k * n).fill(2), { m, k, n });
    expect(types.isFloat32Array(c)).toBe(true);
    expect([c.length, c.byteOffset, c.buffer.byteLength]).toEqual([m * n, 0, 4 * m * n]);
    expect(types.isArrayBuffer(c.buffer)).toBe(true);
    expect(c.every((x) => x === 2 * k)).toBe(true);
  }
  expect((await matmul(new Float32Array(0), new Float32Array(0), { m: 0, k: 3, n: 0 })).length).toBe(0);
});

test('info().memory.resultBytesCached is reported', () => {
  expect(typeof info().memory.resultBytesCached).toBe('number');
  expect(info().memory.resultBytesCached).toBeGreaterThanOrEqual(0);
});

// The cache is filled with results the caller overwrote with NaN; every later result of those sizes must show
// only what its own product or download wrote: zeros for k = 0, the product for k > 0, a Matrix's elements.
test('memory of freed results holding NaN never shows through a later result', () => {
  const result = runScenario(`${PRELUDE}
    const shapes = [[1, 4, 1], [16, 16, 16], [7, 3, 5], [64, 64, 64], [300, 17, 200], [1024, 3, 1024], [2048, 2, 2048]];
    (async () => {
      const report = [];
      for (const backend of ['auto', 'cpu']) {
        for (const [m, k, n] of shapes) {
          const a = random(m * k), b = random(k * n);
          for (let i = 0; i < 4; i++) (await matmul(a, b, { m, k, n }, { backend })).fill(NaN);
          // Until a k = 0 result takes a block from the cache (the NaN results' blocks come back after a gc()).
          let reused = false, zeros = true;
          for (let attempt = 0; attempt < 100 && !reused; attempt++) {
            gc();
            await new Promise((r) => setTimeout(r, 5));
            const before = cached();
            const pending = matmul(new Float32Array(0), new Float32Array(0), { m, k: 0, n }, { backend });
            reused = cached() < before;
            zeros = zeros && (await pending).every((x) => x === 0);
          }
          const sync = matmulSync(new Float32Array(0), new Float32Array(0), { m, k: 0, n }, { backend });
          const product = await matmul(a, b, { m, k, n }, { backend });
          const bad = product.findIndex((x) => !Number.isFinite(x));
          const matrix = await Matrix.from(a, m, k, { backend });
          const download = await matrix.toArray();
          matrix.dispose();
          report.push([backend, m, k, n, reused, zeros, sync.every((x) => x === 0), bad,
                       download.every((x, i) => x === a[i])].join(' '));
        }
        // Many small products at once (gathered into batches on a GPU).
        for (let i = 0; i < 3; i++) (await Promise.all(Array.from({ length: 300 }, () => matmul(random(256), random(256), { m: 16, k: 16, n: 16 }, { backend })))).forEach((c) => c.fill(NaN));
        await collect();
        const many = await Promise.all(Array.from({ length: 300 }, () => matmul(new Float32Array(256).fill(1), new Float32Array(256).fill(1), { m: 16, k: 16, n: 16 }, { backend })));
        report.push(backend + ' many ' + many.every((c) => c.every((x) => x === 16)));
      }
      console.log('REPORT ' + JSON.stringify(report));
    })().catch((e) => console.log('ERROR', e.stack));`, ['--expose-gc']);
  const report = JSON.parse(/REPORT (.*)/.exec(result.output)?.[1] ?? 'null') as string[] | null;
  if (!report) throw new Error(describeChild(result));
  for (const line of report) {
    // backend m k n reusedBlock zerosK0 zerosSync firstNonFinite downloadExact | backend many allRight
    if (line.includes(' many ')) expect(line).toMatch(/ many true$/);
    else expect(line).toMatch(/^\S+ \d+ \d+ \d+ true true true -1 true$/);
  }
  expect(report).toHaveLength(16);
});

// 48 results of 16 MiB (768 MiB) made and collected: what the cache holds then, and after idling.
const FREED_RESULTS = `${PRELUDE}
  (async () => {
    const n = 2048; // 16 MiB results
    const a = random(n), b = random(n);
    const results = [];
    for (let i = 0; i < 48; i++) results.push(await matmul(a, b, { m: n, k: 1, n }, { backend: 'cpu' }));
    results.length = 0;
    await collect();
    for (let i = 0; i < 20; i++) { gc(); await new Promise((r) => setTimeout(r, 10)); }
    console.log('after collection', cached());
    await new Promise((r) => setTimeout(r, 4500)); // blocks idle 2 s are freed by the 2-second idle timer
    console.log('after idling', cached());
  })().catch((e) => console.log('ERROR', e.stack));`;

function cachedAfterFreeing(result: ChildResult): { after: number; idle: number } {
  if (result.status !== 0) throw new Error(describeChild(result));
  const after = Number(/after collection (\d+)/.exec(result.output)?.[1] ?? NaN);
  const idle = Number(/after idling (\d+)/.exec(result.output)?.[1] ?? NaN);
  return { after, idle };
}

test('the cache is bounded, and empties after a few idle seconds', () => {
  const { after, idle } = cachedAfterFreeing(runScenario(FREED_RESULTS, ['--expose-gc']));
  expect(after).toBeGreaterThanOrEqual(16 * MiB);
  expect(after).toBeLessThanOrEqual(Math.min(512 * MiB, os.totalmem() / 8));
  expect(idle).toBe(0);
});

// A container's memory limit bounds the cache, not its host's memory: on a 128 GiB host, a service given 1 GiB kept
// up to 512 MiB of freed results. Stood in for by a memory limit of 256 MiB in the file of the process's own cgroup
// (test/support/confined.ts): an eighth of it is 32 MiB, two of the 16 MiB results.
// A limit set on a cgroup above the process's binds it too (a pod's limit above its containers' cgroups).
const memoryFiles = confinement ? [] : cgroupFiles('memory', 'memory.max', 'memory.limit_in_bytes');
for (const own of [true, false]) {
  const where = own ? "the process's own cgroup" : 'a cgroup above the process\'s';
  const memoryFile = memoryFiles.find((found) => found.own === own);
  const unconfined = confinement ?? (memoryFile ? undefined : `no memory limit file in ${where}`);
  (unconfined ? test.skip : test)(`a memory limit of 256 MiB on ${where}: the cache keeps at most an eighth of it${unconfined ? ` — SKIPPED, ${unconfined}` : ''}`, () => {
    const { after, idle } = cachedAfterFreeing(runConfined(FREED_RESULTS, [[memoryFile!.file, `${256 * MiB}\n`]], {}, ['--expose-gc']));
    expect(after).toBeGreaterThanOrEqual(16 * MiB);
    expect(after).toBeLessThanOrEqual(32 * MiB);
    expect(idle).toBe(0);
  });
}

test('the idle trim also runs for a program that only uses Matrices and gemm', () => {
  const result = runScenario(`${PRELUDE}
    const { gemm } = require(ROOT);
    (async () => {
      const data = random(1024 * 1024);
      for (let i = 0; i < 4; i++) {
        const X = await Matrix.from(data, 1024, 1024, { backend: 'cpu' });
        await X.toArray(); // a new 4 MiB result each time
        X.dispose();
        await gemm({ a: random(64), b: random(64), c: random(64), m: 8, k: 8, n: 8 }, { backend: 'cpu' });
      }
      console.log('after collection', await collect());
      await new Promise((r) => setTimeout(r, 4500)); // blocks idle 2 s are freed by the 2-second idle timer
      console.log('after idling', cached());
    })().catch((e) => console.log('ERROR', e.stack));`, ['--expose-gc']);
  expect(Number(/after collection (\d+)/.exec(result.output)?.[1] ?? NaN)).toBeGreaterThan(0);
  expect(result.output).toContain('after idling 0');
});

test('a cache full of small blocks still takes a large one back (the oldest make room)', () => {
  const result = runScenario(`${PRELUDE}
    (async () => {
      const n = 128, small = random(n * n); // 64 KiB results, 9 000 alive at once: more than the cache holds
      await Promise.all(Array.from({ length: 9000 }, () => matmul(small, small, { m: n, k: n, n }, { backend: 'cpu' })));
      await collect();
      for (let i = 0; i < 20; i++) { gc(); await new Promise((r) => setTimeout(r, 10)); }
      const full = cached();
      const big = 2048, a = random(big), b = random(big); // 16 MiB results
      await matmul(a, b, { m: big, k: 1, n: big }, { backend: 'cpu' });
      for (let i = 0; i < 20; i++) { gc(); await new Promise((r) => setTimeout(r, 10)); }
      const before = cached();
      const pending = matmul(a, b, { m: big, k: 1, n: big }, { backend: 'cpu' });
      console.log('full', full, 'took back', before - cached());
      await pending;
    })().catch((e) => console.log('ERROR', e.stack));`, ['--expose-gc']);
  const full = Number(/full (\d+)/.exec(result.output)?.[1] ?? NaN);
  const took = Number(/took back (\d+)/.exec(result.output)?.[1] ?? NaN);
  if (Number.isNaN(took)) throw new Error(describeChild(result));
  expect(full).toBeGreaterThanOrEqual(256 * MiB);
  expect([full, took]).toEqual([full, 16 * MiB]); // the 16 MiB result's block was cached, and handed to the next one
});

test('a large result on fresh memory has four more of its size made ready for the next calls', () => {
  const result = runScenario(`${PRELUDE}
    (async () => {
      const [m, n] = [4096, 2048]; // 32 MiB results
      const a = random(m), b = random(n);
      const first = await matmul(a, b, { m, k: 1, n }, { backend: 'cpu' }); // kept: only the spares can be cached
      let ready = 0;
      for (let i = 0; i < 300 && ready < 128 * 2 ** 20; i++) { await new Promise((r) => setTimeout(r, 10)); ready = cached(); }
      const before = cached();
      const pending = matmul(a, b, { m, k: 1, n }, { backend: 'cpu' });
      const took = before - cached();
      const second = await pending;
      const right = second.every((x, i) => x === first[i]);
      console.log('ready', ready, 'took', took, 'right', right);
    })().catch((e) => console.log('ERROR', e.stack));`);
  const ready = Number(/ready (\d+)/.exec(result.output)?.[1] ?? NaN);
  if (Number.isNaN(ready)) throw new Error(describeChild(result));
  expect(ready).toBeGreaterThanOrEqual(128 * MiB);
  expect(result.output).toContain(`took ${32 * MiB} right true`);
});

test('results moved to and from Workers, and Workers terminated holding results: right values, clean exit', () => {
  const result = runScenario(`${PRELUDE}
    const { Worker } = require('worker_threads');
    const workerCode = \`
      const { parentPort } = require('worker_threads');
      const { matmul } = require(\${JSON.stringify(ROOT)});
      (async () => {
        const kept = [];
        for (let i = 0; i < 50; i++) kept.push(await matmul(new Float32Array(4096).fill(1), new Float32Array(4096).fill(0.5), { m: 64, k: 64, n: 64 }));
        const moved = kept.pop();
        parentPort.postMessage(moved, [moved.buffer]); // its memory now belongs to the main thread
        parentPort.postMessage('holding');
        setInterval(() => {}, 1000);
      })();\`;
    (async () => {
      const lines = [];
      for (let round = 0; round < 3; round++) {
        const worker = new Worker(workerCode, { eval: true });
        const received = await new Promise((resolve) => {
          let array;
          worker.on('message', (m) => { if (m === 'holding') resolve(array); else array = m; });
        });
        await worker.terminate(); // with 49 results alive in it
        lines.push(received.length === 4096 && received.every((x) => x === 32));
      }
      const here = await matmul(random(4096), random(4096), { m: 64, k: 64, n: 64 });
      const moved = structuredClone(here, { transfer: [here.buffer] });
      lines.push(here.length === 0 && moved.length === 4096);
      await collect();
      console.log('LINES ' + JSON.stringify(lines));
    })().catch((e) => console.log('ERROR', e.stack));`, ['--expose-gc']);
  expect(result.signal).toBeNull();
  expect(result.status).toBe(0);
  expect(result.output).toContain('LINES [true,true,true,true]');
});

test('a product into a new array is right whatever the cache held before (same process)', async () => {
  const [m, k, n] = [129, 65, 33];
  const a = Float32Array.from({ length: m * k }, () => Math.random() * 2 - 1);
  const b = Float32Array.from({ length: k * n }, () => Math.random() * 2 - 1);
  for (let i = 0; i < 20; i++) (await matmul(a, b, { m, k, n })).fill(NaN);
  expect(relativeError(await matmul(a, b, { m, k, n }), a, b, m, k, n)).toBeLessThanOrEqual(1e-5);
});

// Results of 32 MiB and more are page-locked the first time a product writes one, then written by DMA straight
// from the device (native/cuda/transfer/panels.cu): a reused block, a smaller result in the same block, and
// NaN left in it by the caller must all come out right.
describeGpu(gpuSuiteName('results: large results page-locked and reused'), () => {
  test('every element written, rows checked against float64', () => {
    const result = runScenario(`${PRELUDE}
      // Relative Frobenius error over every 61st row, against float64 sums.
      function rowsError(c, a, b, m, k, n) {
        let err = 0, ref = 0;
        for (let i = 0; i < m; i += 61) for (let j = 0; j < n; j++) {
          let sum = 0;
          for (let p = 0; p < k; p++) sum += a[i * k + p] * b[p * n + j];
          err += (c[i * n + j] - sum) ** 2; ref += sum * sum;
        }
        return Math.sqrt(err / ref);
      }
      (async () => {
        const lines = [];
        for (const [m, k, n] of [[4096, 8, 4096], [4096, 8, 4096], [4000, 8, 4096], [4096, 9, 4096], [2900, 8, 3000], [4096, 8, 4096]]) {
          const a = random(m * k), b = random(k * n);
          const c = await matmul(a, b, { m, k, n });
          lines.push([m, k, n, c.every(Number.isFinite), rowsError(c, a, b, m, k, n) <= 1e-6].join(' '));
          c.fill(NaN);
          await collect();
        }
        console.log('LINES ' + JSON.stringify(lines));
      })().catch((e) => console.log('ERROR', e.stack));`, ['--expose-gc']);
    const lines = JSON.parse(/LINES (.*)/.exec(result.output)?.[1] ?? 'null') as string[] | null;
    if (!lines) throw new Error(describeChild(result));
    expect(lines).toHaveLength(6);
    for (const line of lines) expect(line).toMatch(/ true true$/);
  });

  // Page-locking 64 MiB takes milliseconds and stalls the CUDA calls around it: only blocks made ahead are
  // page-locked, on their own thread, and handed out first; a product never page-locks a block.
  test('blocks made ahead come page-locked; no product page-locks a block', () => {
    const result = runScenario(`${PRELUDE}
      const pinned = () => info().memory.resultBytesPinned;
      (async () => {
        const [m, n] = [4096, 4096]; // 64 MiB results
        const a = random(m), b = random(n);
        let first = await matmul(a, b, { m, k: 1, n }); // on fresh memory: four blocks are made ahead
        for (let i = 0; i < 400 && pinned() < 4 * 64 * 2 ** 20; i++) await new Promise((r) => setTimeout(r, 10));
        const ahead = pinned();
        first = null; // its block comes back, used once and pageable
        for (let i = 0; i < 50 && cached() < 5 * 64 * 2 ** 20; i++) { gc(); await new Promise((r) => setTimeout(r, 5)); }
        const before = cached();
        const kept = [];
        for (let i = 0; i < 5; i++) kept.push(await matmul(a, b, { m, k: 1, n })); // all five cached blocks
        // The cache has run dry: four more are made ahead, page-locked; the pageable block stays pageable.
        for (let i = 0; i < 400 && pinned() < 8 * 64 * 2 ** 20; i++) await new Promise((r) => setTimeout(r, 10));
        await new Promise((r) => setTimeout(r, 100));
        const right = kept.every((c) => Math.abs(c[5] - a[0] * b[5]) <= 1e-6);
        console.log('RESULT ' + JSON.stringify({ ahead, before, after: pinned(), right }));
      })().catch((e) => console.log('ERROR', e.stack));`, ['--expose-gc']);
    const report = JSON.parse(/RESULT (.*)/.exec(result.output)?.[1] ?? 'null');
    if (!report) throw new Error(describeChild(result));
    expect(report).toEqual({ ahead: 4 * 64 * MiB, before: 5 * 64 * MiB, after: 8 * 64 * MiB, right: true });
  });

  // The thread that makes blocks ahead calls CUDA (cudaHostRegister) while the process may be exiting.
  test('exit while blocks are made ahead and page-locked: exit status 0', () => {
    for (const delay of [0, 2, 5, 10]) {
      const result = runScenario(`${PRELUDE}
        (async () => {
          await matmul(random(4096), random(4096), { m: 4096, k: 1, n: 4096 }); // fresh: four blocks made ahead
          setTimeout(() => process.exit(0), ${delay});
        })().catch((e) => console.log('ERROR', e.stack));`);
      expect(result.output).not.toContain('ERROR');
      expect([result.signal, result.status]).toEqual([null, 0]);
    }
  });

  // Page-locked memory cannot be swapped or reclaimed: results kept by the caller must not pile it up past the
  // cache's limit, and idle blocks must give it back.
  test('page-locked result memory stays within the cache limit, and the idle trim gives it back', () => {
    const result = runScenario(`${PRELUDE}
      const os = require('os');
      const pinned = () => info().memory.resultBytesPinned;
      (async () => {
        const [m, n] = [4096, 4096]; // 64 MiB results
        const a = random(m), b = random(n), kept = [], seen = [];
        for (let round = 0; round < 3; round++) {
          // Eight results made and dropped fill the cache; the next eight reuse its blocks (page-locked) and are kept.
          for (let i = 0; i < 8; i++) await matmul(a, b, { m, k: 1, n });
          for (let i = 0; i < 50 && cached() < 8 * 64 * 2 ** 20; i++) { gc(); await new Promise((r) => setTimeout(r, 5)); }
          for (let i = 0; i < 8; i++) kept.push(await matmul(a, b, { m, k: 1, n }));
          seen.push(pinned());
        }
        const near = (x, y) => Math.abs(x - y) <= 1e-6;
        const right = kept.every((c) => near(c[0], a[0] * b[0]) && near(c[m * n - 1], a[m - 1] * b[n - 1]));
        kept.length = 0;
        for (let i = 0; i < 20; i++) { gc(); await new Promise((r) => setTimeout(r, 10)); }
        for (let i = 0; i < 400 && pinned() > 0; i++) await new Promise((r) => setTimeout(r, 10)); // the 2 s idle trim
        const limit = Math.min(512 * 2 ** 20, os.totalmem() / 8);
        console.log('RESULT ' + JSON.stringify({ right, within: seen.every((p) => p <= limit), some: seen[0] > 0, idle: pinned() }), JSON.stringify(seen));
      })().catch((e) => console.log('ERROR', e.stack));`, ['--expose-gc']);
    const report = JSON.parse(/RESULT (\S*)/.exec(result.output)?.[1] ?? 'null');
    if (!report) throw new Error(describeChild(result));
    expect(report).toEqual({ right: true, within: true, some: true, idle: 0 });
  });
});
