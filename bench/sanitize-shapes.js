#!/usr/bin/env node
// Runs every CUDA kernel once on edge shapes, for compute-sanitizer:
//   compute-sanitizer --tool memcheck node bench/sanitize-shapes.js   (also --tool racecheck)
'use strict';
const { matmul, matmulSync, gemm, info, Matrix } = require('..');
const { random, relativeError } = require('./inputs');

// [4097, 33, 4095] takes wgmma-t's tf32 256×128 tile, cut at every edge; [513, 2049, 1409] too, with K split in
// two, and [513, 8193, 257], with K past the slice depth in 8 slices. [2100, 67, 1999] to [33, 9, 25601] make the
// plan pick each of mma's larger block tiles (test/support/helpers.ts, MMA_BLOCK_TILE_SHAPES); [1100, 20, 1000] wgmma's tf32
// 128×128 (the small shapes take its 128×64 and fp32's 64-row tiles, the large ones the widest); [509, 301, 511]
// fp32's 64×32 on a full wave, [33, 9, 25601] also its 64×64; [3, 70001, 5] splits K for every kernel
// (native/cuda/kernels/choose.h); [61, 300, 2053] and [61, 300, 30011] have wgmma-t's 64×128 and 64×192 tiles cut
// at every edge; [40, 2500, 3001] splits K to fill the SMs (chooseFillSlices), [1, 2049, 77] and [37, 2500, 64] in
// slices from 256 deep, the last one short; [97, 61, 131] takes the inline route's 64×128 tile, read over the bus
// (chooseBusVariant). wgmma-f16 runs them all (its passes, product and recomputations; in fp32, wgmma-t's
// variants), and its fallback to wgmma-t past 4 marked rows once.
const SHAPES = [[1, 1, 1], [97, 131, 61], [97, 61, 131], [4097, 33, 4095], [1, 700, 1], [33, 1, 17], [2100, 67, 1999], [25345, 9, 37], [33, 9, 25601], [1100, 20, 1000], [509, 301, 511], [3, 70001, 5], [61, 300, 2053], [61, 300, 30011], [40, 2500, 3001], [1, 2049, 77], [37, 2500, 64], [513, 2049, 1409], [513, 8193, 257]];
const hopper = info().devices[0]?.computeCapability === '9.0';
// SANITIZE_KERNELS=wgmma,wgmma-t keeps only those kernels' runs (search: the search's alone) (racecheck on muld, blocktile and mma alone takes
// about 275 s on an H100: docs/development.md, "Sanitizers").
const only = process.env.SANITIZE_KERNELS?.split(',');
const RUNS = [
  ...['muld', 'blocktile', 'mma'].map((kernel) => ({ kernel, precision: 'fp32', tolerance: 1e-5 })),
  { kernel: 'mma', precision: 'tf32', tolerance: 1e-3 },
  // wgmma and wgmma-t (TMA, mbarriers, sm_90a) exist on compute capability 9.0 alone
  ...(hopper
    ? ['wgmma', 'wgmma-t', 'wgmma-f16'].flatMap((kernel) => [{ kernel, precision: 'fp32', tolerance: 1e-5 }, { kernel, precision: 'tf32', tolerance: 1e-3 }])
    : []),
].filter(({ kernel }) => !only || only.includes(kernel));

// The relative error of c against the CPU's product; for one output element (1×K×1) against Σ|a_p·b_p|, the
// scale rounding error is proportional to, as test/support/helpers.ts does: a cancelling dot product made ‖C‖ tiny, and
// a correct wgmma tf32 1×700×1 came out at 3.0e-3 "relative error" under racecheck.
function errorOf(c, a, b, m, k, n) {
  const cpu = matmulSync(a, b, { m, k, n }, { backend: 'cpu' });
  if (m * n !== 1) return relativeError(c, cpu);
  let scale = 0;
  for (let p = 0; p < k; p++) scale += Math.abs(a[p] * b[p]);
  return scale === 0 ? Math.abs(c[0] - cpu[0]) : Math.abs(c[0] - cpu[0]) / scale;
}
let failures = 0;

