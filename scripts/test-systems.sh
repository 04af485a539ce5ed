#!/usr/bin/env bash
# The packed package on systems other than this one, with no GPU:
#   - Debian bullseye (glibc 2.31, the oldest the binaries are built for), a root with no compiler and no Python,
#     Node 20 from the npm registry: `npm install` of the tarball, then `npm ci` from the lockfile it wrote, then
#     test/packaging/systems/smoke.js (a product against float64, info(): the CUDA 12 variant, as with no driver, the command
#     line);
#   - linux-arm64: Node 20 for arm64 from the npm registry under qemu-user, on bullseye's arm64 glibc, loading the
#     package's linux-arm64 binaries (the CPU variant: no driver; then the CUDA 12 one, forced) and running the same
#     smoke test.
# Needs root, debootstrap, qemu-user-static, Debian's mirror and the npm registry; .ci/run runs it after npm test.
# The roots are kept in $CUDA_MATMUL_BUILD_CACHE (default /var/tmp/cuda-matmul-build) and reused.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${CUDA_MATMUL_BUILD_CACHE:-/var/tmp/cuda-matmul-build}
runroot=$cache/bullseye-run
arm64libs=$cache/bullseye/usr/aarch64-linux-gnu   # bullseye's arm64 glibc 2.31, from the build root's cross packages
[ -e "$arm64libs/lib/libc.so.6" ] || { echo "test-systems: no arm64 glibc in $arm64libs: run scripts/build-prebuilds.sh first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "test-systems: packing the package and fetching Node 20 for x64 and arm64 from the npm registry"
tarball=$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)
for arch in x64 arm64; do
  runtime=$(npm pack "node-linux-$arch@20" --silent --pack-destination "$work" | tail -n 1)
  mkdir -p "$work/node-$arch" && tar -xzf "$work/$runtime" -C "$work/node-$arch"
done

if [ ! -e "$runroot/.complete" ]; then
  echo "test-systems: making a bare bullseye root in $runroot (once)"
  rm -rf "$runroot"
  debootstrap --variant=minbase bullseye "$runroot" http://deb.debian.org/debian > "$cache/debootstrap-run.log" 2>&1 ||
    { tail -20 "$cache/debootstrap-run.log"; exit 1; }
  touch "$runroot/.complete"
fi
rm -rf "$runroot/opt/node" "$runroot/opt/npm" "$runroot/app"
mkdir -p "$runroot/opt/npm" "$runroot/app"
cp -a "$work/node-x64/package" "$runroot/opt/node"
cp -a "$(dirname "$(readlink -f "$(command -v npm)")")/../." "$runroot/opt/npm"
ln -s ../../npm/bin/npm-cli.js "$runroot/opt/node/bin/npm"
cp /etc/resolv.conf "$runroot/etc/resolv.conf"
# The certificate authorities this machine's npm trusts (a registry behind a TLS proxy needs them), where they are.
cafile=$(npm config get cafile)
registry_env=()
if [ "$cafile" != null ] && [ -f "$cafile" ]; then
  mkdir -p "$runroot$(dirname "$cafile")" && cp "$cafile" "$runroot$cafile"
  registry_env=("npm_config_cafile=$cafile" "NODE_EXTRA_CA_CERTS=$cafile")
fi
cp "$tarball" "$runroot/app/cuda-matmul.tgz"
cp test/packaging/systems/smoke.js "$runroot/app/smoke.js"
echo '{ "name": "app", "version": "1.0.0", "private": true }' > "$runroot/app/package.json"
echo "test-systems: bullseye: npm install, then npm ci from its lockfile, then the smoke test"
chroot "$runroot" /usr/bin/env -i HOME=/root PATH=/opt/node/bin:/usr/bin:/bin "${registry_env[@]}" /bin/sh -euc '
  cd /app
  if command -v cc || command -v gcc || command -v g++ || command -v python3 || command -v nvcc; then
    echo "the root holds a compiler or Python: it is not the bare system this test needs" >&2; exit 1
  fi
  ldd --version | head -n 1
  npm install --no-audit --no-fund ./cuda-matmul.tgz
  rm -rf node_modules
  npm ci --no-audit --no-fund --foreground-scripts 2>&1 | tee /tmp/ci.log
  if grep -qiE "gyp|install-scripts" /tmp/ci.log; then echo "npm ci ran a build" >&2; exit 1; fi
  [ ! -e node_modules/cuda-matmul/build ] || { echo "npm ci built the addon" >&2; exit 1; }
  node smoke.js x64 cuda12'

echo "test-systems: linux-arm64 under qemu-user: Node $("$work"/node-x64/package/bin/node --version) for arm64, the package's arm64 binaries"
mkdir -p "$work/arm64/node_modules/cuda-matmul"
tar -xzf "$tarball" -C "$work/arm64/node_modules/cuda-matmul" --strip-components=1
cp test/packaging/systems/smoke.js "$work/arm64/smoke.js"
arm64node="qemu-aarch64-static -L $arm64libs $work/node-arm64/package/bin/node"
(cd "$work/arm64" && SMOKE_NODE="$arm64node" $arm64node smoke.js arm64 cpu)
echo "test-systems: linux-arm64, the CUDA 12 build forced: it loads (no driver: on the CPU) and says it is untested on a GPU"
(cd "$work/arm64" && CUDA_MATMUL_VARIANT=cuda12 SMOKE_NODE="$arm64node" $arm64node smoke.js arm64 cuda12) | tee "$work/arm64.json"
grep -q '"untested":"built, but its CUDA path has not yet run on a linux-arm64 GPU"' "$work/arm64.json"
