// The native side of a call's `signal` option (lib/abort.ts): lib makes a `new native.CallAbort()` for each call
// given a signal, passes it as the asynchronous export's last argument, and calls its abort() from the signal's
// 'abort' listener (core/call_abort.h says what an abort does).
#pragma once

#include <napi.h>

#include <memory>

#include "core/call_abort.h"

namespace cuda_matmul {

void initAbortBinding(Napi::Env env, Napi::Object exports);

// An export's abort argument: null for undefined, else the CallAbort it wraps, or a TypeError.
std::shared_ptr<CallAbort> parseAbort(const Napi::Value& value);

}  // namespace cuda_matmul
