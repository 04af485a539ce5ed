// Real packaging: `npm pack` (prepack: tsc, and the shipped binaries, current from `npm test`), install the tarball
// into an empty project, then install it again from the lockfile with `npm ci` as a Dockerfile does, with only node
// and npm on PATH (no Python, no compiler, no nvcc): nothing is built and a shipped binary loads. Then require it,
// import it as ESM, type-check against its types, multiply, run its command and examples, and build it from source.
import { execFileSync, ExecFileSyncOptions } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const root = path.join(__dirname, '..', '..');
// The GPU host has no npm registry to install the tarball's dependencies from.
const registryUnavailable = process.env.CUDA_MATMUL_NO_REGISTRY === '1';
const packageTest = registryUnavailable ? test.skip : test;

function run(command: string, args: string[], options: ExecFileSyncOptions): string {
  return execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options }).toString();
}

packageTest(
  registryUnavailable
    ? 'npm pack + install — SKIPPED: CUDA_MATMUL_NO_REGISTRY=1 (no npm registry here)'
    : 'npm pack, install the tarball into an empty project, require, import, type-check, multiply',
  () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cuda-matmul-pack-'));
    // Pack from a copy of the tracked files, so the build of the checkout under test is left alone.
    const source = path.join(work, 'source');
    for (const file of run('git', ['ls-files'], { cwd: root }).split('\n').filter(Boolean)) {
      fs.mkdirSync(path.dirname(path.join(source, file)), { recursive: true });
      fs.copyFileSync(path.join(root, file), path.join(source, file));
    }
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(source, 'node_modules'));
    // The binaries `npm test` built, with their fingerprints: prepack finds them current and compiles nothing
    // (scripts/build-addon.js); from a checkout without them, prepack builds them.
    fs.cpSync(path.join(root, 'prebuilds'), path.join(source, 'prebuilds'), { recursive: true });
    for (const built of fs.readdirSync(path.join(root, 'build-objects'))) {
      fs.mkdirSync(path.join(source, 'build-objects', built), { recursive: true });
      fs.copyFileSync(path.join(root, 'build-objects', built, 'fingerprint'), path.join(source, 'build-objects', built, 'fingerprint'));
    }
    const tarball = run('npm', ['pack', '--silent', '--pack-destination', work], { cwd: source }).trim().split('\n').pop()!;
    const listing = run('tar', ['-tzf', path.join(work, tarball)], {}).split('\n');
    const shippedBinaries = listing.filter((f) => f.startsWith('package/prebuilds/')).sort();
    expect(shippedBinaries).toEqual([
      'package/prebuilds/linux-arm64/cuda-matmul-cpu.node', 'package/prebuilds/linux-arm64/cuda-matmul-cuda12.node',
      'package/prebuilds/linux-arm64/probe.node', 'package/prebuilds/linux-arm64/variants.json',
      'package/prebuilds/linux-x64/cuda-matmul-cuda12.node', 'package/prebuilds/linux-x64/cuda-matmul-cuda13.node',
      'package/prebuilds/linux-x64/probe.node', 'package/prebuilds/linux-x64/variants.json',
    ]);
    expect(listing).toContain('package/dist/index.d.ts');
    // No build file at the package's root: npm adds `node-gyp rebuild` as the install script of a package with a
    // binding.gyp there, and records it in lockfiles (hasInstallScript), whatever the package.json says.
    expect(listing.filter((f) => /^package\/[^/]*(binding\.gyp|CMakeLists\.txt)$/.test(f))).toEqual([]);
    const packedMiB = fs.statSync(path.join(work, tarball)).size / 2 ** 20;
    console.log(`packed size: ${packedMiB.toFixed(1)} MiB (${shippedBinaries.length} files under prebuilds/)`);
    expect(packedMiB).toBeLessThan(40);

    const app = path.join(work, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
    run('npm', ['install', '--no-audit', '--no-fund', path.join(work, tarball)], { cwd: app });
    const lock = JSON.parse(fs.readFileSync(path.join(app, 'package-lock.json'), 'utf8'));
    expect(lock.packages['node_modules/cuda-matmul']).not.toHaveProperty('hasInstallScript');

    // The lockfile install, as a Dockerfile or CI runs it, on a PATH with node and npm alone.
    fs.rmSync(path.join(app, 'node_modules'), { recursive: true });
    const onlyNode = path.join(work, 'only-node-and-npm');
    fs.mkdirSync(onlyNode);
    fs.symlinkSync(process.execPath, path.join(onlyNode, 'node'));
    fs.symlinkSync(fs.realpathSync(execFileSync('sh', ['-c', 'command -v npm']).toString().trim()), path.join(onlyNode, 'npm'));
    const bare = { ...process.env, PATH: onlyNode };
    const ci = execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--foreground-scripts'], { cwd: app, env: bare, stdio: ['ignore', 'pipe', 'pipe'] });
    expect(ci.toString()).not.toMatch(/node-gyp|install-scripts|gyp/);
    expect(fs.existsSync(path.join(app, 'node_modules', 'cuda-matmul', 'build'))).toBe(false);
    const loaded = JSON.parse(run(process.execPath, ['-e', `
      const { matmulSync, info } = require('cuda-matmul');
      const c = matmulSync(new Float32Array([1, 2, 3, 4]), new Float32Array([5, 6, 7, 8]), { m: 2, k: 2, n: 2 });
      console.log(JSON.stringify({ c: Array.from(c), binary: info().binary }));`], { cwd: app, env: bare }));
    expect(loaded.c).toEqual([19, 22, 43, 50]);
    expect(loaded.binary).toEqual(expect.objectContaining({ origin: 'shipped', variant: expect.stringMatching(/^cuda1[23]$/) }));
    expect(loaded.binary.path).toBe(path.join(fs.realpathSync(app), 'node_modules', 'cuda-matmul', 'prebuilds', 'linux-x64', `cuda-matmul-${loaded.binary.variant}.node`));

    // pnpm, on the same bare PATH: it too builds nothing, and a shipped binary loads.
    const pnpmApp = path.join(work, 'pnpm-app');
    fs.mkdirSync(pnpmApp);
    fs.writeFileSync(path.join(pnpmApp, 'package.json'), JSON.stringify({ name: 'pnpm-app', version: '1.0.0', private: true }));
    fs.symlinkSync(path.join(root, 'node_modules', 'pnpm', 'bin', 'pnpm.cjs'), path.join(onlyNode, 'pnpm'));
    const pnpm = execFileSync('pnpm', ['add', '--store-dir', path.join(work, 'pnpm-store'), path.join(work, tarball)],
      { cwd: pnpmApp, env: bare, stdio: ['ignore', 'pipe', 'pipe'] });
    expect(pnpm.toString()).not.toMatch(/gyp|Ignored build scripts/);
    const viaPnpm = JSON.parse(run(process.execPath, ['-e', `
      const { matmulSync, info } = require('cuda-matmul');
      const c = matmulSync(new Float32Array([1, 2]), new Float32Array([3, 4]), { m: 1, k: 2, n: 1 });
      console.log(JSON.stringify({ c: Array.from(c), binary: info().binary, built: require('fs').existsSync(require('path').join(
        require.resolve('cuda-matmul/package.json'), '..', 'build')) }));`], { cwd: pnpmApp, env: bare }));
    expect(viaPnpm).toEqual({ c: [11], binary: expect.objectContaining({ origin: 'shipped' }), built: false });
    // The platform floor is declared, so npm refuses the install where the package cannot run.
    const manifest = JSON.parse(fs.readFileSync(path.join(app, 'node_modules', 'cuda-matmul', 'package.json'), 'utf8'));
    expect([manifest.os, manifest.cpu, manifest.libc]).toEqual([['linux'], ['x64', 'arm64'], ['glibc']]);

    const cjs = run(process.execPath, ['-e', `
      const { matmulSync, info } = require('cuda-matmul');
      const c = matmulSync(new Float32Array([1, 2, 3, 4]), new Float32Array([5, 6, 7, 8]), { m: 2, k: 2, n: 2 });
      console.log(JSON.stringify({ c: Array.from(c), backend: info().backend }));`], { cwd: app });
    expect(JSON.parse(cjs).c).toEqual([19, 22, 43, 50]);

    // The command-line entry, as a user runs it from the project.
    const state = JSON.parse(run('npx', ['--no-install', 'cuda-matmul', 'info', '--json'], { cwd: app }));
    expect(['cuda', 'cpu']).toContain(state.backend);
    run('npx', ['--no-install', 'cuda-matmul', 'bench', '--sizes', '32,64', '--backend', 'cpu', '--svg', 'chart.svg'], { cwd: app });
    expect(fs.readFileSync(path.join(app, 'chart.svg'), 'utf8')).toMatch(/^<svg [^]*<polyline [^]*<\/svg>\n$/);

    fs.writeFileSync(path.join(app, 'esm.mjs'), `
      import { matmul } from 'cuda-matmul';
      const c = await matmul(new Float32Array([1, 2]), new Float32Array([3, 4]), { m: 1, k: 2, n: 1 });
      console.log(c[0]);`);
    expect(run(process.execPath, ['esm.mjs'], { cwd: app }).trim()).toBe('11');

    fs.writeFileSync(path.join(app, 'typed.ts'), `
      import { matmul, info, MatmulOptions } from 'cuda-matmul';
      const options: MatmulOptions = { backend: 'cpu', precision: 'fp32' };
      const result: Promise<Float32Array> = matmul(new Float32Array(1), new Float32Array(1), { m: 1, k: 1, n: 1 }, options);
      const backend: 'cuda' | 'cpu' = info().backend;
      export { result, backend };`);
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    run(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'node16', '--moduleResolution', 'node16', '--types', 'node',
      '--typeRoots', path.join(root, 'node_modules', '@types'), 'typed.ts'], { cwd: app });
    // The examples, run against the installed package (the TypeScript one compiled against its shipped types).
    for (const example of fs.readdirSync(path.join(root, 'examples'))) {
      fs.copyFileSync(path.join(root, 'examples', example), path.join(app, example));
      let script = example;
      if (example.endsWith('.ts')) {
        run(process.execPath, [tsc, '--strict', '--target', 'es2022', '--module', 'node16', '--moduleResolution', 'node16',
          '--types', 'node', '--typeRoots', path.join(root, 'node_modules', '@types'), example], { cwd: app });
        script = example.replace(/\.ts$/, '.js');
      }
      expect(run(process.execPath, [script], { cwd: app })).toMatch(/\S/);
    }

    // The shipped types resolve for every module system, and the package lints clean.
    const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
    const attw = run(bin('attw'), [path.join(work, tarball), '--format', 'json'], { cwd: work });
    expect(JSON.parse(attw).analysis.problems).toEqual([]);
    const installed = path.join(app, 'node_modules', 'cuda-matmul');
    expect(run(bin('publint'), ['--strict', '--pack', 'false', installed], { cwd: work })).toMatch(/All good!/);
    const shipped = run('tar', ['-tzf', path.join(work, tarball)], {}).split('\n').filter((f) => f.endsWith('.d.ts'));
    expect(shipped.sort()).toEqual(['dist/corpus.d.ts', 'dist/gemm.d.ts', 'dist/index.d.ts', 'dist/matrix.d.ts', 'dist/types.d.ts'].map((f) => `package/${f}`));
    expect(fs.readFileSync(path.join(installed, 'dist', 'matrix.d.ts'), 'utf8')).not.toMatch(/handle\(|gemmOnMatrices/);

    // A source build is one command (CPU-only here, to keep the suite short), and info() says a local build loads.
    run('npx', ['--no-install', 'cuda-matmul', 'build-from-source'], { cwd: app, env: { ...process.env, CUDA_MATMUL_CPU_ONLY: '1' } });
    const local = JSON.parse(run('npx', ['--no-install', 'cuda-matmul', 'info', '--json'], { cwd: app }));
    expect(local.binary).toEqual(expect.objectContaining({ origin: 'local build', variant: 'local', cudaRuntime: null }));
    expect(local.reason).toMatch(/no CUDA support/);
    fs.rmSync(work, { recursive: true, force: true });
  },
);
