// Matrices that stay on the GPU: a two-layer chain X·W1·W2 with no copies between the products, freed by
// `using` (or dispose()), and one download at the end. Operations on a Matrix run in the order they are issued,
// so the chain needs no await between its steps.
// In a project with cuda-matmul, typescript (5.2 or newer) and @types/node installed, on Node 20.4 or newer:
//   npx tsc --strict --target es2022 --module node16 matrix-chain.ts && node matrix-chain.js
// (test/packaging/examples.test.ts runs these two commands as written here.)
import { Matrix } from 'cuda-matmul';

const random = (length: number) => Float32Array.from({ length }, () => Math.random() - 0.5);

async function main(): Promise<void> {
  const [batch, inputs, hidden, outputs] = [64, 256, 512, 10];
  using W1 = await Matrix.from(random(inputs * hidden), inputs, hidden);
  using W2 = await Matrix.from(random(hidden * outputs), hidden, outputs);
  using X = await Matrix.from(random(batch * inputs), batch, inputs);
  const H = X.matmul(W1); // not awaited: the next step waits for it by itself
  using Y = await (await H).matmul(W2);
  (await H).dispose();
  const y = await Y.toArray();
  console.log(`Y is ${Y.rows}×${Y.cols} on ${Y.backend}; first row: ${Array.from(y.subarray(0, 3), (v) => v.toFixed(3)).join(', ')} …`);
}

main();
