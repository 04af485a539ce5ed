// Every example in examples/ runs by itself and ends (the CPU backend where no GPU is usable); the TypeScript
// ones are type-checked and compiled first; the README's quick start is examples/first-product.cjs, verbatim.
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const root = path.join(__dirname, '..', '..');
const examples = path.join(root, 'examples');
const EXPECTED: Record<string, RegExp> = {
  'first-product.cjs': /^C is 512×128 on (cuda|cpu); C\[0\]\[0\] = \d+\.\d{3}\n$/,
  'first-product.mjs': /^C is 512×128 on (cuda|cpu); C\[0\]\[0\] = \d+\.\d{3}\n$/,
  'gemm.cjs': /^C = 2·Aᵀ·B \+ C: (-?\d\.\d{3} ){5}-?\d\.\d{3}\n8 products of 16×32·32×8; C\[7\]\[0\]\[0\] = -?\d\.\d{3}\n$/,
  'allochost-pipeline.cjs': /^10 products of 512³ through page-locked arrays on (cuda|cpu): [\d.]+ ms each; out\[0\] = 9\n$/,
  'http-server.mjs': /^200 \[19,22,43,50\]\n200 \[32\]\n400 a: length 3 does not match m·k = 4\n$/,
  'search-server.mjs': /^200 \[\{"row":42,"score":1\}\]\n200 \[\{"row":42,"score":…\}\]\n400 queries: length 3 is not a whole number of rows of the corpus's 384 values\n$/,
  'worker-pool.cjs': /^C\[0\] of each job: 0 1 2 3 4 5 6 7 8\n$/,
  'matrix-chain.ts': /^Y is 64×10 on (cuda|cpu); first row: (-?\d+\.\d{3}, ){2}-?\d+\.\d{3} …\n$/,
};

// A TypeScript example says in its header how to compile and run it; the test runs that command as written, in a
// folder inside the package (so that 'cuda-matmul' resolves to it, and @types/node from its node_modules).
function compiledAsItsHeaderSays(name: string): string {
  const compiled = name.replace(/\.ts$/, '.js');
  const header = new RegExp(`^//   npx tsc (.+) ${name.replace('.', '\\.')} && node ${compiled.replace('.', '\\.')}$`, 'm');
  const flags = fs.readFileSync(path.join(examples, name), 'utf8').match(header)?.[1];
  if (!flags) throw new Error(`${name}: its header has no line '//   npx tsc … ${name} && node ${compiled}'`);
  const work = path.join(root, 'build-examples');
  fs.mkdirSync(work, { recursive: true });
  fs.copyFileSync(path.join(examples, name), path.join(work, name));
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), ...flags.split(' '), name], { cwd: work });
  return path.join(work, compiled);
}

test('every example is tested', () => {
  expect(fs.readdirSync(examples).sort()).toEqual(Object.keys(EXPECTED).sort());
});

test.each(Object.entries(EXPECTED))('%s runs and ends', (name, output) => {
  let script = path.join(examples, name);
  if (name.endsWith('.ts')) script = compiledAsItsHeaderSays(name);
  const result = spawnSync(process.execPath, [script], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout).toMatch(output);
});

// The shipped types (dist/*.d.ts) compile in a strict project of an older target, with @types/node or without it,
// and without skipLibCheck (README, "TypeScript").
test.each([
  ['es2020', []],
  ['es2020', ['node']],
  ['es2022', []],
])('the shipped types compile under target %s with types %j', (target, types) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cuda-matmul-types-'));
  fs.writeFileSync(path.join(dir, 'consumer.ts'), `import { Corpus, gemm, matmul, Matrix } from ${JSON.stringify(path.join(root, 'dist', 'index'))};
export async function use(): Promise<number> {
  const m = await Matrix.from(new Float32Array(4), 2, 2);
  m.dispose();
  void [Corpus, gemm];
  return (await matmul(new Float32Array(4), new Float32Array(4), { m: 2, k: 2, n: 2 }))[0];
}
`);
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target, module: 'commonjs', moduleResolution: 'node', types, typeRoots: [path.join(root, 'node_modules', '@types')] },
    files: ['consumer.ts'],
  }));
  const result = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
  expect(result.stdout + result.stderr).toBe('');
  expect(result.status).toBe(0);
});

test("the README's quick start is examples/first-product.cjs, verbatim", () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  expect(readme).toContain('```js\n' + fs.readFileSync(path.join(examples, 'first-product.cjs'), 'utf8') + '```');
});
