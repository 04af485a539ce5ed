#!/usr/bin/env node
// Device-resident Matrices through the public API, beside PyTorch on the same host in the same run
// (docs/matrices.md, "Program order"): each product awaited (1024³, 512³: the overhead per call), 40 in
// flight (1024³ fp32, 4096³ tf32: throughput), a chain X·W1·W2 → toArray() issued without awaiting between steps,
// and gemm from host arrays (4096³, transB, β = 1) against matmul's end-to-end time. Inputs rotate through sets
// larger than the 50 MB L2; medians. Prints a table last; `--json` writes it as JSON too.
// With CUDA_MATMUL_KERNELS_BIN naming a build of bench/kernels.cu, the 4096³ tf32 row is also set against the
// kernel alone over as many launches back to back as that row issues (240: the GPU reaches its power cap within a
// few hundred, so a shorter run would flatter the kernel), in 3 alternating pairs (bench/inflight.js).
'use strict';
const { Matrix, gemm, matmul } = require('..');
const { disposeSets, inFlightAgainstAlone, inFlightMs, operandSets } = require('./inflight');
const { median, now, pytorchNumbers, random } = require('./inputs');

const tflops = (n, ms) => (2 * n ** 3) / (ms * 1e-3) / 1e12;

// Each product awaited before the next: what a request handler that needs its result sees, in a process that has
// served a while. V8 optimises the call path over its first thousand or so calls (docs/benchmarks.md), so calls 1 000–1 300 are timed; the median of calls 20–320 is returned beside it as `early`.
const WARM_UP = 1000;
async function awaited(n, precision, calls) {
  const sets = await operandSets({ m: n, k: n, n });
  const times = [];
  for (let i = 0; i < WARM_UP + calls; i++) {
    const { X, W, Y } = sets[i % sets.length];
    const start = now();
    await X.matmul(W, { out: Y, precision });
    times.push(now() - start);
  }
  disposeSets(sets);
  return { ms: median(times.slice(WARM_UP)), early: median(times.slice(20, 20 + calls)) };
}

// `inFlight` products issued at once, then all awaited; per product.
async function queued(n, precision, inFlight, rounds) {
  const sets = await operandSets({ m: n, k: n, n });
  const ms = await inFlightMs(sets, precision, inFlight, rounds);
  disposeSets(sets);
  return ms;
}

// X·W1 → ·W2 → toArray(), issued without awaiting between steps, against the same steps each awaited.
async function chain(n) {
  const [X, W1, W2, H, Z] = await Promise.all([0, 1, 2, 3, 4].map((i) => Matrix.from(i < 3 ? random(n * n) : new Float32Array(n * n), n, n)));
  const out = new Float32Array(n * n);
  const issued = async () => {
    const steps = [X.matmul(W1, { out: H }), H.matmul(W2, { out: Z }), Z.toArray(out)];
    await Promise.all(steps);
  };
  const stepwise = async () => {
    await X.matmul(W1, { out: H });
    await H.matmul(W2, { out: Z });
    await Z.toArray(out);
  };
  const time = async (f) => {
    const t = [];
    for (let i = 0; i < 60; i++) {
      const start = now();
      await f();
      if (i >= 10) t.push(now() - start);
    }
    return median(t);
  };
  const result = { issued: await time(issued), stepwise: await time(stepwise) };
  [X, W1, W2, H, Z].forEach((m) => m.dispose());
  return result;
}

// gemm from host arrays (transB, β = 1) against matmul on the same host arrays. The two alternate, a pair at a
// time, since this host's copy rate drifts by up to 2× between minutes (docs/benchmarks.md): timed one after the
// other, their ratio measured the drift (0.56× and 1.22× in two runs). The ratio is the median of the pairs'.
async function hostGemm(n) {
  const a = random(n * n), b = random(n * n), c = random(n * n), out = new Float32Array(n * n);
  const timed = async (f) => {
    const start = now();
    await f();
    return now() - start;
  };
  const runMatmul = () => matmul(a, b, { m: n, k: n, n }, { out });
  const runGemm = () => gemm({ a, b, c, m: n, k: n, n, transB: true, beta: 1 });
  await runMatmul();
  await runGemm();
  const pairs = [];
  for (let i = 0; i < 9; i++) pairs.push({ matmul: await timed(runMatmul), gemm: await timed(runGemm) });
  return {
    matmul: median(pairs.map((p) => p.matmul)),
    gemm: median(pairs.map((p) => p.gemm)),
    ratio: median(pairs.map((p) => p.gemm / p.matmul)),
  };
}

