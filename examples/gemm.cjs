// Full GEMM, C = α·op(A)·op(B) + β·C: a transposed operand, and a batch of products with strides.
//   node examples/gemm.cjs
const { gemm } = require('cuda-matmul');

const random = (length) => Float32Array.from({ length }, () => Math.random() - 0.5);

async function main() {
  // One product with A stored transposed (k×m) and C updated in place: C = 2·Aᵀ·B + C.
  const [m, k, n] = [3, 4, 2];
  const a = random(k * m), b = random(k * n), c = new Float32Array(m * n).fill(1);
  await gemm({ a, b, c, m, k, n, transA: true, alpha: 2, beta: 1 });
  console.log('C = 2·Aᵀ·B + C:', Array.from(c, (v) => v.toFixed(3)).join(' '));

  // A batch of 8 products, each 16×32 · 32×8, read and written one after another in the same arrays.
  const batch = 8, [bm, bk, bn] = [16, 32, 8];
  const as = random(batch * bm * bk), bs = random(batch * bk * bn), cs = new Float32Array(batch * bm * bn);
  await gemm({ a: as, b: bs, c: cs, m: bm, k: bk, n: bn, batch });
  console.log(`${batch} products of ${bm}×${bk}·${bk}×${bn}; C[7][0][0] = ${cs[7 * bm * bn].toFixed(3)}`);
}

main();
