#include "matmul_worker.h"

#include <memory>
#include <string>

#include "async_task.h"
#include "errors.h"
#include "matmul_inline.h"
#include "plan.h"

namespace cuda_matmul {
namespace {

// What the task holds while the product runs: the request and the arrays under it.
template <class Request>
struct PendingCall {
  Request request;
  HeldArray a, b, result;
};

template <class Request>
Napi::Promise queueArrayCall(Napi::Env env, const char* name, const Request& request, HeldArray a, HeldArray b,
                             HeldArray result, const char* resultName, void (*run)(const Request&)) {
  auto pending = std::make_shared<PendingCall<Request>>(
      PendingCall<Request>{request, std::move(a), std::move(b), std::move(result)});
  return queueTask(
      env, name, [pending, run] { run(pending->request); },
      [pending, resultName](Napi::Env) { return deliveredOutput(pending->result, resultName); });
}

}  // namespace

Napi::Value deliveredOutput(const HeldArray& out, const char* name) {
  if (!out.intact())
    throw MatmulError(ErrorKind::Type, std::string(name) + ": its ArrayBuffer was detached while the product ran");
  return out.array();
}

Napi::Promise queueMatmul(Napi::Env env, MatmulCall call) {
  if (auto promise = startInlineMatmul(env, call)) return *promise;  // small CUDA products, for latency
  return queueArrayCall(env, "cuda-matmul:matmul", call.request, std::move(call.a), std::move(call.b),
                        std::move(call.out), "out", runMatmul);
}

Napi::Promise queueGemm(Napi::Env env, GemmCall call) {
  return queueArrayCall(env, "cuda-matmul:gemm", call.request, std::move(call.a), std::move(call.b), std::move(call.c), "c",
                        runGemm);
}

}  // namespace cuda_matmul