function torch() {
  const script = `
import torch, time, statistics
torch.backends.cuda.matmul.allow_tf32 = False
def sets(n):
    k = max(2, -(-(96 << 20) // (12 * n * n)))
    return [(torch.rand(n, n, device='cuda') * 2 - 1, torch.rand(n, n, device='cuda') * 2 - 1, torch.empty(n, n, device='cuda')) for _ in range(k)]
def awaited(n, calls):
    s = sets(n); t = []
    for i in range(calls + ${WARM_UP}):
        x, w, y = s[i % len(s)]
        a = time.perf_counter(); torch.mm(x, w, out=y); torch.cuda.synchronize()
        if i >= ${WARM_UP}: t.append(time.perf_counter() - a)
    return statistics.median(t) * 1e3
def queued(n, tf32, inflight, rounds):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    s = sets(n); t = []
    for r in range(rounds + 1):
        a = time.perf_counter()
        for i in range(inflight):
            x, w, y = s[i % len(s)]; torch.mm(x, w, out=y)
        torch.cuda.synchronize()
        if r: t.append((time.perf_counter() - a) / inflight)
    torch.backends.cuda.matmul.allow_tf32 = False
    return statistics.median(t) * 1e3
print(awaited(1024, 300), awaited(512, 300), queued(1024, False, 40, 9), queued(4096, True, 40, 5))
`;
  return pytorchNumbers(script);
}

async function main() {
  const rows = [];
  const w1024 = await awaited(1024, 'fp32', 300), a1024 = w1024.ms;
  const w512 = await awaited(512, 'fp32', 300), a512 = w512.ms;
  const q1024 = await queued(1024, 'fp32', 40, 9);
  const f = await inFlightAgainstAlone({ m: 4096, k: 4096, n: 4096 }, 'tf32');
  const q4096 = (2 * 4096 ** 3) / (f.queued * 1e12) * 1e3;
  const c = await chain(1024);
  const g = await hostGemm(4096);
  const t = torch();
  const cell = (ms, n) => (ms ? `${tflops(n, ms).toFixed(1)} TFLOP/s (${(ms * 1e3).toFixed(0)} µs)` : 'n/a');
  rows.push(['1024³, await each product', cell(a1024, 1024), cell(t?.[0], 1024), '≥ 30']);
  rows.push(['512³, await each product', cell(a512, 512), cell(t?.[1], 512), '≥ 9']);
  rows.push(['1024³, 40 products in flight', cell(q1024, 1024), cell(t?.[2], 1024), '≥ 37']);
  rows.push(['4096³ tf32, 40 in flight', cell(q4096, 4096), cell(t?.[3], 4096), '≥ 0.97 × kernel alone']);
  if (f.alone) rows.push(['  kernel alone, 240 back to back (bench/kernels.cu), 3 pairs', `${f.alone.toFixed(1)} TFLOP/s: pairs' median ratio ${f.ratio.toFixed(2)}`, '', '']);
  rows.push(['  the same, calls 20–320 of the loop (V8 not yet warm)', `1024³ ${(w1024.early * 1e3).toFixed(0)} µs, 512³ ${(w512.early * 1e3).toFixed(0)} µs`, '', '']);
  rows.push(['1024³ awaited − in flight: overhead per product', `${((a1024 - q1024) * 1e3).toFixed(1)} µs`, t ? `${((t[0] - t[2]) * 1e3).toFixed(1)} µs` : 'n/a', '']);
  rows.push(['1024³ chain X·W1·W2 → toArray, issued at once / each awaited', `${c.issued.toFixed(3)} / ${c.stepwise.toFixed(3)} ms`, '', '']);
  rows.push(['gemm host arrays 4096³ transB β=1 / matmul, 9 pairs', `${g.gemm.toFixed(2)} / ${g.matmul.toFixed(2)} ms; pairs' median ${g.ratio.toFixed(2)}×`, '', '≤ 1.15×']);
  console.log('\nsummary (medians; PyTorch in the same run)');
  for (const r of rows) console.log(r.map((x, i) => String(x).padEnd(i === 0 ? 62 : 34)).join(''));
  if (process.argv.includes('--json')) console.log(JSON.stringify({ a1024, a512, early: { a1024: w1024.early, a512: w512.early }, q1024, q4096, chain: c, hostGemm: g, torch: t, inFlightAgainstAlone: f }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
