#!/bin/bash
# Everything the GPU host checks, in as few calls as fit (device time is scarce): the jest suites in random order,
# compute-sanitizer memcheck and racecheck on every kernel's edge shapes, accuracy and special values against
# cuBLAS on the same inputs (bench/accuracy.cu, built here with that host's nvcc and cuBLAS), the kernel
# benchmark against cuBLAS, the end-to-end benchmark, Matrices beside PyTorch (bench/matrices.js), the HTTP
# server under load (bench/server.js), and small products and the 4096³ headline (bench/small-products.js).
# Run there as `bash .gpu/run bash bench/gpu-check.sh` after ../shared/gpu/pack build-cpu-only dist; logs go
# to $OUT (or ./gpu-logs). Short results are printed
# last. SKIP_TESTS=1 skips the jest suites and sanitizers, SKIP_ACCURACY=1 the accuracy checks, SKIP_BENCH=1
# the benchmarks; JEST_ARGS picks suites (test/gpu, test/runtime, …). The kernels' suites are a file per kernel
# (test/gpu/), which jest's workers share: one file of them all took more than 575 s on its one worker.
set -u
out=${OUT:-gpu-logs}
mkdir -p "$out"
export CUDA_MATMUL_NO_REGISTRY=1  # that host has no npm registry for the packaging test
step() { echo "== $1: $(tail -n 1 "$2" | cut -c1-200)"; }

# Each step has its own time limit, so one slow step cannot take the others' share of the call.
# 6 jest workers: the whole suite (wgmma-t in both precisions included) took 395 s so on the H100 host, and
# more than 430 s with 4.
if [ -z "${SKIP_ACCURACY:-}" ]; then  # built while the tests run
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -DCUDA_MATMUL_WGMMA -I native bench/accuracy.cu -lcublas \
    -o /tmp/accuracy > "$out/accuracy-build.log" 2>&1 &
fi
if [ -z "${SKIP_BENCH:-}" ]; then  # the kernel alone, for bench/matrices.js's in-flight row
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -DCUDA_MATMUL_WGMMA -I native bench/kernels.cu -lcublas \
    -o /tmp/kernels > "$out/kernels-build.log" 2>&1 &
fi
if [ -z "${SKIP_TESTS:-}" ]; then
timeout 575 npx jest --ci --maxWorkers=6 --randomize ${JEST_ARGS:-} > "$out/jest.log" 2>&1
grep -E "^Tests:|^Test Suites:|✕" "$out/jest.log" > "$out/jest-summary.txt"
timeout 70 compute-sanitizer --tool memcheck node bench/sanitize-shapes.js > "$out/memcheck.log" 2>&1
timeout 150 compute-sanitizer --tool racecheck node bench/sanitize-shapes.js > "$out/racecheck.log" 2>&1
fi
if [ -z "${SKIP_ACCURACY:-}" ]; then
  wait
  timeout 120 /tmp/accuracy > "$out/accuracy.log" 2>&1 || tail -5 "$out/accuracy-build.log" >> "$out/accuracy.log"
  timeout 60 node bench/special-values.js > "$out/special-values.log" 2>&1
fi
if [ -z "${SKIP_BENCH:-}" ]; then
timeout 200 node bench/bench.js ${BENCH_ARGS:-} > "$out/bench.log" 2>&1
timeout 60 node bench/copy-threads.js > "$out/copy-threads.log" 2>&1
timeout 60 node bench/transfers.js > "$out/transfers.log" 2>&1
wait
CUDA_MATMUL_KERNELS_BIN=/tmp/kernels timeout 200 node bench/matrices.js > "$out/matrices.log" 2>&1
timeout 120 node bench/server.js > "$out/server.log" 2>&1
timeout 150 node bench/small-products.js > "$out/small-products.log" 2>&1
fi

if [ -z "${SKIP_TESTS:-}" ]; then
  cat "$out/jest-summary.txt"
  step memcheck "$out/memcheck.log"
  step racecheck "$out/racecheck.log"
fi
if [ -z "${SKIP_ACCURACY:-}" ]; then
  cat "$out/accuracy.log"
  tail -n 1 "$out/special-values.log"
fi
if [ -z "${SKIP_BENCH:-}" ]; then
  sed -n '/^summary/,$p' "$out/bench.log"
  grep -A6 "^end to end" "$out/bench.log"
  sed -n '/^data path/,/^$/p' "$out/bench.log"
  cat "$out/copy-threads.log" "$out/transfers.log"
  sed -n '/^summary/,$p' "$out/matrices.log"
  cat "$out/server.log"
  sed -n '/^summary/,$p' "$out/small-products.log"
fi
