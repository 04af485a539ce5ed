#include "binding/js_errors.h"

#include <new>

namespace cuda_matmul {

Napi::Error toJsError(Napi::Env env, const MatmulError& error) {
  Napi::Error js = error.kind() == ErrorKind::Type    ? Napi::TypeError::New(env, error.what())
                   : error.kind() == ErrorKind::Range ? Napi::RangeError::New(env, error.what())
                                                      : Napi::Error::New(env, error.what());
  if (!error.code().empty()) js.Set("code", Napi::String::New(env, error.code()));
  return js;
}

Napi::Error toJsError(Napi::Env env, const std::exception& error) {
  if (const auto* matmulError = dynamic_cast<const MatmulError*>(&error)) return toJsError(env, *matmulError);
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr)
    return toJsError(env, MatmulError(ErrorKind::Failure, "out of host memory", "ERR_OUT_OF_MEMORY"));
  return Napi::Error::New(env, error.what());
}

}  // namespace cuda_matmul
