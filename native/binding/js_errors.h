// Turns the native layer's MatmulError into the JavaScript error a user expects: TypeError, RangeError or
// Error, with `.code` set when the error has one (e.g. the CUDA error name).
#pragma once

#include <napi.h>

#include "core/errors.h"

namespace cuda_matmul {

Napi::Error toJsError(Napi::Env env, const MatmulError& error);

// Any other C++ exception (std::bad_alloc, ...) as a plain Error.
Napi::Error toJsError(Napi::Env env, const std::exception& error);

// Runs an export's `body`, turning a native exception into the matching JavaScript exception.
template <typename Body>
Napi::Value guarded(const Napi::CallbackInfo& info, Body body) {
  try {
    return body();
  } catch (const Napi::Error&) {
    throw;  // already a JavaScript exception (e.g. a throwing getter on options)
  } catch (const std::exception& e) {
    throw toJsError(info.Env(), e);
  }
}

}  // namespace cuda_matmul
