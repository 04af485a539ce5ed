// allocHost / freeHost for JavaScript: Float32Arrays over host_memory.h's allocations (page-locked where
// CUDA is usable), freed by the garbage collector or at once by freeHost.
#pragma once

#include <napi.h>

namespace cuda_matmul {

Napi::Value allocHostArray(const Napi::CallbackInfo& info);
Napi::Value freeHostArray(const Napi::CallbackInfo& info);

}  // namespace cuda_matmul
