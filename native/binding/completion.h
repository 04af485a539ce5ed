// Completes a backend's Work (core/work.h) for JavaScript: returns a Promise that settles when the work is done.
// Work in flight on a device is polled from setImmediate callbacks on the JavaScript thread while it makes
// progress (a pending immediate keeps the event loop turning without sleeping, so a 50 µs product settles
// within microseconds of its end, and I/O is still served between polls); work that makes no progress for
// kSpin, or that only runs when waited for (the CPU, the staged and panel routes), is waited for on the thread
// pool (async_task.h). Large host copies after the work (finishBytes) always go to the pool. Host work shorter
// than that round trip (runsOnCaller: small CPU products) runs at once, the Promise settled before it returns.
#pragma once

#include <napi.h>

#include <functional>
#include <memory>

#include "core/work.h"

namespace cuda_matmul {

class CallAbort;

// `settle` makes the resolved value on the JavaScript thread once the work is done and finished; an exception
// from the work, finish() or settle rejects the Promise with the matching JavaScript error. A call given its
// abort (core/call_abort.h) rejects with abortedError() if it is requested before the call settles, and the
// work's finish() (copies into the caller's array) is skipped, unless the work says it committed (core/work.h).
Napi::Promise complete(Napi::Env env, const char* name, std::unique_ptr<Work> work,
                       std::function<Napi::Value(Napi::Env)> settle, std::shared_ptr<CallAbort> abort = nullptr);

}  // namespace cuda_matmul
