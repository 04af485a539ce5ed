// A probe (run from the package root, PKG = another package root to compare): 4096³ variants interleaved run by run: which host arrays are plain costs what
const path = require('path');
const { matmul, allocHost } = require(path.resolve(process.env.PKG || '.'));
const now = () => Number(process.hrtime.bigint()) / 1e3;
const median = (v) => [...v].sort((p, q) => p - q)[v.length >> 1];
const N = 4096, len = N * N;
const random = (l) => Float32Array.from({ length: l }, () => Math.random() * 2 - 1);
(async () => {
  const a = random(len), b = random(len), pa = allocHost(len), pb = allocHost(len), pc = allocHost(len), reuse = new Float32Array(len);
  pa.set(a); pb.set(b); reuse.fill(1);
  const variants = {
    'plain, new C': () => matmul(a, b, { m: N, k: N, n: N }),
    'plain, C reused plain': () => matmul(a, b, { m: N, k: N, n: N }, { out: reuse }),
    'plain A B, C allocHost': () => matmul(a, b, { m: N, k: N, n: N }, { out: pc }),
    'allocHost A B, new C': () => matmul(pa, pb, { m: N, k: N, n: N }),
    'allocHost A B C': () => matmul(pa, pb, { m: N, k: N, n: N }, { out: pc }),
  };
  for (const f of Object.values(variants)) await f();
  const times = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let r = 0; r < 9; r++) for (const [k, f] of Object.entries(variants)) { const s = now(); await f(); times[k].push((now() - s) / 1e3); }
  for (const [k, t] of Object.entries(times)) console.log(`${process.env.LABEL || ''} ${k.padEnd(24)} median ${median(t).toFixed(2)} ms  [${t.map((x) => x.toFixed(1)).join(' ')}]`);
})();
