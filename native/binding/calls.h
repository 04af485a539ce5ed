// Products on Float32Arrays (matmul, gemm): one GemmRequest, started by the plan on the JavaScript thread and
// completed by completion.h; the call's arrays are held (held_array.h) until it settles.
#pragma once

#include <napi.h>

#include <memory>

#include "binding/arguments.h"

namespace cuda_matmul {

class CallAbort;

// The returned Promise resolves to c (matmul's out) or rejects with the error, or for `abort` (null: none)
// requested before it settles (completion.h).
Napi::Promise startArrayCall(Napi::Env env, const char* name, ArrayCall call, std::shared_ptr<CallAbort> abort);

// matmulSync: the same, waited for on the calling thread.
Napi::Value runArrayCall(ArrayCall call);

}  // namespace cuda_matmul
