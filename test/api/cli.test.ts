// The `cuda-matmul` command (lib/cli.ts, built to dist/cli.js): info, demo and bench with a chart, on whatever
// backend this machine has; bad arguments are one line and the usage, with exit status 2 and no stack trace.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const cli = path.join(__dirname, '..', '..', 'dist', 'cli.js');
const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const run = (...args: string[]) => {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
};

test('info --json describes the backend, the version and the binary loaded; info says which binary and why', () => {
  const { status, stdout } = run('info', '--json');
  expect(status).toBe(0);
  const info = JSON.parse(stdout);
  expect(['cuda', 'cpu']).toContain(info.backend);
  expect(info.version).toBe(JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')).version);
  expect(info.binary).toEqual(expect.objectContaining({ origin: 'shipped', variant: expect.stringMatching(/^cuda1[23]$/) }));
  const text = run('info').stdout;
  expect(text).toContain(`binary: ${info.binary.variant} (shipped; CUDA runtime ${info.binary.cudaRuntime}, sm_75, sm_80`);
  expect(text).toContain(`${info.binary.path}\nchosen because: ${info.binary.choice}`);
  expect(text).toContain(`cpu: ${info.cpu.cores} cores usable, at most ${info.cpu.threads} kept busy by the library`);
  if (info.backend === 'cpu') expect(text).toMatch(/CUDA is not used: .+\nTo use a GPU: /);
});

test('demo multiplies on the best backend and checks the product against float64', () => {
  const { status, stdout } = run('demo', '300x200x100');
  expect(status).toBe(0);
  expect(stdout).toMatch(/^300×200×100 on (cuda on .+|cpu): [0-9.]+ ms/);
  const error = Number(/relative error against a float64 reference \(32 rows\): ([0-9.e+-]+)/.exec(stdout)?.[1]);
  expect(error).toBeLessThan(1e-5);
});

test('bench prints a table and writes an SVG chart with axes, a line per configuration and a legend', () => {
  const svg = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cuda-matmul-cli-')), 'chart.svg');
  const { status, stdout, stderr } = run('bench', '--sizes', '32,64', '--backend', 'cpu', '--svg', svg);
  expect(status).toBe(0);
  expect(stdout).toMatch(/^cpu\s+32³\s+[0-9.]+\s+[0-9.]+$/m);
  expect(stderr).toContain('[2/2] done'); // progress, as plain lines when not on a terminal
  const chart = fs.readFileSync(svg, 'utf8');
  expect(chart).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  expect(chart).toContain('TFLOP/s (higher is better)');
  expect(chart).toContain('matrix size');
  expect(chart.match(/<polyline /g)).toHaveLength(1);
  expect(chart).toContain('>cpu</text>');
  expect(chart.trim().endsWith('</svg>')).toBe(true);
  // The y axis's labels reach past the data; the x axis says it is logarithmic; the chart names the machine and date.
  const measured = Math.max(...[...stdout.matchAll(/^cpu\s+\d+³\s+[0-9.]+\s+([0-9.]+)$/gm)].map((m) => Number(m[1])));
  const labels = [...chart.matchAll(/text-anchor="end">([0-9.e-]+)<\/text>/g)].map((m) => Number(m[1]));
  expect(Math.max(...labels)).toBeGreaterThanOrEqual(measured);
  expect(chart).toContain('logarithmic');
  expect(chart).toContain(escapeXml(os.cpus()[0].model.trim()));
  expect(chart).toContain(new Date().toISOString().slice(0, 10));
});

test('bench --json gives one measurement per size and configuration', () => {
  const { status, stdout } = run('bench', '--sizes', '16,32', '--backend', 'cpu', '--json');
  expect(status).toBe(0);
  const results = JSON.parse(stdout);
  expect(results.map((r: { size: number }) => r.size)).toEqual([16, 32]);
  for (const r of results) expect(r.tflops).toBeGreaterThan(0);
});

test.each([
  [['frobnicate'], /^cuda-matmul: unknown command 'frobnicate'\nusage: cuda-matmul/],
  [['demo', '12x3'], /^cuda-matmul: shape: expected MxKxN such as 512x256x128, got '12x3'\nusage:/],
  [['demo', '2x0x3'], /^cuda-matmul: k: expected a positive integer, got '0'\nusage:/],
  [['bench', '--sizes', '64,big'], /^cuda-matmul: sizes: expected a positive integer, got 'big'\nusage:/],
  [['bench', '--backend', 'gpu'], /^cuda-matmul: backend: expected one of cuda, cpu, got 'gpu'\nusage:/],
  [['bench', '--sizes', '64,,128'], /^cuda-matmul: sizes: expected a positive integer, got ''\nusage:/],
  [['bench', '--backend', 'cpu,'], /^cuda-matmul: backend: expected one of cuda, cpu, got ''\nusage:/],
  [['info', '--colour'], /^cuda-matmul: Unknown option '--colour'/],
])('%j: one line, the usage, exit status 2', (args, message) => {
  const { status, stderr } = run(...(args as string[]));
  expect(status).toBe(2);
  expect(stderr).toMatch(message);
  expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
});

test('--version and -v print the version, exit status 0', () => {
  const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
  for (const flag of ['--version', '-v']) {
    const { status, stdout, stderr } = run(flag);
    expect([status, stdout, stderr]).toEqual([0, `cuda-matmul ${version}\n`, '']);
  }
});

// Without a GPU, asking for the CUDA backend is an error that says why, before any timing; with one, it times it.
(require('../../lib').info().backend === 'cuda' ? test.skip : test)('bench --backend cuda without a usable GPU: why, exit status 1, nothing timed', () => {
  const { status, stdout, stderr } = run('bench', '--sizes', '16', '--backend', 'cuda');
  expect(status).toBe(1);
  expect(stdout).toBe('');
  expect(stderr).toMatch(/^cuda-matmul: backend cuda: CUDA is not usable here \(.+\); run 'cuda-matmul info' for what to do\n$/);
});
