// The README's quick start: one product of random matrices, on the GPU when one is usable, else on the CPU.
//   node examples/first-product.cjs
const { matmul, info } = require('cuda-matmul');

async function main() {
  const [m, k, n] = [512, 256, 128];
  const a = Float32Array.from({ length: m * k }, () => Math.random()); // m×k, row-major
  const b = Float32Array.from({ length: k * n }, () => Math.random()); // k×n
  const c = await matmul(a, b, { m, k, n }); // m×n, off the JavaScript thread
  console.log(`C is ${m}×${n} on ${info().backend}; C[0][0] = ${c[0].toFixed(3)}`);
}

main();
