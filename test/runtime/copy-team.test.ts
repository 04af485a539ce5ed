// The CUDA backend's host-copy team (native/cuda/transfer/host_copy.cpp) leases its threads from the core
// budget (native/core/core_budget.h). Neither needs a GPU, so this builds them with g++ and a driver
// (test/structure/native/copy_team_stress.cpp) that copies from 8 threads at once under ThreadSanitizer, with budgets of
// 1, 3 and 16 cores: every byte checked, no data race, no hang; and a helper's lease never waits for a core.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const root = path.join(__dirname, '..', '..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'copy-team-'));

/** Whether g++ builds and links a program with ThreadSanitizer here (its runtime, libtsan, is a package of its own). */
function threadSanitizerBuilds(): boolean {
  const probe = path.join(scratch, 'probe.cpp');
  fs.writeFileSync(probe, 'int main() { return 0; }\n');
  return spawnSync('g++', ['-fsanitize=thread', probe, '-o', path.join(scratch, 'probe')]).status === 0;
}
const buildable = threadSanitizerBuilds();

(buildable ? describe : describe.skip)(`host-copy team under the core budget${buildable ? '' : ' — SKIPPED, no g++ with ThreadSanitizer'}`, () => {
  const binary = path.join(scratch, 'stress');
  beforeAll(() => {
    const sources = ['test/structure/native/copy_team_stress.cpp', 'native/cuda/transfer/host_copy.cpp', 'native/core/core_budget.cpp',
      'native/core/scaled_sum.cpp', 'native/core/process_limits.cpp'];
    const build = spawnSync('g++', ['-std=c++20', '-O1', '-g', '-fsanitize=thread', '-pthread', '-I', 'native', ...sources, '-o', binary], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(build.stderr).toBe('');
    expect(build.status).toBe(0);
  });

  test.each([1, 3, 16])('%i cores: 8 threads copying at once, every byte right, no race', (cores) => {
    const run = spawnSync(binary, [], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, CUDA_MATMUL_CPU_THREADS: String(cores), CUDA_MATMUL_COPY_THREADS: '16', TSAN_OPTIONS: 'halt_on_error=1' },
    });
    expect(run.stderr).not.toMatch(/ThreadSanitizer/);
    expect(run.stdout).toBe('helper lease: right\nwrong copies: 0\n');
    expect(run.status).toBe(0);
  });
});
