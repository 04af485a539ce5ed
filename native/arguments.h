// Validation of matmul's JavaScript arguments in the native layer. lib/validate.ts checks the same things
// first with the same messages; this layer checks again so the addon is safe when called directly.
#pragma once

#include <napi.h>

#include "request.h"

namespace cuda_matmul {

struct MatmulCall {
  MatmulRequest request;        // pointers into the arrays below
  Napi::Float32Array a, b, out;  // keep these alive while the request runs
};

// native.matmul(a, b, shape, options): throws a JS TypeError/RangeError naming the bad argument.
// `out` is options.out, or a new zero-filled Float32Array of m·n elements.
MatmulCall parseMatmulCall(const Napi::CallbackInfo& info);

}  // namespace cuda_matmul
