#!/usr/bin/env bash
# bench/kernels.cu built by the toolkit of each shipped linux-x64 variant (CUDA 13.0 and 12.4), to compare their
# code on one GPU (docs/kernels.md, "The CUDA 12 variant"). Two halves, as device time is scarce:
#   here, as root, after scripts/build-prebuilds.sh made the bullseye root:
#     bash bench/variant-kernels.sh build        writes .gpu-exp/ (kernels13.o, kernels12.o, CUDA 12.4's static runtime)
#   on the GPU host, carrying .gpu-exp:
#     bash bench/variant-kernels.sh run [ARGS]   links both against that host's cuBLAS, runs each twice, alternating
#                                                (ARGS: bench/kernels.cu's; default --only=wgmma-f16 4096³ 8192³)
set -euo pipefail
cd "$(dirname "$0")/.."
flags=(-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -DCUDA_MATMUL_WGMMA -I native -I bench/cublas-stand-in -c bench/kernels.cu)
case "${1:-}" in
  build)
    buildroot=${CUDA_MATMUL_BUILD_CACHE:-/var/tmp/cuda-matmul-build}/bullseye
    mkdir -p .gpu-exp
    grep -qx '/.gpu-exp/' .git/info/exclude || echo '/.gpu-exp/' >> .git/info/exclude
    nvcc "${flags[@]}" -o .gpu-exp/kernels13.o
    unshare --mount --propagation private bash -c 'mkdir -p "$1$PWD" && mount --bind "$PWD" "$1$PWD" &&
      chroot "$1" /bin/sh -c "cd \"\$0\" && shift && exec nvcc \"\$@\"" "$PWD" "${@:2}" -o .gpu-exp/kernels12.o' \
      build "$buildroot" "${flags[@]}"
    cp "$buildroot/usr/lib/x86_64-linux-gnu/libcudart_static.a" .gpu-exp/libcudart_static12.a ;;
  run)
    shift
    args=("$@")
    [ ${#args[@]} -gt 0 ] || args=(--only=wgmma-f16 4096x4096x4096 8192x8192x8192)
    nvcc .gpu-exp/kernels13.o -lcublas -o /tmp/kernels13
    g++ .gpu-exp/kernels12.o .gpu-exp/libcudart_static12.a -L/usr/local/cuda/lib64 -lcublas -ldl -lpthread -lrt -o /tmp/kernels12
    for run in 1 2; do
      for cuda in 12 13; do
        echo "== CUDA $cuda, run $run"
        "/tmp/kernels$cuda" "${args[@]}"
      done
    done ;;
  *) echo "usage: bash bench/variant-kernels.sh build | run [ARGS]" >&2; exit 2 ;;
esac
