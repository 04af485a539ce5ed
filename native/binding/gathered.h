// Dynamic batching of small products from host arrays (lib/batching.ts): gather(a, b, m, k, n, out) holds one
// product for this environment's next batches; runGathered(count) starts the first `count` of them as one batch
// (core/plan.h, startGathered) and returns a Promise that settles once all of them are written.
#pragma once

#include <napi.h>

namespace cuda_matmul {

// Adds gather and runGathered to the exports.
void initGatheredBinding(Napi::Env env, Napi::Object exports);

// The environment is exiting: drops the products gathered and not yet started.
void dropGathered(Napi::Env env);

}  // namespace cuda_matmul
