// Products on Float32Arrays (matmul, gemm) off the JavaScript thread: one task per call (async_task.h) runs
// the plan on libuv's thread pool and settles a Promise. The call's arrays are held (held_array.h) until it
// settles. Small CUDA products take the inline path instead (matmul_inline.h).
#pragma once

#include <napi.h>

#include "arguments.h"

namespace cuda_matmul {

// Queues the call; the returned Promise resolves to the output Float32Array or rejects with the error.
Napi::Promise queueMatmul(Napi::Env env, MatmulCall call);
Napi::Promise queueGemm(Napi::Env env, GemmCall call);

// The array a product wrote, to resolve its Promise with: a TypeError if it was detached (transferred) while
// the product ran, since its new owner now holds what was written.
Napi::Value deliveredOutput(const HeldArray& out, const char* name);

}  // namespace cuda_matmul
