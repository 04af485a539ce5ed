// Host arrays for JavaScript: allocHost / freeHost (Float32Arrays over host_memory.h's allocations, page-locked
// where CUDA is usable, freed by the garbage collector or at once by freeHost), and the buffers of new result
// arrays (over result_memory.h's cached blocks).
#pragma once

#include <napi.h>

namespace cuda_matmul {

Napi::Value allocHostArray(const Napi::CallbackInfo& info);
Napi::Value freeHostArray(const Napi::CallbackInfo& info);
// resultBuffer(length): an ArrayBuffer of 4·length bytes whose contents are unspecified, for a result that the
// caller writes in full before any JavaScript reads it.
Napi::Value resultBuffer(const Napi::CallbackInfo& info);

}  // namespace cuda_matmul
