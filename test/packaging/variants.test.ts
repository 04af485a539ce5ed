// Which shipped binary loads for which NVIDIA driver, with no GPU: a stand-in libcuda.so.1, built here from a few
// lines of C, reports the driver's CUDA version to the driver probe and to the CUDA runtime in the binary, and has
// no device. Each case runs in a child process (the loader runs once per process), as a user's process would.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const root = path.join(__dirname, '..', '..');
const shipped = path.join(root, 'prebuilds', `${process.platform}-${process.arch}`);
const variants = JSON.parse(fs.readFileSync(path.join(shipped, 'variants.json'), 'utf8'));

// cuInit says no device (CUDA_ERROR_NO_DEVICE, 100): the runtime stops there, whatever else it would look up.
const standIn = `
#include <stdlib.h>
int cuDriverGetVersion(int* version) { *version = atoi(getenv("STAND_IN_DRIVER_CUDA")); return 0; }
int cuInit(unsigned int flags) { (void)flags; return 100; }
`;

let driverDir: string;
beforeAll(() => {
  driverDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cuda-matmul-stand-in-'));
  fs.writeFileSync(path.join(driverDir, 'libcuda.c'), standIn);
  execFileSync('cc', ['-shared', '-fPIC', '-o', path.join(driverDir, 'libcuda.so.1'), path.join(driverDir, 'libcuda.c')]);
});
afterAll(() => fs.rmSync(driverDir, { recursive: true, force: true }));

function loadWith(env: Record<string, string>): { info: Record<string, any>; c: number[] } {
  const script = `
    const { info, matmulSync } = require(${JSON.stringify(path.join(root, 'dist'))});
    const c = matmulSync(new Float32Array([1, 2, 3, 4]), new Float32Array([5, 6, 7, 8]), { m: 2, k: 2, n: 2 });
    console.log(JSON.stringify({ info: info(), c: Array.from(c) }));`;
  // The loader's other inputs are left out: each case is a user's process with only what the case sets.
  const childEnv: Record<string, string | undefined> = { ...process.env };
  delete childEnv.CUDA_MATMUL_ADDON;
  delete childEnv.CUDA_MATMUL_VARIANT;
  Object.assign(childEnv, env);
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { env: childEnv as NodeJS.ProcessEnv }).toString());
}

const standInDriver = (driverCuda: number) => ({ LD_LIBRARY_PATH: driverDir, STAND_IN_DRIVER_CUDA: String(driverCuda) });

test(`linux-x64 ships a CUDA 13 and a CUDA 12 variant, each saying what it is`, () => {
  expect(process.platform === 'linux' && process.arch === 'x64').toBe(true);
  expect(variants.cuda13).toEqual(expect.objectContaining({ file: 'cuda-matmul-cuda13.node', cudaRuntime: '13.0', minimumDriverCuda: 13000 }));
  expect(variants.cuda12).toEqual(expect.objectContaining({ file: 'cuda-matmul-cuda12.node', cudaRuntime: '12.4', minimumDriverCuda: 12000 }));
  expect(variants.cuda13.architectures).toEqual(['75', '80', '86', '89', '90a', '100', '120']);
  expect(variants.cuda12.architectures).toEqual(['75', '80', '86', '89', '90a']);
});

test.each([
  [13000, 'cuda13', 'CUDA 13.0'],
  [13010, 'cuda13', 'CUDA 13.1'],
  [12080, 'cuda12', 'CUDA 12.8'],
  [12040, 'cuda12', 'CUDA 12.4'],
  [12000, 'cuda12', 'CUDA 12.0'],
])('a driver supporting CUDA %i loads the %s variant, which reaches the driver', (driverCuda, variant, driverText) => {
  const { info, c } = loadWith(standInDriver(driverCuda));
  expect(info.binary).toEqual(expect.objectContaining({ variant, origin: 'shipped', driverCuda: driverText.slice(5) }));
  expect(info.binary.choice).toBe(`the driver supports ${driverText}`);
  expect(info.binary.path).toBe(path.join(shipped, `cuda-matmul-${variant}.node`));
  // The runtime went past the driver-version check to cuInit, which found no device.
  expect(info.backend).toBe('cpu');
  expect(info.reason).not.toMatch(/driver/);
  expect(c).toEqual([19, 22, 43, 50]);
});

test('a driver of CUDA 11.8 (branch 520; CUDA 12 needs 525) loads the CUDA 12 variant, which runs on the CPU and names both versions', () => {
  const { info, c } = loadWith(standInDriver(11080));
  expect(info.binary.variant).toBe('cuda12');
  expect(info.binary.choice).toBe("the driver supports CUDA 11.8: no variant's CUDA runs on it, so this one runs on the CPU");
  expect(info.backend).toBe('cpu');
  expect(info.reason).toMatch(/^the NVIDIA driver (\d\S* )?found supports CUDA 11\.8, but cuda-matmul needs CUDA 12\.0 or newer: driver 525 or newer$/);
  expect(c).toEqual([19, 22, 43, 50]);
});

test('with no driver at all, the CUDA 12 variant runs on the CPU and says no driver was found', () => {
  const { info, c } = loadWith({ LD_LIBRARY_PATH: path.join(driverDir, 'nowhere') });
  if (info.binary.driverCuda !== null) return void expect(info.binary.driverCuda).toMatch(/^\d+\.\d+$/); // a real driver here
  expect(info.binary.variant).toBe('cuda12');
  expect(info.binary.choice).toMatch(/^no NVIDIA driver was found \(libcuda\.so\.1: cannot open shared object file.*\), so this one runs on the CPU$/);
  expect(info.reason).toMatch(/^no NVIDIA driver was found/);
  expect(c).toEqual([19, 22, 43, 50]);
});

test('CUDA_MATMUL_VARIANT forces a variant; an unknown one, or a CUDA_MATMUL_ADDON that does not load, is a clear load error', () => {
  const { info } = loadWith({ ...standInDriver(13000), CUDA_MATMUL_VARIANT: 'cuda12' });
  expect(info.binary).toEqual(expect.objectContaining({ variant: 'cuda12', choice: 'CUDA_MATMUL_VARIANT=cuda12 (driver: CUDA 13.0)' }));
  expect(() => loadWith({ CUDA_MATMUL_VARIANT: 'cuda11' })).toThrow(/CUDA_MATMUL_VARIANT=cuda11: linux-x64 ships cuda13, cuda12/);
  // Never another binary in the named one's place.
  expect(() => loadWith({ CUDA_MATMUL_ADDON: '/nowhere/cuda-matmul.node' })).toThrow(
    /could not load its native addon[^]*CUDA_MATMUL_ADDON \/nowhere\/cuda-matmul\.node: Cannot find module/);
});
