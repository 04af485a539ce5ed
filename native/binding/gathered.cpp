#include "binding/gathered.h"

#include <iterator>
#include <memory>
#include <vector>

#include "binding/arguments.h"
#include "binding/completion.h"
#include "binding/environment.h"
#include "binding/js_errors.h"
#include "core/plan.h"

namespace cuda_matmul {
namespace {

// gather(a, b, m, k, n, out) → undefined; a TypeError or RangeError for bad arguments (that call alone).
Napi::Value Gather(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    AddonEnvironment::of(info.Env()).gathered.push_back(parseGatheredCall(info));
    return info.Env().Undefined();
  });
}

// runGathered(count) → Promise<undefined>: the first `count` products gathered and not yet run, in the order they
// were gathered, as one batch. Their arrays stay held until the batch has run; a failure rejects the batch as a whole.
Napi::Value RunGathered(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    std::vector<GatheredCall>& gathered = AddonEnvironment::of(info.Env()).gathered;
    const int64_t count = parseGatheredCount(info[0], static_cast<int64_t>(gathered.size()));
    auto calls = std::make_shared<std::vector<GatheredCall>>(std::make_move_iterator(gathered.begin()),
                                                             std::make_move_iterator(gathered.begin() + count));
    gathered.erase(gathered.begin(), gathered.begin() + count);
    std::vector<SmallProduct> products;
    products.reserve(calls->size());
    for (const GatheredCall& call : *calls) products.push_back(call.product);
    return complete(info.Env(), "cuda-matmul:gathered products", startGathered(std::move(products)),
                    [calls](Napi::Env env) -> Napi::Value { return env.Undefined(); });
  });
}

}  // namespace

void initGatheredBinding(Napi::Env env, Napi::Object exports) {
  exports.Set("gather", Napi::Function::New(env, Gather, "gather"));
  exports.Set("runGathered", Napi::Function::New(env, RunGathered, "runGathered"));
}

void dropGathered(Napi::Env env) { AddonEnvironment::of(env).gathered.clear(); }

}  // namespace cuda_matmul
