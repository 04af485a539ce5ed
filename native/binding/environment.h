// What the addon keeps per Node environment (the main thread and each worker thread have their own): the
// NativeMatrix class (matrix_binding.cpp), the queue of tasks bound for the thread pool (async_task.cpp) and the
// small products gathered for the next batch (gathered.cpp).
// Made by the module's Init, deleted with the environment, after its last task has completed.
#pragma once

#include <napi.h>

#include <memory>
#include <vector>

#include "binding/arguments.h"

namespace cuda_matmul {

class TaskQueue;

struct AddonEnvironment {
  Napi::FunctionReference matrixConstructor;
  std::shared_ptr<TaskQueue> tasks;
  std::vector<GatheredCall> gathered;  // products held for the next batch (gathered.cpp)

  static AddonEnvironment& of(Napi::Env env) { return *env.GetInstanceData<AddonEnvironment>(); }
};

}  // namespace cuda_matmul
