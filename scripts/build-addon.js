#!/usr/bin/env node
// Builds one product addon and the driver probe from native/sources.json: every source compiled (in parallel) and
// linked with the C++ and GCC runtimes inside, so the binary needs no GLIBCXX_ version of the machine it runs on.
// scripts/build-prebuilds.sh runs it inside a Debian bullseye root for every binary the package ships
// (docs/architecture.md, "Shipped binaries"); `npx cuda-matmul build-from-source` runs it for a local build.
//
//   node scripts/build-addon.js --variant cuda13|cuda12|cpu|local --out DIR [--target linux-x64|linux-arm64]
//        [--in-root ROOT] [--nvcc PATH --cuda-include DIR --cuda-lib DIR] [--node-headers DIR]
//
// DIR receives cuda-matmul-<variant>.node (cuda-matmul.node for 'local'), probe.node, and variants.json, which
// says what each binary there is (the loader reads it). --in-root runs every compiler through chroot(1) in ROOT,
// where this checkout, Node's headers and the CUDA toolkits are mounted at the paths they have here. A binary is
// rebuilt only when what it is built from changed (a fingerprint beside its objects); FORCE_BUILD=1 rebuilds.
'use strict';
const { execFileSync, spawn } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.join(__dirname, '..');
const config = JSON.parse(fs.readFileSync(path.join(root, 'native', 'sources.json'), 'utf8'));

function parseArguments(argv) {
  const options = { target: `${process.platform}-${process.arch}` };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i].replace(/^--/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined) throw new Error(`build-addon: bad argument '${argv[i]}'`);
    options[name] = argv[i + 1];
  }
  if (!options.variant || !options.out) throw new Error('build-addon: --variant and --out are required');
  return options;
}

function isFile(file) {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

// A source build's CUDA toolkit: CUDA_PATH / CUDA_HOME, /usr/local/cuda, or the one nvcc on PATH belongs to.
function localToolkit() {
  if (process.env.CUDA_MATMUL_CPU_ONLY === '1') return null;
  const onPath = (process.env.PATH || '').split(path.delimiter).map((dir) => path.join(dir, 'nvcc')).find(isFile);
  const candidates = [process.env.CUDA_PATH, process.env.CUDA_HOME, '/usr/local/cuda'];
  if (onPath) candidates.push(path.dirname(path.dirname(fs.realpathSync(onPath))));
  const found = candidates.find((dir) => dir && isFile(path.join(dir, 'bin', 'nvcc')) && isFile(path.join(dir, 'lib64', 'libcudart_static.a')));
  return found ? { nvcc: path.join(found, 'bin', 'nvcc'), include: path.join(found, 'include'), lib: path.join(found, 'lib64') } : null;
}

// What to build with: compilers for the target, and the CUDA toolkit the variant links (none for 'cpu').
function toolchain(options) {
  const cross = options.target === 'linux-arm64' && process.arch !== 'arm64' ? 'aarch64-linux-gnu-' : '';
  const cuda = options.nvcc
    ? { nvcc: options.nvcc, include: options.cudaInclude, lib: options.cudaLib }
    : options.variant === 'cpu' ? null : localToolkit();
  if (!cuda && options.variant !== 'local' && options.variant !== 'cpu')
    throw new Error(`build-addon: variant ${options.variant} needs a CUDA toolkit (--nvcc, --cuda-include, --cuda-lib)`);
  const archs = options.variant === 'local'
    ? (process.env.CUDA_MATMUL_ARCHS ? process.env.CUDA_MATMUL_ARCHS.split(/[;, ]+/).filter(Boolean) : config.variants.cuda13.cudaArchitectures)
    : config.variants[options.variant].cudaArchitectures;
  if (!archs) throw new Error(`build-addon: unknown variant '${options.variant}'`);
  return {
    crossArm64: cross !== '',
    cxx: options.cxx || `${cross}g++`,
    cc: options.cc || `${cross}gcc`,
    cuda,
    archs: cuda ? archs : [],
    nodeHeaders: options.nodeHeaders || path.resolve(process.execPath, '..', '..', 'include', 'node'),
    addonApi: path.dirname(require.resolve('node-addon-api/package.json')),
  };
}

// A command as run in the build root (chroot, same working directory) or here.
function inRoot(options, command) {
  return options.inRoot ? ['chroot', options.inRoot, '/bin/sh', '-c', 'cd "$0" && exec "$@"', root, ...command] : command;
}

function capture(options, command) {
  const [file, ...args] = inRoot(options, command);
  return execFileSync(file, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
}

// Machine code for every architecture, plus PTX of the newest without an 'a' (arch-specific code such as wgmma's
// has no PTX that later GPUs could compile), so GPUs newer than the list still run every other kernel.
function gencodeFlags(archs) {
  const portable = archs.filter((arch) => !arch.endsWith('a'));
  const ptx = portable[portable.length - 1];
  return [...archs.map((arch) => `-gencode=arch=compute_${arch},code=sm_${arch}`), ...(ptx ? [`-gencode=arch=compute_${ptx},code=compute_${ptx}`] : [])];
}

function compileCommands(options, tools, objects) {
  const defines = [...config.defines, ...(tools.archs.includes('90a') ? ['CUDA_MATMUL_WGMMA'] : [])].map((d) => `-D${d}`);
  const includes = [path.join(root, 'native'), tools.addonApi, tools.nodeHeaders, ...(tools.cuda ? [tools.cuda.include] : [])].map((d) => `-I${d}`);
  const sources = [...config.common, ...(tools.cuda ? config.cuda : config.withoutCuda)];
  return sources.map((source) => {
    const object = path.join(objects, source.replace(/[/.]/g, '_') + '.o');
    const input = path.join(root, source);
    const command = source.endsWith('.cu')
      ? [tools.cuda.nvcc, `-std=c++${config.cudaStandard}`, ...includes, ...defines, ...config.nvccFlags, ...gencodeFlags(tools.archs),
          ...(tools.crossArm64 ? ['-ccbin', tools.cxx, '--target-directory', 'sbsa-linux'] : []), '-c', input, '-o', object]
      : [tools.cxx, `-std=gnu++${config.cxxStandard}`, ...config.cxxFlags, '-fPIC', '-fexceptions', '-frtti', ...includes, ...defines, '-c', input, '-o', object];
    return { source, object, command };
  });
}

// Runs a compiler; `what` names its work in the error if it fails.
function run(options, command, what) {
  const [file, ...args] = inRoot(options, command);
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`build-addon: ${path.basename(command[0])} ${what} failed (${code})`))));
  });
}

