#include "matmul_worker.h"

#include <memory>

#include "async_task.h"
#include "matmul_inline.h"
#include "plan.h"

namespace cuda_matmul {
namespace {

// What the task holds while the product runs: the request and the arrays (and allocHost holds) under it.
template <class Request>
struct PendingCall {
  Request request;
  Napi::Reference<Napi::Float32Array> a, b, result;
  HostUse uses[3];
};

template <class Request>
Napi::Promise queueArrayCall(Napi::Env env, const char* name, const Request& request, Napi::Float32Array a,
                             Napi::Float32Array b, Napi::Float32Array result, HostUse (&uses)[3],
                             void (*run)(const Request&)) {
  auto pending = std::make_shared<PendingCall<Request>>(PendingCall<Request>{
      request, Napi::Persistent(a), Napi::Persistent(b), Napi::Persistent(result),
      {std::move(uses[0]), std::move(uses[1]), std::move(uses[2])}});
  return queueTask(
      env, name, [pending, run] { run(pending->request); },
      [pending](Napi::Env) -> Napi::Value { return pending->result.Value(); });
}

}  // namespace

Napi::Promise queueMatmul(Napi::Env env, MatmulCall call) {
  if (auto promise = startInlineMatmul(env, call)) return *promise;  // small CUDA products, for latency
  return queueArrayCall(env, "cuda-matmul:matmul", call.request, call.a, call.b, call.out, call.uses, runMatmul);
}

Napi::Promise queueGemm(Napi::Env env, GemmCall call) {
  return queueArrayCall(env, "cuda-matmul:gemm", call.request, call.a, call.b, call.c, call.uses, runGemm);
}

}  // namespace cuda_matmul
