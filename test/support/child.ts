// Runs a scenario script in a fresh Node process, so that a crash (abort, SIGSEGV, a V8 fatal error) is seen
// as the child's exit status instead of taking the test runner down.
import { spawnSync } from 'child_process';
import * as path from 'path';

export const packageRoot = path.join(__dirname, '..', '..');

export interface ChildResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  seconds: number;
}

/** A scenario script's text: `ROOT` names the package, so that `require(ROOT)` loads it. */
export const withRoot = (script: string) => `const ROOT = ${JSON.stringify(packageRoot)};\n${script}`;

/** Runs a command to its end (at most 2 minutes), with `env` added to this process's environment. */
export function runChild(command: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildResult {
  const started = performance.now();
  const result = spawnSync(command, args, { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 });
  return {
    status: result.status,
    signal: result.signal,
    output: `${result.stdout}${result.stderr}`,
    seconds: (performance.now() - started) / 1000,
  };
}

/** Runs `script` (CommonJS) with `require(ROOT)` available as the package; node flags first (e.g. --expose-gc). */
export function runScenario(script: string, flags: string[] = [], env: NodeJS.ProcessEnv = {}): ChildResult {
  return runChild(process.execPath, [...flags, '-e', withRoot(script)], env);
}

/** A readable failure message: what the child printed, and how it ended. */
export function describeChild(result: ChildResult): string {
  return `status ${result.status}, signal ${result.signal}, ${result.seconds.toFixed(2)} s\n${result.output.slice(-3000)}`;
}

/**
 * A gemm on Matrices with A and B held as given (Aᵀ, k×m, where transA; Bᵀ, n×k, where transB; U[-1,1]), C from
 * zeros (β = 0) or U[-1,1], α·A·B + β·C, in a fresh process, where no pool holds memory yet: how much the library's
 * device memory grew by during the call, and the result's relative error on four rows against a float64 sum.
 */
export function productGrowth(m: number, k: number, n: number, transA: boolean, transB: boolean, options: object = {}, alpha = 1, beta = 0): { grown: number; error: number } {
  const result = runScenario(`
    const { gemm, info, Matrix } = require(ROOT);
    const held = () => info().memory.deviceBytesInUse + info().memory.deviceBytesCached;
    (async () => {
      const [m, k, n, transA, transB, alpha, beta] = [${m}, ${k}, ${n}, ${transA}, ${transB}, ${alpha}, ${beta}];
      const random = (length) => Float32Array.from({ length }, () => Math.random() * 2 - 1);
      const a = random(m * k), b = random(k * n), c0 = beta === 0 ? new Float32Array(m * n) : random(m * n);
      const [A, B, C] = await Promise.all([
        Matrix.from(a, transA ? k : m, transA ? m : k), Matrix.from(b, transB ? n : k, transB ? k : n), Matrix.from(c0, m, n),
      ]);
      const before = held();
      await gemm({ a: A, b: B, c: C, m, k, n, transA, transB, alpha, beta }, ${JSON.stringify(options)});
      const grown = held() - before;
      const c = await C.toArray();
      const elementA = (i, p) => (transA ? a[p * m + i] : a[i * k + p]), elementB = (p, j) => (transB ? b[j * k + p] : b[p * n + j]);
      let diff = 0, norm = 0;
      for (const i of [0, 1, 511, m - 1]) for (let j = 0; j < n; j++) {
        let want = 0;
        for (let p = 0; p < k; p++) want += elementA(i, p) * elementB(p, j);
        want = alpha * want + beta * c0[i * n + j];
        diff += (c[i * n + j] - want) ** 2; norm += want ** 2;
      }
      console.log(JSON.stringify({ grown, error: Math.sqrt(diff / norm) }));
    })().catch((error) => { console.error(error); process.exit(1); });
  `);
  if (result.status !== 0) throw new Error(describeChild(result));
  return JSON.parse(result.output.trim().split('\n').pop() as string);
}
