#include "binding/calls.h"

#include <memory>

#include "binding/completion.h"
#include "core/plan.h"

namespace cuda_matmul {

Napi::Promise startArrayCall(Napi::Env env, const char* name, ArrayCall call, std::shared_ptr<CallAbort> abort) {
  auto held = std::make_shared<ArrayCall>(std::move(call));
  return complete(env, name, startGemm(held->request),
                  [held](Napi::Env) { return held->c.delivered(held->cName); }, std::move(abort));
}

Napi::Value runArrayCall(ArrayCall call) {
  const std::unique_ptr<Work> work = startGemm(call.request);
  work->wait();
  work->finish();
  return call.c.array();
}

}  // namespace cuda_matmul
