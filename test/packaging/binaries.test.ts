// What every shipped linux binary asks of the system it loads on, read with objdump: glibc symbols no newer than
// 2.31 (Debian 11, Ubuntu 20.04), and nothing from the C++ or GCC runtime libraries (linked in), so that their
// version on the system does not matter (RHEL 9's libstdc++ stops at GLIBCXX_3.4.29).
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const prebuilds = path.join(__dirname, '..', '..', 'prebuilds');
const binaries = fs.readdirSync(prebuilds).flatMap((platform) =>
  fs.readdirSync(path.join(prebuilds, platform)).filter((f) => f.endsWith('.node')).map((f) => path.join(platform, f)));
const objdump = (flag: string, file: string) => execFileSync('objdump', [flag, path.join(prebuilds, file)]).toString();
const versionOf = (text: string) => text.split('.').map(Number).reduce((sum, part, i) => sum + part * 1000 ** (2 - i), 0);

test('the package ships a product addon and a driver probe for linux-x64 and linux-arm64', () => {
  expect(binaries.sort()).toEqual([
    'linux-arm64/cuda-matmul-cpu.node', 'linux-arm64/cuda-matmul-cuda12.node', 'linux-arm64/probe.node',
    'linux-x64/cuda-matmul-cuda12.node', 'linux-x64/cuda-matmul-cuda13.node', 'linux-x64/probe.node',
  ]);
  // Until it has run on an arm64 GPU, the arm64 CUDA build says so (info().binary.untested); the others do not.
  const untested = (platform: string) => Object.values(JSON.parse(fs.readFileSync(path.join(prebuilds, platform, 'variants.json'), 'utf8')))
    .filter((b: any) => b.untested).map((b: any) => `${b.variant}: ${b.untested}`);
  expect(untested('linux-arm64')).toEqual(['cuda12: built, but its CUDA path has not yet run on a linux-arm64 GPU']);
  expect(untested('linux-x64')).toEqual([]);
});

test.each(binaries)('%s needs glibc 2.31 at most, no GLIBCXX_, CXXABI_ or GCC_ version, and is never unloaded', (file) => {
  const symbols = objdump('-T', file);
  const glibc = [...new Set([...symbols.matchAll(/GLIBC_(\d+(?:\.\d+)*)/g)].map((m) => m[1]))];
  expect(glibc.length).toBeGreaterThan(0);
  expect(glibc.filter((v) => versionOf(v) > versionOf('2.31'))).toEqual([]);
  expect(symbols).not.toMatch(/GLIBCXX_|CXXABI_|\bGCC_\d/);
  const needed = [...objdump('-p', file).matchAll(/NEEDED\s+(\S+)/g)].map((m) => m[1]);
  expect(needed.filter((lib) => !/^(libc|libm|libdl|libpthread|librt|ld-linux-(x86-64|aarch64))\.so\.\d$/.test(lib))).toEqual([]);
  // Never unloaded (a Worker's end would otherwise unmap code V8 still calls: docs/architecture.md, "Shipped binaries").
  if (!file.endsWith('probe.node'))
    expect(execFileSync('readelf', ['-d', path.join(prebuilds, file)]).toString()).toMatch(/\(FLAGS_1\)\s+Flags: .*NODELETE/);
  const machine = execFileSync('readelf', ['-h', path.join(prebuilds, file)]).toString();
  expect(machine).toMatch(file.startsWith('linux-x64') ? /Machine:\s+Advanced Micro Devices X86-64/ : /Machine:\s+AArch64/);
});
