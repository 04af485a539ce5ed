// The native binding: what lib/native.ts loads. Each export validates its arguments (arguments.cpp), then
// runs the plan (plan.cpp) on the calling thread (matmulSync) or on the thread pool (matmul).
#include <napi.h>

#include "arguments.h"
#include "cuda_backend.h"
#include "js_errors.h"
#include "matmul_worker.h"
#include "plan.h"

namespace cuda_matmul {
namespace {

// Runs `body`, turning any native exception into the matching JavaScript exception.
template <typename Body>
Napi::Value guarded(const Napi::CallbackInfo& info, Body body) {
  try {
    return body();
  } catch (const Napi::Error&) {
    throw;  // already a JavaScript exception (e.g. a throwing getter on options)
  } catch (const std::exception& e) {
    throw toJsError(info.Env(), e);
  }
}

Napi::Value MatmulSync(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    MatmulCall call = parseMatmulCall(info);
    runMatmul(call.request);
    return call.out;
  });
}

Napi::Value MatmulAsync(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value { return queueMatmul(info.Env(), parseMatmulCall(info)); });
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
  return result;
}

}  // namespace
}  // namespace cuda_matmul

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("matmulSync", Napi::Function::New(env, cuda_matmul::MatmulSync, "matmulSync"));
  exports.Set("matmul", Napi::Function::New(env, cuda_matmul::MatmulAsync, "matmul"));
  exports.Set("cudaInfo", Napi::Function::New(env, cuda_matmul::CudaInfo, "cudaInfo"));
  return exports;
}

NODE_API_MODULE(cuda_matmul, Init)
