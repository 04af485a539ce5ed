// Work off the JavaScript thread, for every asynchronous export: `work` runs on libuv's thread pool, then
// `settle` makes the resolved value on the JavaScript thread. An exception from `work` or `settle` rejects the
// Promise with the matching JavaScript error (js_errors.h). Both functions are destroyed on the JavaScript
// thread, so they may own Napi::References and held arrays.
//
// Teardown. An environment's tasks go through its own queue, which hands the thread pool a bounded number of
// them, so that when the environment ends (a Worker terminated, process.exit) the products not yet started are
// dropped rather than run: a running one finishes (a CPU product stops at its next k-slice once the queue knows:
// cpu/gemm.cpp); the rest are cancelled, or skip their work when a thread takes them. A task completing while its
// environment is torn down cannot settle its Promise (no JavaScript may run); that is how the queue learns of a
// Worker's termination (process.exit tells it through stopTasks), and nothing is thrown out of the completion
// callback.
//
// Aborts (core/call_abort.h). A task given its call's abort is dropped when the abort comes before a thread has
// taken it (its Promise rejected at once, what it held released); a running one sees the abort through StopSignal
// (a CPU product stops at its next k-slice), and its Promise rejects when it ends. The `settle` function decides
// for a task that ran to its end (a Matrix write already made resolves).
#pragma once

#include <napi.h>

#include <functional>
#include <memory>

namespace cuda_matmul {

class TaskQueue;
std::shared_ptr<TaskQueue> newTaskQueue();

class CallAbort;

Napi::Promise queueTask(Napi::Env env, const char* name, std::function<void()> work,
                        std::function<Napi::Value(Napi::Env)> settle, std::shared_ptr<CallAbort> abort = nullptr);

// This environment is ending (its process 'exit' event): tasks not yet started are dropped, their Promises left
// pending; the running ones finish, or on the CPU stop at their next k-slice.
void stopTasks(Napi::Env env);

}  // namespace cuda_matmul
