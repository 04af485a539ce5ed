#!/usr/bin/env bash
# Builds every binary the package ships (native/sources.json "shipped") into prebuilds/<platform>/, inside a
# Debian bullseye root: glibc 2.31 and GCC 10, so the binaries need no glibc newer than 2.31 and, with the C++
# runtime linked in, no GLIBCXX_ version at all (docs/architecture.md, "Shipped binaries"). Needs root (debootstrap,
# chroot, bind mounts in a private mount namespace) and Debian's mirror; `npm run build:native` runs it.
#
# Arguments, if any, name the binaries to build (target-variant: linux-x64-cuda13); none builds every one.
#
# What it sets up is kept in $CUDA_MATMUL_BUILD_CACHE (default /var/tmp/cuda-matmul-build) and reused:
#   bullseye/   the root: g++, and the aarch64 cross compilers for linux-arm64
#   debs/       CUDA 12.4 from Debian trixie (non-free), unpacked into the root: nvcc for x86-64 and the CUDA
#               runtime for x86-64 and arm64 (apt-get download and dpkg -x: nothing is installed on this machine)
# CUDA 13 is this machine's toolkit (CUDA_PATH, or /usr/local/cuda), mounted into the root where it is here.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${CUDA_MATMUL_BUILD_CACHE:-/var/tmp/cuda-matmul-build}
buildroot=$cache/bullseye
mirror=http://deb.debian.org/debian
cuda13=$(readlink -f "${CUDA_PATH:-/usr/local/cuda}")
[ -x "$cuda13/bin/nvcc" ] || { echo "build-prebuilds: no CUDA 13 toolkit at $cuda13 (set CUDA_PATH)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "build-prebuilds: needs debootstrap (apt-get install debootstrap)" >&2; exit 1; }
mkdir -p "$cache"

if [ ! -e "$buildroot/.complete" ]; then
  echo "build-prebuilds: making the bullseye build root in $buildroot (once)"
  rm -rf "$buildroot"
  debootstrap --variant=minbase --include=g++,gcc,g++-aarch64-linux-gnu,gcc-aarch64-linux-gnu \
    bullseye "$buildroot" "$mirror" > "$cache/debootstrap.log" 2>&1 || { tail -20 "$cache/debootstrap.log"; exit 1; }
  touch "$buildroot/.complete"
fi

if [ ! -e "$buildroot/.cuda12" ]; then
  echo "build-prebuilds: CUDA 12.4 from Debian trixie into the build root (once)"
  apt="$cache/apt"
  mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$cache/debs"
  echo "deb $mirror trixie main contrib non-free" > "$apt/sources.list"
  options=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$apt/lists"
           -o Dir::Cache="$apt" -o APT::Architectures=amd64,arm64 -o APT::Sandbox::User=root -qq)
  apt-get "${options[@]}" update
  (cd "$cache/debs" && apt-get "${options[@]}" download nvidia-cuda-toolkit:amd64 libnvvm4:amd64 libcu++-dev \
    nvidia-cuda-dev:amd64 nvidia-cuda-dev:arm64)
  for package in nvidia-cuda-toolkit_ libnvvm4_ libcu++-dev_; do dpkg -x "$cache"/debs/"$package"*.deb "$buildroot"; done
  # Of the CUDA libraries, the headers and the static runtime alone (the package holds 2.5 GB of libraries).
  dpkg --fsys-tarfile "$cache"/debs/nvidia-cuda-dev_*_amd64.deb | tar -x -C "$buildroot" --wildcards './usr/include/*' \
    './usr/lib/x86_64-linux-gnu/libcudart_static.a' './usr/lib/x86_64-linux-gnu/libculibos.a'
  dpkg --fsys-tarfile "$cache"/debs/nvidia-cuda-dev_*_arm64.deb | tar -x -C "$buildroot" --wildcards \
    './usr/lib/aarch64-linux-gnu/libcudart_static.a' './usr/lib/aarch64-linux-gnu/libculibos.a'
  rm -f "$cache"/debs/nvidia-cuda-dev_*.deb
  touch "$buildroot/.cuda12"
fi

node_headers=$(node -p "require('path').resolve(process.execPath, '../../include/node')")
addon_api=$(node -p "require('path').dirname(require.resolve('node-addon-api/package.json'))")  # outside this checkout where node_modules is a link (the packaging test's copy)
shipped=$(node -p "Object.entries(require('./native/sources.json').shipped).flatMap(([t, vs]) => vs.map((v) => t + ' ' + v)).join('\n')")
if [ $# -gt 0 ]; then  # only the binaries named, as target-variant (linux-x64-cuda13): a quicker build while working
  shipped=$(while read -r target variant; do if [[ " $* " == *" $target-$variant "* ]]; then echo "$target $variant"; fi; done <<< "$shipped")
fi
# Mounts made in a mount namespace of this script's own vanish with it, whatever way it ends.
unshare --mount --propagation private bash -euo pipefail -c '
  buildroot=$1 cuda13=$2 node_headers=$3 addon_api=$4 shipped=$5
  for dir in "$PWD" "$cuda13" "$node_headers" "$addon_api"; do mkdir -p "$buildroot$dir"; mount --bind "$dir" "$buildroot$dir"; done
  mount -t proc proc "$buildroot/proc"
  while read -r target variant; do
    case "$target-$variant" in
      linux-x64-cuda13) toolkit=(--nvcc "$cuda13/bin/nvcc" --cuda-include "$cuda13/include" --cuda-lib "$cuda13/lib64") ;;
      linux-x64-cuda12) toolkit=(--nvcc /usr/bin/nvcc --cuda-include /usr/include --cuda-lib /usr/lib/x86_64-linux-gnu) ;;
      linux-arm64-cuda12) toolkit=(--nvcc /usr/bin/nvcc --cuda-include /usr/include --cuda-lib /usr/lib/aarch64-linux-gnu) ;;
      linux-arm64-cpu) toolkit=() ;;
      *) echo "build-prebuilds: no toolkit is set for $target $variant" >&2; exit 1 ;;
    esac
    node scripts/build-addon.js --variant "$variant" --target "$target" --out "prebuilds/$target" --in-root "$buildroot" \
      --node-headers "$node_headers" "${toolkit[@]}"
  done <<< "$shipped"
' build-prebuilds "$buildroot" "$cuda13" "$node_headers" "$addon_api" "$shipped"
