// What the addon keeps per Node environment (the main thread and each worker thread have their own): the
// NativeMatrix class (matrix_binding.cpp) and the queue of tasks bound for the thread pool (async_task.cpp).
// Made by the module's Init, deleted with the environment, after its last task has completed.
#pragma once

#include <napi.h>

#include <memory>

namespace cuda_matmul {

class TaskQueue;

struct AddonEnvironment {
  Napi::FunctionReference matrixConstructor;
  std::shared_ptr<TaskQueue> tasks;

  static AddonEnvironment& of(Napi::Env env) { return *env.GetInstanceData<AddonEnvironment>(); }
};

}  // namespace cuda_matmul
