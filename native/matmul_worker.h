// Products on Float32Arrays (matmul, gemm) off the JavaScript thread: one task per call (async_task.h) runs
// the plan on libuv's thread pool and settles a Promise. The three arrays, and the allocHost holds on them,
// are kept until it settles. Small CUDA products take the inline path instead (matmul_inline.h).
#pragma once

#include <napi.h>

#include "arguments.h"

namespace cuda_matmul {

// Queues the call; the returned Promise resolves to the output Float32Array or rejects with the error.
Napi::Promise queueMatmul(Napi::Env env, MatmulCall call);
Napi::Promise queueGemm(Napi::Env env, GemmCall call);

}  // namespace cuda_matmul
