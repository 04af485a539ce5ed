// info(): what 'auto' uses and why; the CPU-only build says it has no CUDA and still multiplies.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { info, matmul } from '../../lib';
import { hasGpu } from '../support/helpers';

const root = path.join(__dirname, '..', '..');

test('info() reports backend, devices and version, and a reason when CUDA is not used', () => {
  const result = info();
  expect(['cuda', 'cpu']).toContain(result.backend);
  expect(result.version).toBe(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version);
  expect(Array.isArray(result.devices)).toBe(true);
  expect(result.cpu.cores).toBeGreaterThanOrEqual(1);
  expect(result.cpu.cores).toBeLessThanOrEqual(os.availableParallelism()); // Node counts the affinity mask
  expect(result.cpu.threads).toBe(process.env.CUDA_MATMUL_CPU_THREADS ? Number(process.env.CUDA_MATMUL_CPU_THREADS) : Math.max(1, result.cpu.cores - 1));
  if (result.backend === 'cpu') expect(result.reason).toMatch(/driver|device|CUDA/);
  else {
    expect(result.devices.length).toBeGreaterThan(0);
    expect(result.devices[0]).toEqual(
      expect.objectContaining({ index: 0, name: expect.any(String), computeCapability: expect.stringMatching(/^\d+\.\d+$/) }),
    );
    expect(result.devices[0].totalMemory).toBeGreaterThan(0);
  }
});

(hasGpu ? test.skip : test)("without a usable GPU, backend 'cuda' rejects with the reason and 'auto' uses the CPU", async () => {
  const a = new Float32Array([1, 2]);
  await expect(matmul(a, a, { m: 1, k: 2, n: 1 }, { backend: 'cuda' })).rejects.toThrow(
    `backend 'cuda' was requested but CUDA is unavailable: ${info().reason}`,
  );
  expect(Array.from(await matmul(a, a, { m: 2, k: 1, n: 2 }))).toEqual([1, 2, 2, 4]);
});

test('the CPU-only build (CUDA_MATMUL_CPU_ONLY=1) says why it has no CUDA and still multiplies', () => {
  const addon = path.join(root, 'build-cpu-only', 'Release', 'cuda_matmul.node');
  expect(fs.existsSync(addon)).toBe(true); // built by `npm test` (build:native:cpu-only)
  const script = `
    const { info, matmulSync } = require(${JSON.stringify(path.join(root, 'dist'))});
    const c = matmulSync(new Float32Array([1, 2, 3]), new Float32Array([4, 5, 6]), { m: 1, k: 3, n: 1 });
    console.log(JSON.stringify({ info: info(), c: Array.from(c) }));`;
  const output = execFileSync(process.execPath, ['-e', script], { env: { ...process.env, CUDA_MATMUL_ADDON: addon } });
  const { info: cpuOnly, c } = JSON.parse(output.toString());
  expect(cpuOnly.backend).toBe('cpu');
  expect(cpuOnly.reason).toMatch(/no CUDA support \(nvcc was not found when it was compiled\)/);
  expect(c).toEqual([32]);
});
