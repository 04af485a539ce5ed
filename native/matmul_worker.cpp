#include "matmul_worker.h"

#include <memory>

#include "async_task.h"
#include "plan.h"

namespace cuda_matmul {
namespace {

// What the task holds while the product runs: the request and the arrays (and allocHost holds) under it.
struct PendingMatmul {
  MatmulRequest request;
  Napi::Reference<Napi::Float32Array> a, b, out;
  HostUse uses[3];
};

}  // namespace

Napi::Promise queueMatmul(Napi::Env env, MatmulCall call) {
  auto pending = std::make_shared<PendingMatmul>(PendingMatmul{
      call.request, Napi::Persistent(call.a), Napi::Persistent(call.b), Napi::Persistent(call.out),
      {std::move(call.uses[0]), std::move(call.uses[1]), std::move(call.uses[2])}});
  return queueTask(
      env, "cuda-matmul:matmul", [pending] { runMatmul(pending->request); },
      [pending](Napi::Env) -> Napi::Value { return pending->out.Value(); });
}

}  // namespace cuda_matmul
