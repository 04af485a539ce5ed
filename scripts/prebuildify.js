#!/usr/bin/env node
// Builds the prebuilt binary that `npm pack` ships (prebuilds/<platform>-<arch>/cuda-matmul.glibc.node: tagged
// with its libc, so that node-gyp-build never loads it on musl) with prebuildify and node-gyp from binding.gyp.
// It targets the running Node's headers: Node-API binaries load in every later Node version, and building
// offline must not download other versions' headers.
//
// CUDA is compiled once: the binary is rebuilt only when what it is built from changed — the native sources,
// the build files, the CUDA toolkit and the architectures asked for (a fingerprint kept beside it, in
// prebuild.fingerprint). `npm test` builds it; `npm pack` (the packaging test included) then finds it current.
// FORCE_PREBUILD=1 rebuilds anyway.
'use strict';
const { execFileSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const buildConfig = require('./build-config');

const root = path.join(__dirname, '..');
const binary = path.join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'cuda-matmul.glibc.node');
const fingerprintFile = path.join(root, 'prebuild.fingerprint');

function filesUnder(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)]))
    .sort();
}

// Everything the binary depends on, hashed: sources, build files, toolkit, architectures, target Node.
function fingerprint() {
  const hash = crypto.createHash('sha256');
  const inputs = [...filesUnder(path.join(root, 'native')), ...['binding.gyp', 'scripts/build-config.js', 'scripts/prebuildify.js'].map((f) => path.join(root, f))];
  for (const file of inputs) hash.update(path.relative(root, file)).update(fs.readFileSync(file));
  hash.update(JSON.stringify({ cuda: buildConfig.cudaRoot(), archs: buildConfig.architectures(), node: process.versions.node }));
  return hash.digest('hex');
}

const wanted = fingerprint();
const current = fs.existsSync(binary) && fs.existsSync(fingerprintFile) && fs.readFileSync(fingerprintFile, 'utf8') === wanted;
if (current && process.env.FORCE_PREBUILD !== '1') {
  console.error(`cuda-matmul: ${path.relative(root, binary)} is current (nothing it is built from changed); not rebuilding`);
  process.exit(0);
}
const env = { ...process.env };
// node-gyp reads the headers from nodedir; default it to the running Node's own install prefix.
if (!env.npm_config_nodedir) env.npm_config_nodedir = path.join(path.dirname(process.execPath), '..');
buildConfig.report();
execFileSync(
  process.execPath,
  [require.resolve('prebuildify/bin.js'), '--napi', '--strip', '--tag-libc', '--name', 'cuda-matmul', '--target', process.versions.node],
  { cwd: root, env, stdio: 'inherit' },
);
fs.writeFileSync(fingerprintFile, wanted);