async function runAll(options, jobs) {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      console.error(`  ${path.basename(job.command[0])} ${job.source}`);
      await run(options, job.command, job.source);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, os.cpus().length) }, worker));
}

function filesUnder(dir) {
  return fs.readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)]))
    .sort();
}

// Everything a binary depends on: the sources, every command that builds it, the compilers' and toolkit's versions.
// Paths are written relative to what they name (this checkout, node-addon-api, Node's headers), with those
// versions hashed instead, so that a copy of the checkout (the packaging test packs one) is current too.
function fingerprint(commands, toolVersions, tools) {
  const hash = crypto.createHash('sha256');
  for (const file of filesUnder(path.join(root, 'native'))) hash.update(path.relative(root, file)).update(fs.readFileSync(file));
  const versions = {
    toolVersions,
    addonApi: fs.readFileSync(path.join(tools.addonApi, 'package.json'), 'utf8'),
    node: fs.readFileSync(path.join(tools.nodeHeaders, 'node_version.h'), 'utf8'),
  };
  // node-addon-api first: it lies inside the checkout, or outside where node_modules is a link.
  const places = [[tools.addonApi, '<node-addon-api>'], [tools.nodeHeaders, '<node headers>'], [root, '<checkout>']];
  hash.update(places.reduce((text, [place, name]) => text.split(place).join(name), JSON.stringify({ commands, versions })));
  return hash.digest('hex');
}

