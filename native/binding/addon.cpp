// The native binding: what lib/native.ts loads. Each export validates its arguments (arguments.cpp), then
// starts the plan (core/plan.h) and completes its work (completion.h): on the calling thread for matmulSync.
// allocHost, freeHost and the buffers of new results are in host_arrays.cpp, Matrices in matrix_binding.cpp;
// shutdown drops queued work when the process exits; options() is the option table the TypeScript layer checks
// itself against.
#include <napi.h>

#include <span>
#include <string>
#include <vector>

#include "binding/abort_binding.h"
#include "binding/arguments.h"
#include "binding/async_task.h"
#include "binding/calls.h"
#include "binding/environment.h"
#include "binding/gathered.h"
#include "binding/host_arrays.h"
#include "binding/js_errors.h"
#include "binding/matrix_binding.h"
#include "core/backend.h"
#include "core/core_budget.h"
#include "core/options.h"
#include "core/result_memory.h"
#include "core/search.h"
#include "core/process_limits.h"

namespace cuda_matmul {
namespace {

Napi::Value MatmulSync(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    return runArrayCall(parseMatmulCall(info));
  });
}

Napi::Value MatmulAsync(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    std::shared_ptr<CallAbort> abort = parseAbort(info[4]);
    return startArrayCall(info.Env(), "cuda-matmul:matmul", parseMatmulCall(info), std::move(abort));
  });
}

// gemm on Float32Arrays, off the JavaScript thread; resolves to c.
Napi::Value Gemm(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    std::shared_ptr<CallAbort> abort = parseAbort(info[2]);
    return startArrayCall(info.Env(), "cuda-matmul:gemm", parseGemmCall(info), std::move(abort));
  });
}

Napi::Value AllocHost(const Napi::CallbackInfo& info) {
  return guarded(info, [&] { return allocHostArray(info); });
}

Napi::Value FreeHost(const Napi::CallbackInfo& info) {
  return guarded(info, [&] { return freeHostArray(info); });
}

Napi::Value ResultBuffer(const Napi::CallbackInfo& info) {
  return guarded(info, [&] { return resultBuffer(info); });
}

Napi::Value CudaInfo(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  const ComputeBackend& cuda = cudaBackend();
  const std::string reason = cuda.unusableReason();
  const std::vector<DeviceDescription> found = cuda.devices();
  Napi::Object result = Napi::Object::New(env);
  result.Set("usable", reason.empty());
  if (!reason.empty()) result.Set("reason", reason);
  Napi::Array devices = Napi::Array::New(env, found.size());
  for (size_t i = 0; i < found.size(); ++i) {
    const DeviceDescription& d = found[i];
    Napi::Object device = Napi::Object::New(env);
    device.Set("index", d.index);
    device.Set("name", d.name);
    device.Set("computeCapability", d.computeCapability);
    device.Set("totalMemory", static_cast<double>(d.totalMemory));
    devices.Set(static_cast<uint32_t>(i), device);
  }
  result.Set("devices", devices);
  const MemoryUsage usage = cuda.memoryUsage();
  Napi::Object memory = Napi::Object::New(env);
  memory.Set("deviceBytesInUse", static_cast<double>(usage.deviceBytesInUse));
  memory.Set("deviceBytesCached", static_cast<double>(usage.deviceBytesCached));
  memory.Set("stagingBytes", static_cast<double>(usage.stagingBytes));
  memory.Set("resultBytesCached", static_cast<double>(resultBytesCached()));
  memory.Set("resultBytesPinned", static_cast<double>(resultBytesPinned()));
  result.Set("memory", memory);
  return result;
}

// The CPUs this process may run on, and how many of them the library's threads keep busy at most (the core budget).
Napi::Value CpuInfo(const Napi::CallbackInfo& info) {
  Napi::Object result = Napi::Object::New(info.Env());
  result.Set("cores", usableCores());
  result.Set("threads", coreBudget());
  return result;
}

// The process (or this worker) is exiting: products queued here and not yet started are dropped.
Napi::Value Shutdown(const Napi::CallbackInfo& info) {
  stopTasks(info.Env());
  dropGathered(info.Env());
  return info.Env().Undefined();
}

// trimIdle(idleSeconds) → Promise<undefined>, on the thread pool: freeing page-locked and device memory waits for the
// device, which stalled the event loop up to 71 ms after a burst of Matrix traffic (docs/lifecycle.md, "The event loop").
Napi::Value TrimIdle(const Napi::CallbackInfo& info) {
  const double given = info[0].IsNumber() ? info[0].As<Napi::Number>().DoubleValue() : 0.0;
  const double idleSeconds = given >= 0 ? given : 0.0;  // NaN too
  return queueTask(
      info.Env(), "cuda-matmul:trimIdle",
      [idleSeconds] {
        cudaBackend().trimIdle(idleSeconds);
        trimResultMemory(idleSeconds);
      },
      [](Napi::Env env) { return env.Undefined(); });
}

// The option table of core/options.h, for test/structure/structure.test.ts to compare with lib/options.ts.
Napi::Value Options(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  auto names = [&](std::span<const char* const> list) {
    Napi::Array array = Napi::Array::New(env, list.size());
    for (size_t i = 0; i < list.size(); ++i) array.Set(static_cast<uint32_t>(i), list[i]);
    return array;
  };
  Napi::Array kernels = Napi::Array::New(env, kKernelCount);
  for (size_t i = 0; i < kKernelCount; ++i) kernels.Set(static_cast<uint32_t>(i), kKernelOptions[i].name);
  Napi::Object result = Napi::Object::New(env);
  result.Set("backends", names(kBackendNames));
  result.Set("precisions", names(kPrecisionNames));
  result.Set("kernels", kernels);
  result.Set("metrics", names(kMetricNames));
  return result;
}

}  // namespace
}  // namespace cuda_matmul

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  env.SetInstanceData(new cuda_matmul::AddonEnvironment{{}, cuda_matmul::newTaskQueue()});  // deleted with env
  exports.Set("matmulSync", Napi::Function::New(env, cuda_matmul::MatmulSync, "matmulSync"));
  exports.Set("matmul", Napi::Function::New(env, cuda_matmul::MatmulAsync, "matmul"));
  exports.Set("cudaInfo", Napi::Function::New(env, cuda_matmul::CudaInfo, "cudaInfo"));
  exports.Set("cpuInfo", Napi::Function::New(env, cuda_matmul::CpuInfo, "cpuInfo"));
  exports.Set("gemm", Napi::Function::New(env, cuda_matmul::Gemm, "gemm"));
  exports.Set("allocHost", Napi::Function::New(env, cuda_matmul::AllocHost, "allocHost"));
  exports.Set("freeHost", Napi::Function::New(env, cuda_matmul::FreeHost, "freeHost"));
  exports.Set("resultBuffer", Napi::Function::New(env, cuda_matmul::ResultBuffer, "resultBuffer"));
  exports.Set("trimIdle", Napi::Function::New(env, cuda_matmul::TrimIdle, "trimIdle"));
  exports.Set("shutdown", Napi::Function::New(env, cuda_matmul::Shutdown, "shutdown"));
  exports.Set("options", Napi::Function::New(env, cuda_matmul::Options, "options"));
  cuda_matmul::initMatrixBinding(env, exports);
  cuda_matmul::initAbortBinding(env, exports);
  cuda_matmul::initGatheredBinding(env, exports);
  return exports;
}

NODE_API_MODULE(cuda_matmul, Init)
