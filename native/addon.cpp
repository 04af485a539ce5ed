// The native binding: what lib/native.ts loads. Each export validates its arguments (arguments.cpp), then
// runs the plan (plan.cpp) on the calling thread (matmulSync) or on the thread pool (matmul, async_task.h);
// allocHost and freeHost are in host_arrays.cpp; shutdown drops queued work when the process exits.
#include <napi.h>

#include "arguments.h"
#include "async_task.h"
#include "environment.h"
#include "cuda_backend.h"
#include "host_arrays.h"
#include "matrix_binding.h"
#include "js_errors.h"
#include "matmul_worker.h"
#include "plan.h"

namespace cuda_matmul {
namespace {

Napi::Value MatmulSync(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    MatmulCall call = parseMatmulCall(info);
    runMatmul(call.request);
    return call.out.array();
  });
}

Napi::Value MatmulAsync(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value { return queueMatmul(info.Env(), parseMatmulCall(info)); });
}

// gemm on Float32Arrays, off the JavaScript thread; resolves to c.
Napi::Value Gemm(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value { return queueGemm(info.Env(), parseGemmCall(info)); });
}

Napi::Value AllocHost(const Napi::CallbackInfo& info) {
  return guarded(info, [&] { return allocHostArray(info); });
}

Napi::Value FreeHost(const Napi::CallbackInfo& info) {
  return guarded(info, [&] { return freeHostArray(info); });
}

Napi::Value CudaInfo(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  const CudaStatus& status = cudaStatus();
  Napi::Object result = Napi::Object::New(env);
  result.Set("usable", status.usable);
  if (!status.reason.empty()) result.Set("reason", status.reason);
  Napi::Array devices = Napi::Array::New(env, status.devices.size());
  for (size_t i = 0; i < status.devices.size(); ++i) {
    const CudaDeviceInfo& d = status.devices[i];
    Napi::Object device = Napi::Object::New(env);
    device.Set("index", d.index);
    device.Set("name", d.name);
    device.Set("computeCapability", d.computeCapability);
    device.Set("totalMemory", static_cast<double>(d.totalMemory));
    devices.Set(static_cast<uint32_t>(i), device);
  }
  result.Set("devices", devices);
  const MemoryUsage usage = cudaMemoryUsage();
  Napi::Object memory = Napi::Object::New(env);
  memory.Set("deviceBytesInUse", static_cast<double>(usage.deviceBytesInUse));
  memory.Set("deviceBytesCached", static_cast<double>(usage.deviceBytesCached));
  memory.Set("stagingBytes", static_cast<double>(usage.stagingBytes));
  result.Set("memory", memory);
  return result;
}

// The process (or this worker) is exiting: products queued here and not yet started are dropped.
Napi::Value Shutdown(const Napi::CallbackInfo& info) {
  stopTasks(info.Env());
  return info.Env().Undefined();
}

Napi::Value TrimIdle(const Napi::CallbackInfo& info) {
  const double idleSeconds = info[0].IsNumber() ? info[0].As<Napi::Number>().DoubleValue() : 0.0;
  cudaTrimIdle(idleSeconds >= 0 ? idleSeconds : 0.0);
  return info.Env().Undefined();
}

}  // namespace
}  // namespace cuda_matmul

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  env.SetInstanceData(new cuda_matmul::AddonEnvironment{{}, cuda_matmul::newTaskQueue()});  // deleted with env
  exports.Set("matmulSync", Napi::Function::New(env, cuda_matmul::MatmulSync, "matmulSync"));
  exports.Set("matmul", Napi::Function::New(env, cuda_matmul::MatmulAsync, "matmul"));
  exports.Set("cudaInfo", Napi::Function::New(env, cuda_matmul::CudaInfo, "cudaInfo"));
  exports.Set("gemm", Napi::Function::New(env, cuda_matmul::Gemm, "gemm"));
  exports.Set("allocHost", Napi::Function::New(env, cuda_matmul::AllocHost, "allocHost"));
  exports.Set("freeHost", Napi::Function::New(env, cuda_matmul::FreeHost, "freeHost"));
  exports.Set("trimIdle", Napi::Function::New(env, cuda_matmul::TrimIdle, "trimIdle"));
  exports.Set("shutdown", Napi::Function::New(env, cuda_matmul::Shutdown, "shutdown"));
  cuda_matmul::initMatrixBinding(env, exports);
  return exports;
}

NODE_API_MODULE(cuda_matmul, Init)