// The link of the product addon and the driver probe's one compile. A shipped binary has the C++ and GCC runtimes
// linked in and hidden, so it asks the system for glibc alone; a local build runs where it was built, with that
// system's (RHEL, for one, ships no static libstdc++ by default). The addon is never unloaded (-z nodelete): Node
// unloads a Worker's addons when the Worker ends, but V8 still calls code of ours afterwards (the deleters of
// result memory, the control blocks of held arrays), which then is gone (docs/architecture.md, "Shipped binaries").
function linkCommands(options, tools, jobs, file, probeFile) {
  const libraries = tools.cuda ? [`-L${tools.cuda.lib}`, ...config.cudaStaticLibraries.map((l) => `-l${l}`)] : ['-lpthread'];
  const runtimes = options.variant === 'local' ? [] : ['-static-libstdc++', '-static-libgcc', '-Wl,--exclude-libs,ALL'];
  return [
    { what: `linking ${path.basename(file)}`, command: [tools.cxx, '-shared', '-s', ...runtimes, '-Wl,--as-needed', '-Wl,-z,nodelete',
      ...jobs.map((job) => job.object), ...libraries, '-o', file] },
    { what: 'the driver probe', command: [tools.cc, '-std=c99', '-O2', '-shared', '-s', '-fPIC', `-I${tools.nodeHeaders}`,
      path.join(root, 'native', 'probe', 'driver_probe.c'), '-ldl', '-o', probeFile] },
  ];
}

function cudaRuntimeOf(versionText) {
  const match = /release (\d+)\.(\d+)/.exec(versionText);
  return match ? `${match[1]}.${match[2]}` : null;
}

// What the loader needs to know of a binary (lib/native.ts): which CUDA runtime it carries, hence which drivers
// run it (CUDA's minor-version compatibility: any driver of the same major version), and for which GPUs.
function describeBinary(options, tools, file, cudaRuntime) {
  const untested = (config.untested[options.target] || []).includes(options.variant);
  return {
    file,
    variant: options.variant,
    cudaRuntime,
    minimumDriverCuda: cudaRuntime ? Number(cudaRuntime.split('.')[0]) * 1000 : 0,
    architectures: tools.archs,
    ...(untested ? { untested: `built, but its CUDA path has not yet run on a ${options.target} GPU` } : {}),
  };
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const tools = toolchain(options);
  const out = path.resolve(options.out);
  const objects = path.join(root, 'build-objects', `${options.target}-${options.variant}`);
  const name = options.variant === 'local' ? 'cuda-matmul.node' : `cuda-matmul-${options.variant}.node`;
  const toolVersions = { cxx: capture(options, [tools.cxx, '--version']), nvcc: tools.cuda ? capture(options, [tools.cuda.nvcc, '--version']) : null };
  const cudaRuntime = tools.cuda ? cudaRuntimeOf(toolVersions.nvcc) : null;
  const jobs = compileCommands(options, tools, objects);
  const links = linkCommands(options, tools, jobs, path.join(out, name), path.join(out, 'probe.node'));
  const wanted = fingerprint([...jobs, ...links].map((job) => job.command), toolVersions, tools);
  const fingerprintFile = path.join(objects, 'fingerprint');
  fs.mkdirSync(out, { recursive: true });
  fs.mkdirSync(objects, { recursive: true });
  const current = isFile(path.join(out, name)) && isFile(path.join(out, 'probe.node')) && isFile(fingerprintFile) &&
    fs.readFileSync(fingerprintFile, 'utf8') === wanted;
  if (current && process.env.FORCE_BUILD !== '1') {
    console.error(`build-addon: ${path.relative(root, path.join(out, name))} is current (nothing it is built from changed)`);
  } else {
    console.error(tools.cuda
      ? `build-addon: ${options.target} ${options.variant}: CUDA ${cudaRuntime} (${tools.cuda.nvcc}) for sm_${tools.archs.join(', sm_')}`
      : `build-addon: ${options.target} ${options.variant}: the CPU backend only${options.variant === 'local' ? ' (no CUDA toolkit found, or CUDA_MATMUL_CPU_ONLY=1)' : ''}`);
    await runAll(options, jobs);
    for (const link of links) await run(options, link.command, link.what);
    fs.writeFileSync(fingerprintFile, wanted);
  }
  const manifestFile = path.join(out, 'variants.json');
  const manifest = isFile(manifestFile) ? JSON.parse(fs.readFileSync(manifestFile, 'utf8')) : {};
  manifest[options.variant] = describeBinary(options, tools, name, cudaRuntime);
  fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2) + '\n');
}

module.exports = { compileCommands };

if (require.main === module)
  main().catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
