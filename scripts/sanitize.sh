#!/usr/bin/env bash
# The CPU-only addon built with AddressSanitizer and UndefinedBehaviorSanitizer, then the suites that try to
# break it (hostile inputs, teardown, Matrix program order, special values, recycled result memory) run against
# it. Node itself is not instrumented, so the sanitizers' runtime is preloaded into it (and into the child
# processes the tests start).
# Any report fails the run. Used by .ci/run after `npm test`; run it alone after `npm install`.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "sanitize: building the CPU-only addon with -fsanitize=address,undefined (build-asan/)"
CUDA_MATMUL_CPU_ONLY=1 CUDA_MATMUL_SANITIZE=1 npx cmake-js build --out build-asan > build-asan.log 2>&1 || { tail -30 build-asan.log; exit 1; }
[ -d dist ] || npx tsc -p tsconfig.json
runtime=$(g++ -print-file-name=libasan.so)
ubsan=$(g++ -print-file-name=libubsan.so)
echo "sanitize: running the hostile-input and teardown suites under ${runtime##*/} and ${ubsan##*/}"
CUDA_MATMUL_ADDON=$PWD/build-asan/Release/cuda_matmul.node \
  LD_PRELOAD="$runtime $ubsan" \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  npx jest --ci test/api/hostile test/runtime/teardown test/api/matrix-order test/gpu/special-values test/gpu/properties test/api/validation test/runtime/results
