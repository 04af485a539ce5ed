// Products on Float32Arrays (matmul, gemm): one GemmRequest, started by the plan on the JavaScript thread and
// completed by completion.h; the call's arrays are held (held_array.h) until it settles.
#pragma once

#include <napi.h>

#include "binding/arguments.h"

namespace cuda_matmul {

// The returned Promise resolves to c (matmul's out) or rejects with the error.
Napi::Promise startArrayCall(Napi::Env env, const char* name, ArrayCall call);

// matmulSync: the same, waited for on the calling thread.
Napi::Value runArrayCall(ArrayCall call);

}  // namespace cuda_matmul
