#!/usr/bin/env node
// Builds the prebuilt binary that `npm pack` ships (prebuilds/<platform>-<arch>/cuda-matmul.glibc.node: tagged
// with its libc, so that node-gyp-build never loads it on musl) with
// prebuildify and node-gyp from binding.gyp. It targets the running Node's headers: Node-API binaries load
// in every later Node version, and building offline must not download other versions' headers.
'use strict';
const { execFileSync } = require('child_process');
const path = require('path');

const root = path.join(__dirname, '..');
const env = { ...process.env };
// node-gyp reads the headers from nodedir; default it to the running Node's own install prefix.
if (!env.npm_config_nodedir) env.npm_config_nodedir = path.join(path.dirname(process.execPath), '..');
require('./build-config').report();
execFileSync(
  process.execPath,
  [require.resolve('prebuildify/bin.js'), '--napi', '--strip', '--tag-libc', '--name', 'cuda-matmul', '--target', process.versions.node],
  { cwd: root, env, stdio: 'inherit' },
);