for (const { kernel, precision, tolerance } of RUNS) {
  for (const [m, k, n] of SHAPES) {
    const a = random(m * k);
    const b = random(k * n);
    const c = matmulSync(a, b, { m, k, n }, { backend: 'cuda', kernel, precision });
    const error = errorOf(c, a, b, m, k, n);
    if (!(error < tolerance)) failures++;
    console.log(`${kernel} ${precision} ${m}×${k}×${n}: relative error vs CPU ${error.toExponential(2)}`);
  }
  // Non-finite results are recomputed exactly (native/kernels/helpers.cuh, exactDot): an Infinity and a NaN; at
  // 513×45×1000 in wgmma-t's tf32 256×128 tiles, after their TMA stores.
  for (const [m, k, n] of [[97, 131, 61], [513, 45, 1000]]) {
    const a = random(m * k);
    a[5 * k + 3] = Infinity;
    a[9 * k + 7] = NaN;
    const c = matmulSync(a, random(k * n), { m, k, n }, { backend: 'cuda', kernel, precision });
    const infinite = c[5 * n] === Infinity || c[5 * n] === -Infinity, nan = Number.isNaN(c[9 * n]);
    if (!infinite || !nan) failures++;
    console.log(`${kernel} ${precision} special values ${m}×${k}×${n}: row 5 ${infinite ? 'infinite' : 'NOT INFINITE'}, row 9 ${nan ? 'NaN' : 'NOT NaN'}`);
  }
  if (kernel === 'wgmma-f16' && precision === 'tf32') {
    // Past 4 marked rows wgmma-f16's product is step 4's (its fallback): 40 rows with a NaN each.
    const [m, k, n] = [97, 131, 61];
    const a = random(m * k);
    for (let r = 0; r < 40; r++) a[(2 * r) * k + r] = NaN;
    const d = matmulSync(a, random(k * n), { m, k, n }, { backend: 'cuda', kernel, precision });
    const nanRows = Array.from({ length: 40 }, (_, r) => Number.isNaN(d[2 * r * n + 1])).filter(Boolean).length;
    if (nanRows !== 40) failures++;
    console.log(`${kernel} ${precision} 40 rows with a NaN (the fallback): ${nanRows} of 40 rows NaN`);
  }
}
// gemm with Aᵀ·Bᵀ held, α and β ('auto''s kernel, α and β on the host), on the same edge shapes (run once each,
// checked against the CPU).
(async () => {
  // Matrix#search (native/cuda/kernels/select.cu): one row; two selection blocks and a second round at k = 1024;
  // 4100 queries (two groups) over three chunks of scores. Each metric, against the CPU backend's search.
  for (const [rows, d, m, k] of !only || only.includes('search') ? [[1, 1, 1, 1], [9000, 33, 3, 1024], [20000, 4, 4100, 3]] : []) {
    const [corpus, queries] = [random(rows * d), random(m * d)];
    const [onGpu, onCpu] = await Promise.all(['cuda', 'cpu'].map((backend) => Matrix.from(corpus, rows, d, { backend })));
    for (const metric of ['dot', 'cosine', 'l2']) {
      const [got, want] = [await onGpu.search(queries, { k, metric }), await onCpu.search(queries, { k, metric })];
      // Rows may differ where the two backends' scores are within each other's rounding (a tie to them): relative
      // to the values' scale, 1, since l2's ‖q‖² + ‖c‖² − 2q·c rounds at the norms' scale, not the distance's.
      const differ = got.indices.filter((row, i) => row !== want.indices[i]).length;
      const untied = got.indices.filter((row, i) => row !== want.indices[i] && !(Math.abs(got.scores[i] - want.scores[i]) <= 1e-5 * Math.max(1, Math.abs(want.scores[i])))).length;
      const error = relativeError(got.scores, want.scores);
      if (!(error < (metric === 'l2' ? 1e-4 : 1e-5)) || untied > 0) failures++;
      console.log(`search ${metric} ${rows}×${d}, ${m} queries, k = ${k}: scores' relative error vs CPU ${error.toExponential(2)}, rows differing ${differ}, of which ${untied} NOT WHERE SCORES TIE`);
    }
    [onGpu, onCpu].forEach((x) => x.dispose());
  }
  for (const [m, k, n] of SHAPES.slice(0, 5)) {
    const args = () => ({ a: Float32Array.from({ length: m * k }, Math.random), b: Float32Array.from({ length: k * n }, Math.random), m, k, n, transA: true, transB: true, alpha: 0.5, beta: 2 });
    const common = args();
    const c0 = Float32Array.from({ length: m * n }, Math.random);
    const onGpu = await gemm({ ...common, c: c0.slice() }, { backend: 'cuda' });
    const error = relativeError(onGpu, await gemm({ ...common, c: c0.slice() }, { backend: 'cpu' }));
    if (!(error < 1e-5)) failures++;
    console.log(`gemm Aᵀ·Bᵀ α β ${m}×${k}×${n}: relative error vs CPU ${error.toExponential(2)}`);
  }
  // Step 6 (gemv) reads A and B as stored: every transpose, on shapes that cut its 256-wide blocks and 32-deep
  // stages, each variant (4, 8, 16 rows or columns), and K split (3×70001×5, 1×2049×77 to fill the SMs).
  const AT_MOST_16_ROWS_OR_COLUMNS_SHAPES = [[1, 1, 1], [1, 700, 1], [5, 33, 1027], [16, 300, 513], [1000, 257, 1], [4100, 64, 7], [3, 70001, 5], [1, 2049, 77], [513, 2049, 16]];
  for (const [m, k, n] of only && !only.includes('gemv') ? [] : AT_MOST_16_ROWS_OR_COLUMNS_SHAPES) {
    for (const [transA, transB] of [[false, false], [false, true], [true, false], [true, true]]) {
      const common = { a: random(m * k), b: random(k * n), m, k, n, transA, transB };
      const onGpu = await gemm({ ...common, c: new Float32Array(m * n).fill(NaN) }, { backend: 'cuda', kernel: 'gemv' });
      const error = m * n === 1 ? errorOf(onGpu, common.a, common.b, m, k, n) // a vector either way round
        : relativeError(onGpu, await gemm({ ...common, c: new Float32Array(m * n) }, { backend: 'cpu' }));
      if (!(error < 1e-5)) failures++;
      console.log(`gemv ${transA ? 'Aᵀ' : 'A'}·${transB ? 'Bᵀ' : 'B'} ${m}×${k}×${n}: relative error vs CPU ${error.toExponential(2)}`);
    }
  }
  // Every kernel reads A and B held transposed as stored: A, B and both held so. wgmma-t and wgmma-f16 (and wgmma) on
  // each tile shape cut at every edge, K split in two and into 8 slices (wgmma-t takes Aᵀ in 32×32 boxes and
  // transposes them in shared memory; wgmma-f16's passes scale Aᵀ's columns and Bᵀ's rows into its fp16 copies, and
  // here B holds a tiny value, corrected, and a NaN, its column recomputed); the others on edge shapes, K split.
  const TRANSPOSED_SHAPES = [[97, 300, 2053], [61, 300, 30011], [4097, 33, 4095], [513, 2049, 1409], [513, 8193, 257]];
  const FFMA_TRANSPOSED_SHAPES = [[1, 1, 1], [97, 131, 61], [33, 1, 17], [2100, 67, 1999], [3, 70001, 5]];
  for (const { kernel, precision, tolerance } of RUNS) {
    for (const [m, k, n] of kernel.startsWith('wgmma') ? TRANSPOSED_SHAPES : FFMA_TRANSPOSED_SHAPES) {
      for (const [transA, transB] of [[true, false], [false, true], [true, true]]) {
        const common = { a: random(m * k), b: random(k * n), m, k, n, transA, transB };
        if (kernel === 'wgmma-f16') [common.b[3 * k + 1], common.b[5 * k + 2]] = [1e-12, NaN];
        const onGpu = await gemm({ ...common, c: new Float32Array(m * n).fill(NaN) }, { backend: 'cuda', kernel, precision });
        const onCpu = await gemm({ ...common, c: new Float32Array(m * n) }, { backend: 'cpu' });
        const finite = (x) => x.filter((_, i) => Number.isFinite(onCpu[i]));
        const error = m * n === 1 ? errorOf(onGpu, common.a, common.b, m, k, n) : relativeError(finite(onGpu), finite(onCpu));
        if (!(error < tolerance)) failures++;
        console.log(`${kernel} ${precision} ${transA ? 'Aᵀ' : 'A'}·${transB ? 'Bᵀ' : 'B'} held ${m}×${k}×${n}: relative error vs CPU ${error.toExponential(2)}`);
      }
    }
  }
  // wgmma-f16's left-out terms. 'zeros': hundreds of tiny values in rows of A that hold 1 and zeros besides them,
  // against a row of B with zeros in two columns of three, so that those elements' accumulators are 0 and the product
  // lists them all, more than the list holds: with β ≠ 0 every element of those rows is corrected (correctAll), with
  // β = 0 step 4 computes the product. 'sprinkled': U[-1,1] with 0.01% of the values of each operand 1e-12 of their
  // size, whose few elements with small accumulators are listed and corrected one by one (correctListed), K split
  // into slices. B held as stored and as Bᵀ.
  if (hopper && (!only || only.includes('wgmma-f16'))) {
    const leftOutRuns = [[700, 600, 900, false, 0.5, 'zeros'], [700, 600, 900, true, 0, 'zeros'], [300, 8193, 257, true, 0, 'sprinkled']];
    for (const [m, k, n, transB, beta, kind] of leftOutRuns) {
      const [a, b] = [random(m * k), random(k * n)];
      if (kind === 'zeros') {
        for (let i = 0; i < m; i += 2) for (let p = 0; p < k; p++) a[i * k + p] = p === 0 ? 1 : p < 600 && (p * 7 + i) % 97 === 0 ? 1e-12 : 0;
        for (let j = 0; j < n; j++) if (j % 3 !== 2) b[j] = 0;
      } else {
        for (const x of [a, b]) for (let e = 0; e < x.length; e++) if (Math.random() < 1e-4) x[e] *= 1e-12;
      }
      const heldB = transB ? Float32Array.from({ length: k * n }, (_, e) => b[(e % k) * n + Math.floor(e / k)]) : b;
      const common = { a, b: heldB, m, k, n, transB, beta };
      const c = random(m * n).map((x) => x * 1e-12);
      const onGpu = await gemm({ ...common, c: c.slice() }, { backend: 'cuda', kernel: 'wgmma-f16', precision: 'tf32' });
      const error = relativeError(onGpu, await gemm({ ...common, c: c.slice() }, { backend: 'cpu' }));
      if (!(error < 1e-3)) failures++;
      console.log(`wgmma-f16 tf32 left-out terms (${kind}) ${transB ? 'Bᵀ' : 'B'} ${m}×${k}×${n} β ${beta}: relative error vs CPU ${error.toExponential(2)}`);
    }
  }
  // Matrices with α and β, applied as each kernel stores C: C read where β ≠ 0, and by the sum of K's slices (3×70001×5,
  // 513×2049×1409); A's Infinity makes elements recomputed from C as the store left it; for wgmma-f16, B's NaN and A's
  // row of tiny values mark a column and a row, whose C is kept before the product writes it.
  for (const { kernel, precision, tolerance } of RUNS) {
    for (const [m, k, n] of [[97, 131, 61], [3, 70001, 5], [513, 2049, 1409]]) {
      const [a, b, c0] = [random(m * k), random(k * n), random(m * n)];
      a[Math.min(5, m - 1) * k + 3] = Infinity;
      if (kernel === 'wgmma-f16') {
        b[n + 2] = NaN;
        for (let p = 1; p < k; p++) a[p] *= 1e-12;
      }
      const s = { m, k, n, alpha: 0.75, beta: -1.5 };
      const [A, B, C] = [await Matrix.from(a, m, k), await Matrix.from(b, k, n), await Matrix.from(c0, m, n)];
      await gemm({ a: A, b: B, c: C, ...s }, { kernel, precision });
      const got = await C.toArray();
      const onCpu = await gemm({ a, b, c: c0.slice(), ...s }, { backend: 'cpu' });
      const finite = (x) => x.filter((_, i) => Number.isFinite(onCpu[i]));
      const classesAgree = got.every((x, i) => Number.isFinite(x) === Number.isFinite(onCpu[i]));
      const error = relativeError(finite(got), finite(onCpu));
      if (!(error < tolerance) || !classesAgree) failures++;
      console.log(`Matrix ${kernel} ${precision} α β ${m}×${k}×${n}: relative error vs CPU ${error.toExponential(2)}, non-finite ${classesAgree ? 'where the CPU has them' : 'NOT WHERE THE CPU HAS THEM'}`);
      [A, B, C].forEach((x) => x.dispose());
    }
  }
  // Matrices: a B read twice in each precision, written, then read again (the Bᵀ wgmma keeps with a Matrix).
  for (const [m, k, n] of [[97, 131, 61], [33, 1, 17]]) {
    const [x, w, y] = [random(m * k), random(k * n), random(k * k)];
    const [X, W, Y] = [await Matrix.from(x, m, k), await Matrix.from(w, k, n), await Matrix.from(y, k, k)];
    for (const { kernel, precision, tolerance } of RUNS.filter((r) => r.kernel.startsWith('wgmma') || r.kernel === 'mma')) {
      for (let i = 0; i < 2; i++) {
        const error = relativeError(await (await X.matmul(W, { kernel, precision })).toArray(), matmulSync(x, await W.toArray(), { m, k, n }, { backend: 'cpu' }));
        if (!(error < tolerance)) failures++;
        console.log(`Matrix ${kernel} ${precision} ${m}×${k}×${n} #${i}: relative error vs CPU ${error.toExponential(2)}`);
      }
    }
    await Y.matmul(await Matrix.from(random(k * n), k, n), { out: W });  // W overwritten, then read again
    const error = relativeError(await (await X.matmul(W)).toArray(), matmulSync(x, await W.toArray(), { m, k, n }, { backend: 'cpu' }));
    if (!(error < 1e-5)) failures++;
    console.log(`Matrix after a write ${m}×${k}×${n}: relative error vs CPU ${error.toExponential(2)}`);
  }
  // Small products issued at once: all but the first are gathered and run as batches (grouped Muld).
  const small = [[1, 1, 1], [1, 700, 1], [33, 1, 17], [97, 131, 61], [128, 128, 128], [300, 64, 1], [5, 2, 7]];
  const gathered = Array.from({ length: 70 }, (_, i) => small[i % small.length]).map(([m, k, n]) => ({ m, k, n, a: random(m * k), b: random(k * n) }));
  const results = await Promise.all(gathered.map(({ a, b, m, k, n }) => matmul(a, b, { m, k, n })));
  let worst = 0;
  gathered.forEach(({ a, b, m, k, n }, i) => (worst = Math.max(worst, errorOf(results[i], a, b, m, k, n))));
  if (!(worst < 1e-5)) failures++;
  console.log(`gathered small products (${gathered.length} at once): worst relative error vs CPU ${worst.toExponential(2)}`);
  // A strided batch of small products is one grouped launch, from host arrays and on Matrices (padded rows): 8
  // products a block, 32×32 and 64×64 tiles cut at their edges.
  for (const [m, k, n] of [[16, 16, 16], [24, 24, 24], [33, 9, 17], [64, 64, 64], [70, 45, 67]]) {
    const batch = 37;
    const a = random(batch * m * k), b = random(batch * k * n);
    const onCpu = await gemm({ a, b, c: new Float32Array(batch * m * n), m, k, n, batch }, { backend: 'cpu' });
    const onArrays = await gemm({ a, b, c: new Float32Array(batch * m * n).fill(NaN), m, k, n, batch }, { backend: 'cuda' });
    const [A, B, C] = [await Matrix.from(a, batch * m, k), await Matrix.from(b, batch * k, n), await Matrix.from(new Float32Array(batch * m * n).fill(NaN), batch * m, n)];
    await gemm({ a: A, b: B, c: C, m, k, n, batch });
    const error = Math.max(relativeError(onArrays, onCpu), relativeError(await C.toArray(), onCpu));
    if (!(error < 1e-5)) failures++;
    console.log(`strided batch of ${batch} ${m}×${k}×${n}, arrays and Matrices: relative error vs CPU ${error.toExponential(2)}`);
  }
  // A write into a Matrix under a signal (native/cuda/withdrawal.h): aborted at once behind a product (withdrawn,
  // unless the sanitizer, which runs each launch to its end, let the device decide first: then made; either way
  // c must say what the Promise says), then never aborted (made); c is kept aside, decided on the device, put back
  // or not.
  const Busy = await Matrix.from(random(1024 * 1024), 1024, 1024);
  for (const [m, k, n] of [[97, 131, 61], [1, 700, 1]]) {
    const [x, w, c0] = [random(m * k), random(k * n), random(m * n)];
    const [X, W, C] = [await Matrix.from(x, m, k), await Matrix.from(w, k, n), await Matrix.from(c0, m, n)];
    const controller = new AbortController();
    const busy = Busy.matmul(Busy);  // the write queues behind it
    const first = X.matmul(W, { out: C, signal: controller.signal }).then(() => 'made', (e) => e.name);
    controller.abort();
    const outcome = await first;
    const product = matmulSync(x, w, { m, k, n }, { backend: 'cpu' });
    const state = relativeError(await C.toArray(), c0) === 0 ? 'AbortError' : relativeError(await C.toArray(), product) < 1e-5 ? 'made' : 'neither';
    (await busy).dispose();
    await X.matmul(W, { out: C, signal: new AbortController().signal });
    const error = relativeError(await C.toArray(), product);
    if (state !== outcome || !(error < 1e-5)) failures++;
    console.log(`Matrix write aborted at once ${m}×${k}×${n}: the Promise says ${outcome}, c says ${state}; then made: relative error vs CPU ${error.toExponential(2)}`);
  }
  process.exit(failures ? 1 : 0);
})();
