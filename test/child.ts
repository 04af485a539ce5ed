// Runs a scenario script in a fresh Node process, so that a crash (abort, SIGSEGV, a V8 fatal error) is seen
// as the child's exit status instead of taking the test runner down.
import { spawnSync } from 'child_process';
import * as path from 'path';

export const packageRoot = path.join(__dirname, '..');

export interface ChildResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  seconds: number;
}

/** Runs `script` (CommonJS) with `require(ROOT)` available as the package; node flags first (e.g. --expose-gc). */
export function runScenario(script: string, flags: string[] = [], env: NodeJS.ProcessEnv = {}): ChildResult {
  const started = performance.now();
  const result = spawnSync(process.execPath, [...flags, '-e', `const ROOT = ${JSON.stringify(packageRoot)};\n${script}`], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  return {
    status: result.status,
    signal: result.signal,
    output: `${result.stdout}${result.stderr}`,
    seconds: (performance.now() - started) / 1000,
  };
}

/** A readable failure message: what the child printed, and how it ended. */
export function describeChild(result: ChildResult): string {
  return `status ${result.status}, signal ${result.signal}, ${result.seconds.toFixed(2)} s\n${result.output.slice(-3000)}`;
}
