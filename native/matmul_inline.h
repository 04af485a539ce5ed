// Small CUDA products on Float32Arrays, for latency: launched from the JavaScript thread and completed on it
// by polling from setImmediate callbacks while they run (matmul_inline.cpp), instead of a round trip through
// libuv's thread pool. matmul_worker.cpp takes everything else.
#pragma once

#include <napi.h>

#include <optional>

#include "arguments.h"

namespace cuda_matmul {

// Starts the call this way when the plan allows it (planInline): the returned Promise resolves to the output
// Float32Array or rejects with the error. Otherwise nothing is started and `call` is left as it was.
std::optional<Napi::Promise> startInlineMatmul(Napi::Env env, MatmulCall& call);

}  // namespace cuda_matmul
