#!/usr/bin/env node
// Prints what binding.gyp needs from native/sources.json (the one list of sources and flags that
// CMakeLists.txt reads too), one value per line, so node-gyp and prebuildify build what cmake-js builds.
//   node scripts/build-config.js sources|defines|cflags|include-dirs|libraries|nvcc-command
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
const config = JSON.parse(fs.readFileSync(path.join(root, 'native', 'sources.json'), 'utf8'));

function isFile(file) {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function nvccOnPath() {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    const candidate = path.join(dir, 'nvcc');
    if (isFile(candidate)) return candidate;
  }
  return null;
}

// The CUDA toolkit to build with: CUDA_PATH / CUDA_HOME, /usr/local/cuda, or the one nvcc on PATH belongs to.
function cudaRoot() {
  if (process.env.CUDA_MATMUL_CPU_ONLY === '1') return null;
  const onPath = nvccOnPath();
  const candidates = [process.env.CUDA_PATH, process.env.CUDA_HOME, '/usr/local/cuda'];
  if (onPath) candidates.push(path.dirname(path.dirname(fs.realpathSync(onPath))));
  return (
    candidates.find(
      (dir) => dir && isFile(path.join(dir, 'bin', 'nvcc')) && isFile(path.join(dir, 'lib64', 'libcudart_static.a')),
    ) || null
  );
}

function architectures() {
  const narrowed = process.env.CUDA_MATMUL_ARCHS;
  return narrowed ? narrowed.split(/[;, ]+/).filter(Boolean) : config.cudaArchitectures;
}

// Machine code for every architecture, plus PTX of the newest so later GPUs can JIT it.
function gencodeFlags() {
  const archs = architectures();
  const newest = archs[archs.length - 1];
  return [...archs.map((arch) => `-gencode=arch=compute_${arch},code=sm_${arch}`), `-gencode=arch=compute_${newest},code=compute_${newest}`];
}

function values(what) {
  const cuda = cudaRoot();
  switch (what) {
    case 'sources':
      return [...config.common, ...(cuda ? config.cuda : config.withoutCuda)];
    case 'defines':
      // 3_wgmma.cu's kernel exists only in sm_90a machine code; the plan may choose it only when that is built.
      return [...config.defines, ...(cuda && architectures().includes('90a') ? ['CUDA_MATMUL_WGMMA'] : [])];
    case 'cflags':
      return [`-std=gnu++${config.cxxStandard}`, ...config.cxxFlags];
    case 'include-dirs':
      // native/: every #include is written from there ("core/plan.h").
      return [path.join(root, 'native'), require('node-addon-api').include_dir, ...(cuda ? [path.join(cuda, 'include')] : [])];
    case 'libraries':
      return cuda ? [`-L${path.join(cuda, 'lib64')}`, ...config.cudaStaticLibraries.map((l) => `-l${l}`)] : ['-lpthread'];
    case 'nvcc-command':
      if (!cuda) return ['false'];
      // The defines too: .cu files read them (CUDA_MATMUL_WGMMA decides whether the plan may pick wgmma).
      return [path.join(cuda, 'bin', 'nvcc'), `-std=c++${config.cudaStandard}`, `-I${path.join(root, 'native')}`,
        ...values('defines').map((define) => `-D${define}`), ...config.nvccFlags, ...gencodeFlags()];
    default:
      throw new Error(`build-config: unknown request '${what}'`);
  }
}

// Says, on stderr, whether this build has CUDA and for which architectures.
function report() {
  const cuda = cudaRoot();
  console.error(
    cuda
      ? `cuda-matmul: building with CUDA from ${cuda} for sm_${architectures().join(', sm_')}`
      : 'cuda-matmul: nvcc not found (or CUDA_MATMUL_CPU_ONLY=1): building the CPU backend only',
  );
}

module.exports = { report, cudaRoot, architectures };

if (require.main === module) process.stdout.write(values(process.argv[2]).join('\n') + '\n');
