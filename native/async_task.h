// Work off the JavaScript thread, for every asynchronous export: `work` runs on libuv's thread pool (a
// Node-API AsyncWorker), then `settle` makes the resolved value on the JavaScript thread. An exception
// from `work` rejects the Promise with the matching JavaScript error (js_errors.h). Both functions are
// destroyed on the JavaScript thread, so they may own Napi::References to keep arguments alive.
#pragma once

#include <napi.h>

#include <functional>

namespace cuda_matmul {

Napi::Promise queueTask(Napi::Env env, const char* name, std::function<void()> work,
                        std::function<Napi::Value(Napi::Env)> settle);

}  // namespace cuda_matmul
