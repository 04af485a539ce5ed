// The plan needs no GPU: this builds test/structure/native/plan_splits.cpp with g++ against the CUDA headers and checks every
// split of K it prints over 5 000 shapes (native/cuda/kernels/choose.h, KernelPlan::splitFor: slices that cover K, no
// deeper than the kernel's slice depth, at least as many as fill the SMs) and plans empty products without a crash;
// and test/structure/native/auto_rules.cpp, 'auto''s rules as a row per device (auto_rules.h).
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const root = path.join(__dirname, '..', '..');

/** The CUDA toolkit's headers: under CUDA_PATH, or beside the nvcc on PATH; null where neither has them. */
function cudaIncludeDir(): string | null {
  const nvcc = spawnSync('sh', ['-c', 'command -v nvcc'], { encoding: 'utf8' }).stdout.trim();
  const candidates = [process.env.CUDA_PATH, nvcc && path.dirname(path.dirname(fs.realpathSync(nvcc))), '/usr/local/cuda'];
  for (const dir of candidates)
    if (dir && fs.existsSync(path.join(dir, 'include', 'cuda_runtime.h'))) return path.join(dir, 'include');
  return null;
}
const cudaInclude = cudaIncludeDir();
const gxx = spawnSync('g++', ['--version']).status === 0;
const missing = [gxx ? '' : 'g++', cudaInclude ? '' : 'CUDA headers (cuda_runtime.h)'].filter(Boolean).join(', ');

/** Builds test/structure/native/`source` with g++ (-O0: an optimizer may drop a division by zero whose result goes unused), runs it. */
function buildAndRun(source: string) {
  const binary = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'plan-')), path.basename(source, '.cpp'));
  const build = spawnSync('g++', ['-std=c++20', '-O0', '-Wall', '-Wextra', '-I', 'native', '-I', cudaInclude!, `test/structure/native/${source}`, '-o', binary], {
    cwd: root,
    encoding: 'utf8',
  });
  expect(build.stderr).toBe('');
  expect(build.status).toBe(0);
  return spawnSync(binary, [], { encoding: 'utf8', timeout: 60_000 });
}

(missing ? describe.skip : describe)(`the plan without a GPU${missing ? ` — SKIPPED, no ${missing}` : ''}`, () => {
  test('slices cover K, keep to the slice depth and fill the SMs', () => {
    const run = buildAndRun('plan_splits.cpp');
    expect(run.signal).toBeNull(); // a crash in the plan (SIGFPE: a division by zero tiles) takes the process down
    expect(run.stdout).toMatch(/^shapes: \d{4,}$/m);
    expect(run.stdout.split('\n').filter((line) => line && !/^(shapes|wrong):/.test(line))).toEqual([]);
    expect(run.stdout).toMatch(/^wrong: 0$/m);
    expect(run.status).toBe(0);
  });

  test("'auto''s rules are a row per device: found for the device, the H100's measured choices, read by the rules", () => {
    const run = buildAndRun('auto_rules.cpp');
    expect(run.stdout.split('\n').filter((line) => line && !/^wrong:/.test(line))).toEqual([]);
    expect(run.stdout).toMatch(/^wrong: 0$/m);
    expect(run.status).toBe(0);
  });
});
