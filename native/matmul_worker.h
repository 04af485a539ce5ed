// matmul off the JavaScript thread: one Node-API AsyncWorker per call runs the plan on libuv's thread pool
// and settles a Promise. The input and output arrays are held by references until it settles.
#pragma once

#include <napi.h>

#include "arguments.h"

namespace cuda_matmul {

// Queues the call; the returned Promise resolves to the output Float32Array or rejects with the error.
Napi::Promise queueMatmul(Napi::Env env, MatmulCall call);

}  // namespace cuda_matmul
