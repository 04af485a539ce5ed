// The quick start as an ES module, with top-level await.
//   node examples/first-product.mjs
import { matmul, info } from 'cuda-matmul';

const [m, k, n] = [512, 256, 128];
const a = Float32Array.from({ length: m * k }, () => Math.random());
const b = Float32Array.from({ length: k * n }, () => Math.random());
const c = await matmul(a, b, { m, k, n });
console.log(`C is ${m}×${n} on ${info().backend}; C[0][0] = ${c[0].toFixed(3)}`);
